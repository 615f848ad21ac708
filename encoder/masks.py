"""Attention masks. One convention everywhere: a bool tensor, True = may attend.

It is the convention of ``torch.nn.functional.scaled_dot_product_attention`` (and of the
posts' ``mask == 0`` means masked). A mask must broadcast to (B, H, Tq, Tk).
"""

from __future__ import annotations

import torch

from encoder import _checks


def _check_padding_args(ids: torch.Tensor, pad_id: int) -> None:
    _checks.tensor("ids", ids, ("B", "T"), ids=True)
    _checks.integer("pad_id", pad_id)


# --8<-- [start:padding]
@_checks.checked_by(_check_padding_args)
def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """True at real tokens, False at padding,
    shaped to broadcast over heads and queries.

    Shape:
        ids: (B, T)  ->  (B, 1, 1, T) bool
    """
    return (ids != pad_id)[:, None, None, :]  # (B, 1, 1, T): every head, every query


# --8<-- [end:padding]


# --8<-- [start:causal]
def causal_mask(T: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(T, T) bool, True on and below the diagonal: position t may attend to 0..t."""
    _checks.non_negative_ints(T=T)  # T = 0: an empty (0, 0) mask, as in torch
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


# --8<-- [end:causal]


def check_mask(
    mask: object, shape: tuple[int, ...], dims: str = "(B, H, Tq, Tk)"
) -> None:
    """Raise TypeError/ValueError unless ``mask`` is a bool tensor
    broadcastable to ``shape``, whose dimensions ``dims`` names in the message.
    """
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        kind = mask.dtype if isinstance(mask, torch.Tensor) else type(mask).__name__
        raise TypeError(f"mask must be a bool tensor (True = may attend), got {kind}")
    ok = mask.dim() <= len(shape) and all(
        m in (1, s) for m, s in zip(reversed(mask.shape), reversed(shape), strict=False)
    )
    if not ok:
        raise ValueError(
            f"mask of shape {tuple(mask.shape)} does not broadcast to {dims} = {shape}"
        )
