"""The strict build of the real site, and checks on the HTML it wrote (the run's one build, the
``site`` fixture of ``conftest.py``). A strict build that warned still wrote the whole site
(MkDocs aborts at the very end), so these checks run on it all the same."""

from __future__ import annotations

import gzip
import importlib.metadata
import re
from pathlib import Path

import pytest

import encoder


@pytest.fixture(scope="module")
def pages(site) -> dict[str, str]:
    """The HTML of every page, by its path from the site's root."""
    return {p.relative_to(site.dir).as_posix(): p.read_text() for p in site.dir.rglob("*.html")}


def test_strict_build_passes_without_warnings(site, pytestconfig):
    assert site.returncode == 0 and "WARNING" not in site.log, site.log
    if pytestconfig.getoption("fences_tested"):  # `make test` ran every fence as a test first:
        # the build only shows them, in English and in Chinese
        assert set(re.findall(r"fences: (\d+) ran in this build", site.log)) == {"0"}, site.log


# A source is cited by its name on the home page (Sources), never by the number of its file.
BY_NUMBER = re.compile(r"\bposts? 00\d|源文章 ?00\d", re.IGNORECASE)
ARITHMATEX = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.DOTALL)
# Pygments' spans around names and spaces and MathJax's groups that only name their MathML node
# are removed at build; if a new Pygments or MathJax writes them otherwise, this stops.
WRAPPERS = re.compile(r'<span class="[nw]">|<g data-mml-node="(?!maction|merror|mtable)\w+">')


def test_every_page_as_a_reader_gets_it(site, pages):
    """Every page of both languages is built, and no other; each is in its edition's language
    (the root's 404 page is English: each edition writes one there), names the build, shows no
    snippet marker (English pages mark their code and formulas as snippet sections in HTML
    comments) and no source by its number, arrives with its formulas typeset and MathJax's
    styles, has no Mermaid diagram (so the loaders in INERT stay idle), loads no MathJax and no
    GitHub API (the repository's stars), and carries no wrappers that draw nothing, nor the
    formulas' text forms that only the search index needs."""
    assert set(pages) == {page + "index.html" for page in site.pages} | {"404.html"}
    stamp = f"encoder {encoder.__version__}, torch {importlib.metadata.version('torch')},"
    typeset = 0
    for path, text in pages.items():
        shown = site.text(text)
        assert f'<html lang="{"zh" if path.startswith("zh/") else "en"}"' in text, path
        assert stamp in shown, f"{path}: no build stamp naming {stamp}"
        assert "--8<--" not in shown and not re.search(r"--8<--|8&lt;", text), path
        assert not BY_NUMBER.search(shown), f"{path}: {BY_NUMBER.search(shown)[0]}"
        formulas = [body for _, body in ARITHMATEX.findall(text)]
        assert all("<mjx-container" in f and "<mjx-assistive-mml" in f for f in formulas), path
        assert "<mjx-container" not in text or '<style id="mathjax-svg">' in text, path
        assert not re.search(r"<script[^>]+src=\"[^\"]*mathjax", text, re.IGNORECASE), path
        assert not re.search(r'class="[^"]*\bj?p?-?[Mm]ermaid', text), path
        assert 'data-md-component="source"' not in text, path
        assert "jupyter-wrapper" in text or not WRAPPERS.search(text), path
        assert 'class="search-text"' not in text, path
        typeset += len(formulas)
    assert typeset > 100
    assert pages["attention/index.html"].count("<mjx-container") > 100


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
    # its and nbconvert's Mermaid loaders (no page has a Mermaid diagram: checked above).
    ("assets/javascripts/bundle.*.min.js", "https://unpkg.com/resize-observer-polyfill"),
    ("assets/javascripts/bundle.*.min.js", "https://unpkg.com/mermaid@"),
    ("*notebooks/*/index.html", "https://cdnjs.cloudflare.com/ajax/libs/mermaid"),
}
CODE = re.compile(r"<(script|style)\b[^>]*>(.*?)</\1>", re.DOTALL | re.IGNORECASE)


