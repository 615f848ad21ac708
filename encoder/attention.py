"""Scaled dot-product attention and multi-head attention."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from encoder import _checks
from encoder.masks import check_mask


def _check_sdpa_inputs(q, k, v, mask=None, dropout_p=0.0) -> None:  # as the function's
    for name, t in (("q", q), ("k", k), ("v", v)):
        _checks.tensor(name, t, ("...", "T", "d"))
    _checks.probability("dropout_p", dropout_p)
    if q.size(-1) != k.size(-1) or k.size(-2) != v.size(-2):
        raise ValueError(
            "q and k must share d_k, k and v their length Tk; got q "
            f"{tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}"
        )
    try:
        lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(
            "the leading dimensions of q, k and v do not broadcast: "
            f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}"
        ) from None
    if mask is not None:  # any number of leading dimensions, as the scores have
        scores = (*lead, q.size(-2), k.size(-2))
        check_mask(mask, scores, "(..., Tq, Tk)")


# --8<-- [start:sdpa]
@_checks.checked_by(_check_sdpa_inputs)
def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q k^T / sqrt(d_k)) v, written out step by step.

    Args:
        mask: bool, broadcastable to (..., Tq, Tk); True = may attend. A query whose
            keys are all masked gets zero weights, so its output is zero (not NaN, not
            an average).
        dropout_p: dropout on the attention weights, in [0, 1] (0.0 in evaluation).

    Shape:
        q: (..., Tq, d_k), k: (..., Tk, d_k), v: (..., Tk, d_v)
        -> out (..., Tq, d_v), weights (..., Tq, Tk)
    """
    # Scale q before the product: q k^T itself can overflow fp16 (max 65504) where the
    # scaled scores are small.
    scores = (q / math.sqrt(q.size(-1))) @ k.transpose(-2, -1)  # (..., Tq, Tk)
    if mask is not None:
        # The most negative finite value of the dtype: -1e9 would overflow in fp16.
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    weights = scores.softmax(dim=-1)
    if mask is not None:
        # A fully masked row becomes all zeros.
        weights = weights.masked_fill(~mask, 0.0)
    if dropout_p > 0.0:
        weights = F.dropout(weights, dropout_p)
    return weights @ v, weights  # (..., Tq, d_v), (..., Tq, Tk)


# --8<-- [end:sdpa]


def _check_mha_args(d_model: int, n_head: int, dropout: float) -> None:
    _checks.positive_ints(d_model=d_model, n_head=n_head)
    _checks.probability("dropout", dropout)
    if d_model % n_head != 0:
        raise ValueError(f"d_model ({d_model}) is not a multiple of n_head ({n_head})")


def _check_mha_inputs(
    self: MultiHeadAttention,
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    need_weights: bool = False,
) -> None:
    for name, t in (("q", q), ("k", k), ("v", v)):
        _checks.tensor(name, t, ("B", "T", self.d_model))
    _checks.bools(need_weights=need_weights)
    if k.shape[:2] != v.shape[:2]:
        raise ValueError(
            "k and v must share batch and length, "
            f"got {tuple(k.shape)} and {tuple(v.shape)}"
        )
    if q.size(0) != k.size(0):
        raise ValueError(f"q has batch {q.size(0)} but k and v have batch {k.size(0)}")
    if mask is not None:
        check_mask(mask, (q.size(0), self.n_head, q.size(1), k.size(1)))


