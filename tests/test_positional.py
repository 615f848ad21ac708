"""PositionalEncoding and sinusoidal_table: closed form, a buffer that is not saved, max_len."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from support import ALL_DTYPES

from encoder import PositionalEncoding, sinusoidal_table

pytestmark = pytest.mark.usefixtures("device")

SIZES = [(1, 1), (1, 4), (7, 6), (33, 7), (50, 16), (128, 64), (64, 129)]


def closed_form(n_positions: int, d_model: int) -> torch.Tensor:
    """PE[pos, 2k] = sin(pos / 10000**(2k/d)), PE[pos, 2k+1] = cos(same), in python floats."""
    rows = []
    for pos in range(n_positions):
        row = []
        for i in range(d_model):
            k = i // 2
            angle = pos * math.pow(10000.0, -2 * k / d_model)
            row.append(math.sin(angle) if i % 2 == 0 else math.cos(angle))
        rows.append(row)
    return torch.tensor(rows, dtype=torch.float64)


@pytest.mark.parametrize("n_positions, d_model", SIZES)
def test_table_matches_closed_form_in_float64(n_positions, d_model):
    table = sinusoidal_table(n_positions, d_model, dtype=torch.float64)
    assert table.dtype == torch.float64
    assert table.shape == (n_positions, d_model)
    assert (table - closed_form(n_positions, d_model)).abs().max() <= 1e-10


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_table_in_each_dtype_is_the_rounded_closed_form(dtype):
    table = sinusoidal_table(50, 16, dtype=dtype)
    assert table.dtype == dtype
    # Computed in float64 then cast: within one rounding of values in [-1, 1].
    assert (table.double() - closed_form(50, 16)).abs().max() <= torch.finfo(dtype).eps


def test_frequencies_are_10000_to_the_minus_2k_over_d():
    """Read the frequencies back from the sine columns at position 1: sin(w_k) = PE[1, 2k].
    The positional-encoding notebook's 10000 ** (2*i/d) with i = 0, 2, 4, ... gives
    10000**(-4k/d): far from them."""
    d = 16
    table = sinusoidal_table(2, d, torch.float64)
    omega = torch.asin(table[1, 0::2])  # every w_k <= 1, so asin inverts sin
    expected = torch.tensor([10000.0 ** (-2 * k / d) for k in range(d // 2)], dtype=torch.float64)
    assert (omega - expected).abs().max() <= 1e-12
    wrong = torch.tensor([10000.0 ** (-4 * k / d) for k in range(d // 2)], dtype=torch.float64)
    assert (omega - wrong).abs().max() > 0.1


def test_position_zero_is_sin0_cos0():
    table = sinusoidal_table(3, 8)
    assert torch.equal(table[0], torch.tensor([0.0, 1.0] * 4))


@pytest.mark.parametrize("d_model", [1, 3, 7, 65])
def test_odd_d_model_works_and_matches_closed_form(d_model):
    """An odd d_model crashed the posts' PE; the last column is a sine with no cosine."""
    pe = PositionalEncoding(d_model, max_len=20, dropout=0.0).double()
    x = torch.zeros(2, 20, d_model, dtype=torch.float64)
    out = pe(x)
    assert out.shape == (2, 20, d_model)
    expected = closed_form(20, d_model)
    # The module's table was built in float32 (the default dtype), then moved to float64.
    assert (out[0] - expected).abs().max() <= 1e-7
    assert (sinusoidal_table(20, d_model, torch.float64) - expected).abs().max() <= 1e-10
    pos = torch.arange(20, dtype=torch.float64)
    last = torch.sin(pos * 10000.0 ** (-(d_model - 1) / d_model))
    assert (sinusoidal_table(20, d_model, torch.float64)[:, -1] - last).abs().max() <= 1e-12


@given(
    n_positions=st.integers(1, 40),
    d_model=st.integers(1, 40),
)
@settings(max_examples=40, deadline=None)
def test_property_table_matches_closed_form(n_positions, d_model):
    table = sinusoidal_table(n_positions, d_model, dtype=torch.float64)
    assert (table - closed_form(n_positions, d_model)).abs().max() <= 1e-10


@pytest.mark.parametrize("T, d_model", [(1, 4), (9, 8), (32, 16)])
def test_forward_adds_the_table(T, d_model):
    pe = PositionalEncoding(d_model, max_len=32).eval()
    x = torch.randn(3, T, d_model)
    torch.testing.assert_close(pe(x), x + sinusoidal_table(T, d_model), rtol=0, atol=1e-6)


def test_dropout_drops_half_and_scales_the_survivors():
    pe = PositionalEncoding(16, max_len=8, dropout=0.5)
    x = torch.randn(4, 8, 16)
    out = pe.train()(x)
    zeros = out == 0
    assert 0.3 < zeros.float().mean() < 0.7
    kept = (x + pe.pe[:8]) * 2.0  # survivors are scaled by 1 / (1 - p)
    torch.testing.assert_close(out[~zeros], kept.expand_as(out)[~zeros])


def test_table_is_a_buffer_that_is_not_saved():
    """A buffer, so .to() moves it (test_modules.py); posts 001/002 keep a plain attribute.
    Not persistent: a checkpoint holds no table, so it loads into another max_len."""
    pe = PositionalEncoding(8, max_len=10)
    assert "pe" in dict(pe.named_buffers())
    assert pe.state_dict() == {}
    assert list(pe.parameters()) == []
    longer = PositionalEncoding(8, max_len=50)
    longer.load_state_dict(pe.state_dict())
    torch.testing.assert_close(longer.pe[:10], pe.pe)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_output_dtype_equals_input_dtype_on_float32_module(dtype):
    """The posts' fp32 table upcast fp16 outputs to fp32; ours keeps the input's dtype."""
    pe = PositionalEncoding(8, max_len=10).eval()
    assert pe.pe.dtype == torch.float32
    x = torch.randn(2, 10, 8).to(dtype)
    out = pe(x)
    assert out.dtype == dtype
    assert torch.isfinite(out).all()


def test_seq_len_equal_to_max_len_works():
    pe = PositionalEncoding(8, max_len=10)
    assert pe(torch.zeros(1, 10, 8)).shape == (1, 10, 8)


def test_loading_a_checkpoint_undoes_a_round_trip_through_half():
    """The table is not saved: load_state_dict computes it again (issue 22), so a model
    rounded by .half().float() gets its exact outputs back from its own checkpoint."""
    pe = PositionalEncoding(d_model=16, max_len=64, dropout=0.0).eval()
    x = torch.randn(2, 50, 16)
    before, saved = pe(x), pe.state_dict()
    pe.half().float()
    assert not torch.equal(pe(x), before)  # the table was rounded to fp16
    pe.load_state_dict(saved)
    assert torch.equal(pe(x), before)
    assert torch.equal(pe.pe, sinusoidal_table(64, 16))