def test_no_cdn_or_font_host_in_what_a_browser_runs(site):
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


SHAPE = re.compile(r'<details class="shape"[^>]*>(.*?)</details>', re.DOTALL)


def test_api_shape_sections_keep_their_lines(pages):
    """Every ``Shape:`` section of a public docstring is a code block, one tensor per line."""
    blocks = SHAPE.findall(pages["api/index.html"])
    shaped = [n for n in encoder.__all__ if "Shape:" in (getattr(encoder, n).__doc__ or "")]
    assert len(blocks) >= len(shaped) > 0 and all("<pre" in b for b in blocks)
    last = encoder.MultiHeadAttention.__doc__.split("Shape:")[1].strip().splitlines()[-1].strip()
    assert f"\n{last}" in re.sub(r"<[^>]+>", "", "".join(blocks)).replace("&gt;", ">")


LINKED = re.compile(r'<(?:script[^>]*\bsrc|link[^>]*\brel="stylesheet"[^>]*\bhref)="([^"?#]+)')
# The files a page's explorers fetch (their test vectors stay in the build's cache), and the
# explorers whose file waits for a button that says its size (data-size).
EXPORT = re.compile(r"explorers/[\w-]+\.(?:json|safetensors)")
ON_BUTTON = re.compile(r'<div class="explorer"[^>]* data-model="([^"]+)" data-size="(\d+)"')


@pytest.mark.parametrize("lang", ["", "zh/"], ids=["en", "zh"])
def test_a_concept_page_weighs_at_most_250_kb_and_the_explorer_exports_2_mb(site, lang):
    """A concept page's HTML and the stylesheets and scripts it links, gzipped: not its images,
    the search index (fetched on search) nor the explorers' files (fetched in view: the browser
    tests check it), which are at most 2 MB in all on a page. A file fetched only when the
    reader presses a button that says its size (the pretrained model) is at most 25 MB."""
    weights = {}
    for page in site.concepts:
        html = site.html(lang + page)
        files = [(site.dir / lang / page / src).resolve() for src in LINKED.findall(html)]
        compressed = [gzip.compress(html.encode())] + [gzip.compress(f.read_bytes()) for f in files]
        weights[page] = sum(map(len, compressed))
    assert max(weights.values()) <= 250_000, weights
    exports, on_button = {}, {}  # the files each page's explorers fetch, in view / on a button
    for page in site.english:
        html = site.html(lang + page)
        files = set(EXPORT.findall(html))
        assert not any(f.endswith("-tests.json") for f in files), files
        asked = dict(ON_BUTTON.findall(html))
        for f, size in asked.items():
            assert (site.dir / f).stat().st_size == int(size) <= 25_000_000, (page, f, size)
        on_button[page] = len(asked)
        exports[page] = sum((site.dir / f).stat().st_size for f in files - asked.keys())
    assert 0 < max(exports.values()) <= 2_000_000, exports
    assert on_button["pretrained/"] == 1, on_button


def test_properdocs_builds_the_same_pages_with_the_same_text(site, pages, tmp_path):
    """The site also builds with ProperDocs, MkDocs 1.x's drop-in fork, into the same pages (and
    runs no fence: it builds on the run's cache). Material for MkDocs reaches end of life on
    2027-05-05 and MkDocs 1.x has had no release since 2024-08: this keeps ProperDocs a way out."""
    returncode, log = site.build(tmp_path, site.base, tool="properdocs")
    assert returncode == 0 and "WARNING" not in log, log
    assert set(re.findall(r"fences: (\d+) ran", log)) == {"0"}, log
    theirs = {p.relative_to(tmp_path).as_posix(): p.read_text() for p in tmp_path.rglob("*.html")}
    assert theirs.keys() == pages.keys()  # every page: test_every_page_as_a_reader_gets_it
    ours = {p: site.text(site.article(text)) for p, text in pages.items()}
    differ = [p for p, text in theirs.items() if site.text(site.article(text)) != ours[p]]
    assert not differ, f"the article's text differs on {differ}"
