"""The strict build of the real site, and checks on the HTML it produces (the run's one build,
the ``site`` fixture of ``conftest.py``). A strict build that warned still wrote the whole site
(MkDocs aborts at the very end), so these checks run on it all the same."""

from __future__ import annotations

import html
import importlib
import importlib.metadata
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built(site) -> Path:
    return site.dir


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def url_of(site: Path, page: Path) -> str:
    """The page's URL path from the site root, e.g. 'notebooks/embedding-zh/index.html'."""
    return page.relative_to(site).as_posix()


# --- mkdocs.yml -----------------------------------------------------------------------------------
class _Loader(yaml.SafeLoader):
    """Reads mkdocs.yml, turning its !ENV, !relative and python tags into None."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def nav_files() -> list[str]:
    """Every docs file in mkdocs.yml's nav, in order."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=_Loader)

    def walk(item) -> list[str]:
        if isinstance(item, str):
            return [item]
        if isinstance(item, list):
            return [f for entry in item for f in walk(entry)]
        if isinstance(item, dict):
            return [f for value in item.values() for f in walk(value)]
        return []

    return [f for f in walk(config["nav"]) if not urlsplit(f).scheme]


def built_page(docs_file: str) -> str:
    """Where mkdocs (use_directory_urls) writes a docs file: a.md -> a/index.html."""
    stem = docs_file.rsplit(".", 1)[0]
    if stem == "index" or stem.endswith("/index"):
        return f"{stem}.html"
    return f"{stem}/index.html"


# --- the HTML of a page ---------------------------------------------------------------------------
# <link rel=...> values that make the browser fetch something.
LOADING_RELS = {
    "stylesheet",
    "icon",
    "shortcut",
    "apple-touch-icon",
    "manifest",
    "preload",
    "modulepreload",
    "prefetch",
    "preconnect",
    "dns-prefetch",
}
LOADING_ATTRS = {
    "script": "src",
    "img": "src",
    "iframe": "src",
    "source": "src",
    "video": "src",
    "audio": "src",
    "embed": "src",
    "object": "data",
}


