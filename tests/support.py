"""Helpers shared by the tests: tolerances, comparisons, random masks, copied torch modules."""

from __future__ import annotations

import threading

import torch
from hypothesis import strategies as st
from torch import nn

# Parity with PyTorch, as max absolute difference (issue 2).
PARITY_TOL = {torch.float32: 1e-5, torch.float64: 1e-10}

# A low-precision result against a reference (fp32, or PyTorch's module in the same dtype),
# as (atol, rtol): a few roundings of the dtype (eps 9.8e-4 for fp16, 7.8e-3 for bf16).
LOW_PRECISION_TOL = {torch.float16: (1e-2, 1e-2), torch.bfloat16: (8e-2, 5e-2)}

# Sizes drawn by the property tests: small, so that an example runs in milliseconds.
SMALL_SIZES = {
    "B": st.integers(1, 3),
    "d_head": st.integers(1, 4),
    "n_head": st.integers(1, 3),
    "seed": st.integers(0, 2**16),
}
D_FF = st.integers(1, 16)

FLOAT_DTYPES = [torch.float32, torch.float64]
LOW_DTYPES = [torch.float16, torch.bfloat16]
ALL_DTYPES = FLOAT_DTYPES + LOW_DTYPES


def max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    """Max absolute difference, computed in float64 so the comparison adds no error."""
    assert a.shape == b.shape, (a.shape, b.shape)
    return (a.detach().double() - b.detach().double()).abs().max().item()


def assert_parity(ours: torch.Tensor, theirs: torch.Tensor, dtype: torch.dtype) -> float:
    """Assert max |ours - theirs| <= the parity tolerance of ``dtype``; return the difference.

    In fp16/bf16 (parity tests on CUDA), within ``LOW_PRECISION_TOL`` instead."""
    if dtype in LOW_PRECISION_TOL:
        assert_close_low_precision(ours, theirs)
        return max_diff(ours, theirs)
    d = max_diff(ours, theirs)
    assert d <= PARITY_TOL[dtype], f"max abs diff {d:.3g} > {PARITY_TOL[dtype]:g} ({dtype})"
    return d


def assert_close_low_precision(low: torch.Tensor, ref: torch.Tensor) -> None:
    """``low`` (fp16/bf16) is finite and matches ``ref`` within its precision."""
    assert torch.isfinite(low).all(), f"non-finite values in {low.dtype} output"
    atol, rtol = LOW_PRECISION_TOL[low.dtype]
    torch.testing.assert_close(low.float(), ref.float(), atol=atol, rtol=rtol)


def key_padding(B: int, T: int, *, min_real: int = 1) -> torch.Tensor:
    """torch's key_padding_mask convention: (B, T) bool, True = padding (ignore).

    Row b keeps a random number (>= min_real) of real keys at the front, padding after.
    """
    lengths = torch.randint(min_real, T + 1, (B,))
    lengths[0] = max(min_real, T - 1) if T > 1 else T  # at least one row with padding if possible
    return torch.arange(T)[None, :] >= lengths[:, None]


def to_our_mask(kpm: torch.Tensor) -> torch.Tensor:
    """torch's key_padding_mask (True = ignore) -> ours, (B, 1, 1, Tk), True = may attend."""
    return ~kpm[:, None, None, :]


@torch.no_grad()
def randomize_(module: nn.Module) -> nn.Module:
    """Perturb biases and LayerNorm gains, which start at 0 and 1 and could hide a bug.

    Weight matrices keep their (already random) initialisation.
    """
    for p in module.parameters():
        if p.dim() == 1:
            p.add_(torch.randn_like(p) * 0.1)
    return module


def grads_of(module: nn.Module) -> dict[str, torch.Tensor | None]:
    return {name: p.grad for name, p in module.named_parameters()}


def finishes_within(seconds: float, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``'s result (or its exception), failing the test if it has not
    returned after ``seconds``: a hang becomes a failure. The call runs in a daemon thread,
    which a hang leaves running until the test session ends."""
    outcome: dict = {}

    def call() -> None:
        try:
            outcome["result"] = fn(*args, **kwargs)
        except BaseException as e:  # re-raised in the test's thread
            outcome["error"] = e

    device = torch.get_default_device()
    thread = threading.Thread(target=lambda: _on(device, call), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{getattr(fn, '__name__', fn)} still running after {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def _on(device: torch.device, call) -> None:
    """Run ``call`` with ``device`` as the default device: a thread does not inherit it."""
    with torch.device(device):
        call()
