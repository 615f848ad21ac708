"""Checks of arguments at the boundary of the package's classes and functions.

Each raises TypeError for a value of the wrong kind and ValueError for a value out of
range, with the argument's name and the value in the message, before any computation.

``checked_by`` runs a public entry point's checks once per outermost call: the package's
modules and functions called inside it skip theirs, since the outer call has checked
what it hands them.
"""

from __future__ import annotations

import contextvars
import functools
import math
import numbers
from collections.abc import Callable
from typing import TypeVar

import torch

F = TypeVar("F", bound=Callable[..., object])

# True while a checked call of the package runs (per thread and per async task).
_inside = contextvars.ContextVar("encoder_checked_call", default=False)


def checked_by(
    check: Callable[..., None], always: Callable[..., None] | None = None
) -> Callable[[F], F]:
    """Decorate a public function or ``forward``: ``check`` receives the same arguments
    and raises on a bad one. It runs unless a checked call of the package is already
    running (the outer call checked what it passes in) or torch.compile/torch.export
    is tracing (checks are Python; the traced graph holds only the computation).

    ``always``, if given, receives them too and runs on every call, traced or not: for
    what no outer call checks, and what a traced graph must guard (a length that a
    table of max_len rows covers, say).
    """

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: object, **kwargs: object) -> object:
            if torch.compiler.is_compiling() or _inside.get():
                if always is not None:
                    always(*args, **kwargs)
                return fn(*args, **kwargs)
            check(*args, **kwargs)
            if always is not None:
                always(*args, **kwargs)
            token = _inside.set(True)
            try:
                return fn(*args, **kwargs)
            finally:
                _inside.reset(token)

        return wrapper  # type: ignore[return-value]

    return decorate


def integer(name: str, value: object) -> None:
    """An int (numpy's too); a bool is not one."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")


def positive_ints(**values: object) -> None:
    """Each value is an int >= 1 (sizes, counts)."""
    for name, value in values.items():
        integer(name, value)
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")


def non_negative_ints(**values: object) -> None:
    """Each value is an int >= 0 (a length that may be 0, a period where 0 = never)."""
    for name, value in values.items():
        integer(name, value)
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")


def seed(name: str, value: object) -> None:
    """An int that ``torch.manual_seed`` and ``torch.Generator.manual_seed`` take."""
    integer(name, value)
    if not 0 <= value < 2**64:
        raise ValueError(f"{name} must be in [0, 2**64), got {value}")


def probability(name: str, value: object) -> None:
    """A real number in [0, 1] (a dropout probability)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a float, got {type(value).__name__} {value!r}")
    if not 0.0 <= value <= 1.0:  # also False for NaN
        raise ValueError(f"{name} must be in [0, 1], got {value}")


def positive_float(name: str, value: object) -> None:
    """A finite real number > 0 (an epsilon)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a float, got {type(value).__name__} {value!r}")
    if not 0.0 < value < math.inf:
        raise ValueError(f"{name} must be positive and finite, got {value}")


def non_negative_float(name: str, value: object) -> None:
    """A finite real number >= 0 (a weight decay)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a float, got {type(value).__name__} {value!r}")
    if not 0.0 <= value < math.inf:
        raise ValueError(f"{name} must be >= 0 and finite, got {value}")


def bools(**values: object) -> None:
    """Each value is True or False (a flag); 1 or "yes" are refused, not guessed."""
    for name, value in values.items():
        if not isinstance(value, bool):
            kind = type(value).__name__
            raise TypeError(f"{name} must be a bool, got {kind} {value!r}")


def choice(name: str, value: object, options: tuple[str, ...]) -> None:
    """One of a few named options (an activation, a kind of positions)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} {value!r}")
    if value not in options:
        names = ", ".join(map(repr, options))
        raise ValueError(f"{name} must be one of {names}, got {value!r}")


def instance(name: str, value: object, cls: type) -> None:
    """``value`` is a ``cls`` (the module ``from_torch`` copies, say)."""
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be a {cls.__name__}, got {type(value).__name__}")


def tensor(
    name: str,
    x: object,
    shape: tuple[int | str, ...] | None = None,
    ids: bool = False,
) -> None:
    """``x`` is a tensor of floats (of int64/int32 token ids with ``ids=True``) of
    ``shape``: ints are sizes that must match, strings name free sizes, and a leading
    "..." allows any number of leading dimensions, e.g. ("B", "T", 16) or ("...", 16).
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if ids and x.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"{name} must be int64 or int32 token ids, got {x.dtype}")
    if not ids and not x.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got {x.dtype}")
    if shape is None:
        return
    fixed = shape[1:] if shape[0] == "..." else shape
    n = len(fixed)
    ok = x.dim() >= n if shape[0] == "..." else x.dim() == n
    if not ok or any(
        isinstance(s, int) and x.size(i - n) != s for i, s in enumerate(fixed)
    ):
        want = ", ".join(str(s) for s in shape)
        raise ValueError(f"{name} must have shape ({want}), got {tuple(x.shape)}")
