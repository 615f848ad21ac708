"""Text to token ids: a character vocabulary, padded batches, labels kept aligned."""

from __future__ import annotations

import collections
import dataclasses
import json
import numbers
from collections.abc import Iterable, Sequence

import torch

from encoder import _checks
from encoder.tasks import IGNORE, PAD

# The special tokens, at ids 0 .. 3; the characters follow from id 4.
SPECIALS = ("<pad>", "<unk>", "<cls>", "<mask>")
UNK, CLS, MASK = 1, 2, 3  # PAD = 0, the Encoder's default padding_idx


def check_texts(texts: object) -> None:
    if isinstance(texts, str):  # would be read as one text per character
        raise TypeError("texts must be a list of str, got a str; pass [text]")
    if not isinstance(texts, Sequence):  # a generator would be used up by the check
        raise TypeError(f"texts must be a list of str, got {type(texts).__name__}")
    for i, text in enumerate(texts):
        _checks.instance(f"texts[{i}]", text, str)


def _fill(
    rows: Sequence[Sequence[int]], where: torch.Tensor, fill: int
) -> torch.Tensor:
    """A tensor shaped like ``where``: the rows' values, in order, at its True
    positions (row by row, left to right), ``fill`` elsewhere."""
    out = torch.full(where.shape, fill, dtype=torch.long, device=where.device)
    flat = [v for row in rows for v in row]
    out[where] = torch.tensor(flat, dtype=torch.long, device=where.device)
    return out  # (B, T)


def _check_chars(chars: object) -> None:
    _checks.instance("chars", chars, str)
    if not chars:
        raise ValueError("chars is empty: a vocabulary needs one character or more")
    if len(set(chars)) < len(chars):
        twice = next(c for c in chars if chars.count(c) > 1)
        raise ValueError(f"chars must hold each character once, got {twice!r} twice")


def _checked_counts(texts: object, min_count: object) -> collections.Counter:
    """How often each character occurs in ``texts``, once they are a list of str and
    one character at least occurs ``min_count`` times."""
    check_texts(texts)
    _checks.positive_ints(min_count=min_count)
    counts = collections.Counter(c for text in texts for c in text)
    if not counts or max(counts.values()) < min_count:
        most = max(counts.values(), default=0)
        raise ValueError(
            f"no character occurs min_count={min_count} times or more in the "
            f"{len(texts)} texts (the most frequent occurs {most} times)"
        )
    return counts


def _check_words(words: object) -> None:
    _checks.instance("words", words, tuple)
    for i, word in enumerate(words):
        _checks.instance(f"words[{i}]", word, str)
    if not words or len(set(words)) < len(words):
        twice = [w for w in dict.fromkeys(words) if words.count(w) > 1]
        raise ValueError(f"words must be one or more, each once; twice: {twice[:1]}")


def _check_word_list(words: object) -> None:
    if isinstance(words, str) or not isinstance(words, Sequence):
        raise TypeError(f"words must be a list of str, got {type(words).__name__}")


def _check_ids(ids: Sequence[int], n: int) -> None:
    for i, k in enumerate(ids):
        _checks.integer(f"ids[{i}]", k)
        if not 0 <= k < n:
            raise ValueError(f"ids[{i}] must be in [0, {n}), got {k}")


def _check_decode(ids: object, n: int, skip_special: object) -> list[int]:
    """``ids`` as a list, once each is an id below ``n``."""
    _checks.bools(skip_special=skip_special)
    if isinstance(ids, torch.Tensor):
        _checks.tensor("ids", ids, ("T",), ids=True)
        ids = ids.tolist()
    _check_ids(ids, n)
    return ids


def _vocabulary_json(text: object) -> dict:
    """The dict ``Vocabulary.to_json`` wrote in ``text``; raises for another form."""
    _checks.instance("text", text, str)
    data = json.loads(text)
    keys = sorted(data) if isinstance(data, dict) else type(data).__name__
    if keys != ["chars", "specials"]:
        raise ValueError(f"want the keys ['chars', 'specials'], got {keys}")
    if data["specials"] != list(SPECIALS):
        raise ValueError(f"specials must be {list(SPECIALS)}, got {data['specials']}")
    return data


