"""Attention masks. One convention everywhere: a bool tensor, True = may attend.

It is the convention of ``torch.nn.functional.scaled_dot_product_attention`` (and of the
posts' ``mask == 0`` means masked). A mask must broadcast to (B, H, Tq, Tk).
"""

from __future__ import annotations

import torch

from encoder import _checks


# --8<-- [start:padding]
def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """True at real tokens, False at padding,
    shaped to broadcast over heads and queries.

    Shape:
        ids: (B, T)  ->  (B, 1, 1, T) bool
    """
    _checks.tensor("ids", ids, ("B", "T"), ids=True)
    _checks.integer("pad_id", pad_id)
    return (ids != pad_id)[:, None, None, :]  # (B, 1, 1, T): every head, every query


# --8<-- [end:padding]


# --8<-- [start:causal]
def causal_mask(T: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(T, T) bool, True on and below the diagonal: position t may attend to 0..t."""
    _checks.positive_ints(T=T)
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


# --8<-- [end:causal]


def check_mask(mask: torch.Tensor, shape: tuple[int, ...]) -> None:
    """Raise TypeError/ValueError unless ``mask`` is a bool tensor
    broadcastable to ``shape``.
    """
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        kind = mask.dtype if isinstance(mask, torch.Tensor) else type(mask).__name__
        raise TypeError(f"mask must be a bool tensor (True = may attend), got {kind}")
    ok = mask.dim() <= len(shape) and all(
        m in (1, s) for m, s in zip(reversed(mask.shape), reversed(shape), strict=False)
    )
    if not ok:
        raise ValueError(
            f"mask of shape {tuple(mask.shape)} does not broadcast to "
            f"(B, H, Tq, Tk) = {shape}"
        )
