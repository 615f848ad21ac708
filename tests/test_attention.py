"""scaled_dot_product_attention and MultiHeadAttention: parity with nn.MultiheadAttention,
fast path = explicit path, masks in every dtype, fully masked rows on every kernel, fp16
range, initialisation. (Bad arguments: test_boundary.py; state, dtype and device moves,
dropout, gradients: test_modules.py.)"""

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from support import (
    ALL_DTYPES,
    LOW_DTYPES,
    SMALL_SIZES,
    assert_close_low_precision,
    assert_parity,
    key_padding,
    randomize_,
    to_our_mask,
)
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

from encoder import MultiHeadAttention, causal_mask, scaled_dot_product_attention

pytestmark = pytest.mark.usefixtures("device")

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


@pytest.mark.parametrize("Tq, Tk, d", [(1, 1, 1), (4, 6, 8), (9, 3, 16)])
def test_sdpa_is_the_formula(dtype, Tq, Tk, d):
    q, k, v = (torch.randn(2, 3, T, d, dtype=dtype) for T in (Tq, Tk, Tk))
    out, weights = scaled_dot_product_attention(q, k, v)
    expected_w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d), dim=-1)
    assert_parity(weights, expected_w, dtype)
    assert_parity(out, expected_w @ v, dtype)
    assert_parity(weights.sum(-1), torch.ones(2, 3, Tq, dtype=dtype), dtype)


def test_sdpa_matches_torch_functional_with_mask(dtype):
    q, k, v = (torch.randn(2, 3, T, 8, dtype=dtype) for T in (5, 6, 6))
    mask = torch.rand(2, 3, 5, 6) > 0.4
    mask[..., 0] = True  # every query keeps a key: torch's reference is defined
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert_parity(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), dtype)
    assert not weights[~mask].any(), "masked keys get exactly zero weight"


@pytest.mark.parametrize("dtype", ALL_DTYPES)
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


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("B, Tq, Tk, d_model, n_head", CROSS_SIZES)
def test_cross_attention_with_kv_length_different_from_q(B, Tq, Tk, d_model, n_head, need_weights):
    """The encoder post reshapes k and v with q's length: crashes whenever Tk != Tq."""
    mha = MultiHeadAttention(d_model, n_head).eval()
    q, kv = torch.randn(B, Tq, d_model), torch.randn(B, Tk, d_model)
    out = mha(q, kv, kv, need_weights=need_weights)
    if need_weights:
        out, weights = out
        assert weights.shape == (B, n_head, Tq, Tk)
    assert out.shape == (B, Tq, d_model)


@pytest.mark.parametrize("dtype", LOW_DTYPES)
def test_low_precision_explicit_path_with_padding(dtype):
    """The encoder post's masked_fill(mask == 0, -1e9) overflows fp16; ours fills with finfo.min, so
    padding keys get weight exactly 0. (The fused path: test_modules.py.)"""
    mha = randomize_(MultiHeadAttention(16, 4)).eval()
    x = torch.randn(3, 6, 16)
    kpm = key_padding(3, 6)
    ref = mha(x, x, x, to_our_mask(kpm))
    x = x.to(dtype)
    low, weights = mha.to(dtype)(x, x, x, to_our_mask(kpm), need_weights=True)
    assert torch.isfinite(weights).all()
    assert not weights.masked_select(kpm[:, None, None, :]).any()
    assert low.dtype == dtype
    assert_close_low_precision(low, ref)


# ---------------------------------------------------------------- parity with nn.MultiheadAttention


@pytest.mark.parametrize("B, Tq, Tk, d_model, n_head", SELF_SIZES)
def test_self_attention_parity(B, Tq, Tk, d_model, n_head, dtype):
    ours, ref = pair(d_model, n_head, dtype)
    x = torch.randn(B, Tq, d_model, dtype=dtype)
    expected, _ = ref(x, x, x, need_weights=False)
    assert_parity(ours(x, x, x), expected, dtype)


@pytest.mark.parametrize("B, Tq, Tk, d_model, n_head", CROSS_SIZES)
def test_cross_attention_parity(B, Tq, Tk, d_model, n_head, dtype):
    ours, ref = pair(d_model, n_head, dtype)
    q = torch.randn(B, Tq, d_model, dtype=dtype)
    k, v = torch.randn(2, B, Tk, d_model, dtype=dtype)
    expected, _ = ref(q, k, v, need_weights=False)
    assert_parity(ours(q, k, v), expected, dtype)


