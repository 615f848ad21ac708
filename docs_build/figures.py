"""Figures of the site, drawn at build time from the ``encoder`` package.

Each module of ``plots/`` ends with ``FIGURES = {name: draw}``, where ``draw(theme)`` returns a
matplotlib figure in a colour theme; ``render_all`` turns every drawing, and every SVG source in
``diagrams/``, into a light and a dark SVG. A figure with words is drawn in Chinese too, as
``NAME-zh`` (a drawing calls ``plots.text``; a diagram's words are in ``diagrams/zh.json``), and
one too wide for a phone's column is drawn for it, as ``NAME-narrow`` (and ``NAME-narrow-zh``: a
drawing calls ``plots.narrow``; a diagram has a second source, ``diagrams/NAME-narrow.svg``).

A page's fence draws a figure from what it computed with ``save(NAME, draw)``, which the page
shows with the same image line as any figure; ``write(uri, text)`` writes any other site file
(the explorers' weights). Both go to the files of the fence that runs (``collect``), which the
fence runner caches and the build adds to the site (``docs_build/fences.py``).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import io
import itertools
import json
import logging
import pkgutil
import re
import sys
import xml.etree.ElementTree as ET
from base64 import b64encode
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path

from cycler import cycler

from docs_build import cache, plots
from docs_build import html as markup

DIAGRAMS = Path(__file__).resolve().parent / "diagrams"

# Colours per theme; text and axes follow Material's default (light) and slate (dark) schemes,
# and the diverging colour map reads on either. Weights in [0, 1] have a colour map per theme:
# zero weight reads as "nothing", the page background's end of the scale.
COLOURS = ("fg", "muted", "grid", "accent", "accent2", "accent3")
THEMES = {
    suffix: {**dict(zip(COLOURS, colours, strict=True)), "cmap": "RdBu_r", "weights": weights}
    for suffix, (colours, weights) in {
        "": (("#1f2328", "#6e7781", "#d0d7de", "#3f51b5", "#e4572e", "#2a9d8f"), "Blues"),
        "-dark": (("#e2e4e9", "#9da5b4", "#3b4252", "#8c9eff", "#ff8a65", "#4dd0c4"), "magma"),
    }.items()
}
# Diagram sources carry the light palette between these markers; the dark variant swaps it.
PALETTE_START, PALETTE_END = "/* palette:start */", "/* palette:end */"
DARK_PALETTE = (
    "--fg:#e2e4e9;--muted:#9da5b4;--box:#2b2f3a;--line:#9da5b4;"
    "--attn:#3949ab;--ffn:#00796b;--norm:#8d6e0f;--emb:#6a1b9a;--accent:#ff8a65;"
)

ZH = "-zh"  # name suffix of a figure's Chinese version
NARROW = "-narrow"  # name suffix of a figure's version for a phone (before "-zh")
# Chinese labels are drawn with a CJK font (its Latin letters too; DejaVu Sans, matplotlib's
# default, fills in what it lacks); SVG text is written as paths, so readers need no such font.
CJK_FONTS = ["Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "WenQuanYi Zen Hei"]
DIAGRAM_WORDS = plots.WORDS  # {"English text of a diagram or a legend": "its Chinese"}
# A figure's variants, in the order they are drawn: (name suffix, language, drawn for a phone).
VARIANTS = [("", "en", False), (ZH, "zh", False), (NARROW, "en", True), (NARROW + ZH, "zh", True)]

log = logging.getLogger("mkdocs.figures")


def drawings() -> dict[str, Callable]:
    """Every drawing of ``plots/``, by name, from modules imported afresh (an edit to one shows
    under ``mkdocs serve``)."""
    found: dict[str, Callable] = {}
    for module in pkgutil.iter_modules(plots.__path__):
        name = f"{plots.__name__}.{module.name}"
        sys.modules.pop(name, None)
        drawn = importlib.import_module(name).FIGURES
        if again := found.keys() & drawn.keys():
            raise ValueError(f"{name} names figures drawn elsewhere: {again}")
        found.update(drawn)
    return found


def _style(theme: dict) -> dict:
    return {
        **dict.fromkeys(
            ["text.color", "axes.labelcolor", "xtick.color", "ytick.color"], theme["fg"]
        ),
        **dict.fromkeys(["axes.facecolor", "figure.facecolor", "savefig.facecolor"], "none"),
        "axes.edgecolor": theme["muted"],
        "savefig.transparent": True,
        "font.size": 10,
        "axes.titlesize": 11,
        "legend.frameon": False,
        "svg.hashsalt": "encoder",
        "svg.fonttype": "path",
        "axes.prop_cycle": cycler(
            color=[theme[k] for k in ("accent", "accent2", "accent3", "muted")]
        ),
        "grid.color": theme["grid"],
    }


def render(fn: Callable) -> dict[str, dict[str, str]]:
    """{"": {"": light_svg, "-dark": dark_svg}} of one drawing ``fn(theme)``; the same in
    Chinese under ``"-zh"`` when the drawing has words (it called ``plots.text``), and drawn for
    a phone under ``"-narrow"`` (and ``"-narrow-zh"``) when it asks (``plots.narrow``); uncached."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out, asked = {}, {}
    for name, lang, narrow in VARIANTS:
        if (lang == "zh" and "has_words" not in asked) or (narrow and "has_narrow" not in asked):
            continue
        for scheme, colours in THEMES.items():
            theme = {**colours, "lang": lang, "narrow": narrow}
            style = _style(theme)
            if lang == "zh":
                # CJK first: mathtext draws the words around a formula in the first font only.
                style["font.family"] = [*cjk_fonts(), "DejaVu Sans"]
            with plt.rc_context(style):
                fig, buf = fn(theme), io.StringIO()
                fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
                plt.close(fig)
            out.setdefault(name, {})[scheme] = buf.getvalue()
            asked |= theme
    return out


