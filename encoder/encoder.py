"""The encoder: embedding, then a stack of identical encoder layers."""

from __future__ import annotations

import torch
from torch import nn

from encoder import _checks
from encoder.encoder_layer import EncoderLayer
from encoder.layer_norm import LayerNorm
from encoder.masks import check_mask, padding_mask
from encoder.transformer_embedding import (
    TransformerEmbedding,
    check_embedding_input,
)


def _check_args(n_layers: int, embedding_norm: bool, scale_embedding: bool) -> None:
    _checks.positive_ints(n_layers=n_layers)
    _checks.bools(embedding_norm=embedding_norm, scale_embedding=scale_embedding)


def _check_inputs(
    self: Encoder,
    ids: torch.Tensor,
    mask: torch.Tensor | None = None,
    token_types: torch.Tensor | None = None,
) -> None:
    check_embedding_input(self.embedding, ids, token_types)
    if mask is not None:
        B, T = ids.shape
        check_mask(mask, (B, self.n_head, T, T))


# --8<-- [start:encoder]
# --8<-- [start:encoder_class]
class Encoder(nn.Module):
    # --8<-- [end:encoder_class]
    """Token ids in, one contextual d_model-wide vector per token out.

    Padding tokens (``padding_idx``) are masked out as keys, so they never change the
    outputs at real positions. An explicit ``mask`` (a causal one, say) is combined
    with that padding mask: a query may attend to a key only where both allow it, as
    ``nn.TransformerEncoder`` combines ``mask`` and ``src_key_padding_mask``. Pre-norm
    stacks end with a final LayerNorm, because their residual stream is never
    normalised otherwise.

    Args:
        vocab_size: number of token ids.
        d_model: model width; must be divisible by n_head.
        n_head: number of attention heads.
        d_ff: hidden width of the feed-forward networks.
        n_layers: number of encoder layers in the stack.
        max_len: longest sequence the positional table covers.
        dropout: dropout probability used throughout (embedding sum, attention, FFN,
            sub-layers), in [0, 1].
        padding_idx: padding token id, always masked out as a key; ``None`` for no
            padding.
        norm_first: pre-norm layers (and a final LayerNorm) instead of post-norm.
        eps: the epsilon of every LayerNorm, > 0 (BERT: 1e-12).
        activation: the feed-forward's, ``"relu"`` (the paper) or ``"gelu"`` (BERT).
        positions: ``"sinusoidal"`` (the paper) or ``"learned"`` (BERT).
        n_token_types: rows of the embedding's token-type table (BERT: 2); 0 for
            none.
        embedding_norm: a LayerNorm on the embedding's sum (BERT).
        scale_embedding: token vectors times sqrt(d_model), as in the paper (BERT:
            False).

    Shape:
        ids: (B, T) integer tensor, T <= max_len
        mask: bool, broadcastable to (B, n_head, T, T), True = may attend;
            combined with the padding mask by ``&``
        token_types: (B, T) integer tensor in [0, n_token_types), or None: all 0
        -> (B, T, d_model)
    """

    # --8<-- [start:encoder_core]
    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        n_head: int,
        d_ff: int,
        n_layers: int,
        max_len: int,
        dropout: float = 0.1,
        padding_idx: int | None = 0,
        norm_first: bool = False,
        eps: float = 1e-5,
        activation: str = "relu",
        positions: str = "sinusoidal",
        n_token_types: int = 0,
        embedding_norm: bool = False,
        scale_embedding: bool = True,
    ) -> None:
        super().__init__()
        # The parts check the rest of the arguments.
        _check_args(n_layers, embedding_norm, scale_embedding)
        self.padding_idx, self.n_head = padding_idx, n_head
        self.embedding = TransformerEmbedding(
            vocab_size, d_model, max_len, dropout, padding_idx,
            scale=scale_embedding, positions=positions, n_token_types=n_token_types,
            norm=embedding_norm, eps=eps,
        )  # fmt: skip
        self.layers = nn.ModuleList(
            EncoderLayer(d_model, n_head, d_ff, dropout, norm_first, eps, activation)
            for _ in range(n_layers)
        )
        self.norm = LayerNorm(d_model, eps) if norm_first else nn.Identity()

    @_checks.checked_by(_check_inputs)
    def forward(
        self,
        ids: torch.Tensor,
        mask: torch.Tensor | None = None,
        token_types: torch.Tensor | None = None,
    ) -> torch.Tensor:
        x = self.embedding(ids, token_types)  # (B, T, d_model)
        if self.padding_idx is not None:  # padding keys stay masked, whatever mask says
            pad = padding_mask(ids, self.padding_idx)  # (B, 1, 1, T)
            mask = pad if mask is None else mask & pad  # (B, H|1, T|1, T)
        for layer in self.layers:
            x = layer(x, mask)  # (B, T, d_model)
        return self.norm(x)

    # --8<-- [end:encoder_core]


# --8<-- [end:encoder]
