"""Position-wise feed-forward network: the same two-layer MLP at every position."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from encoder import _checks

ACTIVATIONS = ("relu", "gelu")


def _check_args(d_model: int, d_ff: int, dropout: float, activation: str) -> None:
    _checks.positive_ints(d_model=d_model, d_ff=d_ff)
    _checks.probability("dropout", dropout)
    _checks.choice("activation", activation, ACTIVATIONS)


def _check_input(self: PositionwiseFeedForward, x: torch.Tensor) -> None:
    _checks.tensor("x", x, ("...", self.linear1.in_features))


# --8<-- [start:ffn]
# --8<-- [start:ffn_class]
class PositionwiseFeedForward(nn.Module):
    # --8<-- [end:ffn_class]
    """FFN(x) = max(0, x W_1 + b_1) W_2 + b_2, applied to each position independently.

    Args:
        d_model: input and output width.
        d_ff: hidden width (the paper uses 4 * d_model = 2048).
        dropout: dropout on the hidden activations, in [0, 1], as in
            ``nn.TransformerEncoderLayer``.
        activation: ``"relu"``, as in the paper, or ``"gelu"``, x * Phi(x) with the
            exact (erf) Phi, as in BERT; the names ``nn.TransformerEncoderLayer`` takes.

    Shape:
        x: (..., d_model)  ->  (..., d_model)
    """

    # --8<-- [start:ffn_core]
    def __init__(
        self, d_model: int, d_ff: int, dropout: float = 0.1, activation: str = "relu"
    ) -> None:
        super().__init__()
        _check_args(d_model, d_ff, dropout, activation)
        self.linear1 = nn.Linear(d_model, d_ff)  # W_1, b_1
        self.linear2 = nn.Linear(d_ff, d_model)  # W_2, b_2
        self.dropout = nn.Dropout(dropout)
        self.activation = activation

    @_checks.checked_by(_check_input)
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.linear1(x)  # (..., d_ff)
        if self.activation == "gelu":
            h = F.gelu(h)  # the exact GELU, by erf (approximate="none")
        else:
            # In place when autograd records nothing (inference): saves a
            # (..., d_ff) tensor. When it records, in place on linear's output would
            # cost backward an extra copy.
            h = F.relu(h, inplace=not h.requires_grad)
        return self.linear2(self.dropout(h))  # (..., d_model)

    # --8<-- [end:ffn_core]


# --8<-- [end:ffn]
