"""Every drawing of docs_build/plots/ draws, light and dark (and in Chinese when it has words):
drawn here, on the test run's cores, into the cache that the build then reads. Each figure and
diagram is drawn for the column it is shown in, with no text under 9 CSS px there: a figure with
a narrow variant (NAME-narrow, shown below 720 px) in a desktop's column, its narrow variant in a
phone's, and a figure without one in both. The browser test (tests/site/browser/test_pages.py)
measures the same on the built pages, of the figures shown unfolded. A page's figure line
becomes a <figure> (FigureExtension); that every figure on the site has its light and dark
images, alt text and a caption: tests/site/test_build.py."""

from __future__ import annotations

import logging
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import markdown
import pytest

from docs_build import figures, page_figures

MIN_TEXT = 9  # CSS px
PHONE, DESKTOP = 358, 688  # the article's column at 390 px, and its narrowest from 720 px on
SCALE = re.compile(r"scale\(([\d.]+) -\1\)")  # matplotlib's glyphs: 100 s is the font size
FONT_SIZE = re.compile(r"font-size:\s*([\d.]+)px")  # a diagram's text


def assert_readable(svgs: dict[str, str]) -> None:
    """No text of ``svgs`` ({NAME, NAME-zh, NAME-narrow, NAME-narrow-zh: light SVG}) is under
    MIN_TEXT in the columns it is shown in: scaled to the column, or drawn at its own size when
    it is narrower (extra.css: max-width 100%)."""
    for name, svg in svgs.items():
        base = name.removesuffix(figures.ZH)
        has_narrow = base + figures.NARROW + name[len(base) :] in svgs
        is_narrow = base.endswith(figures.NARROW)
        columns = [c for c, shown in ((PHONE, not has_narrow), (DESKTOP, not is_narrow)) if shown]
        root = ET.fromstring(svg)
        width, unit = re.fullmatch(r"([\d.]+)(pt|px)?", root.get("width")).groups()
        natural = float(width) * (4 / 3 if unit == "pt" else 1)
        sizes = [100 * float(s) for s in SCALE.findall(svg)] + [*map(float, FONT_SIZE.findall(svg))]
        for column in columns:
            smallest = min(sizes) * min(column, natural) / float(root.get("viewBox").split()[2])
            assert smallest >= MIN_TEXT, (name, column)


@pytest.mark.parametrize("name", sorted(figures.drawings()))
def test_the_figure_draws_readable_where_shown(name: str):
    assert_readable(
        {k: v[""] for k, v in figures.drawn_once(name, figures.drawings()[name]).items()}
    )


def test_the_diagrams_text_is_readable_where_shown():
    assert_readable({p.stem: p.read_text() for p in figures.DIAGRAMS.glob("*.svg")})


SVG = '<svg width="600pt" height="300pt" viewBox="0 0 600 300"></svg>'  # 800 x 400 CSS px


def rendered(text: str, src_uri: str, url: str, files: dict[str, str]) -> ET.Element:
    page = SimpleNamespace(file=SimpleNamespace(src_uri=src_uri, url=url))
    site = SimpleNamespace(page=page, svg=files.get)
    html = markdown.markdown(text, extensions=[page_figures.FigureExtension(site)])
    return ET.fromstring(f"<div>{html}</div>")


@pytest.mark.parametrize(
    ("src_uri", "url", "name", "narrow", "up"),
    [("attention.md", "attention/", "x", "x-narrow", ""),
     ("zh/encoder.md", "zh/encoder/", "transformer-zh", "transformer-narrow-zh", "../")],
)  # fmt: skip
def test_a_figure_line_becomes_a_figure(src_uri, url, name, narrow, up):
    """Light and dark, each with its phone variant, the first light one loaded at once; on the
    Encoder page, the diagram's boxes link to their pages but not to the page itself."""
    files = {f"figures/{n}{s}.svg": SVG for n in (name, narrow) for s in ("", "-dark")}
    line = f'![Alt [E].]({up}figures/{name}.svg "The *caption*, with `code`.")'
    root = rendered(f"{line}\n\nText.\n\n{line}\n", src_uri, url, files)
    first, second = root.findall("figure")
    images = [*first.iter("img"), *second.iter("img")]
    assert [img.get("loading") for img in images] == [None, "lazy", "lazy", "lazy"]
    for picture, scheme in zip(first.iter("picture"), ("", "-dark"), strict=True):
        img, source = picture.find("img"), picture.find("source")
        assert [img.get(k) for k in ("alt", "width", "height")] == ["Alt [E].", "800", "400"]
        assert [source.get(k) for k in ("srcset", "width", "height")] == [
            f"../{up}figures/{narrow}{scheme}.svg", "800", "400"
        ]  # fmt: skip
    caption = ET.tostring(first.find("figcaption"), encoding="unicode").strip()
    assert caption == "<figcaption>The <em>caption</em>, with <code>code</code>.</figcaption>"
    assert root.find("p").text == "Text."
    links = [(a.get("href"), a.get("aria-label")) for a in first.iter("a")]
    drawn = [(target, label) for target, label, _ in figures.box_links(name)]
    assert links == [link for link in drawn if link[0] != "encoder.md"]


@pytest.mark.parametrize(
    "text",
    [
        "![Alt.](figures/x.svg)",
        'See ![A.](figures/x.svg "C.") here.',
        '* ![A.](figures/x.svg "C.")',
    ],
)
def test_a_figure_not_laid_out_is_reported(text, caplog):
    with caplog.at_level(logging.WARNING, "mkdocs.figures"):
        root = rendered(text, "attention.md", "attention/", {})
    assert root.find(".//figure") is None
    assert "attention.md: a figure not on a line of its own" in caplog.text


def test_a_legend_speaks_the_drawings_language():
    """A run's name from the page's code is the legend's label; the Chinese drawing takes its
    Chinese from the figures' dictionary, and a name it lacks stops the build, so no English
    legend reaches a Chinese page."""
    from docs_build.plots import label

    assert label({"lang": "en"}, "sort") == "sort"
    assert label({"lang": "zh"}, "sort") == "排序"
    with pytest.raises(KeyError, match="no Chinese for the label 'a run nobody named'"):
        label({"lang": "zh"}, "a run nobody named")


def test_no_drawing_module_is_named_like_a_helper_of_plots():
    """A module of plots/ named like a function of plots/__init__.py (``text``, ``label``)
    replaces that function on the package once imported, and every drawing after it fails."""
    import ast
    import pkgutil

    from docs_build import plots

    tree = ast.parse(Path(plots.__file__).read_text(encoding="utf-8"))
    helpers = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    modules = {m.name for m in pkgutil.iter_modules(plots.__path__)}
    assert helpers >= {"text", "label", "narrow"} and not helpers & modules, helpers & modules
