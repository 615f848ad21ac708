"""How long a concept page's core is on a desktop screen (issue 12, target 4).

A concept page opens with its core — the idea, the formula, the package's code, one check —
and folds the rest under a ``## Deeper`` heading. The core is measured as a reader meets it,
during the page's visit in the light scheme (``conftest.py``): in Chromium at 1280×900, the page
as loaded (collapsed blocks closed), every image it shows loaded (figures are lazy: unloaded,
they would measure zero) and its explorers drawn, from the top of the article to the Deeper
heading, in screens of 900 pixels.
The Multi-Head Attention page's core must fit in 8 screens; every concept page's measurement
is printed (``pytest -rP``) and kept in ``test-artifacts/browser/core-screens.json``.
"""

from __future__ import annotations

import json

import pytest
from browsing import ARTIFACTS, VIEWPORT

MAX_SCREENS = 8
CONCEPT_PAGES = [
    "token-embedding/",
    "positional-encoding/",
    "transformer-embedding/",
    "layer-norm/",
    "feed-forward/",
    "attention/",
    "encoder-layer/",
    "encoder/",
]


@pytest.fixture(scope="module")
def measured(visits) -> dict[str, dict]:
    """{page: its measurement} for every concept page, in English and in Chinese, from its
    visit in the light scheme (``browsing.INSPECT``: heights in CSS pixels)."""
    out = {}
    for path in CONCEPT_PAGES + [f"zh/{p}" for p in CONCEPT_PAGES]:
        m = {k: visits[path, "light"].layout[k] for k in ("article", "core", "closed", "details")}
        screen = VIEWPORT["height"]
        m["article_screens"] = round(m["article"] / screen, 2)
        m["core_screens"] = None if m["core"] is None else round(m["core"] / screen, 2)
        out[path] = m
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "core-screens.json").write_text(json.dumps(out, indent=2) + "\n")
    return out


def _line(path: str, m: dict) -> str:
    core = "no Deeper heading" if m["core_screens"] is None else f"{m['core_screens']:5.2f}"
    return (
        f"{path:<26} core {core:>17} screens   whole article {m['article_screens']:5.2f}   "
        f"collapsed blocks {m['closed']}/{m['details']}"
    )


def test_attention_core_fits_in_eight_screens(measured):
    for path in ("attention/", "zh/attention/"):
        m = measured[path]
        print(_line(path, m))
        assert m["core_screens"] is not None, f"/{path} has no `## Deeper` heading (id 'deeper')"
        assert m["core_screens"] <= MAX_SCREENS, (
            f"/{path}: the core (article top to `## Deeper`) is {m['core_screens']} screens "
            f"of {VIEWPORT['height']} px at {VIEWPORT['width']} px wide, more than {MAX_SCREENS}"
        )


@pytest.mark.parametrize("lang", ["", "zh/"], ids=["en", "zh"])
def test_every_concept_page_core_is_measured(measured, lang):
    """Every concept page separates its core from its depth with a `## Deeper` heading, and
    its core is no longer than the Multi-Head Attention page's limit (the others are
    shorter); each length is printed."""
    problems = []
    for path in (lang + p for p in CONCEPT_PAGES):
        m = measured[path]
        print(_line(path, m))
        assert m["article"] > 0, f"/{path}: no article laid out"
        if m["core_screens"] is None:
            problems.append(f"/{path}: no `## Deeper` heading")
        elif m["core_screens"] > MAX_SCREENS:
            problems.append(f"/{path}: core {m['core_screens']} screens")
    assert not problems, problems
