"""PositionwiseFeedForward: max(0, x W1 + b1) W2 + b2 at every position, the ReLU in place
only when autograd records nothing."""

import pytest
import torch
from support import FLOAT_DTYPES, LOW_DTYPES, assert_close_low_precision, randomize_

from encoder import PositionwiseFeedForward

pytestmark = pytest.mark.usefixtures("device")

SIZES = [(4, 8), (16, 64), (33, 17)]  # (d_model, d_ff)


def formula(x, ffn):
    """The paper's equation, written with the module's weights."""
    W1, b1 = ffn.linear1.weight.T, ffn.linear1.bias  # (d_model, d_ff), (d_ff,)
    W2, b2 = ffn.linear2.weight.T, ffn.linear2.bias  # (d_ff, d_model), (d_model,)
    return torch.clamp(x @ W1 + b1, min=0) @ W2 + b2


@pytest.mark.parametrize("d_model, d_ff", SIZES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_matches_the_formula(d_model, d_ff, dtype):
    ffn = randomize_(PositionwiseFeedForward(d_model, d_ff)).to(dtype).eval()
    x = torch.randn(2, 5, d_model, dtype=dtype)
    tol = {torch.float32: 1e-5, torch.float64: 1e-12}[dtype]
    torch.testing.assert_close(ffn(x), formula(x, ffn), atol=tol, rtol=0)


@pytest.mark.parametrize("dtype", LOW_DTYPES)
def test_low_precision_matches_float32(dtype):
    ffn = randomize_(PositionwiseFeedForward(16, 64)).eval()
    x = torch.randn(2, 5, 16)
    ref = ffn(x)
    assert_close_low_precision(ffn.to(dtype)(x.to(dtype)), ref)


@pytest.mark.parametrize("shape", [(8,), (3, 8), (2, 3, 8), (2, 2, 3, 8)])
def test_any_leading_shape(shape):
    ffn = PositionwiseFeedForward(8, 16).eval()
    x = torch.randn(shape)
    out = ffn(x)
    assert out.shape == shape
    # Position-wise: each position is transformed on its own.
    torch.testing.assert_close(out.reshape(-1, 8), ffn(x.reshape(-1, 8)))


def test_does_not_modify_its_input():
    """The ReLU is in place on the hidden layer, never on x."""
    ffn = PositionwiseFeedForward(8, 16)
    x = torch.randn(2, 3, 8)
    before = x.clone()
    ffn(x)
    assert torch.equal(x, before)


def _relu_shares_linear1_storage(ffn, x):
    """Does linear2 read the storage linear1 wrote (the ReLU ran in place)?"""
    seen = {}
    hooks = [
        ffn.linear1.register_forward_hook(lambda m, i, out: seen.update(linear1=out)),
        ffn.linear2.register_forward_pre_hook(lambda m, i: seen.update(linear2=i[0])),
    ]
    try:
        ffn(x)  # eval(): dropout hands the ReLU output on unchanged
    finally:
        for hook in hooks:
            hook.remove()
    return seen["linear2"].data_ptr() == seen["linear1"].data_ptr()


def _graph_node_names(grad_fn):
    names, seen, stack = set(), set(), [grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        names.add(type(node).__name__)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return names


@pytest.mark.parametrize("shape", [(3, 8), (2, 3, 8)])
def test_in_place_relu_keeps_gradients_exact(shape):
    ffn = randomize_(PositionwiseFeedForward(8, 16)).eval()
    x = torch.randn(shape, requires_grad=True)
    # Inference: the ReLU overwrites linear1's output.
    with torch.no_grad():
        assert _relu_shares_linear1_storage(ffn, x)
    # Autograd recording: a new tensor, so no history rewritten (no CopySlices copy) ...
    assert not _relu_shares_linear1_storage(ffn, x)
    out = ffn(x)
    assert "CopySlices" not in _graph_node_names(out.grad_fn)
    # ... and the gradients of the out-of-place formula.
    target = torch.randn(shape)
    (out * target).sum().backward()
    ours = [p.grad.clone() for p in ffn.parameters()] + [x.grad.clone()]
    ffn.zero_grad()
    x.grad = None
    (formula(x, ffn) * target).sum().backward()  # clamp makes a new tensor
    reference = [p.grad for p in ffn.parameters()] + [x.grad]
    for a, b in zip(ours, reference, strict=True):
        torch.testing.assert_close(a, b)
        assert (a != 0).any()