def _check_batch(texts: object, add_cls: object, max_len: object) -> None:
    check_texts(texts)
    _checks.bools(add_cls=add_cls)
    if max_len is None:
        return
    _checks.positive_ints(max_len=max_len)
    lengths = [len(text) + add_cls for text in texts]
    if lengths and max(lengths) > max_len:
        i = lengths.index(max(lengths))
        raise ValueError(
            f"texts[{i}] is {len(texts[i])} characters long, {lengths[i]} tokens with "
            f"add_cls={add_cls}, more than max_len={max_len}; cut it first"
        )


# --8<-- [start:vocabulary]
@dataclasses.dataclass(frozen=True, repr=False)
class Vocabulary:
    """A character vocabulary: ids 0 .. 3 are the special tokens ``<pad>``, ``<unk>``,
    ``<cls>`` and ``<mask>`` (PAD = 0 is the Encoder's padding_idx), then id 4 + i is
    ``chars[i]``.

    A text is read one character (one Unicode code point) at a time, as Python
    iterates a ``str``; a character not in ``chars`` becomes ``<unk>``. A special token
    never comes from a text: typing "<unk>" gives the five characters < u n k >.
    ``len(vocab)`` counts every id (it is the Encoder's ``vocab_size``); ``c in vocab``
    says whether the character ``c`` has an id of its own.

    Args:
        chars: the characters, in id order, each once.

    Shape:
        encode(text) -> list of len(text) ids
        batch(B texts) -> (B, T) int64, T = the longest text (+ 1 with add_cls=True)
    """

    chars: str
    _ids: dict[str, int] = dataclasses.field(init=False, compare=False)

    def __post_init__(self) -> None:
        _check_chars(self.chars)
        ids = {c: len(SPECIALS) + i for i, c in enumerate(self.chars)}
        object.__setattr__(self, "_ids", ids)

    @classmethod
    def from_texts(cls, texts: Iterable[str], min_count: int = 1) -> Vocabulary:
        """The characters seen at least ``min_count`` times in ``texts``, the most
        frequent first, ties in code-point order: the same texts in any order give the
        same vocabulary."""
        texts = texts if isinstance(texts, str) else list(texts)  # a str is refused
        counts = _checked_counts(texts, min_count)  # character -> its count
        kept = [c for c, n in counts.items() if n >= min_count]
        kept.sort(key=lambda c: (-counts[c], c))
        return cls("".join(kept))

    def __len__(self) -> int:
        return len(SPECIALS) + len(self.chars)

    def __contains__(self, char: object) -> bool:
        return char in self._ids

    def __repr__(self) -> str:
        head = self.chars[:10] + ("…" if len(self.chars) > 10 else "")
        n, k = len(self.chars), len(SPECIALS)
        return f"Vocabulary({n} characters {head!r} + {k} special tokens)"

    def to_json(self) -> str:
        """``{"specials":["<pad>","<unk>","<cls>","<mask>"],"chars":"..."}``: compact,
        UTF-8 characters rather than escapes, the same text for the same vocabulary.
        A browser reads the ids as the specials' indices, then 4 + the index in
        ``Array.from(chars)`` (which, like Python, splits a string by code point)."""
        data = {"specials": list(SPECIALS), "chars": self.chars}
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Vocabulary:
        """The vocabulary ``to_json`` wrote; raises for JSON of another form."""
        data = _vocabulary_json(text)
        return cls(data["chars"])

    def encode(self, text: str) -> list[int]:
        """One id per character of ``text``; UNK for a character not in ``chars``."""
        _checks.instance("text", text, str)
        return [self._ids.get(c, UNK) for c in text]

    def decode(
        self, ids: Sequence[int] | torch.Tensor, skip_special: bool = False
    ) -> str:
        """The characters of ``ids``, a special token written as its name ("<unk>"), or
        left out with ``skip_special=True``. ``decode(encode(s)) == s`` whenever every
        character of ``s`` is in the vocabulary."""
        tokens = SPECIALS + tuple(self.chars)
        ids = _check_decode(ids, len(tokens), skip_special)  # a list of ints
        skip = len(SPECIALS) if skip_special else 0
        return "".join(tokens[k] for k in ids if k >= skip)

    def batch(
        self, texts: Sequence[str], add_cls: bool = False, max_len: int | None = None
    ) -> torch.Tensor:
        """The texts' ids, one row each, padded with PAD at the end to the longest;
        with ``add_cls=True``, CLS first in every row (the position a sentence-level
        readout uses).

        ``max_len`` (the Encoder's, counting the CLS position) raises for a longer
        text instead of cutting it: a cut would drop characters the reader typed and
        misalign the text with its labels. Cut both where that is meant
        (``text[:n]``, ``labels[:n]``).
        """
        _check_batch(texts, add_cls, max_len)
        rows = [[CLS] * add_cls + self.encode(text) for text in texts]
        lengths = torch.tensor([len(row) for row in rows], dtype=torch.long)  # (B,)
        T = int(lengths.max()) if rows else int(add_cls)
        real = torch.arange(T) < lengths[:, None]  # (B, T): True before the padding
        return _fill(rows, real, PAD)


