"""scaled_dot_product_attention and MultiHeadAttention: parity with nn.MultiheadAttention,
fast path = explicit path, masks in every dtype, fully masked rows, errors at the boundary."""

import io
import math
import re

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from support import (
    FLOAT_DTYPES,
    LOW_DTYPES,
    assert_close_low_precision,
    assert_parity,
    key_padding,
    randomize_,
    to_our_mask,
)
from torch import nn

from encoder import MultiHeadAttention, causal_mask, scaled_dot_product_attention

# (B, Tq, Tk, d_model, n_head)
SELF_SIZES = [(1, 1, 1, 4, 1), (2, 5, 5, 8, 2), (3, 7, 7, 32, 4), (2, 16, 16, 64, 8)]
CROSS_SIZES = [(1, 1, 4, 4, 1), (2, 3, 7, 8, 2), (3, 9, 4, 32, 4), (2, 16, 5, 64, 8)]


def torch_mha(d_model, n_head, dtype=torch.float32, **kw):
    ref = nn.MultiheadAttention(d_model, n_head, batch_first=True, dtype=dtype, **kw)
    return randomize_(ref).eval()


def pair(d_model, n_head, dtype=torch.float32):
    ref = torch_mha(d_model, n_head, dtype)
    return MultiHeadAttention.from_torch(ref).eval(), ref


# ---------------------------------------------------------------- scaled_dot_product_attention


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("Tq, Tk, d", [(1, 1, 1), (4, 6, 8), (9, 3, 16)])
def test_sdpa_is_the_formula(dtype, Tq, Tk, d):
    q, k, v = (torch.randn(2, 3, T, d, dtype=dtype) for T in (Tq, Tk, Tk))
    out, weights = scaled_dot_product_attention(q, k, v)
    expected_w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d), dim=-1)
    assert_parity(weights, expected_w, dtype)
    assert_parity(out, expected_w @ v, dtype)
    assert_parity(weights.sum(-1), torch.ones(2, 3, Tq, dtype=dtype), dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_sdpa_matches_torch_functional_with_mask(dtype):
    q, k, v = (torch.randn(2, 3, T, 8, dtype=dtype) for T in (5, 6, 6))
    mask = torch.rand(2, 3, 5, 6) > 0.4
    mask[..., 0] = True  # every query keeps a key: torch's reference is defined
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert_parity(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), dtype)
    assert not weights[~mask].any(), "masked keys get exactly zero weight"


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + LOW_DTYPES)
def test_sdpa_fully_masked_row_is_zero(dtype):
    """Documented value: a query with no key to attend to gets zero weights and output 0."""
    q, k, v = (torch.randn(1, 2, T, 8, dtype=dtype) for T in (4, 5, 5))
    mask = torch.ones(4, 5, dtype=torch.bool)
    mask[2] = False
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()
    assert torch.equal(out[..., 2, :], torch.zeros(1, 2, 8, dtype=dtype))
    assert torch.equal(weights[..., 2, :], torch.zeros(1, 2, 5, dtype=dtype))
    torch.testing.assert_close(weights[..., [0, 1, 3], :].sum(-1).float(), torch.ones(1, 2, 3))


def test_sdpa_dropout_only_when_asked():
    q, k, v = (torch.randn(1, 2, 6, 8) for _ in range(3))
    a, wa = scaled_dot_product_attention(q, k, v)
    b, wb = scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert (wb == 0).any() and not (wa == 0).any()
    assert not torch.allclose(a, b)


# ---------------------------------------------------------------- the posts' bugs