@pytest.mark.parametrize("self_attention", [True, False])
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


def test_attn_mask_parity(dtype):
    """A (Tq, Tk) mask: torch's bool attn_mask is True = not allowed, ours is its inverse."""
    ours, ref = pair(16, 4, dtype)
    x = torch.randn(2, 6, 16, dtype=dtype)
    allowed = causal_mask(6)
    expected, _ = ref(x, x, x, attn_mask=~allowed, need_weights=False)
    assert_parity(ours(x, x, x, allowed), expected, dtype)


@pytest.mark.parametrize("masked", [False, True])
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
    **SMALL_SIZES,
    Tq=st.integers(1, 6),
    Tk=st.integers(1, 6),
    self_attention=st.booleans(),
    masked=st.booleans(),
    need_weights=st.booleans(),
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


# ---------------------------------------------------------------- fast path = explicit path


@pytest.mark.parametrize("mask_kind", [None, "padding", "causal", "random"])
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


def _attention_with_empty_rows(dtype, T=64):
    """A module, an input and a mask in which sequence 1 is all padding and query 0 of
    sequence 0 sees nothing (its causal window holds only padding)."""
    mha = randomize_(MultiHeadAttention(64, 4)).to(dtype)
    x = torch.randn(2, T, 64, dtype=dtype, requires_grad=True)
    keep = torch.ones(2, T, dtype=torch.bool)
    keep[0, :2] = False  # sequence 0: padded on the left
    keep[1] = False  # sequence 1: nothing but padding
    mask = keep[:, None, None, :] & causal_mask(T)  # (2, 1, T, T)
    return mha, x, mask


def _assert_finite_with_zero_rows(mha, x, mask, out):
    empty = ~mask.any(-1)[:, 0]  # (B, T): queries with no key
    assert empty[1].all() and empty[0, :2].all() and not empty[0, 2:].any()
    (out.float() * torch.randn_like(out, dtype=torch.float32)).sum().backward()
    assert torch.isfinite(out).all()
    assert torch.isfinite(x.grad).all()
    for name, p in mha.named_parameters():
        assert torch.isfinite(p.grad).all(), name
    bias = mha.out_proj.bias.detach().expand_as(out[empty])  # attention output 0
    assert torch.equal(out[empty], bias)


BACKENDS = [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]
if torch.cuda.is_available():
    BACKENDS += [SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.name.lower())
def test_fully_masked_rows_finite_on_every_backend(backend, dtype, device):
    """Outputs and gradients stay finite with an all-padding sequence on each kernel of
    F.scaled_dot_product_attention (on CUDA, cuDNN's gives NaN gradients for a fully masked
    row), and such rows come out as out_proj's bias, as on the explicit path."""
    mha, x, mask = _attention_with_empty_rows(dtype)
    try:
        with sdpa_kernel([backend]):
            out = mha(x, x, x, mask)
    except RuntimeError as e:
        if "No available kernel" in str(e) or "No viable backend" in str(e):
            pytest.skip(f"{backend.name} has no kernel for a bool mask in {dtype} on {device}")
        raise
    _assert_finite_with_zero_rows(mha, x, mask, out)
    explicit, _ = mha(x, x, x, mask, need_weights=True)
    assert_parity(out, explicit, dtype)


def test_fully_masked_rows_finite_with_a_kernel_that_gives_nan(monkeypatch):
    """The module never hands a kernel a fully masked row: with a stand-in for cuDNN's kernel
    that gives NaN there (softmax over -inf scores), outputs and gradients stay finite."""

    def nan_for_empty_rows(q, k, v, attn_mask=None, dropout_p=0.0):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        scores = scores.masked_fill(~attn_mask, float("-inf"))
        return scores.softmax(-1) @ v  # NaN where a row is all -inf, and in its gradient

    monkeypatch.setattr(F, "scaled_dot_product_attention", nan_for_empty_rows)
    mha, x, mask = _attention_with_empty_rows(torch.float32, T=8)
    _assert_finite_with_zero_rows(mha, x, mask, mha(x, x, x, mask))


