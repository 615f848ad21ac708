"""Positional encoding: the sinusoidal table (Vaswani et al., 2017, section 3.5), and
a learned one in its place (BERT)."""

from __future__ import annotations

import torch
from torch import nn

from encoder import _checks


def _check_table_args(
    n_positions: int, d_model: int, dtype: torch.dtype = torch.float32
) -> None:
    _checks.positive_ints(n_positions=n_positions, d_model=d_model)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch.dtype, got {dtype!r}")


# --8<-- [start:table]
@_checks.checked_by(_check_table_args)
def sinusoidal_table(
    n_positions: int, d_model: int, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """The (n_positions, d_model) sinusoidal table.

    PE[pos, 2k] = sin(pos * w_k) and PE[pos, 2k+1] = cos(pos * w_k),
    w_k = 10000 ** (-2k / d_model).
    Computed in float64, then cast to ``dtype``.
    An odd d_model is allowed: the last column is a sine with no cosine partner.
    """
    pos = torch.arange(n_positions, dtype=torch.float64).unsqueeze(1)  # (P, 1)
    # (ceil(d/2),): the sine columns 0, 2, 4, ...
    two_k = torch.arange(0, d_model, 2, dtype=torch.float64)
    omega = 10000.0 ** (-two_k / d_model)  # (ceil(d/2),): one per sin/cos pair
    angle = pos * omega  # (P, ceil(d/2)) by broadcasting
    table = torch.empty(n_positions, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    # An odd d_model has one cosine column fewer than sine columns.
    table[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return table.to(dtype)


# --8<-- [end:table]


def _check_args(d_model: int, max_len: int, dropout: float) -> None:
    _checks.positive_ints(d_model=d_model, max_len=max_len)
    _checks.probability("dropout", dropout)


def _check_input(
    self: PositionalEncoding | LearnedPositionalEncoding, x: torch.Tensor
) -> None:
    _checks.tensor("x", x, ("B", "T", self.d_model))


def _check_length(
    self: PositionalEncoding | LearnedPositionalEncoding, x: torch.Tensor
) -> None:
    T = x.size(1)
    if T > self.max_len:
        raise ValueError(
            f"sequence length {T} exceeds max_len={self.max_len}, "
            "the longest sequence the positional table was built for; "
            f"pass max_len >= {T}"
        )


def _rebuild_table(module: PositionalEncoding, incompatible_keys: object) -> None:
    """After ``load_state_dict``: the table again from the formula, in the dtype and on
    the device it has now, undoing any rounding (a trip through ``.half()``, say)."""
    pe = module.pe
    table = sinusoidal_table(module.max_len, module.d_model, pe.dtype)
    module.pe = table.to(pe.device)


# --8<-- [start:pe]
# --8<-- [start:pe_class]
class PositionalEncoding(nn.Module):
    # --8<-- [end:pe_class]
    """Adds the sinusoidal table to a batch of embeddings, then applies dropout.

    The table is a buffer that is not saved: it follows ``.to(device)`` and ``.half()``
    with the parameters, and a checkpoint loads into a model of any ``max_len``.
    ``load_state_dict`` computes it again from the formula, so loading a checkpoint
    undoes the rounding of a trip through ``.half()``.

    Args:
        d_model: width of the embeddings.
        max_len: longest sequence the table covers.
        dropout: dropout probability applied to the sum, in [0, 1] (the paper uses 0.1).

    Shape:
        x: (B, T, d_model) with T <= max_len  ->  (B, T, d_model), same dtype as x.
    """

    # --8<-- [start:pe_core]
    def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.1) -> None:
        super().__init__()
        _check_args(d_model, max_len, dropout)
        self.d_model = d_model
        self.max_len = max_len
        self.dropout = nn.Dropout(dropout)
        # A buffer, not a plain attribute: it follows .to(device) / .half() with the
        # parameters. Not persistent: a formula, not learned, so a checkpoint need not
        # carry it, and loads into a model with another max_len.
        self.register_buffer(
            "pe",
            sinusoidal_table(max_len, d_model, torch.get_default_dtype()),
            persistent=False,
        )
        self.register_load_state_dict_post_hook(_rebuild_table)

    @_checks.checked_by(_check_input, always=_check_length)
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        T = x.size(1)
        # Cast the table to x's dtype so an fp16 batch stays fp16.
        return self.dropout(x + self.pe[:T].to(x.dtype))  # (B, T, d) + (T, d)

    # --8<-- [end:pe_core]


# --8<-- [end:pe]


# --8<-- [start:learned]
class LearnedPositionalEncoding(nn.Module):
    """A learned (max_len, d_model) table added to the embeddings, as in BERT, in place
    of the sinusoidal one; then dropout.

    A parameter, trained with the model: a checkpoint carries it, and a position
    beyond the longest sequence seen in training keeps its random start.

    Args:
        d_model: width of the embeddings.
        max_len: number of rows, the longest sequence the table covers.
        dropout: dropout probability applied to the sum, in [0, 1].

    Shape:
        x: (B, T, d_model) with T <= max_len  ->  (B, T, d_model)
    """

    def __init__(self, d_model: int, max_len: int, dropout: float = 0.0) -> None:
        super().__init__()
        _check_args(d_model, max_len, dropout)
        self.d_model, self.max_len = d_model, max_len
        # The sinusoidal table's scale: its entries have mean square 1/2.
        self.table = nn.Parameter(torch.randn(max_len, d_model) * 0.5**0.5)
        self.dropout = nn.Dropout(dropout)

    @_checks.checked_by(_check_input, always=_check_length)
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        T = x.size(1)
        return self.dropout(x + self.table[:T])  # (B, T, d) + (T, d)


# --8<-- [end:learned]
