"""Drawings of the site, one module per page; each ends with ``FIGURES = {name: draw}``."""


def text(theme: dict, english: str, chinese: str) -> str:
    """A drawing's words in the language it is drawn for (``theme["lang"]``); a drawing that
    calls this is drawn for the Chinese pages too (``figures/NAME-zh.svg``)."""
    theme["has_words"] = True
    return chinese if theme.get("lang") == "zh" else english


def narrow(theme: dict) -> bool:
    """Whether the drawing is drawn for a phone's column (about 360 px) rather than a desktop's
    (about 690 px); a drawing that asks is drawn for both (``figures/NAME-narrow.svg``), and a
    page shows the one that fits the screen (docs_build/page_figures.py)."""
    theme["has_narrow"] = True
    return theme.get("narrow", False)
