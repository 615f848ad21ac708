"""The strict build of the real site, and checks on the HTML it wrote (the run's one build, the
``site`` fixture of ``conftest.py``). A strict build that warned still wrote the whole site
(MkDocs aborts at the very end), so these checks run on it all the same."""

from __future__ import annotations

import gzip
import html
import importlib.metadata
import os
import re
from pathlib import Path

import pytest

import encoder


@pytest.fixture(scope="module")
def pages(site) -> dict[str, str]:
    """The HTML of every page, by its path from the site's root."""
    return {p.relative_to(site.dir).as_posix(): p.read_text() for p in site.dir.rglob("*.html")}


def test_strict_build_passes_without_warnings(site):
    assert site.build.returncode == 0, site.build.log
    assert site.build.warnings == [], site.build.log


@pytest.mark.skipif(not os.environ.get("FENCES_TESTED"), reason="fences not run as tests first")
def test_the_build_runs_no_fence_the_tests_ran(site):
    # `make test` runs every fence as a test first (FENCES_TESTED=1): the build only shows them.
    ran = re.findall(r"fences: (\d+) ran in this build", site.build.log)  # English, Chinese
    assert ran and set(ran) == {"0"}, site.build.log


# A source is cited by its name on the home page (Sources), never by the number of its file.
BY_NUMBER = re.compile(r"\bposts? 00\d|源文章 ?00\d", re.IGNORECASE)


def test_every_page_is_built_with_its_build_stamp_and_no_raw_include(site, pages):
    assert {url + "index.html" for url in site.pages} <= set(pages)
    stamp = f"encoder {encoder.__version__}, torch {importlib.metadata.version('torch')},"
    for path, text in pages.items():
        assert stamp in " ".join(text.split()), f"{path}: no build stamp naming {stamp}"
        shown = html.unescape(re.sub(r"<[^>]+>", "", text))
        assert "--8<--" not in shown, path
        assert not BY_NUMBER.search(shown), f"{path}: {BY_NUMBER.search(shown)[0]}"


# A work a page cites ("Xiong et al., 2020", "Ioffe 和 Szegedy，2015", or by its name) is listed
# under Sources on its edition's home page, in one entry with its year.
CITED = re.compile(
    r"([A-Z][a-z]+)(?:\s+(?:and|和)\s+[A-Z][a-z]+|\s+et\s+al\.|\s+等)?[,，]\s*(\d{4})\b"
)
NAMED = ("tensor2tensor", "The Annotated Transformer")


@pytest.mark.parametrize("edition", ["", "zh/"])
def test_every_cited_work_is_in_the_sources(edition):
    docs = Path(__file__).parents[2] / "docs"
    home = (docs / edition / "index.md").read_text(encoding="utf-8")
    start = home.index("\n## Sources" if not edition else "\n## 资料来源")
    end = home.find("\n## ", start + 1)
    sources = home[start : end if end > 0 else None]
    entries = re.split(r"\n\s*\n|\n- ", sources)
    missing = set()
    for page in (docs / edition).rglob("*.md"):
        if edition or not page.is_relative_to(docs / "zh"):
            text = page.read_text(encoding="utf-8").replace(sources, "")
            cited = {(m[1], m[2]) for m in CITED.finditer(text)}
            cited |= {(n, "") for n in NAMED if n in text}
            missing |= {(page.name, name, year) for name, year in cited
                        if not any(name in e and year in e for e in entries)}  # fmt: skip
    assert not missing, sorted(missing)


# Addresses of CDNs and font hosts; an occurrence in what a browser runs must be a known, inert one.
CDN = re.compile(
    r"(?:https?:)?//(?:fonts\.googleapis\.com|fonts\.gstatic\.com|cdn\.jsdelivr\.net|unpkg\.com"
    r"|cdnjs\.cloudflare\.com|ajax\.googleapis\.com|esm\.sh|code\.jquery\.com|cdn\.mathjax\.org)"
    r"[^\s\"'`)]*"
)
INERT = {  # (file, address prefix) never loaded here: Material's ResizeObserver fallback, and
    # its and nbconvert's Mermaid loaders (no page has a Mermaid diagram: checked below).
    ("assets/javascripts/bundle.*.min.js", "https://unpkg.com/resize-observer-polyfill"),
    ("assets/javascripts/bundle.*.min.js", "https://unpkg.com/mermaid@"),
    ("*notebooks/*/index.html", "https://cdnjs.cloudflare.com/ajax/libs/mermaid"),
}
CODE = re.compile(r"<(script|style)\b[^>]*>(.*?)</\1>", re.DOTALL | re.IGNORECASE)