def test_forward_returns_a_tensor_not_name_error():
    """Post 001 ends MultiHeadAttention.forward with `return outpu` (NameError)."""
    mha = MultiHeadAttention(8, 2)
    x = torch.randn(2, 5, 8)
    out = mha(x, x, x)
    assert isinstance(out, torch.Tensor)
    assert out.shape == (2, 5, 8)
    out, weights = mha(x, x, x, need_weights=True)
    assert out.shape == (2, 5, 8) and weights.shape == (2, 2, 5, 5)


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("B, Tq, Tk, d_model, n_head", CROSS_SIZES)
def test_cross_attention_with_kv_length_different_from_q(B, Tq, Tk, d_model, n_head, need_weights):
    """Post 001 reshapes k and v with q's length: crashes whenever Tk != Tq."""
    mha = MultiHeadAttention(d_model, n_head).eval()
    q, kv = torch.randn(B, Tq, d_model), torch.randn(B, Tk, d_model)
    out = mha(q, kv, kv, need_weights=need_weights)
    if need_weights:
        out, weights = out
        assert weights.shape == (B, n_head, Tq, Tk)
    assert out.shape == (B, Tq, d_model)


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("dtype", LOW_DTYPES)
def test_fp16_masks_work(dtype, need_weights):
    """Post 001's masked_fill(mask == 0, -1e9) overflows fp16; ours fills with finfo.min."""
    mha = randomize_(MultiHeadAttention(16, 4)).eval()
    x = torch.randn(3, 6, 16)
    kpm = key_padding(3, 6)
    mask = to_our_mask(kpm)
    ref = mha(x, x, x, mask)
    low = mha.to(dtype)(x.to(dtype), x.to(dtype), x.to(dtype), mask, need_weights=need_weights)
    if need_weights:
        low, weights = low
        assert torch.isfinite(weights).all()
        assert not weights.masked_select(kpm[:, None, None, :]).any()
    assert low.dtype == dtype
    assert_close_low_precision(low, ref)


def test_posts_mask_fill_value_overflows_fp16():
    """Why the test above matters: -1e9 does not fit in fp16, so the posts' fill raises."""
    scores = torch.zeros(2, 2, dtype=torch.float16)
    with pytest.raises(RuntimeError, match="overflow"):
        scores.masked_fill(torch.eye(2, dtype=torch.bool), -1e9)
    filled = scores.masked_fill(torch.eye(2, dtype=torch.bool), torch.finfo(torch.float16).min)
    assert torch.isfinite(filled).all()


