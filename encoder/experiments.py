"""What the Train page changes in a model to test a claim, and a look inside one."""

from __future__ import annotations

import math

import torch
from torch import nn

from encoder import _checks
from encoder.encoder import Encoder


# --8<-- [start:learned]
class LearnedPositionalEncoding(nn.Module):
    """A learned (max_len, d_model) table added to the embeddings, as in BERT, in place
    of the sinusoidal one; then dropout.

    Shape:
        x: (B, T, d_model) with T <= max_len  ->  (B, T, d_model)
    """

    def __init__(self, d_model: int, max_len: int, dropout: float = 0.0) -> None:
        super().__init__()
        _checks.positive_ints(d_model=d_model, max_len=max_len)
        _checks.probability("dropout", dropout)
        self.d_model, self.max_len = d_model, max_len
        self.table = nn.Parameter(torch.randn(max_len, d_model) * 0.5**0.5)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _checks.tensor("x", x, ("B", "T", self.d_model))
        T = x.size(1)
        if T > self.max_len:
            raise ValueError(f"sequence length {T} exceeds max_len={self.max_len}")
        return self.dropout(x + self.table[:T])  # (B, T, d) + (T, d)


# --8<-- [end:learned]


# --8<-- [start:unscaled]
def remove_score_scaling(encoder: Encoder) -> list[torch.utils.hooks.RemovableHandle]:
    """Make every attention of ``encoder`` compute softmax(q k^T) instead of
    softmax(q k^T / sqrt(d_head)): multiply its queries by sqrt(d_head), which cancels
    the division. Returns the hooks' handles; ``handle.remove()`` undoes it.
    """
    _checks.instance("encoder", encoder, Encoder)
    handles = []
    for layer in encoder.layers:
        attn = layer.self_attn
        factor = torch.ones(3 * attn.d_model)  # scales [q | k | v] of in_proj's output
        factor[: attn.d_model] = math.sqrt(attn.d_head)
        # A forward hook may replace a module's output: here, queries scaled up.
        scale_queries = lambda module, args, out, f=factor: out * f  # noqa: E731
        handles.append(attn.in_proj.register_forward_hook(scale_queries))
    return handles


# --8<-- [end:unscaled]


# --8<-- [start:maps]
@torch.no_grad()
def attention_maps(encoder: Encoder, ids: torch.Tensor) -> torch.Tensor:
    """The attention weights of every layer and head of ``encoder`` for ``ids``.

    Runs the encoder once and records what each attention receives, then asks each
    attention for its weights on that input (``need_weights=True``).

    Shape:
        ids: (B, T)  ->  (n_layers, B, n_head, T, T)
    """
    _checks.instance("encoder", encoder, Encoder)  # the encoder checks the ids
    calls: list[tuple] = []
    hooks = [
        layer.self_attn.register_forward_pre_hook(lambda m, args: calls.append(args))
        for layer in encoder.layers
    ]
    try:
        encoder(ids)
    finally:
        for hook in hooks:
            hook.remove()
    maps = [
        layer.self_attn(*args, need_weights=True)[1]  # (B, H, T, T)
        for layer, args in zip(encoder.layers, calls, strict=True)
    ]
    return torch.stack(maps)


# --8<-- [end:maps]
