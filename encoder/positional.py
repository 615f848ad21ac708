"""Sinusoidal positional encoding (Vaswani et al., 2017, section 3.5)."""

from __future__ import annotations

import torch
from torch import nn


# --8<-- [start:table]
def sinusoidal_table(
    n_positions: int, d_model: int, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """The (n_positions, d_model) sinusoidal table.

    PE[pos, 2k] = sin(pos * w_k) and PE[pos, 2k+1] = cos(pos * w_k),
    w_k = 10000 ** (-2k / d_model).
    Computed in float64, then cast to ``dtype``.
    An odd d_model is allowed: the last column is a sine with no cosine partner.
    """
    if n_positions < 1 or d_model < 1:
        raise ValueError(
            f"n_positions ({n_positions}) and d_model ({d_model}) must be >= 1"
        )
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


# --8<-- [start:pe]
class PositionalEncoding(nn.Module):
    """Adds the sinusoidal table to a batch of embeddings, then applies dropout.

    Args:
        d_model: width of the embeddings.
        max_len: longest sequence the table covers.
        dropout: dropout probability applied to the sum (the paper uses 0.1).

    Shape:
        x: (B, T, d_model) with T <= max_len  ->  (B, T, d_model), same dtype as x.
    """

    def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.1) -> None:
        super().__init__()
        self.d_model = d_model
        self.max_len = max_len
        self.dropout = nn.Dropout(dropout)
        # A buffer, not a plain attribute: it is saved in the state_dict and follows
        # .to(device) / .half() together with the parameters.
        self.register_buffer(
            "pe", sinusoidal_table(max_len, d_model, torch.get_default_dtype())
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 3 or x.size(-1) != self.d_model:
            raise ValueError(
                f"expected x of shape (B, T, {self.d_model}), got {tuple(x.shape)}"
            )
        T = x.size(1)
        if T > self.max_len:
            raise ValueError(
                f"sequence length {T} exceeds max_len={self.max_len}, "
                "the longest sequence the positional table was built for; "
                f"pass max_len >= {T}"
            )
        # Cast the table to x's dtype so an fp16 batch stays fp16.
        return self.dropout(x + self.pe[:T].to(x.dtype))  # (B, T, d) + (T, d)


# --8<-- [end:pe]