# ---------------------------------------------------------------- parity with nn.MultiheadAttention


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("B, Tq, Tk, d_model, n_head", SELF_SIZES)
def test_self_attention_parity(B, Tq, Tk, d_model, n_head, dtype):
    ours, ref = pair(d_model, n_head, dtype)
    x = torch.randn(B, Tq, d_model, dtype=dtype)
    expected, _ = ref(x, x, x, need_weights=False)
    assert_parity(ours(x, x, x), expected, dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("B, Tq, Tk, d_model, n_head", CROSS_SIZES)
def test_cross_attention_parity(B, Tq, Tk, d_model, n_head, dtype):
    ours, ref = pair(d_model, n_head, dtype)
    q = torch.randn(B, Tq, d_model, dtype=dtype)
    k, v = torch.randn(2, B, Tk, d_model, dtype=dtype)
    expected, _ = ref(q, k, v, need_weights=False)
    assert_parity(ours(q, k, v), expected, dtype)


@pytest.mark.parametrize("self_attention", [True, False])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("B, Tq, Tk, d_model, n_head", CROSS_SIZES[1:])
def test_key_padding_mask_parity(B, Tq, Tk, d_model, n_head, dtype, self_attention):
    ours, ref = pair(d_model, n_head, dtype)
    if self_attention:
        Tk = Tq
        q = k = v = torch.randn(B, Tq, d_model, dtype=dtype)
    else:
        q = torch.randn(B, Tq, d_model, dtype=dtype)
        k, v = torch.randn(2, B, Tk, d_model, dtype=dtype)
    kpm = key_padding(B, Tk)  # torch: True = ignore
    expected, _ = ref(q, k, v, key_padding_mask=kpm, need_weights=False)
    assert_parity(ours(q, k, v, to_our_mask(kpm)), expected, dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_attn_mask_parity(dtype):
    """A (Tq, Tk) mask: torch's bool attn_mask is True = not allowed, ours is its inverse."""
    ours, ref = pair(16, 4, dtype)
    x = torch.randn(2, 6, 16, dtype=dtype)
    allowed = causal_mask(6)
    expected, _ = ref(x, x, x, attn_mask=~allowed, need_weights=False)
    assert_parity(ours(x, x, x, allowed), expected, dtype)


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("B, Tq, Tk, d_model, n_head", CROSS_SIZES[1:])
def test_attention_weights_parity(B, Tq, Tk, d_model, n_head, dtype, masked):
    """need_weights=True returns per-head weights: torch's average_attn_weights=False."""
    ours, ref = pair(d_model, n_head, dtype)
    q = torch.randn(B, Tq, d_model, dtype=dtype)
    k, v = torch.randn(2, B, Tk, d_model, dtype=dtype)
    kpm = key_padding(B, Tk) if masked else None
    expected, expected_w = ref(
        q, k, v, key_padding_mask=kpm, need_weights=True, average_attn_weights=False
    )
    out, weights = ours(q, k, v, to_our_mask(kpm) if masked else None, need_weights=True)
    assert weights.shape == expected_w.shape == (B, n_head, Tq, Tk)
    assert_parity(out, expected, dtype)
    assert_parity(weights, expected_w, dtype)


@given(
    B=st.integers(1, 3),
    Tq=st.integers(1, 6),
    Tk=st.integers(1, 6),
    d_head=st.integers(1, 4),
    n_head=st.integers(1, 4),
    self_attention=st.booleans(),
    masked=st.booleans(),
    need_weights=st.booleans(),
    seed=st.integers(0, 2**16),
)
@settings(max_examples=40, deadline=None)
def test_property_parity_with_torch(
    B, Tq, Tk, d_head, n_head, self_attention, masked, need_weights, seed
):
    torch.manual_seed(seed)
    d_model = d_head * n_head
    ours, ref = pair(d_model, n_head, torch.float64)
    if self_attention:
        Tk = Tq
        q = k = v = torch.randn(B, Tq, d_model, dtype=torch.float64)
    else:
        q = torch.randn(B, Tq, d_model, dtype=torch.float64)
        k, v = torch.randn(2, B, Tk, d_model, dtype=torch.float64)
    kpm = key_padding(B, Tk) if masked else None
    expected, expected_w = ref(
        q, k, v, key_padding_mask=kpm, need_weights=True, average_attn_weights=False
    )
    out = ours(q, k, v, to_our_mask(kpm) if masked else None, need_weights=need_weights)
    if need_weights:
        out, weights = out
        assert_parity(weights, expected_w, torch.float64)
    assert_parity(out, expected, torch.float64)


def test_from_torch_without_bias():
    ref = nn.MultiheadAttention(16, 4, bias=False, batch_first=True).eval()
    ours = MultiHeadAttention.from_torch(ref).eval()
    assert not ours.in_proj.bias.any() and not ours.out_proj.bias.any()
    x = torch.randn(2, 5, 16)
    assert_parity(ours(x, x, x), ref(x, x, x, need_weights=False)[0], torch.float32)


def test_from_torch_ignores_batch_first_layout():
    """batch_first only changes torch's input layout; ours is always batch-first."""
    ref = randomize_(nn.MultiheadAttention(16, 4)).eval()  # (T, B, d) inputs
    ours = MultiHeadAttention.from_torch(ref).eval()
    x = torch.randn(2, 5, 16)
    expected = ref(*(x.transpose(0, 1),) * 3, need_weights=False)[0].transpose(0, 1)
    assert_parity(ours(x, x, x), expected, torch.float32)


def test_from_torch_keeps_dropout_and_dtype():
    ref = nn.MultiheadAttention(16, 4, dropout=0.25, dtype=torch.float64)
    ours = MultiHeadAttention.from_torch(ref)
    assert ours.dropout == 0.25
    assert all(p.dtype == torch.float64 for p in ours.parameters())


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"add_bias_kv": True}, "add_bias_kv=True"),
        ({"add_zero_attn": True}, "add_zero_attn=True"),
        ({"kdim": 4}, "kdim=4"),
        ({"vdim": 6}, "vdim=6"),
    ],
)
def test_from_torch_rejects_what_it_cannot_represent(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MultiHeadAttention.from_torch(nn.MultiheadAttention(16, 4, **kwargs))


# ---------------------------------------------------------------- fast path = explicit path


@pytest.mark.parametrize("mask_kind", [None, "padding", "causal", "random"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("B, Tq, Tk, d_model, n_head", SELF_SIZES[1:] + CROSS_SIZES[1:])
def test_fast_path_equals_explicit_path(B, Tq, Tk, d_model, n_head, dtype, mask_kind):
    """need_weights=False uses F.scaled_dot_product_attention; True uses the formula."""
    mha = randomize_(MultiHeadAttention(d_model, n_head)).to(dtype).eval()
    q = torch.randn(B, Tq, d_model, dtype=dtype)
    kv = q if Tq == Tk else torch.randn(B, Tk, d_model, dtype=dtype)
    mask = {
        None: None,
        "padding": to_our_mask(key_padding(B, Tk)),
        "causal": torch.ones(Tq, Tk, dtype=torch.bool).tril(),
        "random": torch.rand(B, n_head, Tq, Tk) > 0.5,  # may leave rows fully masked
    }[mask_kind]
    fast = mha(q, kv, kv, mask)
    explicit, _ = mha(q, kv, kv, mask, need_weights=True)
    assert_parity(fast, explicit, dtype)


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (1, 7), (5, 1), (1, 5, 7), (2, 1, 5, 7)])
def test_every_broadcastable_mask_shape_works(shape, need_weights):
    """Any bool mask that broadcasts to (B, H, Tq, Tk) is accepted, on both paths
    (F.scaled_dot_product_attention alone rejects 0-D and 1-D masks)."""
    mha = randomize_(MultiHeadAttention(16, 4).double()).eval()
    q, kv = torch.randn(2, 5, 16, dtype=torch.float64), torch.randn(2, 7, 16, dtype=torch.float64)
    mask = torch.rand(shape) > 0.3
    out = mha(q, kv, kv, mask, need_weights=need_weights)
    out = out[0] if need_weights else out
    full, _ = mha(q, kv, kv, mask.expand(2, 4, 5, 7), need_weights=True)
    assert_parity(out, full, torch.float64)


def test_self_and_cross_projection_paths_agree():
    """Self-attention projects with one matmul; equal tensors that are not `is` take the other."""
    mha = randomize_(MultiHeadAttention(16, 4).double()).eval()
    x = torch.randn(2, 5, 16, dtype=torch.float64)
    assert_parity(mha(x, x, x), mha(x, x.clone(), x.clone()), torch.float64)


# ---------------------------------------------------------------- fully masked rows


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_fully_masked_query_row_is_zero(dtype, need_weights):
    """Documented value: attention output 0 for a query with no allowed key, on both paths.

    MultiHeadAttention then applies W_O, so the module's output there is W_O 0 + b_O = b_O;
    with a zero output bias that is exactly 0. (nn.MultiheadAttention's fast path gives NaN.)
    """
    mha = MultiHeadAttention(16, 4).to(dtype).eval()
    with torch.no_grad():
        mha.out_proj.bias.zero_()
    x = torch.randn(2, 5, 16, dtype=dtype)
    mask = torch.ones(2, 1, 5, 5, dtype=torch.bool)
    mask[0, :, 3, :] = False  # query 3 of sequence 0 sees nothing
    out = mha(x, x, x, mask, need_weights=need_weights)
    if need_weights:
        out, weights = out
        assert torch.equal(weights[0, :, 3], torch.zeros_like(weights[0, :, 3]))
    assert torch.isfinite(out).all()
    assert torch.equal(out[0, 3], torch.zeros(16, dtype=dtype))
    assert (out[0, [0, 1, 2, 4]] != 0).any(dim=-1).all()
    assert (out[1] != 0).any(dim=-1).all()


@pytest.mark.parametrize("need_weights", [False, True])
def test_fully_masked_row_output_is_the_output_bias(need_weights):
    mha = randomize_(MultiHeadAttention(16, 4)).eval()
    x = torch.randn(1, 4, 16)
    mask = torch.tensor([True, True, False, True])[:, None]  # (Tq, 1): query 2 sees nothing
    out = mha(x, x, x, mask, need_weights=need_weights)
    out = out[0] if need_weights else out
    torch.testing.assert_close(out[0, 2], mha.out_proj.bias.detach())


@pytest.mark.parametrize("need_weights", [False, True])
def test_fully_masked_row_has_finite_gradients(need_weights):
    mha = randomize_(MultiHeadAttention(16, 4))
    x = torch.randn(2, 5, 16, requires_grad=True)
    mask = torch.ones(2, 1, 5, 5, dtype=torch.bool)
    mask[1, :, 0, :] = False
    out = mha(x, x, x, mask, need_weights=need_weights)
    out = out[0] if need_weights else out
    out.sum().backward()
    assert torch.isfinite(x.grad).all()
    assert all(torch.isfinite(p.grad).all() for p in mha.parameters())


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("d_model, n_head", [(10, 3), (8, 3), (6, 4)])
def test_d_model_not_divisible_by_n_head_raises(d_model, n_head):
    with pytest.raises(ValueError, match=rf"d_model \({d_model}\) .* n_head \({n_head}\)"):
        MultiHeadAttention(d_model, n_head)


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("shape", [(2, 1, 1, 4), (3, 1, 1, 5), (2, 3, 5, 5), (5, 6)])
def test_mask_of_wrong_shape_raises(shape, need_weights):
    mha = MultiHeadAttention(16, 4)
    x = torch.randn(2, 5, 16)
    expected = str(shape).replace("(", r"\(").replace(")", r"\)")
    with pytest.raises(ValueError, match=rf"{expected} does not broadcast .*\(2, 4, 5, 5\)"):
        mha(x, x, x, torch.ones(shape, dtype=torch.bool), need_weights=need_weights)


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.uint8])
def test_mask_of_wrong_dtype_raises_type_error(dtype, need_weights):
    """An additive float mask or a 0/1 int mask is not our convention: say so."""
    mha = MultiHeadAttention(16, 4)
    x = torch.randn(2, 5, 16)
    with pytest.raises(TypeError, match=f"bool tensor .*got {re.escape(str(dtype))}"):
        mha(x, x, x, torch.ones(2, 1, 1, 5, dtype=dtype), need_weights=need_weights)


