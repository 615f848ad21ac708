# ruff: noqa: E501  (a table: one case a line, as in test_text.py)
"""SentenceClassifier, fit, predict, mask_tokens and WordVocabulary: the pieces that train the
encoder on real text (docs/text.md)."""

import pytest
import torch
import torch.nn.functional as F

from encoder import (
    Encoder,
    SentenceClassifier,
    TokenClassifier,
    Vocabulary,
    WordVocabulary,
    causal_mask,
    fit,
    mask_tokens,
    predict,
)
from encoder.tasks import IGNORE
from encoder.text import CLS, MASK, PAD, SPECIALS, UNK, blank_window
from encoder.training import _scored, length_batches

pytestmark = pytest.mark.usefixtures("device")


def small(vocab_size=12, **changes):
    torch.manual_seed(0)
    return Encoder(vocab_size, d_model=16, n_head=2, d_ff=32, n_layers=1, max_len=16,
                   dropout=0.0, **changes)  # fmt: skip


def test_sentence_classifier_reads_the_first_position_only():
    model = SentenceClassifier(small(), 3).eval()
    ids = torch.tensor([[CLS, 4, 5, PAD], [CLS, 6, 7, 8]])
    logits = model(ids)
    assert logits.shape == (2, 3)
    h = model.encoder(ids)  # (B, T, d_model)
    torch.testing.assert_close(logits, model.head(h[:, 0]))


def test_fit_learns_a_sentence_task_and_predict_reads_it():
    """Label 1 when the token 5 occurs anywhere: only attention brings it to <cls>."""
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(4, 9, (256, 8), generator=g)
    ids[:, 0] = CLS
    labels = (ids == 5).any(dim=1).long()
    model = SentenceClassifier(small(), 2)
    losses = fit(model, ids, labels, epochs=20, batch_size=32, lr=5e-3)
    assert len(losses) == 20 * 8 and losses[-1] < losses[0] / 3
    assert (predict(model, ids) == labels).float().mean() > 0.95
    assert model.training  # left in training mode, as train leaves it


def test_fit_is_deterministic_and_causal_means_a_causal_mask():
    ids = torch.randint(4, 12, (32, 6), generator=torch.Generator().manual_seed(1))
    targets = ids.roll(-1, dims=1)  # the next token: only a model that reads right knows it
    runs = []
    for _ in range(2):
        model = TokenClassifier(small(), 12)
        runs.append(fit(model, ids, targets, epochs=2, batch_size=8, causal=True))
    assert runs[0] == runs[1]
    model.eval()
    mask = causal_mask(6)
    guess = predict(model, ids, causal=True)
    torch.testing.assert_close(guess, model(ids, mask).argmax(-1))


@pytest.mark.parametrize("causal", [False, True])
def test_fit_computes_the_head_only_where_a_label_is_and_the_loss_is_the_same(causal):
    """The head at the labelled positions only: the loss of every position, IGNORE left out."""
    model = TokenClassifier(small(), 12).eval()
    ids = torch.randint(4, 12, (4, 6), generator=torch.Generator().manual_seed(2))
    targets = ids.masked_fill(
        torch.rand(4, 6, generator=torch.Generator().manual_seed(3)) < 0.7, IGNORE
    )
    logits, labels = _scored(model, ids, targets, causal)
    assert logits.shape == (int((targets != IGNORE).sum()), 12) and (labels != IGNORE).all()
    full = model(ids, causal_mask(6) if causal else None)  # (B, T, C): every position
    torch.testing.assert_close(
        F.cross_entropy(logits, labels),
        F.cross_entropy(full.flatten(0, 1), targets.flatten(), ignore_index=IGNORE),
    )
    sentence = SentenceClassifier(small(), 3).eval()  # one label a row: the head as before
    logits, labels = _scored(sentence, ids, torch.tensor([0, 1, 2, 1]), False)
    torch.testing.assert_close(logits, sentence(ids))


def test_blank_window_keeps_the_nearest_tokens_around_the_blank():
    left, right = list(range(10, 20)), list(range(20, 30))
    assert blank_window(left, right, 8) == [16, 17, 18, 19, MASK, 20, 21, 22]
    assert blank_window(left[:2], right, 8) == [10, 11, MASK, 20, 21, 22, 23, 24]
    assert blank_window(left, right[:1], 8) == [14, 15, 16, 17, 18, 19, MASK, 20]
    assert blank_window([5], [6], 8) == [5, MASK, 6] and blank_window([5], [6], 1) == [MASK]


