"""What the Train page changes in a model to test a claim, and a look inside one."""

from __future__ import annotations

import math

import torch
from torch import nn

from encoder import _checks
from encoder.encoder import Encoder


# --8<-- [start:unscaled]
class ScaleQueries:
    """A forward hook for an attention's ``in_proj``: multiplies the queries, the first
    d_model columns of its output [q | k | v], by ``factor``. A class rather than a
    lambda, so that a model carrying it still pickles."""

    def __init__(self, d_model: int, factor: float) -> None:
        self.d_model, self.factor = d_model, factor

    def __call__(
        self, module: nn.Linear, args: tuple, out: torch.Tensor
    ) -> torch.Tensor | None:
        if getattr(module, "query_scaling", None) is not self:
            return None  # replaced by a later remove_score_scaling: scale once only
        q, kv = out.split([self.d_model, out.size(-1) - self.d_model], dim=-1)
        return torch.cat([q * self.factor, kv], dim=-1)  # any dtype, any device


def remove_score_scaling(encoder: Encoder) -> list[torch.utils.hooks.RemovableHandle]:
    """Make every attention of ``encoder`` compute softmax(q k^T) instead of
    softmax(q k^T / sqrt(d_head)): multiply its queries by sqrt(d_head), which cancels
    the division. Returns the hooks' handles; ``handle.remove()`` undoes it. Calling
    it again changes nothing: the queries are scaled once.
    """
    _checks.instance("encoder", encoder, Encoder)
    handles = []
    for layer in encoder.layers:
        attn = layer.self_attn
        hook = ScaleQueries(attn.d_model, math.sqrt(attn.d_head))
        attn.in_proj.query_scaling = hook  # the one hook of in_proj that acts
        # A forward hook may replace a module's output: here, queries scaled up.
        handles.append(attn.in_proj.register_forward_hook(hook))
    return handles


# --8<-- [end:unscaled]


# --8<-- [start:maps]
@torch.no_grad()
def attention_maps(
    encoder: Encoder, ids: torch.Tensor, token_types: torch.Tensor | None = None
) -> torch.Tensor:
    """The attention weights of every layer and head of ``encoder`` for ``ids`` (and
    their ``token_types``, for an encoder with a token-type table).

    Runs the encoder once and records what each attention receives, then asks each
    attention for its weights on that input (``need_weights=True``). Both run in
    evaluation mode (no dropout), whatever mode the encoder is in; it is left in it.

    Shape:
        ids: (B, T)  ->  (n_layers, B, n_head, T, T)
    """
    _checks.instance("encoder", encoder, Encoder)  # the encoder checks the ids
    calls: list[tuple] = []
    hooks = [
        layer.self_attn.register_forward_pre_hook(lambda m, args: calls.append(args))
        for layer in encoder.layers
    ]
    training = encoder.training
    try:
        encoder.eval()(ids, token_types=token_types)  # evaluation: no dropout
        for hook in hooks:
            hook.remove()
        maps = [
            layer.self_attn(*args, need_weights=True)[1]  # (B, H, T, T)
            for layer, args in zip(encoder.layers, calls, strict=True)
        ]
    finally:
        for hook in hooks:  # (removing a hook twice does nothing)
            hook.remove()
        encoder.train(training)
    return torch.stack(maps)


# --8<-- [end:maps]