@pytest.mark.parametrize("need_weights", [False, True])
def test_fp16_scores_do_not_overflow(need_weights):
    """A query that meets its own key in a 64-dim head at magnitude 40 scores q·k = 64 * 1600 =
    102400 > 65504, fp16's largest: scaling q first keeps every step finite, and the result
    matches fp32."""
    q, v = (torch.randn(2, 2, 16, 64).sign() * 40 for _ in range(2))
    k = q  # self-attention: each query meets itself among the keys
    ref, ref_w = scaled_dot_product_attention(q, k, v)
    half = [t.half() for t in (q, k, v)]
    assert torch.isinf(half[0] @ half[1].transpose(-2, -1)).any(), "the product overflows"
    out, w = scaled_dot_product_attention(*half)
    assert torch.isfinite(out).all() and torch.isfinite(w).all()
    torch.testing.assert_close(out.float(), ref, atol=0.5, rtol=1e-2)  # |v| = 40
    torch.testing.assert_close(w.float(), ref_w, atol=1e-3, rtol=1e-2)
    mha = MultiHeadAttention(64, 1).half().eval()
    with torch.no_grad():
        mha.in_proj.weight.copy_(torch.eye(64).repeat(3, 1))  # q = k = v = x
    x = half[0][:, 0]  # (B, T, 64)
    out = mha(x, x, x, need_weights=need_weights)
    out = out[0] if need_weights else out
    assert torch.isfinite(out).all()


# ---------------------------------------------------------------- initialisation


def test_initialisation_matches_nn_multihead_attention():
    """Xavier-uniform on the stacked (3d, d) in_proj, out_proj as nn.Linear, zero biases:
    the bounds and spreads of nn.MultiheadAttention's parameters (uniform(-a, a) has
    std a / sqrt(3))."""
    d = 256
    ours, theirs = MultiHeadAttention(d, 4), nn.MultiheadAttention(d, 4)
    for mine, ref, bound in (
        (ours.in_proj.weight, theirs.in_proj_weight, math.sqrt(6 / (d + 3 * d))),
        (ours.out_proj.weight, theirs.out_proj.weight, 1 / math.sqrt(d)),
    ):
        for w in (mine, ref):
            assert w.abs().max() <= bound
            assert w.abs().max() > 0.999 * bound
            assert abs(w.std().item() / (bound / math.sqrt(3)) - 1) < 0.01
    for bias in (ours.in_proj.bias, ours.out_proj.bias, theirs.in_proj_bias, theirs.out_proj.bias):
        assert torch.equal(bias, torch.zeros_like(bias))


# ---------------------------------------------------------------- training, state


def test_cross_attention_gradients_reach_every_parameter():
    """Keys and values of another tensor take the three-slice projection path."""
    mha = randomize_(MultiHeadAttention(16, 4, dropout=0.1))
    q, kv = torch.randn(2, 5, 16), torch.randn(2, 7, 16)
    out = mha(q, kv, kv)
    (out * torch.randn_like(out)).sum().backward()
    for name, p in mha.named_parameters():
        assert p.grad is not None and (p.grad != 0).any(), name


def test_dropout_zeroes_weights_in_training():
    mha = MultiHeadAttention(16, 4, dropout=0.5).train()
    x = torch.randn(2, 6, 16)
    _, weights = mha(x, x, x, need_weights=True)
    assert (weights == 0).any()
    _, weights = mha.eval()(x, x, x, need_weights=True)
    assert not (weights == 0).any()


def test_no_hidden_state():
    """Weights are returned when asked for, never stashed on the module."""
    mha = MultiHeadAttention(16, 4)
    before = set(vars(mha))
    x = torch.randn(2, 5, 16)
    mha(x, x, x, need_weights=True)
    assert set(vars(mha)) == before


def test_a_mask_with_as_many_dims_as_a_5d_query_is_accepted():
    """The docstring's (..., Tq, Tk): a 5-D mask with 5-D q (issue 22), the same as its rows."""
    q, k, v = (torch.randn(2, 3, 2, 4, 5) for _ in range(3))
    mask = torch.rand(2, 1, 2, 4, 4) > 0.3
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    for i in range(2):
        expected, _ = scaled_dot_product_attention(q[i], k[i], v[i], mask[i])
        torch.testing.assert_close(out[i], expected)
    assert weights.shape == (2, 3, 2, 4, 4)
    with pytest.raises(ValueError, match=r"does not broadcast to \(\.\.\., Tq, Tk\)"):
        scaled_dot_product_attention(q, k, v, torch.ones(2, 2, 2, 4, 4, dtype=torch.bool))