# --8<-- [end:vocabulary]


def _check_labels(labels: object, ids: torch.Tensor) -> None:
    _checks.tensor("ids", ids, ("B", "T"), ids=True)
    if isinstance(labels, (str, torch.Tensor)) or not isinstance(labels, Sequence):
        kind = type(labels).__name__
        raise TypeError(f"labels must be a list of lists of ints, got {kind}")
    if len(labels) != ids.size(0):
        raise ValueError(f"labels has {len(labels)} rows, ids has {ids.size(0)}")
    for i, row in enumerate(labels):
        if isinstance(row, str) or not isinstance(row, Sequence):
            kind = type(row).__name__
            raise TypeError(f"labels[{i}] must be a list of ints, got {kind}")
        for j, v in enumerate(row):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool):
                kind = type(v).__name__
                raise TypeError(f"labels[{i}][{j}] must be an int, got {kind} {v!r}")
            if v < 0 and v != IGNORE:
                raise ValueError(f"labels[{i}][{j}] must be >= 0 or {IGNORE}, got {v}")


def pad_labels(labels: Sequence[Sequence[int]], ids: torch.Tensor) -> torch.Tensor:
    """One label per character, placed on the characters' positions of ``ids`` (every
    position that is neither PAD nor CLS, so a MASK or UNK keeps its label), IGNORE
    (-100, ``F.cross_entropy``'s default ignore_index) at the rest. A row whose number
    of labels differs from its number of characters raises: it would be misaligned.

    Shape:
        labels: B lists of ints, each >= 0 or IGNORE
        ids: (B, T), from ``Vocabulary.batch``  ->  (B, T) int64
    """
    _check_labels(labels, ids)
    chars = (ids != PAD) & (ids != CLS)  # (B, T): the positions that take a label
    counts = chars.sum(dim=1).tolist()  # (B,)
    for i, (row, n) in enumerate(zip(labels, counts, strict=True)):
        if len(row) != n:
            raise ValueError(f"labels[{i}] has {len(row)} labels for {n} characters")
    return _fill(labels, chars, IGNORE)


def _check_mask_args(
    ids: torch.Tensor, vocab_size: int, generator: torch.Generator, p: float
) -> None:
    _checks.tensor("ids", ids, ("B", "T"), ids=True)
    _checks.instance("generator", generator, torch.Generator)
    _checks.probability("p", p)
    _checks.integer("vocab_size", vocab_size)
    if vocab_size <= len(SPECIALS):
        raise ValueError(
            f"vocab_size must count the {len(SPECIALS)} special tokens and at least "
            f"one more, got {vocab_size}"
        )
    if ids.numel() and int(ids.max()) >= vocab_size:
        raise ValueError(f"ids must be < vocab_size={vocab_size}, got {int(ids.max())}")