# --8<-- [start:mha]
# --8<-- [start:mha_class]
class MultiHeadAttention(nn.Module):
    # --8<-- [end:mha_class]
    """n_head attentions in parallel, each on its own d_model / n_head slice.

    W^Q, W^K and W^V are stacked in one (3 d_model, d_model) projection, as in
    ``nn.MultiheadAttention``; self-attention projects with one matrix product.

    Initialised as ``nn.MultiheadAttention``: Xavier-uniform on the stacked
    [W^Q; W^K; W^V], zero biases.

    Args:
        d_model: model width; must be divisible by n_head.
        n_head: number of heads.
        dropout: dropout on the attention weights during training, in [0, 1].

    Shape:
        q: (B, Tq, d_model); k, v: (B, Tk, d_model)
        mask: bool, broadcastable to (B, n_head, Tq, Tk), True = may attend
        -> (B, Tq, d_model), and with need_weights=True also weights (B, n_head, Tq, Tk)
    """

    # --8<-- [start:mha_core]
    def __init__(self, d_model: int, n_head: int, dropout: float = 0.0) -> None:
        super().__init__()
        _check_mha_args(d_model, n_head, dropout)
        self.d_model, self.n_head, self.d_head = d_model, n_head, d_model // n_head
        self.dropout = dropout
        self.in_proj = nn.Linear(d_model, 3 * d_model)  # [W^Q; W^K; W^V]
        self.out_proj = nn.Linear(d_model, d_model)  # W^O
        # nn.MultiheadAttention's initialisation: both start from the same distribution
        nn.init.xavier_uniform_(self.in_proj.weight)
        nn.init.zeros_(self.in_proj.bias)
        nn.init.zeros_(self.out_proj.bias)

    @_checks.checked_by(_check_mha_inputs)
    def forward(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        mask: torch.Tensor | None = None,
        need_weights: bool = False,
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        B, Tq, _ = q.shape
        Tk, H, dh = k.size(1), self.n_head, self.d_head
        if mask is not None:
            # F.scaled_dot_product_attention rejects 0-D and 1-D masks:
            # give every mask 4 dims.
            shape = (1,) * (4 - mask.dim()) + tuple(mask.shape)
            mask = mask.view(shape)  # (B|1, H|1, Tq|1, Tk|1)

        if q is k and k is v:  # self-attention: one matmul for all three projections
            q, k, v = self.in_proj(q).chunk(3, dim=-1)  # 3 x (B, T, d)
        else:  # cross-attention: keys and values may have another length than queries
            w, b = self.in_proj.weight.chunk(3), self.in_proj.bias.chunk(3)
            q, k, v = (
                F.linear(q, w[0], b[0]),
                F.linear(k, w[1], b[1]),
                F.linear(v, w[2], b[2]),
            )
        q = q.view(B, Tq, H, dh).transpose(1, 2)  # (B, H, Tq, dh)
        k = k.view(B, Tk, H, dh).transpose(1, 2)  # (B, H, Tk, dh)
        v = v.view(B, Tk, H, dh).transpose(1, 2)  # (B, H, Tk, dh)

        p = self.dropout if self.training else 0.0
        if need_weights:  # the explicit formula: it has the weights to return
            out, weights = scaled_dot_product_attention(q, k, v, mask, p)
        else:  # PyTorch's fused kernel: the same result; with the flash or
            # memory-efficient backend, it does not build the (Tq, Tk) matrix
            if mask is not None:
                # A query with no key to attend to would meet backends that disagree
                # (cuDNN's gives NaN gradients): let it attend to every key, then zero
                # its output below, the value the explicit path defines.
                empty = ~mask.any(dim=-1, keepdim=True)  # (B|1, H|1, Tq|1, 1)
                # (CUDA's kernels want the key dimension stored, not broadcast)
                mask = (mask | empty).expand(-1, -1, -1, Tk).contiguous()
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
            if mask is not None:
                out = out.masked_fill(empty, 0.0)
        # (B, Tq, H * dh): the heads side by side
        out = out.transpose(1, 2).reshape(B, Tq, self.d_model)
        out = self.out_proj(out)  # (B, Tq, d_model)
        return (out, weights) if need_weights else out

    # --8<-- [end:mha_core]

    # --8<-- [end:mha]

    @classmethod
    def from_torch(cls, mha: nn.MultiheadAttention) -> MultiHeadAttention:
        """A MultiHeadAttention with the weights of ``mha``.

        Our module is batch-first; ``mha.batch_first`` only changes the input layout,
        not the weights. Key/value biases, zero attention and kdim/vdim != embed_dim
        are rejected. The copy is in ``mha``'s training or evaluation mode.
        """
        _checks.instance("mha", mha, nn.MultiheadAttention)
        if not mha._qkv_same_embed_dim or mha.bias_k is not None or mha.add_zero_attn:
            raise ValueError(
                "from_torch needs kdim == vdim == embed_dim, add_bias_kv=False and "
                f"add_zero_attn=False; got kdim={mha.kdim}, vdim={mha.vdim}, "
                f"add_bias_kv={mha.bias_k is not None}, "
                f"add_zero_attn={mha.add_zero_attn}"
            )
        ours = cls(mha.embed_dim, mha.num_heads, mha.dropout)
        ours = ours.to(device=mha.in_proj_weight.device, dtype=mha.in_proj_weight.dtype)
        with torch.no_grad():
            ours.in_proj.weight.copy_(mha.in_proj_weight)
            ours.out_proj.weight.copy_(mha.out_proj.weight)
            pairs = (
                (ours.in_proj, mha.in_proj_bias),
                (ours.out_proj, mha.out_proj.bias),
            )
            for mine, bias in pairs:
                mine.bias.copy_(
                    bias if bias is not None else torch.zeros_like(mine.bias)
                )
        return ours.train(mha.training)
