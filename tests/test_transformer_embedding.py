"""TransformerEmbedding: scaled token vectors + positional encoding, then dropout."""

import io

import pytest
import torch
from support import ALL_DTYPES

from encoder import TransformerEmbedding, sinusoidal_table

SIZES = [(10, 8, 6), (50, 16, 32), (100, 7, 12)]  # (vocab_size, d_model, max_len)


@pytest.mark.parametrize("vocab_size, d_model, max_len", SIZES)
def test_is_token_embedding_plus_table(vocab_size, d_model, max_len):
    emb = TransformerEmbedding(vocab_size, d_model, max_len).eval()
    ids = torch.randint(0, vocab_size, (3, max_len))
    expected = emb.token(ids) + sinusoidal_table(max_len, d_model)
    torch.testing.assert_close(emb(ids), expected)
    assert emb(ids[:, :1]).shape == (3, 1, d_model)


def test_padding_idx_defaults_to_none():
    emb = TransformerEmbedding(10, 8, 6)
    assert emb.token.padding_idx is None


def test_padding_idx_is_passed_to_token_embedding():
    emb = TransformerEmbedding(10, 8, 6, padding_idx=3).eval()
    assert emb.token.padding_idx == 3
    out = emb(torch.tensor([[3, 3, 3]]))
    # A padding token contributes only its position.
    torch.testing.assert_close(out[0], sinusoidal_table(3, 8))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_dtype_follows_module(dtype):
    emb = TransformerEmbedding(10, 8, 6).to(dtype).eval()
    out = emb(torch.randint(0, 10, (2, 6)))
    assert out.dtype == dtype
    assert torch.isfinite(out).all()


def test_dropout_applies_in_training_only():
    emb = TransformerEmbedding(10, 16, 8, dropout=0.5)
    ids = torch.randint(0, 10, (4, 8))
    assert torch.equal(emb.eval()(ids), emb(ids))
    zeros = (emb.train()(ids) == 0).float().mean()
    assert 0.3 < zeros < 0.7


def test_seq_len_greater_than_max_len_raises():
    emb = TransformerEmbedding(10, 8, max_len=6)
    with pytest.raises(ValueError, match="sequence length 7 exceeds max_len=6"):
        emb(torch.zeros(1, 7, dtype=torch.long))


def test_float_ids_raise_type_error():
    emb = TransformerEmbedding(10, 8, 6)
    with pytest.raises(TypeError, match=r"got torch\.float32"):
        emb(torch.zeros(1, 3))


def test_ids_out_of_range_raise_value_error():
    emb = TransformerEmbedding(10, 8, 6)
    with pytest.raises(ValueError, match=r"\[0, 10\), got min 0 and max 12"):
        emb(torch.tensor([[0, 12]]))


def test_state_dict_holds_weights_and_table():
    emb = TransformerEmbedding(10, 8, 6).eval()
    assert set(emb.state_dict()) == {"token.weight", "position.pe"}
    buf = io.BytesIO()
    torch.save(emb.state_dict(), buf)
    buf.seek(0)
    fresh = TransformerEmbedding(10, 8, 6).eval()
    fresh.load_state_dict(torch.load(buf))
    ids = torch.randint(0, 10, (2, 6))
    assert torch.equal(fresh(ids), emb(ids))


def test_to_float64_moves_every_tensor():
    emb = TransformerEmbedding(10, 8, 6).to(torch.float64)
    tensors = list(emb.parameters()) + list(emb.buffers())
    assert len(tensors) == 2
    assert all(t.dtype == torch.float64 for t in tensors)