def cjk_fonts() -> list[str]:
    from matplotlib import font_manager

    present = {f.name for f in font_manager.fontManager.ttflist}
    found = [name for name in CJK_FONTS if name in present]
    if not found:
        log.warning(
            "figures: no CJK font for the Chinese figures (%s); install one: "
            "apt-get install fonts-noto-cjk (`make chromium` does)",
            ", ".join(CJK_FONTS),
        )
    return found


def _diagram_variants(light: str, path: Path) -> dict[str, str]:
    start, end = light.find(PALETTE_START), light.find(PALETTE_END)
    if start < 0 or end < 0:
        raise ValueError(f"{path} has no {PALETTE_START} ... {PALETTE_END} block")
    dark = light[: start + len(PALETTE_START)] + DARK_PALETTE + light[end:]
    return {"": light, "-dark": dark}


def _diagram_in_chinese(path: Path, words: dict[str, str]) -> str | None:
    """The diagram with the words of its <text> elements in Chinese; None if it has none to
    translate. A word missing from diagrams/zh.json is reported (and stays English)."""
    import html

    source, missing, edits = path.read_text(), [], []
    for node in markup.parse(source):
        shown = source[node.inner : node.close]
        if node.tag != "text" or "<" in shown or source[node.close : node.end] != "</text>":
            continue  # only a <text> of words alone, as drawn
        english = html.unescape(shown)
        if english in words:
            edits.append((node.inner, node.close, html.escape(words[english], quote=False)))
        # Words to translate: prose, not code ("h = norm1(x)") and not a name ("LayerNorm").
        elif re.search(r"[a-z]{3,} [a-z]", english) and not re.search(r"[=\[\]_]", english):
            missing.append(english)
    if missing:
        log.warning("figures: %s: no Chinese in %s for %s", path.name, DIAGRAM_WORDS.name, missing)
    chinese = markup.edit(source, edits)
    return chinese if chinese != source else None


def box_links(name: str) -> list[tuple[str, str, tuple[float, ...]]]:
    """The linked boxes of diagram NAME (or NAME-zh, named in Chinese): [(page, label, (left,
    top, width, height) in % of the drawing)]; [] for a drawing without them. A box that opens
    a page is a <rect> with data-page (relative to the docs folder), then the <text> naming it."""
    path = DIAGRAMS / f"{name.removesuffix(ZH)}.svg"
    if not path.exists():
        return []
    svg = ET.parse(path).getroot()
    words = json.loads(DIAGRAM_WORDS.read_text()) if name.endswith(ZH) else {}
    width, height = map(float, svg.get("viewBox").split()[2:])
    links = []
    for box, text in itertools.pairwise(svg.iter()):
        if box.get("data-page") and text.tag.endswith("}text"):
            x, y, w, h = (float(box.get(k)) for k in ("x", "y", "width", "height"))
            where = tuple(round(100 * v, 3) for v in (x / width, y / height, w / width, h / height))
            links.append((box.get("data-page"), words.get(text.text, text.text), where))
    return links


def drawn_once(name: str, fn: Callable) -> dict[str, dict[str, str]]:
    """{NAME: {scheme: svg}, NAME-zh: ..., NAME-narrow: ...} of ``render(fn)``, from the cache when
    this package drew it before: the test run draws every figure as a test
    (tests/docs_build/test_figures.py), on every core, and the build then draws none."""
    fonts = " ".join(cjk_fonts())  # the Chinese labels' font
    version = importlib.metadata.version("matplotlib")
    key = cache.key(cache.inputs_hash(), version, fonts, name)
    return cache.cached(f"figures/{key}", lambda: {name + k: v for k, v in render(fn).items()})


def render_all() -> dict[str, dict[str, str]]:
    """{name: {"": light_svg, "-dark": dark_svg}} for every figure and diagram (and NAME-zh)."""
    out = {}
    words = json.loads(DIAGRAM_WORDS.read_text())
    for path in sorted(DIAGRAMS.glob("*.svg")):
        out[path.stem] = _diagram_variants(path.read_text(), path)
        chinese = _diagram_in_chinese(path, words)
        if chinese is not None:
            out[path.stem + ZH] = _diagram_variants(chinese, path)
    drawn = {k: v for name, fn in drawings().items() for k, v in drawn_once(name, fn).items()}
    if clash := set(out) & set(drawn):
        raise ValueError(f"figure names used by both a drawing and a diagram: {sorted(clash)}")
    out.update(drawn)
    return out


# The site files that the fence running now writes ({uri: text}): fences.execute collects them.
_WRITTEN: ContextVar[dict[str, str | dict]] = ContextVar("the site files the fence writes")


@contextlib.contextmanager
def collect() -> Iterator[dict[str, str]]:
    """The site files that ``write`` and ``save`` write inside the block: {uri: text}."""
    token = _WRITTEN.set({})
    try:
        yield _WRITTEN.get()
    finally:
        _WRITTEN.reset(token)


def write(uri: str, data: str | bytes) -> str:
    """Write a site file of the fence that runs (``explorers/reverse.json``); return its URI.
    Bytes (a model's weights) travel through the fences' JSON cache as {"base64": ...}."""
    _WRITTEN.get()[uri] = data if isinstance(data, str) else {"base64": b64encode(data).decode()}
    return uri


def save(name: str, draw: Callable) -> None:
    """Draw ``draw(theme)`` as the figure ``figures/NAME.svg`` with its dark (and Chinese)
    variants, like a drawing of ``plots/``."""
    for lang, variants in render(draw).items():
        for scheme, svg in variants.items():
            write(f"figures/{name}{lang}{scheme}.svg", svg)
