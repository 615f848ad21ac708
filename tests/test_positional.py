"""PositionalEncoding and sinusoidal_table: closed form, buffer semantics, max_len."""

import io
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from support import ALL_DTYPES

from encoder import PositionalEncoding, sinusoidal_table

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


def doubled_exponent_table(n_positions: int, d_model: int) -> torch.Tensor:
    """Post 002's table: 10000 ** (2 * i / d) where i already steps by two."""
    pos = torch.arange(n_positions, dtype=torch.float64)[:, None]
    i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / torch.pow(10000.0, 2 * i / d_model)
    table = torch.zeros(n_positions, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle)
    return table


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


def test_doubled_exponent_bug_is_caught():
    """Post 002 uses 10000 ** (2*i/d) with i = 0, 2, 4, ...: frequencies 10000**(-4k/d)."""
    n, d = 50, 16
    reference = closed_form(n, d)
    buggy = doubled_exponent_table(n, d)
    assert (buggy - reference).abs().max() > 0.5, "the comparison must see the bug"
    assert (sinusoidal_table(n, d, torch.float64) - reference).abs().max() <= 1e-10


def test_frequencies_are_10000_to_the_minus_2k_over_d():
    """Read the frequencies back from the sine columns at position 1: sin(w_k) = PE[1, 2k]."""
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


@pytest.mark.parametrize("n_positions, d_model", [(0, 4), (4, 0), (-1, 4)])
def test_table_rejects_empty_sizes(n_positions, d_model):
    message = rf"n_positions \({n_positions}\) and d_model \({d_model}\) must be >= 1"
    with pytest.raises(ValueError, match=message):
        sinusoidal_table(n_positions, d_model)


@pytest.mark.parametrize("T, d_model", [(1, 4), (9, 8), (32, 16)])
def test_forward_adds_the_table(T, d_model):
    pe = PositionalEncoding(d_model, max_len=32).eval()
    x = torch.randn(3, T, d_model)
    torch.testing.assert_close(pe(x), x + sinusoidal_table(T, d_model), rtol=0, atol=1e-6)


def test_dropout_applies_in_training_only():
    pe = PositionalEncoding(16, max_len=8, dropout=0.5)
    x = torch.randn(4, 8, 16)
    assert torch.equal(pe.eval()(x), pe(x))
    out = pe.train()(x)
    zeros = out == 0
    assert 0.3 < zeros.float().mean() < 0.7
    kept = (x + pe.pe[:8]) * 2.0  # survivors are scaled by 1 / (1 - p)
    torch.testing.assert_close(out[~zeros], kept.expand_as(out)[~zeros])


def test_pe_table_is_a_buffer_in_state_dict():
    """Posts 001/002 keep the table as a plain attribute: absent from state_dict."""
    pe = PositionalEncoding(8, max_len=10)
    assert "pe" in dict(pe.named_buffers())
    assert "pe" in pe.state_dict()
    assert list(pe.parameters()) == []
    assert not pe.pe.requires_grad


@pytest.mark.parametrize(
    "method, args, dtype",
    [
        ("to", (torch.float64,), torch.float64),
        ("double", (), torch.float64),
        ("half", (), torch.float16),
        ("bfloat16", (), torch.bfloat16),
    ],
)
def test_pe_table_moves_with_the_module(method, args, dtype):
    """Posts 001/002 keep a plain attribute that .to()/.half() leave behind in fp32."""
    pe = getattr(PositionalEncoding(8, max_len=10), method)(*args)
    assert pe.pe.dtype == dtype
    x = torch.randn(2, 10, 8, dtype=dtype)
    assert pe.eval()(x).dtype == dtype


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_output_dtype_equals_input_dtype_on_float32_module(dtype):
    """The posts' fp32 table upcast fp16 outputs to fp32; ours keeps the input's dtype."""
    pe = PositionalEncoding(8, max_len=10).eval()
    assert pe.pe.dtype == torch.float32
    x = torch.randn(2, 10, 8).to(dtype)
    out = pe(x)
    assert out.dtype == dtype
    assert torch.isfinite(out).all()


@pytest.mark.parametrize("max_len, T", [(10, 11), (1, 2), (64, 100)])
def test_seq_len_greater_than_max_len_raises(max_len, T):
    pe = PositionalEncoding(8, max_len=max_len)
    with pytest.raises(ValueError, match=rf"sequence length {T} exceeds max_len={max_len}"):
        pe(torch.zeros(1, T, 8))


def test_seq_len_equal_to_max_len_works():
    pe = PositionalEncoding(8, max_len=10)
    assert pe(torch.zeros(1, 10, 8)).shape == (1, 10, 8)


@pytest.mark.parametrize("shape", [(10, 8), (2, 10, 7), (1, 2, 10, 8)])
def test_wrong_input_shape_raises(shape):
    """Post 002's forward takes 2-D input; ours names the shape it wants."""
    pe = PositionalEncoding(8, max_len=10)
    expected = str(shape).replace("(", r"\(").replace(")", r"\)")
    with pytest.raises(ValueError, match=rf"\(B, T, 8\), got {expected}"):
        pe(torch.zeros(shape))


def test_state_dict_round_trip():
    pe = PositionalEncoding(8, max_len=10).eval()
    buf = io.BytesIO()
    torch.save(pe.state_dict(), buf)
    buf.seek(0)
    fresh = PositionalEncoding(8, max_len=10).eval()
    fresh.load_state_dict(torch.load(buf))
    x = torch.randn(2, 10, 8)
    assert torch.equal(fresh(x), pe(x))