class PageParser(HTMLParser):
    """URLs a page loads, its <img> tags, and its <figure> captions."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.loads: list[str] = []
        self.images: list[dict[str, str | None]] = []
        self.figures: list[dict] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "link" and LOADING_RELS & set((a.get("rel") or "").lower().split()):
            self.loads.append(a.get("href") or "")
        elif tag in LOADING_ATTRS and a.get(LOADING_ATTRS[tag]):
            self.loads.append(a[LOADING_ATTRS[tag]] or "")
        if tag == "img":
            self.images.append(a)
            if self.figures and self.figures[-1]["open"]:
                self.figures[-1]["images"].append(a)
        elif tag == "figure":
            self.figures.append({"open": True, "images": [], "caption": ""})
        elif tag == "figcaption" and self.figures:
            self.figures[-1]["in_caption"] = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "figure" and self.figures:
            self.figures[-1]["open"] = False
        elif tag == "figcaption" and self.figures:
            self.figures[-1]["in_caption"] = False

    def handle_data(self, data: str) -> None:
        if self.figures and self.figures[-1].get("in_caption"):
            self.figures[-1]["caption"] += data


def parse(page: Path) -> PageParser:
    parser = PageParser()
    parser.feed(page.read_text())
    return parser


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("", "data", "blob") and not url.startswith("//"):
        return False
    return parts.hostname not in ("127.0.0.1", "localhost")


# --- the build ------------------------------------------------------------------------------------
def test_strict_build_passes_without_warnings(site):
    assert site.build.returncode == 0, site.build.log
    assert site.build.warnings == [], site.build.log


@pytest.mark.skipif(
    not os.environ.get("FENCES_TESTED"), reason="the fences did not run as tests just before"
)
def test_the_build_runs_no_fence_the_tests_ran(site):
    # `make test` runs every fence as a test first (FENCES_TESTED=1): the build only shows them.
    assert "fences: 0 ran in this build" in site.build.log, site.build.log


def test_every_nav_page_is_built(built: Path):
    files = nav_files()
    assert "index.md" in files
    missing = [f for f in files if not (built / built_page(f)).is_file()]
    assert missing == [], f"nav entries without a built page: {missing}"


def test_no_include_left_unexpanded(built: Path):
    # Text as a reader sees it: tags stripped (highlighting splits `--8<--` into spans).
    left = [
        url_of(built, page)
        for page in pages(built)
        if "--8<--" in html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))
    ]
    assert left == [], f"pages showing a raw --8<-- include line: {left}"


def test_every_page_has_the_build_stamp(built: Path):
    torch_version = importlib.metadata.version("torch")
    encoder_version = importlib.import_module("encoder").__version__
    stamp = re.compile(r'<div class="build-stamp" data-build-stamp>(.*?)</div>', re.DOTALL)
    bad = []
    for page in pages(built):
        match = stamp.search(page.read_text())
        text = " ".join(match[1].split()) if match else ""
        if f"torch {torch_version}," not in text or f"encoder {encoder_version}," not in text:
            bad.append(url_of(built, page))
    assert bad == [], f"pages without a build stamp naming torch {torch_version}: {bad}"


# --- offline ------------------------------------------------------------------------------------
def test_pages_load_nothing_from_another_host(built: Path):
    external = {
        f"{url_of(built, page)}: {url}"
        for page in pages(built)
        for url in parse(page).loads
        if is_external(url)
    }
    assert external == set()


# Addresses of CDNs and font hosts; every occurrence in a built file must be a known, inert one.
CDN = re.compile(
    r"(?:https?:)?//(?:fonts\.googleapis\.com|fonts\.gstatic\.com|cdn\.jsdelivr\.net|unpkg\.com"
    r"|cdnjs\.cloudflare\.com|ajax\.googleapis\.com|polyfill\.io|esm\.sh|code\.jquery\.com"
    r"|use\.fontawesome\.com|kit\.fontawesome\.com|cdn\.plot\.ly|cdn\.mathjax\.org)[^\s\"'`)]*"
)
# (file, address prefix): why it never loads on this site.
INERT = {
    # Material's fallback for browsers without ResizeObserver; every supported browser has it.
    ("assets/javascripts/bundle.*.min.js", "https://unpkg.com/resize-observer-polyfill"),
    # Material loads Mermaid only for a mermaid diagram (test_no_mermaid_diagram).
    ("assets/javascripts/bundle.*.min.js", "https://unpkg.com/mermaid@"),
    # nbconvert's notebook template: Mermaid only for a .jp-Mermaid diagram (same test).
    ("notebooks/*/index.html", "https://cdnjs.cloudflare.com/ajax/libs/mermaid"),
}


SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b[^>]*>(.*?)</\1>", re.DOTALL | re.IGNORECASE)


def code_of(path: Path) -> str:
    """What a browser could run or fetch from: the whole asset; of a page, its scripts and styles
    (its prose and links may name any host)."""
    text = path.read_text(errors="replace")
    if path.suffix == ".html":
        return "\n".join(m[2] for m in SCRIPT_OR_STYLE.finditer(text))
    return text


def test_no_cdn_or_font_host_in_any_built_file(built: Path):
    found = set()
    for path in built.rglob("*"):
        if path.suffix not in (".html", ".js", ".mjs", ".css", ".svg"):
            continue
        rel = path.relative_to(built)
        for match in CDN.finditer(code_of(path)):
            if not any(rel.match(glob) and match[0].startswith(p) for glob, p in INERT):
                found.add(f"{rel.as_posix()}: {match[0]}")
    assert found == set()


def test_no_mermaid_diagram(built: Path):
    # The Mermaid loaders allowed in INERT fetch from a CDN as soon as a page has a diagram.
    with_mermaid = [
        url_of(built, page)
        for page in pages(built)
        if re.search(r'class="[^"]*\b(?:mermaid|jp-Mermaid)\b', page.read_text())
    ]
    assert with_mermaid == [], "a Mermaid diagram needs Mermaid vendored, not loaded from a CDN"


def test_repository_facts_are_not_fetched(built: Path):
    # Material fetches stars and forks from api.github.com for data-md-component="source".
    fetching = [
        url_of(built, page)
        for page in pages(built)
        if 'data-md-component="source"' in page.read_text()
    ]
    assert fetching == []


ARITHMATEX = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.DOTALL)


def test_formulas_arrive_typeset_and_no_mathjax_runs_in_the_browser(built: Path):
    problems, typeset = [], 0
    for page in pages(built):
        rel, text = url_of(built, page), page.read_text()
        scripts = [urlsplit(url).path for url in parse(page).loads]
        problems += [f"{rel} loads {s}" for s in scripts if "mathjax" in s.lower()]
        for _, body in ARITHMATEX.findall(text):
            if "<mjx-container" not in body or "<mjx-assistive-mml" not in body:
                problems.append(f"{rel}: not typeset at build: {body[:80]!r}")
            typeset += 1
        if "<mjx-container" in text and '<style id="mathjax-svg">' not in text:
            problems.append(f"{rel}: formulas without MathJax's stylesheet")
    assert typeset > 100, f"only {typeset} formulas on the site: this test would check little"
    assert problems == []


# Wrappers that draw nothing of their own, removed at build to keep long pages light:
# Pygments' spans around names and spaces (docs_build/hooks.py) and MathJax's groups that only
# name their MathML node (docs_build/mathjax.mjs). If a new Pygments or MathJax writes them
# another way, the removal stops silently; this finds them again.
EMPTY_WRAPPERS = {
    "code-name span": re.compile(r'<span class="[nw]">'),
    "naming-only group": re.compile(r'<g data-mml-node="(?!maction|merror|mtable)\w+">'),
}


def test_pages_carry_no_wrappers_that_draw_nothing(built: Path):
    found = {}
    for page in pages(built):
        text = page.read_text()
        if 'class="jupyter-wrapper"' in text:
            continue  # a notebook's page: Jupyter's stylesheet colours names
        for what, wrapper in EMPTY_WRAPPERS.items():
            if n := len(wrapper.findall(text)):
                found[url_of(built, page), what] = n
    assert found == {}
    text = (built / "attention" / "index.html").read_text()
    assert text.count('<span class="') > 1000, "no code tokens left: this test would check little"
    assert text.count("<mjx-container") > 100, "no formulas: this test would check little"


# --- figures --------------------------------------------------------------------------------------
FIGURE = re.compile(r"(?:^|/)figures/(?P<name>[\w-]+?)(?P<dark>-dark)?\.svg$")


def test_every_figure_exists_light_and_dark_with_alt_and_caption(built: Path):
    referenced: set[str] = set()
    problems = []
    for page in pages(built):
        parsed = parse(page)
        page_url = url_of(built, page)
        for img in parsed.images:
            src = urlsplit(img.get("src") or "").path
            match = FIGURE.search(src)
            if not match:
                continue
            referenced.add(match["name"])
            if not (built / urljoin(page_url, src)).is_file():
                problems.append(f"{page_url}: {src} is not in the build")
            if not (img.get("alt") or "").strip():
                problems.append(f"{page_url}: {src} has no alt text")
        for fig in parsed.figures:
            if any(FIGURE.search(img.get("src") or "") for img in fig["images"]):
                if not fig["caption"].strip():
                    problems.append(f"{page_url}: a figure without a caption")
    for name in sorted(referenced):
        for variant in (f"{name}.svg", f"{name}-dark.svg"):
            path = built / "figures" / variant
            if not path.is_file() or "<svg" not in path.read_text():
                problems.append(f"figures/{variant} is missing or not an SVG")
    assert referenced, "no page shows a figure: this test would check nothing"
    assert problems == []


# --- API reference --------------------------------------------------------------------------------
def test_api_shape_sections_keep_their_lines(built: Path):
    """Every ``Shape:`` section of a public docstring is a code block, one tensor per line."""
    import encoder

    api = (built / "api" / "index.html").read_text()
    blocks = re.findall(r"<details class=\"shape\"[^>]*>(.*?)</details>", api, re.DOTALL)
    with_shape = [
        name for name in encoder.__all__ if "Shape:" in (getattr(encoder, name).__doc__ or "")
    ]
    assert len(blocks) >= len(with_shape) > 0
    for block in blocks:
        assert "<pre" in block, f"a Shape section is not a code block: {block[:200]}"
    # The multi-line one keeps its line break before the output shape.
    mha = encoder.MultiHeadAttention.__doc__.split("Shape:")[1]
    last = mha.strip().splitlines()[-1].strip()
    text = re.sub(r"<[^>]+>", "", "".join(blocks)).replace("&gt;", ">")
    assert f"\n{last}" in text
