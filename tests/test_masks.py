"""Masks: bool, True = may attend, broadcastable to (B, H, Tq, Tk)."""

import re

import pytest
import torch

from encoder import causal_mask, padding_mask
from encoder.masks import check_mask

pytestmark = pytest.mark.usefixtures("device")


@pytest.mark.parametrize("pad_id", [0, 1, 7])
def test_padding_mask_is_true_at_real_tokens(pad_id):
    ids = torch.tensor([[5, 3, pad_id, pad_id], [pad_id, 2, 4, 6]])
    mask = padding_mask(ids, pad_id)
    assert mask.dtype == torch.bool
    assert mask.shape == (2, 1, 1, 4)
    assert torch.equal(mask[:, 0, 0], ids != pad_id)


def test_padding_mask_is_the_inverse_of_torch_key_padding_mask():
    ids = torch.randint(0, 4, (3, 9))
    key_padding_mask = ids == 0  # torch: True = ignore
    assert torch.equal(padding_mask(ids, 0), ~key_padding_mask[:, None, None, :])


@pytest.mark.parametrize("T", [1, 2, 7])
def test_causal_mask(T):
    mask = causal_mask(T)
    assert mask.dtype == torch.bool
    assert mask.shape == (T, T)
    for t in range(T):
        assert mask[t, : t + 1].all()
        assert not mask[t, t + 1 :].any()


@pytest.mark.parametrize(
    "shape", [(5,), (3, 5), (1, 3, 5), (2, 1, 1, 5), (1, 4, 1, 5), (2, 4, 3, 5), (1, 1, 3, 1)]
)
def test_check_mask_accepts_broadcastable_bool(shape):
    check_mask(torch.ones(shape, dtype=torch.bool), (2, 4, 3, 5))


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 2, 3, 5), (3, 1, 1, 5), (1, 2, 4, 3, 5)])
def test_check_mask_rejects_wrong_shape_naming_both(shape):
    expected = str(shape).replace("(", r"\(").replace(")", r"\)")
    with pytest.raises(ValueError, match=rf"{expected} does not broadcast .* \(2, 4, 3, 5\)"):
        check_mask(torch.ones(shape, dtype=torch.bool), (2, 4, 3, 5))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.uint8])
def test_check_mask_rejects_non_bool_naming_dtype(dtype):
    with pytest.raises(TypeError, match=f"bool tensor .*got {re.escape(str(dtype))}"):
        check_mask(torch.ones(3, 5, dtype=dtype), (2, 4, 3, 5))


def test_check_mask_rejects_non_tensor():
    with pytest.raises(TypeError, match="got list"):
        check_mask([[True]], (1, 1, 1, 1))


def test_an_empty_causal_mask_is_a_0_by_0_mask_as_in_torch():
    from torch import nn

    empty = causal_mask(0)
    assert empty.shape == (0, 0) and empty.dtype == torch.bool
    assert nn.Transformer.generate_square_subsequent_mask(0).shape == empty.shape
    from encoder import Encoder

    enc = Encoder(vocab_size=5, d_model=4, n_head=2, d_ff=8, n_layers=1, max_len=4)
    assert enc(torch.ones(2, 0, dtype=torch.long), empty).shape == (2, 0, 4)
