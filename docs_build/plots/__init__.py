"""Drawings of the site, one module per page; each ends with ``FIGURES = {name: draw}``."""


def text(theme: dict, english: str, chinese: str) -> str:
    """A drawing's words in the language it is drawn for (``theme["lang"]``); a drawing that
    calls this is drawn for the Chinese pages too (``figures/NAME-zh.svg``)."""
    theme["has_words"] = True
    return chinese if theme.get("lang") == "zh" else english
