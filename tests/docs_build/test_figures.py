"""Every drawing of docs_build/plots/ draws, light and dark (and in Chinese when it has words):
drawn here, on the test run's cores, into the cache that the build then reads. Each is drawn
for the column it is shown in, with no text under 9 CSS px there: a figure with a narrow
variant (NAME-narrow, shown below 720 px) in a desktop's column, its narrow variant in a phone's,
and a figure without one in both. The browser test (tests/site/browser/test_pages.py) measures
the same on the built pages."""

from __future__ import annotations

import re

import pytest

from docs_build import figures

MIN_TEXT = 9  # CSS px
PHONE, DESKTOP = 358, 688  # the article's column at 390 px, and its narrowest from 720 px on
SCALE = re.compile(r"scale\(([\d.]+) -\1\)")  # matplotlib's glyphs: 100 s is the font size
FONT_SIZE = re.compile(r"font-size:\s*([\d.]+)px")  # a diagram's text
SIZE = re.compile(
    r'<svg\b[^>]*?\swidth="([\d.]+)(pt|px)?"[^>]*?\sviewBox="[-\d.]+ [-\d.]+ ([\d.]+)'
)
SIZE_AFTER = re.compile(
    r'<svg\b[^>]*?\sviewBox="[-\d.]+ [-\d.]+ ([\d.]+)[^>]*?\swidth="([\d.]+)(pt|px)?"'
)


def smallest_text(svg: str, column: int) -> float:
    """The CSS px of the smallest text of ``svg`` shown in a column this wide: scaled to the
    column, or drawn at its own size when it is narrower (extra.css: max-width 100%)."""
    m = SIZE.search(svg)
    width, unit, box = (m[1], m[2], m[3]) if m else SIZE_AFTER.search(svg).group(2, 3, 1)
    natural = float(width) * (4 / 3 if unit == "pt" else 1)
    sizes = [100 * float(s) for s in SCALE.findall(svg)] + [
        float(s) for s in FONT_SIZE.findall(svg)
    ]
    return min(sizes) * min(column, natural) / float(box)


def columns(name: str, names) -> list[int]:
    """The columns figure ``name`` (NAME, NAME-zh, NAME-narrow, NAME-narrow-zh) is shown in."""
    base = name.removesuffix(figures.ZH)
    if base.endswith(figures.NARROW):
        return [PHONE]
    return [DESKTOP] if base + figures.NARROW + name[len(base) :] in names else [PHONE, DESKTOP]


@pytest.mark.parametrize("name", sorted(figures.drawings()))
def test_the_figure_draws_in_each_scheme(name: str):
    drawn = figures.drawn_once(name, figures.drawings()[name])
    for variants in drawn.values():
        assert set(variants) == {"", "-dark"}
        assert all(svg.lstrip().startswith("<?xml") and "<svg" in svg for svg in variants.values())
    for variant, svgs in drawn.items():
        for column in columns(variant, drawn):
            assert smallest_text(svgs[""], column) >= MIN_TEXT, (variant, column)


def test_the_diagrams_text_is_readable_where_shown():
    sources = {p.stem: p.read_text() for p in figures.DIAGRAMS.glob("*.svg")}
    for name, svg in sources.items():
        for column in columns(name, sources):
            assert smallest_text(svg, column) >= MIN_TEXT, (name, column)
