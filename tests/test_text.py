# ruff: noqa: E501  (a table: one case a line reads better than one case per five lines)
"""Vocabulary and pad_labels: characters to ids and back, padded batches the Encoder masks,
labels that stay on their characters, a JSON form that round-trips."""

import collections
import json

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

from encoder import Encoder, Vocabulary, pad_labels
from encoder.tasks import IGNORE
from encoder.text import CLS, MASK, PAD, SPECIALS, UNK

pytestmark = pytest.mark.usefixtures("device")

TEXTS = ["不要买", "不错，一次就好", "长", "很长很长的时间"]
VOCAB = Vocabulary.from_texts(TEXTS)
IN_VOCAB = st.text(alphabet=st.sampled_from(VOCAB.chars), max_size=20)
SOME_TEXTS = st.lists(st.text(alphabet="abcde不一长", max_size=8), max_size=6)


def test_special_ids_come_first_and_pad_is_the_encoders_padding_idx():
    assert (PAD, UNK, CLS, MASK) == (0, 1, 2, 3)
    assert SPECIALS == ("<pad>", "<unk>", "<cls>", "<mask>")
    assert Encoder(len(VOCAB), 8, 2, 16, 1, 16).padding_idx == PAD
    assert VOCAB.encode(VOCAB.chars[0]) == [len(SPECIALS)]
    assert len(VOCAB) == len(SPECIALS) + len(VOCAB.chars)


@given(texts=SOME_TEXTS, min_count=st.integers(1, 4))
def test_from_texts_keeps_characters_seen_min_count_times_most_frequent_first(texts, min_count):
    counts = collections.Counter("".join(texts))
    if max(counts.values(), default=0) < min_count:
        with pytest.raises(ValueError, match=f"min_count={min_count} times or more"):
            Vocabulary.from_texts(texts, min_count)
        return
    vocab = Vocabulary.from_texts(texts, min_count)
    assert set(vocab.chars) == {c for c, n in counts.items() if n >= min_count}
    assert list(vocab.chars) == sorted(vocab.chars, key=lambda c: (-counts[c], c))
    assert Vocabulary.from_texts(texts[::-1], min_count) == vocab  # order of texts: no matter


@given(text=IN_VOCAB)
def test_decode_inverts_encode_in_the_vocabulary(text):
    ids = VOCAB.encode(text)
    assert len(ids) == len(text) and all(k >= len(SPECIALS) for k in ids)
    assert VOCAB.decode(ids) == text
    assert VOCAB.decode(torch.tensor(ids, dtype=torch.long)) == text


@given(text=st.text(max_size=20))
def test_a_character_outside_the_vocabulary_is_unk(text):
    ids = VOCAB.encode(text)
    assert len(ids) == len(text)
    for c, k in zip(text, ids, strict=True):
        assert (k == UNK) == (c not in VOCAB)
        assert k == UNK or VOCAB.chars[k - len(SPECIALS)] == c


def test_special_tokens_never_come_from_text():
    """Typing "<mask>" gives its six characters, each in or out of the vocabulary."""
    vocab = Vocabulary.from_texts(["<mask>"])
    assert MASK not in vocab.encode("<mask>") and vocab.decode(vocab.encode("<mask>")) == "<mask>"
    assert "<mask>" not in vocab and "m" in vocab and 3 not in vocab


def test_decode_writes_special_tokens_by_name_or_skips_them():
    ids = [CLS, *VOCAB.encode("不要"), UNK, MASK, PAD]
    assert VOCAB.decode(ids) == "<cls>不要<unk><mask><pad>"
    assert VOCAB.decode(ids, skip_special=True) == "不要"


@given(chars=st.text(min_size=1, max_size=30).map(lambda s: "".join(dict.fromkeys(s))))
def test_json_round_trip_is_compact_and_stable(chars):
    vocab = Vocabulary(chars)
    text = vocab.to_json()
    assert Vocabulary.from_json(text) == vocab
    assert json.loads(text) == {"specials": list(SPECIALS), "chars": chars}
    assert text == Vocabulary.from_json(text).to_json()
    assert ": " not in text.replace(chars, "")  # no spaces the browser would download


def test_json_keeps_characters_readable():
    """UTF-8 characters, not \\u escapes: half the size for Chinese, and readable."""
    assert f'"chars":"{VOCAB.chars}"' in VOCAB.to_json() and "\\u" not in VOCAB.to_json()