def test_k_v_length_mismatch_raises():
    mha = MultiHeadAttention(16, 4)
    q, k, v = torch.randn(2, 5, 16), torch.randn(2, 7, 16), torch.randn(2, 6, 16)
    with pytest.raises(ValueError, match=r"length, got \(2, 7, 16\) and \(2, 6, 16\)"):
        mha(q, k, v)


def test_k_v_batch_mismatch_raises():
    mha = MultiHeadAttention(16, 4)
    q, k, v = torch.randn(2, 5, 16), torch.randn(2, 7, 16), torch.randn(3, 7, 16)
    with pytest.raises(ValueError, match=r"got \(2, 7, 16\) and \(3, 7, 16\)"):
        mha(q, k, v)


def test_q_k_batch_mismatch_raises():
    mha = MultiHeadAttention(16, 4)
    q, kv = torch.randn(2, 5, 16), torch.randn(3, 7, 16)
    with pytest.raises(ValueError, match="q has batch 2 but k and v have batch 3"):
        mha(q, kv, kv)


@pytest.mark.parametrize("name, shape", [("q", (2, 5, 12)), ("q", (5, 16)), ("k", (2, 5, 8))])
def test_wrong_width_or_rank_raises(name, shape):
    mha = MultiHeadAttention(16, 4)
    args = {"q": torch.randn(2, 5, 16), "k": torch.randn(2, 5, 16), "v": torch.randn(2, 5, 16)}
    args[name] = torch.randn(shape)
    expected = str(shape).replace("(", r"\(").replace(")", r"\)")
    with pytest.raises(ValueError, match=rf"{name} must have shape \(B, T, 16\), got {expected}"):
        mha(**args)