def test_no_cdn_or_font_host_in_what_a_browser_runs(site, pages):
    found = set()
    for path in site.dir.rglob("*"):
        if path.suffix not in (".html", ".js", ".mjs", ".css", ".svg"):
            continue
        rel, text = path.relative_to(site.dir), path.read_text(errors="replace")
        if path.suffix == ".html":  # its scripts and styles: its prose may name any host
            text = "\n".join(m[2] for m in CODE.finditer(text))
        for m in CDN.finditer(text):
            if not any(rel.match(glob) and m[0].startswith(p) for glob, p in INERT):
                found.add(f"{rel.as_posix()}: {m[0]}")
    assert found == set()
    assert not [p for p, t in pages.items() if re.search(r'class="[^"]*\bj?p?-?[Mm]ermaid', t)]
    assert not [p for p, t in pages.items() if 'data-md-component="source"' in t]  # GitHub API


ARITHMATEX = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.DOTALL)


def test_formulas_arrive_typeset_and_no_mathjax_runs_in_the_browser(pages):
    problems, typeset = [], 0
    for path, text in pages.items():
        if re.search(r"<script[^>]+src=\"[^\"]*mathjax", text, re.IGNORECASE):
            problems.append(f"{path} loads MathJax")
        for _, body in ARITHMATEX.findall(text):
            typeset += 1
            if "<mjx-container" not in body or "<mjx-assistive-mml" not in body:
                problems.append(f"{path}: not typeset at build: {body[:80]!r}")
        if "<mjx-container" in text and '<style id="mathjax-svg">' not in text:
            problems.append(f"{path}: formulas without MathJax's stylesheet")
    assert typeset > 100 and problems == []


def test_pages_carry_no_wrappers_that_draw_nothing(pages):
    # Pygments' spans around names and spaces and MathJax's groups that only name their MathML
    # node are removed at build; if a new Pygments or MathJax writes them otherwise, it stops.
    wrappers = re.compile(r'<span class="[nw]">|<g data-mml-node="(?!maction|merror|mtable)\w+">')
    found = {p: len(wrappers.findall(t)) for p, t in pages.items() if "jupyter-wrapper" not in t}
    assert {p: n for p, n in found.items() if n} == {}
    assert pages["attention/index.html"].count("<mjx-container") > 100


FIGURE = re.compile(r'<figure class="figure">(.*?)<figcaption>(.*?)</figcaption>', re.DOTALL)
IMG = re.compile(r'<img [^>]*alt="(?P<alt>[^"]*)"[^>]*src="(?P<src>[^"#]+)#only-(?P<scheme>\w+)"')


def test_every_figure_is_drawn_light_and_dark_with_alt_text_and_caption(site, pages):
    figures = [(p, m) for p, t in pages.items() for m in FIGURE.finditer(t)]
    assert len(figures) >= 30
    for path, m in figures:
        imgs = list(IMG.finditer(m[1]))
        assert [i["scheme"] for i in imgs] == ["light", "dark"] and m[2].strip(), path
        for img in imgs:
            assert img["alt"].strip(), path
            assert "<svg" in ((site.dir / path).parent / img["src"]).read_text()[:2000], path


def test_api_shape_sections_keep_their_lines(pages):
    """Every ``Shape:`` section of a public docstring is a code block, one tensor per line."""
    blocks = re.findall(
        r'<details class="shape"[^>]*>(.*?)</details>', pages["api/index.html"], re.S
    )
    shaped = [n for n in encoder.__all__ if "Shape:" in (getattr(encoder, n).__doc__ or "")]
    assert len(blocks) >= len(shaped) > 0 and all("<pre" in b for b in blocks)
    last = encoder.MultiHeadAttention.__doc__.split("Shape:")[1].strip().splitlines()[-1].strip()
    assert f"\n{last}" in re.sub(r"<[^>]+>", "", "".join(blocks)).replace("&gt;", ">")


CONCEPT_PAGES = (
    "token-embedding/", "positional-encoding/", "transformer-embedding/", "layer-norm/",
    "feed-forward/", "attention/", "encoder-layer/", "encoder/",
)  # fmt: skip
LINKED = re.compile(r'<(?:script[^>]*\bsrc|link[^>]*\brel="stylesheet"[^>]*\bhref)="([^"?#]+)')


@pytest.mark.parametrize("lang", ["", "zh/"], ids=["en", "zh"])
def test_a_concept_page_weighs_at_most_250_kb_and_the_explorer_exports_2_mb(site, lang):
    """A concept page's HTML and the stylesheets and scripts it links, gzipped: not its images,
    the search index (fetched on search) nor the explorers' files (fetched in view: the browser
    tests check it), which are at most 2 MB in all."""
    weights = {}
    for page in CONCEPT_PAGES:
        html = site.html(lang + page)
        files = [(site.dir / lang / page / src).resolve() for src in LINKED.findall(html)]
        compressed = [gzip.compress(html.encode())] + [gzip.compress(f.read_bytes()) for f in files]
        weights[page] = sum(map(len, compressed))
    print({page: f"{size / 1000:.0f} kB" for page, size in weights.items()})
    assert max(weights.values()) <= 250_000, weights
    exports = sum(f.stat().st_size for f in (site.dir / "explorers").glob("*"))
    assert 0 < exports <= 2_000_000, exports
