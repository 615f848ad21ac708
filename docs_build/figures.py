"""Figures of the site, drawn at build time from the ``encoder`` package.

Each module of ``plots/`` ends with ``FIGURES = {name: draw}``, where ``draw(theme)`` returns a
matplotlib figure in a colour theme; ``render_all`` turns every drawing, and every SVG source in
``diagrams/``, into a light and a dark SVG. Drawings are cached (``docs_build.cache``) by the hash
of the package, of the drawings' code and of matplotlib's version, so ``mkdocs serve`` stays fast.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import io
import json
import os
import pkgutil
import sys
from collections.abc import Callable
from pathlib import Path

from docs_build import plots
from docs_build.cache import cache_dir, package_hash

DIAGRAMS = Path(__file__).resolve().parent / "diagrams"

# Colours per theme; text and axes follow Material's default (light) and slate (dark) schemes.
THEMES = {
    "": {
        "fg": "#1f2328",
        "muted": "#6e7781",
        "grid": "#d0d7de",
        "accent": "#3f51b5",
        "accent2": "#e4572e",
        "accent3": "#2a9d8f",
        "cmap": "RdBu_r",
    },
    "-dark": {
        "fg": "#e2e4e9",
        "muted": "#9da5b4",
        "grid": "#3b4252",
        "accent": "#8c9eff",
        "accent2": "#ff8a65",
        "accent3": "#4dd0c4",
        "cmap": "RdBu_r",
    },
}
# Diagram sources carry the light palette between these markers; the dark variant swaps it.
PALETTE_START, PALETTE_END = "/* palette:start */", "/* palette:end */"
DARK_PALETTE = (
    "--fg:#e2e4e9;--muted:#9da5b4;--box:#2b2f3a;--line:#9da5b4;"
    "--attn:#3949ab;--ffn:#00796b;--norm:#8d6e0f;--emb:#6a1b9a;--accent:#ff8a65;"
)


def drawings() -> dict[str, Callable]:
    """Every drawing of ``plots/``, by name, from modules imported afresh (an edit to one shows
    under ``mkdocs serve``)."""
    found: dict[str, Callable] = {}
    for module in pkgutil.iter_modules(plots.__path__):
        name = f"{plots.__name__}.{module.name}"
        sys.modules.pop(name, None)
        drawn = importlib.import_module(name).FIGURES
        if found.keys() & drawn.keys():
            raise ValueError(f"{name} names figures drawn elsewhere: {found.keys() & drawn.keys()}")
        found.update(drawn)
    return found


_rendered: dict[str, dict[str, str]] = {}


def names() -> set[str]:
    """Names of the figures of the last ``render_all``."""
    return set(_rendered)


def _style(theme: dict) -> dict:
    return {
        "text.color": theme["fg"],
        "axes.labelcolor": theme["fg"],
        "axes.edgecolor": theme["muted"],
        "xtick.color": theme["fg"],
        "ytick.color": theme["fg"],
        "axes.facecolor": "none",
        "figure.facecolor": "none",
        "savefig.facecolor": "none",
        "savefig.transparent": True,
        "font.size": 10,
        "axes.titlesize": 11,
        "legend.frameon": False,
        "svg.hashsalt": "encoder",
        "svg.fonttype": "path",
        "axes.prop_cycle": _cycle(theme),
        "grid.color": theme["grid"],
    }


def _cycle(theme: dict):
    from cycler import cycler

    return cycler(color=[theme["accent"], theme["accent2"], theme["accent3"], theme["muted"]])


def _to_svg(fn: Callable, theme: dict) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context(_style(theme)):
        fig = fn(theme)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
        plt.close(fig)
    return buf.getvalue()


def render(fn: Callable) -> dict[str, str]:
    """{"": light_svg, "-dark": dark_svg} of one drawing ``fn(theme)``, uncached (for figures
    drawn by a page's own code: ``docs_build.published.run_figure``)."""
    return {suffix: _to_svg(fn, theme) for suffix, theme in THEMES.items()}


def _diagram_variants(path: Path) -> dict[str, str]:
    light = path.read_text()
    start, end = light.find(PALETTE_START), light.find(PALETTE_END)
    if start < 0 or end < 0:
        raise ValueError(f"{path} has no {PALETTE_START} ... {PALETTE_END} block")
    dark = light[: start + len(PALETTE_START)] + DARK_PALETTE + light[end:]
    return {"": light, "-dark": dark}


def render_all() -> dict[str, dict[str, str]]:
    """{name: {"": light_svg, "-dark": dark_svg}} for every figure and diagram."""
    out = {path.stem: _diagram_variants(path) for path in sorted(DIAGRAMS.glob("*.svg"))}
    code = [Path(__file__), *sorted(Path(plots.__file__).parent.glob("*.py"))]  # styles, drawings
    key = package_hash(importlib.metadata.version("matplotlib"), *code)
    folder = cache_dir("figures")
    cache = folder / f"{key}.json"
    if cache.exists():
        drawn = json.loads(cache.read_text())
    else:
        drawn = {n: {s: _to_svg(fn, t) for s, t in THEMES.items()} for n, fn in drawings().items()}
        folder.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(drawn))
        tmp.replace(cache)  # atomic: a concurrent build never reads half a file
        for old in sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)[:-8]:
            old.unlink(missing_ok=True)
    clash = set(out) & set(drawn)
    if clash:
        raise ValueError(f"figure names used by both a drawing and a diagram: {sorted(clash)}")
    out.update(drawn)
    _rendered.clear()
    _rendered.update(out)
    return out
