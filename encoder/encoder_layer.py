"""One encoder layer: self-attention and feed-forward, each wrapped in
residual + LayerNorm.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from encoder import _checks
from encoder.attention import MultiHeadAttention
from encoder.feed_forward import PositionwiseFeedForward
from encoder.layer_norm import LayerNorm
from encoder.masks import check_mask


def _activation_name(fn: object) -> str | None:
    """The name of ``nn.TransformerEncoderLayer``'s activation among ours, else None."""
    if fn in (F.relu, torch.relu) or isinstance(fn, nn.ReLU):
        return "relu"
    exact = isinstance(fn, nn.GELU) and fn.approximate == "none"
    return "gelu" if fn is F.gelu or exact else None


def _check_layer_inputs(
    self: EncoderLayer, x: torch.Tensor, mask: torch.Tensor | None = None
) -> None:
    _checks.tensor("x", x, ("B", "T", self.self_attn.d_model))
    if mask is not None:
        B, T, _ = x.shape
        check_mask(mask, (B, self.self_attn.n_head, T, T))


# --8<-- [start:layer]
# --8<-- [start:layer_class]
class EncoderLayer(nn.Module):
    # --8<-- [end:layer_class]
    """Self-attention, then feed-forward; each sub-layer has a residual connection.

    Post-norm (the paper, the posts, and PyTorch's default): x = norm(x + sublayer(x)).
    Pre-norm (``norm_first=True``):                          x = x + sublayer(norm(x)).

    Args:
        d_model: model width; must be divisible by n_head.
        n_head: number of attention heads.
        d_ff: hidden width of the feed-forward network.
        dropout: on the attention weights, the FFN hidden layer and each sub-layer
            output, in [0, 1].
        norm_first: pre-norm instead of post-norm.
        eps: LayerNorm epsilon, > 0.
        activation: the feed-forward's, ``"relu"`` (the paper) or ``"gelu"`` (BERT).

    Shape:
        x: (B, T, d_model); mask: bool, broadcastable to (B, n_head, T, T),
            True = may attend
        -> (B, T, d_model)
    """

    # --8<-- [start:layer_core]
    def __init__(
        self,
        d_model: int,
        n_head: int,
        d_ff: int,
        dropout: float = 0.1,
        norm_first: bool = False,
        eps: float = 1e-5,
        activation: str = "relu",
    ) -> None:
        super().__init__()
        _checks.bools(norm_first=norm_first)  # the sub-modules check the rest
        self.self_attn = MultiHeadAttention(d_model, n_head, dropout)
        self.ff = PositionwiseFeedForward(d_model, d_ff, dropout, activation)
        self.norm1 = LayerNorm(d_model, eps)
        self.norm2 = LayerNorm(d_model, eps)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.norm_first = norm_first

    @_checks.checked_by(_check_layer_inputs)
    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, mask))
            x = self.norm2(x + self._ff_block(x))
        return x  # (B, T, d_model)

    def _sa_block(self, x: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        return self.dropout1(self.self_attn(x, x, x, mask))

    def _ff_block(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout2(self.ff(x))

    # --8<-- [end:layer_core]

    # --8<-- [end:layer]

    @classmethod
    def from_torch(cls, layer: nn.TransformerEncoderLayer) -> EncoderLayer:
        """An EncoderLayer with the weights of ``layer`` (a ReLU or exact GELU
        activation), in ``layer``'s training or evaluation mode."""
        _checks.instance("layer", layer, nn.TransformerEncoderLayer)
        activation = _activation_name(layer.activation)
        if activation is None:
            raise ValueError(
                "from_torch supports activation=relu or gelu (exact), "
                f"got {layer.activation!r}"
            )
        if layer.norm1.eps != layer.norm2.eps:
            raise ValueError(
                f"norm1.eps ({layer.norm1.eps}) != norm2.eps ({layer.norm2.eps})"
            )
        attn = MultiHeadAttention.from_torch(layer.self_attn)
        ours = cls(
            attn.d_model,
            attn.n_head,
            layer.linear1.out_features,
            dropout=layer.dropout.p,
            norm_first=layer.norm_first,
            eps=layer.norm1.eps,
            activation=activation,
        ).to(device=layer.linear1.weight.device, dtype=layer.linear1.weight.dtype)
        ours.self_attn = attn
        ours.norm1 = LayerNorm.from_torch(layer.norm1)
        ours.norm2 = LayerNorm.from_torch(layer.norm2)
        with torch.no_grad():
            for lin in ("linear1", "linear2"):
                mine, theirs = getattr(ours.ff, lin), getattr(layer, lin)
                mine.weight.copy_(theirs.weight)
                if theirs.bias is not None:
                    mine.bias.copy_(theirs.bias)
                else:  # bias=False in torch: a zero bias computes the same thing
                    mine.bias.zero_()
        return ours.train(layer.training)