@given(texts=SOME_TEXTS, add_cls=st.booleans())
def test_batch_pads_with_zero_after_each_text(texts, add_cls):
    vocab = Vocabulary.from_texts(["abcde不一"])  # 长 is outside: it becomes UNK
    ids = vocab.batch(texts, add_cls=add_cls)
    T = max((len(t) for t in texts), default=0) + add_cls
    assert ids.dtype == torch.long and ids.shape == (len(texts), T)
    for row, text in zip(ids.tolist(), texts, strict=True):
        n = len(text) + add_cls
        assert row[:n] == [CLS] * add_cls + vocab.encode(text)
        assert row[n:] == [PAD] * (T - n)


@pytest.mark.parametrize("add_cls", [False, True])
def test_batch_raises_for_a_text_longer_than_max_len(add_cls):
    """No silent cut: the message names the text, its length and the limit."""
    n = 7 + add_cls  # "不错，一次就好" in tokens
    assert VOCAB.batch(TEXTS, add_cls=add_cls, max_len=n).size(1) == n
    with pytest.raises(
        ValueError, match=rf"texts\[1\] is 7 characters long, {n} tokens .* max_len={n - 1}"
    ):
        VOCAB.batch(TEXTS, add_cls=add_cls, max_len=n - 1)


@pytest.mark.parametrize("add_cls", [False, True])
def test_encoder_masks_the_padding_of_a_batch(add_cls):
    """Each text's outputs are the same in a padded batch as alone."""
    model = Encoder(len(VOCAB), d_model=16, n_head=2, d_ff=32, n_layers=2, max_len=16).eval()
    ids = VOCAB.batch(TEXTS, add_cls=add_cls)
    assert (ids == PAD).any()
    with torch.no_grad():
        out = model(ids)  # (B, T, d_model)
        for i, text in enumerate(TEXTS):
            alone = model(VOCAB.batch([text], add_cls=add_cls))  # (1, n, d_model)
            torch.testing.assert_close(out[i, : len(text) + add_cls], alone[0])


@given(data=st.data(), add_cls=st.booleans())
def test_pad_labels_puts_each_label_on_its_character(data, add_cls):
    texts = data.draw(SOME_TEXTS)
    labels = [
        data.draw(st.lists(st.integers(0, 5), min_size=len(t), max_size=len(t))) for t in texts
    ]
    ids = Vocabulary.from_texts(["abcde"]).batch(texts, add_cls=add_cls)  # UNK keeps its label
    targets = pad_labels(labels, ids)
    assert targets.shape == ids.shape and targets.dtype == torch.long
    for row, text, label in zip(targets.tolist(), texts, labels, strict=True):
        assert row == [IGNORE] * add_cls + label + [IGNORE] * (ids.size(1) - len(text) - add_cls)


def test_pad_labels_masked_positions_keep_their_labels_and_loss_ignores_the_rest():
    ids = VOCAB.batch(["不要买", "长"], add_cls=True)
    ids[0, 2] = MASK  # BERT's objective: the label is the hidden character
    labels = [[5, 6, 7], [IGNORE]]  # a character with no label of its own: IGNORE
    targets = pad_labels(labels, ids)
    assert targets.tolist() == [[IGNORE, 5, 6, 7], [IGNORE, IGNORE, IGNORE, IGNORE]]
    logits = torch.randn(2, 4, 8)
    loss = F.cross_entropy(logits.transpose(1, 2), targets)  # (B, C, T) against (B, T)
    torch.testing.assert_close(loss, F.cross_entropy(logits[0, 1:], torch.tensor([5, 6, 7])))


