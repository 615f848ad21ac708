"""EncoderLayer: parity with nn.TransformerEncoderLayer (post-norm and pre-norm, with and
without padding), masks in every dtype, gradients, from_torch, state."""

import io

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

from encoder import EncoderLayer, LayerNorm, MultiHeadAttention, causal_mask

SIZES = [(1, 1, 4, 1, 8), (2, 6, 16, 4, 32), (3, 9, 32, 4, 64)]  # (B, T, d_model, n_head, d_ff)


def torch_layer(d_model, n_head, d_ff, norm_first, dtype=torch.float32, **kw):
    layer = nn.TransformerEncoderLayer(
        d_model, n_head, d_ff, batch_first=True, norm_first=norm_first, dtype=dtype, **kw
    )
    return randomize_(layer).eval()


def pair(d_model, n_head, d_ff, norm_first, dtype=torch.float32):
    ref = torch_layer(d_model, n_head, d_ff, norm_first, dtype)
    return EncoderLayer.from_torch(ref).eval(), ref


@pytest.mark.parametrize("fast_path", [False, True], ids=["grad", "no_grad"])
@pytest.mark.parametrize("padded", [False, True], ids=["unpadded", "padded"])
@pytest.mark.parametrize("norm_first", [False, True], ids=["post_norm", "pre_norm"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("B, T, d_model, n_head, d_ff", SIZES)
def test_parity_with_nn_transformer_encoder_layer(
    B, T, d_model, n_head, d_ff, dtype, norm_first, padded, fast_path
):
    """Eval mode. torch takes its fused fast path under no_grad, its Python path otherwise.

    With padding, nn.TransformerEncoderLayer computes padded positions like any other
    (a padded query still attends to the real keys) on both of its paths, so we compare
    every position. nn.TransformerEncoder with nested tensors zeroes them instead; see
    test_encoder.py.
    """
    ours, ref = pair(d_model, n_head, d_ff, norm_first, dtype)
    x = torch.randn(B, T, d_model, dtype=dtype)
    kpm = key_padding(B, T) if padded else None
    mask = to_our_mask(kpm) if padded else None
    with torch.set_grad_enabled(not fast_path):
        expected = ref(x, src_key_padding_mask=kpm)
        out = ours(x, mask)
    assert out.shape == (B, T, d_model)
    assert_parity(out, expected, dtype)
    if padded:
        real = ~kpm
        assert_parity(out[real], expected[real], dtype)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_parity_with_src_mask(dtype, norm_first):
    """A (T, T) mask: torch's bool src_mask is True = not allowed; ours is its inverse."""
    ours, ref = pair(16, 4, 32, norm_first, dtype)
    x = torch.randn(2, 7, 16, dtype=dtype)
    allowed = causal_mask(7)
    assert_parity(ours(x, allowed), ref(x, src_mask=~allowed), dtype)


@given(
    B=st.integers(1, 3),
    T=st.integers(1, 7),
    d_head=st.integers(1, 4),
    n_head=st.integers(1, 3),
    d_ff=st.integers(1, 16),
    norm_first=st.booleans(),
    padded=st.booleans(),
    seed=st.integers(0, 2**16),
)
@settings(max_examples=30, deadline=None)
def test_property_parity_with_torch(B, T, d_head, n_head, d_ff, norm_first, padded, seed):
    torch.manual_seed(seed)
    d_model = d_head * n_head
    ours, ref = pair(d_model, n_head, d_ff, norm_first, torch.float64)
    x = torch.randn(B, T, d_model, dtype=torch.float64)
    kpm = key_padding(B, T) if padded else None
    expected = ref(x, src_key_padding_mask=kpm)
    assert_parity(ours(x, to_our_mask(kpm) if padded else None), expected, torch.float64)


# ---------------------------------------------------------------- the posts' bugs


@pytest.mark.parametrize("norm_first", [False, True])
def test_forward_returns_a_tensor_not_name_error(norm_first):
    """Post 001's layer called an attention that ended in `return outpu` (NameError)."""
    layer = EncoderLayer(16, 4, 32, norm_first=norm_first)
    x = torch.randn(2, 5, 16)
    out = layer(x)
    assert isinstance(out, torch.Tensor)
    assert out.shape == (2, 5, 16)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("dtype", LOW_DTYPES)
def test_fp16_masks_work(dtype, norm_first):
    layer = randomize_(EncoderLayer(16, 4, 32, norm_first=norm_first)).eval()
    x = torch.randn(3, 6, 16)
    mask = to_our_mask(key_padding(3, 6))
    ref = layer(x, mask)
    low = layer.to(dtype)(x.to(dtype), mask)
    assert low.dtype == dtype
    assert_close_low_precision(low, ref)


# ---------------------------------------------------------------- structure and from_torch


def test_post_norm_and_pre_norm_are_the_two_formulas():
    """Post-norm: x = norm(x + sublayer(x)). Pre-norm: x = x + sublayer(norm(x))."""
    torch.manual_seed(0)
    post = randomize_(EncoderLayer(16, 4, 32, dropout=0.0)).eval()
    pre = EncoderLayer(16, 4, 32, dropout=0.0, norm_first=True).eval()
    pre.load_state_dict(post.state_dict())
    x = torch.randn(2, 5, 16)

    def sa(h):
        return post.self_attn(h, h, h)

    h = post.norm1(x + sa(x))
    assert torch.equal(post(x), post.norm2(h + post.ff(h)))
    h = x + sa(pre.norm1(x))
    assert torch.equal(pre(x), h + pre.ff(pre.norm2(h)))


def test_submodules_are_the_packages():
    layer = EncoderLayer(16, 4, 32)
    assert isinstance(layer.self_attn, MultiHeadAttention)
    assert isinstance(layer.norm1, LayerNorm) and isinstance(layer.norm2, LayerNorm)


@pytest.mark.parametrize("norm_first", [False, True])
def test_from_torch_copies_configuration(norm_first):
    ref = nn.TransformerEncoderLayer(
        16, 4, 32, dropout=0.2, layer_norm_eps=1e-6, norm_first=norm_first, dtype=torch.float64
    )
    ours = EncoderLayer.from_torch(ref)
    assert ours.norm_first is norm_first
    assert ours.norm1.eps == ours.norm2.eps == 1e-6
    assert ours.self_attn.dropout == 0.2 and ours.dropout1.p == ours.ff.dropout.p == 0.2
    assert ours.ff.linear1.out_features == 32
    assert all(p.dtype == torch.float64 for p in ours.parameters())
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in ref.parameters())


@pytest.mark.parametrize("norm_first", [False, True])
def test_from_torch_without_bias(norm_first):
    """bias=False: torch has no biases at all; ours holds zeros in their place."""
    ref = torch_layer(16, 4, 32, norm_first, bias=False)
    ours = EncoderLayer.from_torch(ref).eval()
    x = torch.randn(2, 5, 16)
    mask = to_our_mask(kpm := key_padding(2, 5))
    assert_parity(ours(x, mask), ref(x, src_key_padding_mask=kpm), torch.float32)


def test_from_torch_accepts_relu_module():
    ref = torch_layer(16, 4, 32, False, activation=nn.ReLU())
    ours = EncoderLayer.from_torch(ref).eval()
    x = torch.randn(2, 5, 16)
    assert_parity(ours(x), ref(x), torch.float32)


@pytest.mark.parametrize("activation", ["gelu", F.gelu, nn.GELU(), F.silu])
def test_from_torch_rejects_other_activations(activation):
    ref = nn.TransformerEncoderLayer(16, 4, 32, activation=activation, batch_first=True)
    with pytest.raises(ValueError, match=r"activation=relu only, got .*(gelu|GELU|silu)"):
        EncoderLayer.from_torch(ref)


def test_from_torch_rejects_different_norm_eps():
    ref = nn.TransformerEncoderLayer(16, 4, 32, batch_first=True)
    ref.norm2.eps = 1e-6
    with pytest.raises(ValueError, match=r"norm1.eps \(1e-05\) != norm2.eps \(1e-06\)"):
        EncoderLayer.from_torch(ref)


def test_from_torch_rejects_unsupported_attention():
    ref = nn.TransformerEncoderLayer(16, 4, 32, batch_first=True)
    ref.self_attn = nn.MultiheadAttention(16, 4, add_bias_kv=True, batch_first=True)
    with pytest.raises(ValueError, match="add_bias_kv=True"):
        EncoderLayer.from_torch(ref)


# ---------------------------------------------------------------- bad input


def test_d_model_not_divisible_by_n_head_raises():
    with pytest.raises(ValueError, match=r"d_model \(30\) is not a multiple of n_head \(4\)"):
        EncoderLayer(30, 4, 64)


def test_mask_of_wrong_shape_raises():
    layer = EncoderLayer(16, 4, 32)
    with pytest.raises(ValueError, match=r"\(2, 1, 1, 6\) does not broadcast .*\(2, 4, 5, 5\)"):
        layer(torch.randn(2, 5, 16), torch.ones(2, 1, 1, 6, dtype=torch.bool))


def test_mask_of_wrong_dtype_raises_type_error():
    layer = EncoderLayer(16, 4, 32)
    with pytest.raises(TypeError, match=r"bool tensor .*got torch\.float32"):
        layer(torch.randn(2, 5, 16), torch.zeros(2, 1, 1, 5))


def test_wrong_width_raises():
    layer = EncoderLayer(16, 4, 32)
    with pytest.raises(ValueError, match=r"\(B, T, 16\), got \(2, 5, 8\)"):
        layer(torch.randn(2, 5, 8))


# ---------------------------------------------------------------- training, state, dtypes


@pytest.mark.parametrize("norm_first", [False, True])
def test_gradients_reach_every_parameter(norm_first):
    layer = randomize_(EncoderLayer(16, 4, 32, norm_first=norm_first))
    x = torch.randn(2, 5, 16, requires_grad=True)
    mask = to_our_mask(key_padding(2, 5))
    out = layer(x, mask)
    (out * torch.randn_like(out)).sum().backward()
    for name, p in layer.named_parameters():
        assert p.grad is not None and (p.grad != 0).any(), name
        assert torch.isfinite(p.grad).all(), name
    assert (x.grad != 0).any()


@pytest.mark.parametrize("norm_first", [False, True])
def test_dropout_in_training_only(norm_first):
    layer = EncoderLayer(16, 4, 32, dropout=0.3, norm_first=norm_first)
    x = torch.randn(2, 5, 16)
    layer.eval()
    assert torch.equal(layer(x), layer(x))
    layer.train()
    assert not torch.allclose(layer(x), layer(x))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + LOW_DTYPES)
def test_output_dtype_follows_module(dtype):
    layer = EncoderLayer(16, 4, 32).to(dtype).eval()
    out = layer(torch.randn(2, 5, 16, dtype=dtype))
    assert out.dtype == dtype
    assert torch.isfinite(out).all()


@pytest.mark.parametrize("norm_first", [False, True])
def test_state_dict_round_trip(norm_first):
    layer = randomize_(EncoderLayer(16, 4, 32, norm_first=norm_first)).eval()
    buf = io.BytesIO()
    torch.save(layer.state_dict(), buf)
    buf.seek(0)
    fresh = EncoderLayer(16, 4, 32, norm_first=norm_first).eval()
    fresh.load_state_dict(torch.load(buf))
    x = torch.randn(2, 5, 16)
    assert torch.equal(fresh(x), layer(x))


def test_to_float64_moves_every_tensor():
    layer = EncoderLayer(16, 4, 32).to(torch.float64)
    assert all(t.dtype == torch.float64 for t in layer.state_dict().values())
