"""EncoderLayer: parity with nn.TransformerEncoderLayer (post-norm and pre-norm, with and
without padding), masks in low precision, the two formulas, from_torch. (Bad arguments:
test_boundary.py; state, dtype and device moves, dropout, gradients: test_modules.py.)"""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from support import (
    D_FF,
    SMALL_SIZES,
    assert_parity,
    key_padding,
    randomize_,
    to_our_mask,
)
from torch import nn

from encoder import EncoderLayer, causal_mask

pytestmark = pytest.mark.usefixtures("device")

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
def test_parity_with_src_mask(dtype, norm_first):
    """A (T, T) mask: torch's bool src_mask is True = not allowed; ours is its inverse."""
    ours, ref = pair(16, 4, 32, norm_first, dtype)
    x = torch.randn(2, 7, 16, dtype=dtype)
    allowed = causal_mask(7)
    assert_parity(ours(x, allowed), ref(x, src_mask=~allowed), dtype)


@given(
    **SMALL_SIZES, T=st.integers(1, 7), d_ff=D_FF, norm_first=st.booleans(), padded=st.booleans()
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


@pytest.mark.parametrize("activation", ["relu", torch.relu, torch.nn.functional.relu, nn.ReLU()])
def test_from_torch_accepts_every_spelling_of_relu(activation):
    torch_layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=activation)
    torch_layer = torch_layer.eval()
    ours = EncoderLayer.from_torch(torch_layer)
    x = torch.randn(2, 5, 8)
    torch.testing.assert_close(ours(x), torch_layer(x.transpose(0, 1)).transpose(0, 1))
