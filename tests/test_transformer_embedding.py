"""TransformerEmbedding: scaled token vectors + positional encoding, then dropout."""

import pytest
import torch

from encoder import TransformerEmbedding, sinusoidal_table

pytestmark = pytest.mark.usefixtures("device")

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


def test_state_dict_holds_the_learned_weights_only():
    """The positional table is a formula: recomputed, not saved (see test_positional.py)."""
    emb = TransformerEmbedding(10, 8, 6)
    assert set(emb.state_dict()) == {"token.weight"}
