"""Every drawing of docs_build/plots/ draws, light and dark (and in Chinese when it has words):
drawn here, on the test run's cores, into the cache that the build then reads. Each is drawn
for the column it is shown in, with no text under 9 CSS px there: a figure with a narrow
variant (NAME-narrow, shown below 720 px) in a desktop's column, its narrow variant in a phone's,
and a figure without one in both. The browser test (tests/site/browser/test_pages.py) measures
the same on the built pages. A page's figure line becomes a <figure> (FigureExtension)."""

from __future__ import annotations

import logging
import re
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import markdown
import pytest

from docs_build import figures, page_figures

MIN_TEXT = 9  # CSS px
PHONE, DESKTOP = 358, 688  # the article's column at 390 px, and its narrowest from 720 px on
SCALE = re.compile(r"scale\(([\d.]+) -\1\)")  # matplotlib's glyphs: 100 s is the font size
FONT_SIZE = re.compile(r"font-size:\s*([\d.]+)px")  # a diagram's text


def smallest_text(svg: str, column: int) -> float:
    """The CSS px of the smallest text of ``svg`` shown in a column this wide: scaled to the
    column, or drawn at its own size when it is narrower (extra.css: max-width 100%)."""
    root = ET.fromstring(svg)
    width, unit = re.fullmatch(r"([\d.]+)(pt|px)?", root.get("width")).groups()
    natural = float(width) * (4 / 3 if unit == "pt" else 1)
    sizes = [100 * float(s) for s in SCALE.findall(svg)] + list(map(float, FONT_SIZE.findall(svg)))
    return min(sizes) * min(column, natural) / float(root.get("viewBox").split()[2])


def columns(name: str, names) -> list[int]:
    """The columns figure ``name`` (NAME, NAME-zh, NAME-narrow, NAME-narrow-zh) is shown in."""
    base = name.removesuffix(figures.ZH)
    if base.endswith(figures.NARROW):
        return [PHONE]
    return [DESKTOP] if base + figures.NARROW + name[len(base) :] in names else [PHONE, DESKTOP]


@pytest.mark.parametrize("name", sorted(figures.drawings()))
def test_the_figure_draws_in_each_scheme(name: str):
    drawn = figures.drawn_once(name, figures.drawings()[name])
    for variant, svgs in drawn.items():
        assert set(svgs) == {"", "-dark"}
        assert all(svg.lstrip().startswith("<?xml") and "<svg" in svg for svg in svgs.values())
        for column in columns(variant, drawn):
            assert smallest_text(svgs[""], column) >= MIN_TEXT, (variant, column)


def test_the_diagrams_text_is_readable_where_shown():
    sources = {p.stem: p.read_text() for p in figures.DIAGRAMS.glob("*.svg")}
    for name, svg in sources.items():
        for column in columns(name, sources):
            assert smallest_text(svg, column) >= MIN_TEXT, (name, column)


SVG = '<svg width="600pt" height="300pt" viewBox="0 0 600 300"></svg>'  # 800 x 400 CSS px


def rendered(text: str, src_uri: str, url: str, files: dict[str, str]) -> ET.Element:
    page = SimpleNamespace(file=SimpleNamespace(src_uri=src_uri, url=url))
    site = SimpleNamespace(page=page, svg=files.get)
    html = markdown.markdown(text, extensions=[page_figures.FigureExtension(site)])
    return ET.fromstring(f"<div>{html}</div>")


@pytest.mark.parametrize(
    ("src_uri", "url", "name", "up"),
    [("attention.md", "attention/", "x", ""), ("zh/attention.md", "zh/attention/", "x-zh", "../")],
)
def test_a_figure_line_becomes_a_figure_in_both_schemes_and_a_phone_variant(src_uri, url, name, up):
    narrow = name.replace("x", "x-narrow")  # a Chinese figure's is NAME-narrow-zh
    files = {f"figures/{n}{s}.svg": SVG for n in (name, narrow) for s in ("", "-dark")}
    line = f'![Alt [E].]({up}figures/{name}.svg "The *caption*, with `code`.")'
    root = rendered(f"{line}\n\nText.\n\n{line}\n", src_uri, url, files)
    first, second = root.findall("figure")
    images = [first.find("picture[1]/img"), *second.iter("img")]
    assert [img.get("loading") for img in images] == [None, "lazy", "lazy"]  # first light: eager
    for picture, scheme in zip(first.findall("picture"), ("", "-dark"), strict=True):
        img, source = picture.find("img"), picture.find("source")
        only = scheme or "-light"
        assert [img.get(k) for k in ("alt", "src", "width", "height")] == [
            "Alt [E].", f"{up}figures/{name}{scheme}.svg#only{only}", "800", "400"
        ]  # fmt: skip
        assert [source.get(k) for k in ("srcset", "width", "height")] == [
            f"../{up}figures/{narrow}{scheme}.svg", "800", "400"
        ]  # fmt: skip
    caption = ET.tostring(first.find("figcaption"), encoding="unicode").strip()
    assert caption == "<figcaption>The <em>caption</em>, with <code>code</code>.</figcaption>"
    assert root.find("p").text == "Text."


def test_a_diagram_links_its_boxes_to_their_pages_in_the_pages_language():
    line = '![Alt.](../figures/transformer-zh.svg "Caption.")'
    files = {"figures/transformer-zh.svg": SVG, "figures/transformer-zh-dark.svg": SVG}
    figure = rendered(line, "zh/encoder.md", "zh/encoder/", files).find("figure")
    links = figure.findall("span[@class='figure-map']/a[@class='figure-link']")
    assert len(figure.findall("span/img")) == 2
    hrefs = [target for target, _, _ in figures.box_links("transformer") if target != "encoder.md"]
    assert [a.get("href") for a in links] == hrefs  # none to the page itself
    assert "词嵌入" in [a.get("aria-label") for a in links]
    assert all(a.get("style").startswith("left:") for a in links)


@pytest.mark.parametrize(
    "text",
    [
        "![Alt.](figures/x.svg)",
        'See ![Alt.](figures/x.svg "Caption.") here.',
        '* ![A.](figures/x.svg "C.")',
    ],
)
def test_a_figure_not_laid_out_is_reported(text, caplog):
    with caplog.at_level(logging.WARNING, "mkdocs.figures"):
        root = rendered(text, "attention.md", "attention/", {})
    assert root.find(".//figure") is None
    assert "attention.md: a figure not on a line of its own" in caplog.text
