"""TokenEmbedding: (vocab_size, d_model) lookup, optional sqrt(d_model) scale, padding row,
the id range check where it costs nothing."""

import math

import pytest
import torch
import torch.nn.functional as F

from encoder import TokenEmbedding

pytestmark = pytest.mark.usefixtures("device")

SIZES = [(10, 4), (37, 16), (1000, 64)]


@pytest.mark.parametrize("vocab_size, d_model", SIZES)
def test_takes_vocab_size_then_d_model(vocab_size, d_model):
    """The Chinese embedding post takes (d_model, vocab); ours takes (vocab_size, d_model), like
    the others."""
    emb = TokenEmbedding(vocab_size, d_model)
    assert emb.weight.shape == (vocab_size, d_model)
    ids = torch.tensor([[0, vocab_size - 1]])
    assert emb(ids).shape == (1, 2, d_model)


@pytest.mark.parametrize("vocab_size, d_model", SIZES)
@pytest.mark.parametrize("scale", [True, False])
def test_output_is_scaled_lookup(vocab_size, d_model, scale):
    emb = TokenEmbedding(vocab_size, d_model, scale=scale)
    ids = torch.randint(0, vocab_size, (3, 5))
    factor = math.sqrt(d_model) if scale else 1.0
    torch.testing.assert_close(emb(ids), F.embedding(ids, emb.weight) * factor)


def test_scale_is_on_by_default():
    """The paper (section 3.4) multiplies the embedding by sqrt(d_model)."""
    emb = TokenEmbedding(10, 16)
    ids = torch.tensor([[3]])
    torch.testing.assert_close(emb(ids)[0, 0], emb.weight[3] * 4.0)


def test_scaled_output_has_unit_variance():
    """Weights start at std 1/sqrt(d_model), so scaled outputs have std ~1, like the PE."""
    emb = TokenEmbedding(4000, 64)
    out = emb(torch.arange(4000)[None, :])
    assert abs(out.std().item() - 1.0) < 0.02
    assert abs(out.mean().item()) < 0.02


def test_padding_idx_defaults_to_none_so_token_1_is_not_zeroed():
    """The encoder post hard-codes padding_idx=1, silently zeroing every token 1."""
    emb = TokenEmbedding(10, 8)
    assert emb.padding_idx is None
    out = emb(torch.tensor([[1, 1, 2]]))
    assert (out[0, 0] != 0).any()
    assert (emb.weight != 0).any(dim=1).all(), "no row may start as zero"


@pytest.mark.parametrize("padding_idx", [0, 1, 9])
def test_padding_idx_row_is_zero_and_gets_no_gradient(padding_idx):
    emb = TokenEmbedding(10, 8, padding_idx=padding_idx)
    ids = torch.arange(10).repeat(2, 1)  # every id, the padding id included
    out = emb(ids)
    assert torch.equal(out[:, padding_idx], torch.zeros(2, 8))
    others = [i for i in range(10) if i != padding_idx]
    assert (out[:, others] != 0).any(dim=-1).all(), "only the padding row is zero"

    (out * torch.randn_like(out)).sum().backward()
    assert torch.equal(emb.weight.grad[padding_idx], torch.zeros(8))
    assert (emb.weight.grad[others] != 0).any(dim=-1).all()


@pytest.mark.parametrize("id_dtype", [torch.int64, torch.int32])
def test_accepts_int64_and_int32_ids(id_dtype):
    emb = TokenEmbedding(10, 8)
    ids = torch.tensor([[1, 2, 3]])
    torch.testing.assert_close(emb(ids.to(id_dtype)), emb(ids))


def test_empty_batch():
    emb = TokenEmbedding(10, 8)
    assert emb(torch.zeros(2, 0, dtype=torch.long)).shape == (2, 0, 8)


@pytest.mark.parametrize("bad, lo, hi", [(10, 0, 10), (-1, -1, 3), (25, 0, 25)])
def test_out_of_range_ids_raise_value_error(bad, lo, hi, device):
    if device != "cpu":  # a bad id on CUDA trips a device-side assert, ending the CUDA context
        pytest.skip("the range check runs on the CPU; see test_compile.py for CUDA")
    emb = TokenEmbedding(10, 8)
    ids = torch.tensor([[0, 3, bad]])
    with pytest.raises(ValueError, match=rf"\[0, 10\), got min {lo} and max {hi}"):
        emb(ids)


@pytest.mark.parametrize("freeze", [True, False])
@pytest.mark.parametrize("scale", [True, False])
def test_from_pretrained_copies_the_table(freeze, scale):
    vectors = torch.randn(7, 4, dtype=torch.float64)
    emb = TokenEmbedding.from_pretrained(vectors, freeze=freeze, padding_idx=2, scale=scale)
    assert type(emb) is TokenEmbedding
    assert emb.padding_idx == 2 and emb.weight.requires_grad is not freeze
    assert emb.weight.dtype == torch.float64 and torch.equal(emb.weight, vectors)
    assert emb.weight.data_ptr() != vectors.data_ptr()  # a copy
    ids = torch.tensor([[0, 2, 6]])
    factor = 2.0 if scale else 1.0
    torch.testing.assert_close(emb(ids), vectors[ids] * factor)
    if not freeze:
        emb(ids).sum().backward()
        assert emb.weight.grad[2].eq(0).all() and emb.weight.grad[0].ne(0).all()