# One case a line, as in test_boundary.py: (call, exception, message).
BAD_INPUT = [
    (lambda: Vocabulary(""), ValueError, "chars is empty"),
    (lambda: Vocabulary("abca"), ValueError, "each character once, got 'a' twice"),
    (lambda: Vocabulary(["a", "b"]), TypeError, "chars must be a str, got list"),
    (lambda: Vocabulary.from_texts([]), ValueError, "in the 0 texts"),
    (lambda: Vocabulary.from_texts(["ab", ""], min_count=2), ValueError, r"min_count=2 times or more in the 2 texts \(the most frequent occurs 1 times\)"),
    (lambda: Vocabulary.from_texts(["ab"], min_count=0), ValueError, "min_count must be >= 1, got 0"),
    (lambda: Vocabulary.from_texts(["ab"], min_count=1.5), TypeError, "min_count must be an int, got float 1.5"),
    (lambda: Vocabulary.from_texts(["ab", 3]), TypeError, r"texts\[1\] must be a str, got int"),
    (lambda: Vocabulary.from_texts("ab"), TypeError, r"got a str; pass \[text\]"),
    (lambda: Vocabulary.from_json('{"chars":"ab"}'), ValueError, r"keys \['chars', 'specials'\], got \['chars'\]"),
    (lambda: Vocabulary.from_json('["ab"]'), ValueError, r"keys \['chars', 'specials'\], got list"),
    (lambda: Vocabulary.from_json('{"chars":"ab","specials":["<pad>"]}'), ValueError, r"specials must be \['<pad>', .*got \['<pad>'\]"),
    (lambda: Vocabulary.from_json(b"{}"), TypeError, "text must be a str, got bytes"),
    (lambda: VOCAB.encode(None), TypeError, "text must be a str, got NoneType"),
    (lambda: VOCAB.encode(["不"]), TypeError, "text must be a str, got list"),
    (lambda: VOCAB.decode([4, len(VOCAB)]), ValueError, rf"ids\[1\] must be in \[0, {len(VOCAB)}\), got {len(VOCAB)}"),
    (lambda: VOCAB.decode([-1]), ValueError, rf"ids\[0\] must be in \[0, {len(VOCAB)}\), got -1"),
    (lambda: VOCAB.decode([4.0]), TypeError, r"ids\[0\] must be an int, got float 4.0"),
    (lambda: VOCAB.decode(torch.zeros(1, 2, dtype=torch.long)), ValueError, r"ids must have shape \(T\), got \(1, 2\)"),
    (lambda: VOCAB.decode(torch.zeros(2)), TypeError, "int64 or int32 token ids, got torch.float32"),
    (lambda: VOCAB.decode([4], skip_special=1), TypeError, "skip_special must be a bool, got int 1"),
    (lambda: VOCAB.batch("不要"), TypeError, r"got a str; pass \[text\]"),
    (lambda: VOCAB.batch(t for t in TEXTS), TypeError, "texts must be a list of str, got generator"),
    (lambda: VOCAB.batch(["不", b"x"]), TypeError, r"texts\[1\] must be a str, got bytes"),
    (lambda: VOCAB.batch(TEXTS, add_cls="yes"), TypeError, "add_cls must be a bool, got str 'yes'"),
    (lambda: VOCAB.batch(TEXTS, max_len=0), ValueError, "max_len must be >= 1, got 0"),
    (lambda: pad_labels([[1]], [[4]]), TypeError, "ids must be a torch.Tensor, got list"),
    (lambda: pad_labels([[1]], torch.tensor([4])), ValueError, r"ids must have shape \(B, T\), got \(1,\)"),
    (lambda: pad_labels(torch.tensor([[1]]), torch.tensor([[4]])), TypeError, "labels must be a list of lists of ints, got Tensor"),
    (lambda: pad_labels([[1]], torch.tensor([[4], [5]])), ValueError, "labels has 1 rows, ids has 2"),
    (lambda: pad_labels(["a"], torch.tensor([[4]])), TypeError, r"labels\[0\] must be a list of ints, got str"),
    (lambda: pad_labels([[1.0]], torch.tensor([[4]])), TypeError, r"labels\[0\]\[0\] must be an int, got float 1.0"),
    (lambda: pad_labels([[True]], torch.tensor([[4]])), TypeError, r"labels\[0\]\[0\] must be an int, got bool True"),
    (lambda: pad_labels([[-1]], torch.tensor([[4]])), ValueError, r"labels\[0\]\[0\] must be >= 0 or -100, got -1"),
    (lambda: pad_labels([[1, 2]], torch.tensor([[CLS, 4, PAD]])), ValueError, r"labels\[0\] has 2 labels for 1 characters"),
]  # fmt: skip


@pytest.mark.parametrize("call, error, message", BAD_INPUT)
def test_bad_input_raises_naming_the_value(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_repr_is_short():
    vocab = Vocabulary("".join(map(chr, range(0x4E00, 0x4E00 + 3000))))
    assert repr(vocab) == "Vocabulary(3000 characters '一丁丂七丄丅丆万丈三…' + 4 special tokens)"
