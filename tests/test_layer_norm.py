"""LayerNorm and layer_norm: parity with nn.LayerNorm, fp16 safety, from_torch."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from support import ALL_DTYPES, FLOAT_DTYPES, LOW_DTYPES, assert_parity, randomize_
from torch import nn

from encoder import LayerNorm, layer_norm

pytestmark = pytest.mark.usefixtures("device")

SHAPES = [(1, 1, 8), (2, 5, 16), (3, 4, 33), (2, 7, 512)]  # (B, T, d_model)


def torch_norm(d_model: int, dtype: torch.dtype, eps: float = 1e-5) -> nn.LayerNorm:
    return randomize_(nn.LayerNorm(d_model, eps=eps, dtype=dtype))


@pytest.mark.parametrize("shape", SHAPES)
def test_module_and_formula_match_nn_layer_norm(shape, dtype):
    ref = torch_norm(shape[-1], dtype)
    ours = LayerNorm.from_torch(ref)
    x = (torch.randn(shape) * 3 + 1).to(dtype)
    assert_parity(ours(x), ref(x), dtype)
    explicit = layer_norm(x, ref.weight, ref.bias, ref.eps)
    assert explicit.dtype == dtype
    assert_parity(explicit, ref(x), dtype)
    assert_parity(explicit, ours(x), dtype)


@pytest.mark.parametrize("dtype", LOW_DTYPES)
def test_low_precision_matches_nn_layer_norm(dtype):
    ref = torch_norm(64, dtype)
    ours = LayerNorm.from_torch(ref)
    x = (torch.randn(4, 6, 64) * 3 + 1).to(dtype)
    out = ours(x)
    assert out.dtype == dtype
    torch.testing.assert_close(out, ref(x))
    explicit = layer_norm(x, ref.weight, ref.bias, ref.eps)
    assert explicit.dtype == dtype
    # Both normalise in float32; they may round the last bit differently.
    torch.testing.assert_close(explicit, ref(x), atol=2 * torch.finfo(dtype).eps * 8, rtol=0)


@pytest.mark.parametrize("dtype", LOW_DTYPES)
def test_low_precision_large_values_are_normalised_in_float32(dtype):
    """fp16 overflows at 65504: a variance of 1e6 computed in fp16 would be inf."""
    ref = torch_norm(32, dtype)
    x = (torch.randn(3, 32) * 1000).to(dtype)
    explicit = layer_norm(x, ref.weight, ref.bias, ref.eps)
    assert torch.isfinite(explicit).all()
    torch.testing.assert_close(explicit, ref(x), atol=2 * torch.finfo(dtype).eps * 8, rtol=0)
    torch.testing.assert_close(LayerNorm.from_torch(ref)(x), ref(x))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_normalises_each_position(dtype):
    x = (torch.randn(3, 5, 32, dtype=torch.float64) * 4 - 2).to(dtype)
    out = LayerNorm(32).to(dtype)(x).double()
    tol = 1e-6 if dtype in (torch.float32, torch.float64) else 2e-2
    assert out.mean(-1).abs().max() <= tol
    assert (out.var(-1, unbiased=False) - 1).abs().max() <= 10 * tol


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_layer_norm_on_a_constant_fp16_row_is_finite(dtype):
    """A constant row has variance 0: only eps keeps the division finite."""
    x = torch.full((2, 3, 8), 3.0, dtype=dtype)
    norm = randomize_(LayerNorm(8).to(dtype))
    out = norm(x)
    assert torch.isfinite(out).all()
    torch.testing.assert_close(out, norm.beta.detach().expand_as(out))  # (x - mean) = 0
    explicit = layer_norm(x, norm.gamma, norm.beta)
    assert torch.isfinite(explicit).all()
    torch.testing.assert_close(explicit, out)


@given(
    batch=st.lists(st.integers(1, 4), min_size=0, max_size=3),
    d_model=st.integers(1, 48),
    eps=st.sampled_from([1e-5, 1e-6, 1e-3]),
    loc=st.floats(-10, 10),
    scale=st.floats(0.01, 10),
    seed=st.integers(0, 2**16),
)
@settings(max_examples=40, deadline=None)
def test_property_parity_with_nn_layer_norm(batch, d_model, eps, loc, scale, seed):
    torch.manual_seed(seed)
    ref = torch_norm(d_model, torch.float64, eps)
    ours = LayerNorm.from_torch(ref)
    x = torch.randn(*batch, d_model, dtype=torch.float64) * scale + loc
    assert_parity(ours(x), ref(x), torch.float64)
    assert_parity(layer_norm(x, ref.weight, ref.bias, eps), ref(x), torch.float64)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_from_torch_keeps_eps_and_dtype(dtype):
    ref = torch_norm(16, dtype, eps=1e-3)
    ours = LayerNorm.from_torch(ref)
    assert ours.eps == 1e-3
    assert ours.gamma.dtype == ours.beta.dtype == dtype
    assert torch.equal(ours.gamma, ref.weight)
    assert torch.equal(ours.beta, ref.bias)


def test_from_torch_without_bias():
    ref = randomize_(nn.LayerNorm(16, bias=False))
    ours = LayerNorm.from_torch(ref)
    assert torch.equal(ours.beta, torch.zeros(16))
    x = torch.randn(2, 3, 16)
    assert_parity(ours(x), ref(x), torch.float32)