# --8<-- [start:masking]
def mask_tokens(
    ids: torch.Tensor, vocab_size: int, generator: torch.Generator, p: float = 0.15
) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT's masked-token objective: choose each token with probability ``p``; of the
    chosen, 80 % become MASK, 10 % a random token, 10 % stay as they are. The labels
    are the chosen tokens' ids, IGNORE everywhere else. The specials (PAD, CLS, UNK,
    MASK) are never chosen: a hidden <unk> would teach nothing.

    The loss is on the chosen tokens only. As a fifth of them do not show MASK, the
    model cannot tell a scored position from the others, so it learns to represent the
    true token at every position, not only at MASK, which a sentence typed later never
    contains.

    Shape:
        ids: (B, T)  ->  inputs (B, T), labels (B, T), int64
    """
    _check_mask_args(ids, vocab_size, generator, p)
    ids = ids.long()
    on = generator.device  # draws on the generator's device, then moved to the ids'
    chosen = (torch.rand(ids.shape, generator=generator, device=on) < p).to(ids.device)
    chosen &= ids >= len(SPECIALS)  # (B, T): the tokens to predict
    labels = ids.masked_fill(~chosen, IGNORE)
    how = torch.rand(ids.shape, generator=generator, device=on).to(ids.device)
    randoms = torch.randint(
        len(SPECIALS), vocab_size, ids.shape, generator=generator, device=on
    ).to(ids.device)
    inputs = torch.where(chosen & (how < 0.8), MASK, ids)  # 80 %: MASK
    inputs = torch.where(chosen & (how >= 0.8) & (how < 0.9), randoms, inputs)  # 10 %
    return inputs, labels  # the last 10 % of the chosen: unchanged


# --8<-- [end:masking]


# --8<-- [start:word-vocabulary]
@dataclasses.dataclass(frozen=True, repr=False)
class WordVocabulary:
    """A word vocabulary, for text cut into words (``encoder.corpora.words``): ids
    0 .. 3 are the special tokens, as in ``Vocabulary``, then id 4 + i is ``words[i]``;
    a word not in ``words`` becomes ``<unk>``.

    Args:
        words: the words, in id order, each once.

    Shape:
        encode(n words) -> list of n ids;  decode(n ids) -> list of n words
    """

    words: tuple[str, ...]
    _ids: dict[str, int] = dataclasses.field(init=False, compare=False)

    def __post_init__(self) -> None:
        _check_words(self.words)
        ids = {w: len(SPECIALS) + i for i, w in enumerate(self.words)}
        object.__setattr__(self, "_ids", ids)

    @classmethod
    def from_texts(cls, texts: Iterable[Sequence[str]], size: int) -> WordVocabulary:
        """The ``size`` most frequent words of ``texts`` (each a list of words), ties
        in code-point order."""
        _checks.positive_ints(size=size)
        counts = collections.Counter(w for text in texts for w in text)
        return cls(tuple(sorted(counts, key=lambda w: (-counts[w], w))[:size]))

    def __len__(self) -> int:
        return len(SPECIALS) + len(self.words)

    def __repr__(self) -> str:
        n, k = len(self.words), len(SPECIALS)
        return f"WordVocabulary({n} words {self.words[:5]} + {k} special tokens)"

    def encode(self, words: Sequence[str]) -> list[int]:
        """One id per word; UNK for a word not in the vocabulary."""
        _check_word_list(words)
        return [self._ids.get(w, UNK) for w in words]

    def decode(self, ids: Sequence[int] | torch.Tensor) -> list[str]:
        """The word of every id, a special token as its name ("<mask>")."""
        if isinstance(ids, torch.Tensor):
            ids = ids.tolist()
        tokens = SPECIALS + self.words
        _check_ids(ids, len(tokens))
        return [tokens[k] for k in ids]


# --8<-- [end:word-vocabulary]


# --8<-- [start:window]
def blank_window(left: Sequence[int], right: Sequence[int], size: int) -> list[int]:
    """The ids a model of ``size`` positions reads for ``left ___ right``: MASK for the
    blank and the nearest tokens around it, at most ``size`` in all: up to
    ``(size - 1) // 2`` of the right ones, the left ones in the rest of the room (more
    of each where the other side is short).

    Shape:
        len(left), len(right) ids  ->  at most size ids, one of them MASK
    """
    _checks.positive_ints(size=size)
    n_right = min(len(right), max((size - 1) // 2, size - 1 - len(left)))
    n_left = min(len(left), size - 1 - n_right)
    return [*left[len(left) - n_left :], MASK, *right[:n_right]]


# --8<-- [end:window]