def test_predict_pads_per_token_answers_to_the_full_width():
    model = TokenClassifier(small(), 5)
    ids = torch.tensor([[4, 5, PAD, PAD], [6, PAD, PAD, PAD]])
    out = predict(model, ids, batch_size=1)
    assert out.shape == ids.shape and (out[ids == PAD] == PAD).all()


def test_length_batches_cover_every_row_once_in_batches_of_similar_length():
    ids = torch.zeros(1000, 20, dtype=torch.long)
    lengths = torch.randint(1, 21, (1000,), generator=torch.Generator().manual_seed(0))
    ids[torch.arange(20) < lengths[:, None]] = 4
    batches = length_batches(ids, 10, torch.Generator().manual_seed(0))
    assert sorted(torch.cat(batches).tolist()) == list(range(1000))
    spread = sum(int(lengths[b].max() - lengths[b].min()) for b in batches) / len(batches)
    assert spread < 3  # drawn at random, a batch of 10 would spread over about 16


def test_mask_tokens_follows_berts_recipe():
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(len(SPECIALS), 50, (400, 50), generator=g)
    ids[:, 0], ids[:, -5:], ids[:, 1] = CLS, PAD, UNK
    inputs, labels = mask_tokens(ids, 50, g)
    chosen = labels != IGNORE
    assert (labels[chosen] == ids[chosen]).all()  # the label is the hidden token
    assert not chosen[:, :2].any() and not chosen[:, -5:].any()  # specials: never
    assert (inputs[~chosen] == ids[~chosen]).all()
    share = chosen.sum() / (ids >= len(SPECIALS)).sum()
    masked = (inputs[chosen] == MASK).float().mean()
    kept = (inputs[chosen] == ids[chosen]).float().mean()  # the kept tenth, and random hits
    assert abs(share - 0.15) < 0.01 and abs(masked - 0.8) < 0.02 and abs(kept - 0.1) < 0.02


def test_word_vocabulary_round_trips_and_knows_unk():
    vocab = WordVocabulary.from_texts([["the", "union", "the"], ["state", "the"]], size=2)
    assert vocab.words == ("the", "state") and len(vocab) == 6
    assert vocab.encode(["the", "union"]) == [4, UNK]
    assert vocab.decode([4, 5, MASK]) == ["the", "state", "<mask>"]


X, Y4 = torch.zeros(4, 3, dtype=torch.long), torch.zeros(4, dtype=torch.long)
BAD_INPUT = [
    (lambda: SentenceClassifier("enc", 2), TypeError, "encoder must be a Encoder, got str"),
    (lambda: SentenceClassifier(small(), 0), ValueError, "n_classes must be >= 1, got 0"),
    (lambda: fit(SentenceClassifier(small(), 2), X, Y4[:3]), ValueError, r"targets must have shape \(B,\) .* got \(3,\)"),
    (lambda: fit(SentenceClassifier(small(), 2), X, Y4, epochs=0), ValueError, "epochs must be >= 1, got 0"),
    (lambda: fit(SentenceClassifier(small(), 2), X, Y4, causal=1), TypeError, "causal must be a bool, got int 1"),
    (lambda: predict(SentenceClassifier(small(), 2), torch.zeros(4, 3)), TypeError, "int64 or int32 token ids"),
    (lambda: mask_tokens(torch.tensor([[4, 9]]), 9, torch.Generator()), ValueError, "ids must be < vocab_size=9, got 9"),
    (lambda: mask_tokens(torch.tensor([[4]]), 4, torch.Generator()), ValueError, "count the 4 special tokens and at least one more, got 4"),
    (lambda: mask_tokens(torch.tensor([[4]]), 9, torch.Generator(), p=2.0), ValueError, r"p must be in \[0, 1\], got 2.0"),
    (lambda: WordVocabulary(("a", "a")), ValueError, r"each once; twice: \['a'\]"),
    (lambda: WordVocabulary(["a"]), TypeError, "words must be a tuple, got list"),
    (lambda: WordVocabulary(("a",)).encode("a b"), TypeError, "words must be a list of str, got str"),
    (lambda: WordVocabulary(("a",)).decode([5]), ValueError, r"ids\[0\] must be in \[0, 5\), got 5"),
]  # fmt: skip


@pytest.mark.parametrize("call, error, message", BAD_INPUT)
def test_bad_input_raises_naming_the_value(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_vocabulary_batch_and_sentence_classifier_fit_together():
    vocab = Vocabulary.from_texts(["不要买", "很好"])
    ids = vocab.batch(["不要买", "很好"], add_cls=True)
    assert SentenceClassifier(small(len(vocab)), 2)(ids).shape == (2, 2)
