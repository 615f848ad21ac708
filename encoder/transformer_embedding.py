"""Transformer embedding: token embedding + positional encoding + dropout; and what
BERT adds: learned positions, token types, a LayerNorm on the sum."""

from __future__ import annotations

import torch
from torch import nn

from encoder import _checks
from encoder.layer_norm import LayerNorm
from encoder.positional import LearnedPositionalEncoding, PositionalEncoding
from encoder.token_embedding import TokenEmbedding, check_range

POSITIONS = {"sinusoidal": PositionalEncoding, "learned": LearnedPositionalEncoding}


def _check_args(
    positions: str, n_token_types: int, norm: bool, eps: float
) -> None:  # the sub-modules check the rest
    _checks.choice("positions", positions, tuple(POSITIONS))
    _checks.non_negative_ints(n_token_types=n_token_types)
    _checks.bools(norm=norm)
    _checks.positive_float("eps", eps)


def check_embedding_input(
    self: TransformerEmbedding,
    ids: torch.Tensor,
    token_types: torch.Tensor | None = None,
) -> None:
    """(B, T) ids that the token table has rows for, and token types of the same
    shape that the token-type table has rows for."""
    _checks.tensor("ids", ids, ("B", "T"), ids=True)
    check_range(self.token, ids)
    if token_types is None:
        return
    if self.token_type is None:
        raise ValueError(
            "token_types given, but this embedding has no token-type table "
            "(n_token_types=0)"
        )
    _checks.tensor("token_types", token_types, tuple(ids.shape), ids=True)
    check_range(self.token_type, token_types, "token_types")


# --8<-- [start:embedding]
# --8<-- [start:embedding_class]
class TransformerEmbedding(nn.Module):
    # --8<-- [end:embedding_class]
    """What the first encoder layer sees: scaled token vectors plus positions,
    with dropout.

    BERT's embedding is the same sum with three changes, each an option here: no
    sqrt(d_model) scale, learned positions, a learned vector per token type (sentence
    A or B) added too; and a LayerNorm on the sum, before the dropout.

    Args:
        vocab_size: number of token ids; the embedding table has this many rows.
        d_model: width of the token vectors and of the positional encoding.
        max_len: longest sequence the positional table covers.
        dropout: dropout probability on the sum of token vectors and positions, in
            [0, 1].
        padding_idx: id of the padding token, whose row stays zero; ``None`` for none.
        scale: multiply the token vectors by sqrt(d_model), as in the paper.
        positions: ``"sinusoidal"`` (the paper's fixed table) or ``"learned"``.
        n_token_types: rows of the token-type table (BERT: 2); 0 for none.
        norm: a LayerNorm on the sum, before the dropout (BERT).
        eps: that LayerNorm's epsilon, > 0.

    Shape:
        ids: (B, T) integer tensor with T <= max_len
        token_types: (B, T) integer tensor in [0, n_token_types), or None: all 0
        -> (B, T, d_model)
    """

    # --8<-- [start:embedding_core]
    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        max_len: int,
        dropout: float = 0.1,
        padding_idx: int | None = None,
        scale: bool = True,
        positions: str = "sinusoidal",
        n_token_types: int = 0,
        norm: bool = False,
        eps: float = 1e-5,
    ) -> None:
        super().__init__()
        _check_args(positions, n_token_types, norm, eps)
        self.token = TokenEmbedding(vocab_size, d_model, padding_idx, scale)
        self.token_type = (
            nn.Embedding(n_token_types, d_model) if n_token_types else None
        )
        # Dropout comes last: in the positions' module (adds, then drops), or after
        # the norm when there is one.
        self.position = POSITIONS[positions](d_model, max_len, 0.0 if norm else dropout)
        self.norm = LayerNorm(d_model, eps) if norm else nn.Identity()
        self.dropout = nn.Dropout(dropout) if norm else nn.Identity()

    @_checks.checked_by(check_embedding_input)
    def forward(
        self, ids: torch.Tensor, token_types: torch.Tensor | None = None
    ) -> torch.Tensor:
        x = self.token(ids)  # (B, T, d)
        if self.token_type is not None:
            types = torch.zeros_like(ids) if token_types is None else token_types
            x = x + self.token_type(types)  # (B, T, d): one vector per type
        return self.dropout(self.norm(self.position(x)))  # (B, T, d)

    # --8<-- [end:embedding_core]


# --8<-- [end:embedding]