# ---------------------------------------------------------------- training, state, dtypes


@pytest.mark.parametrize("self_attention", [True, False])
def test_gradients_reach_every_parameter(self_attention):
    mha = randomize_(MultiHeadAttention(16, 4, dropout=0.1))
    q = torch.randn(2, 5, 16)
    kv = q if self_attention else torch.randn(2, 7, 16)
    out = mha(q, kv, kv)
    (out * torch.randn_like(out)).sum().backward()
    for name, p in mha.named_parameters():
        assert p.grad is not None and (p.grad != 0).any(), name


def test_dropout_on_weights_in_training_only():
    mha = MultiHeadAttention(16, 4, dropout=0.5)
    x = torch.randn(2, 6, 16)
    mha.eval()
    assert torch.equal(mha(x, x, x), mha(x, x, x))
    mha.train()
    _, weights = mha(x, x, x, need_weights=True)
    assert (weights == 0).any()
    assert not torch.allclose(mha(x, x, x), mha(x, x, x))


def test_no_hidden_state():
    """Weights are returned when asked for, never stashed on the module."""
    mha = MultiHeadAttention(16, 4)
    before = set(vars(mha))
    x = torch.randn(2, 5, 16)
    mha(x, x, x, need_weights=True)
    assert set(vars(mha)) == before


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + LOW_DTYPES)
def test_output_dtype_follows_module(dtype):
    mha = MultiHeadAttention(16, 4).to(dtype).eval()
    x = torch.randn(2, 5, 16, dtype=dtype)
    assert mha(x, x, x).dtype == dtype


def test_state_dict_round_trip():
    mha = randomize_(MultiHeadAttention(16, 4)).eval()
    buf = io.BytesIO()
    torch.save(mha.state_dict(), buf)
    buf.seek(0)
    fresh = MultiHeadAttention(16, 4).eval()
    fresh.load_state_dict(torch.load(buf))
    x = torch.randn(2, 5, 16)
    assert torch.equal(fresh(x, x, x), mha(x, x, x))


def test_to_float64_moves_every_tensor():
    mha = MultiHeadAttention(16, 4).to(torch.float64)
    assert all(t.dtype == torch.float64 for t in mha.state_dict().values())
