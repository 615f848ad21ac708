"""Drawings of the site, one module per page; each ends with ``FIGURES = {name: draw}``."""

import json
from pathlib import Path

WORDS = Path(__file__).resolve().parents[1] / "diagrams" / "zh.json"  # {English: Chinese}


def text(theme: dict, english: str, chinese: str) -> str:
    """A drawing's words in the language it is drawn for (``theme["lang"]``); a drawing that
    calls this is drawn for the Chinese pages too (``figures/NAME-zh.svg``)."""
    theme["has_words"] = True
    return chinese if theme.get("lang") == "zh" else english


def label(theme: dict, english: str) -> str:
    """A name the page's code gives a run (a legend's label), in the drawing's language: its
    Chinese from the figures' one dictionary, ``diagrams/zh.json``, where a missing name is an
    error, so that no English legend reaches a Chinese page."""
    theme["has_words"] = True
    if theme.get("lang") != "zh":
        return english
    words = json.loads(WORDS.read_text(encoding="utf-8"))
    if english not in words:
        raise KeyError(f"no Chinese for the label {english!r}: add it to {WORDS}")
    return words[english]


def narrow(theme: dict) -> bool:
    """Whether the drawing is drawn for a phone's column (about 360 px) rather than a desktop's
    (about 690 px); a drawing that asks is drawn for both (``figures/NAME-narrow.svg``), and a
    page shows the one that fits the screen (docs_build/page_figures.py)."""
    theme["has_narrow"] = True
    return theme.get("narrow", False)
