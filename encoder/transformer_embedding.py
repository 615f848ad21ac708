"""Transformer embedding: token embedding + positional encoding + dropout."""

from __future__ import annotations

import torch
from torch import nn

from encoder import _checks
from encoder.positional import PositionalEncoding
from encoder.token_embedding import TokenEmbedding, check_range


def check_embedding_input(self: TransformerEmbedding, ids: torch.Tensor) -> None:
    """(B, T) ids that the token table has rows for."""
    _checks.tensor("ids", ids, ("B", "T"), ids=True)
    check_range(self.token, ids)


# --8<-- [start:embedding]
# --8<-- [start:embedding_class]
class TransformerEmbedding(nn.Module):
    # --8<-- [end:embedding_class]
    """What the first encoder layer sees: scaled token vectors plus positions,
    with dropout.

    Args:
        vocab_size: number of token ids; the embedding table has this many rows.
        d_model: width of the token vectors and of the positional encoding.
        max_len: longest sequence the positional table covers.
        dropout: dropout probability on the sum of token vectors and positions, in
            [0, 1].
        padding_idx: id of the padding token, whose row stays zero; ``None`` for none.

    Shape:
        ids: (B, T) integer tensor with T <= max_len  ->  (B, T, d_model)
    """

    # --8<-- [start:embedding_core]
    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        max_len: int,
        dropout: float = 0.1,
        padding_idx: int | None = None,
    ) -> None:
        super().__init__()
        self.token = TokenEmbedding(vocab_size, d_model, padding_idx=padding_idx)
        self.position = PositionalEncoding(
            d_model, max_len, dropout
        )  # adds PE, then dropout

    @_checks.checked_by(check_embedding_input)
    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.position(self.token(ids))  # (B, T) -> (B, T, d) -> (B, T, d)

    # --8<-- [end:embedding_core]


# --8<-- [end:embedding]
