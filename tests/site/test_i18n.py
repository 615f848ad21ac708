"""The Chinese edition (docs/zh/, served at /zh/) in the run's build: complete, the same code,
formulas and figures as the English pages, and visibly stale when the
English page changed. (The banner itself is tested on a toy site: tests/docs_build.)
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from docs_build import i18n

DOCS = Path(__file__).resolve().parents[2] / "docs"
ZH = "zh/"


@pytest.fixture(scope="module")
def built(site) -> Path:
    return site.dir


def built_pages(site: Path) -> set[str]:
    pages = set()
    for index in site.rglob("index.html"):
        rel = index.parent.relative_to(site)
        if rel.parts and rel.parts[0] in {"assets", "search", "figures"}:
            continue
        pages.add("" if rel == Path(".") else rel.as_posix() + "/")
    return pages


def test_every_page_exists_in_both_languages(built: Path, site):
    pages = built_pages(built)
    chinese = {p.removeprefix(ZH) for p in pages if p.startswith(ZH)}
    english = {p for p in pages if not p.startswith(ZH)}
    assert english == set(site.english), "the English pages built are not the docs' sources"
    assert sorted(english - chinese) == [], "English pages without a Chinese page"
    assert sorted(chinese - english) == [], "Chinese pages without an English page"


# --- what a page shows ----------------------------------------------------------------------------
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class Shown(HTMLParser):
    """Display formulas, code, outputs and figures of a page's article, in page order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []  # (tag, class) of the open elements
        # Display formulas, as the text of MathJax's assistive MathML (typeset at build).
        self.formulas: list[str] = []
        self.code: list[tuple[str, str]] = []  # (kind, text): python, output, notebook cell
        self.figures: list[str] = []  # file names of the images, less a Chinese "-zh"
        self.images: list[str] = []  # file names of the images, as shown
        self._pre: list[str] | None = None
        self._math: list[str] | None = None
        self._in_article = False

    def _classes(self) -> str:
        return " ".join(c for _, c in self.stack)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class") or ""
        if tag == "article":
            self._in_article = True
        if not self._in_article:
            return
        if tag == "img":
            # A Chinese page shows NAME-zh.svg where the figure has words (drawn in Chinese).
            name = (a.get("src") or "").split("#")[0].rsplit("/", 1)[-1]
            self.images.append(name)
            self.figures.append(re.sub(r"-zh(?=(-dark)?\.svg$)", "", name))
        if tag in VOID:
            return
        self.stack.append((tag, cls))
        if tag == "pre" and self._pre is None:
            self._pre = []
        elif tag == "mjx-container" and a.get("display") == "true" and self._math is None:
            self._math = [tag]

    def handle_startendtag(self, tag, attrs):
        if self._in_article and tag == "img":
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag == "article":
            self._in_article = False
        if not self.stack or tag in VOID:
            return
        classes = self._classes()
        while self.stack:
            open_tag, _ = self.stack.pop()
            if open_tag == tag:
                break
        if tag == "pre" and self._pre is not None and not any(t == "pre" for t, _ in self.stack):
            text = "".join(self._pre)
            kind = next(
                (k for c, k in CODE_KINDS if c in classes.split()),
                None,
            )
            if kind:
                self.code.append((kind, text))
            self._pre = None
        if self._math is not None and not any(t == "mjx-container" for t, _ in self.stack):
            self.formulas.append("".join(self._math[1:]).strip())
            self._math = None

    def handle_data(self, data):
        for buffer in (self._pre, self._math):
            if buffer is not None:
                buffer.append(data)


# Which <pre> a page pair must share: code, its printed output, a notebook cell's input/output.
CODE_KINDS = [
    ("language-python", "python"),
    ("language-text", "output"),
    ("jp-CodeCell", "notebook"),
]


def shown(site: Path, page: str) -> Shown:
    parser = Shown()
    parser.feed((site / page / "index.html").read_text())
    return parser


def test_chinese_page_shows_the_same_formulas_code_and_figures(built: Path, english_page: str):
    page = english_page
    zh_html = built / ZH / page / "index.html"
    if not zh_html.exists():
        pytest.fail(f"no Chinese page /{ZH}{page} for /{page}")
    en, zh = shown(built, page), shown(built, ZH + page)
    assert zh.formulas == en.formulas, f"display formulas of /{ZH}{page} differ from /{page}"
    assert zh.code == en.code, f"code or outputs of /{ZH}{page} differ from /{page}"
    assert zh.figures == en.figures, f"figures of /{ZH}{page} differ from /{page}"


def test_figures_with_words_are_drawn_in_chinese_for_chinese_pages(built: Path, english_page: str):
    """figures/NAME-zh.svg exists for every figure with words (docs_build/figures.py); the
    Chinese page shows it, the English page never does."""
    drawn = {p.name for p in (built / "figures").glob("*.svg")}
    english = [n for n in shown(built, english_page).images if n in drawn]
    chinese = [n for n in shown(built, ZH + english_page).images if n in drawn]
    assert [n for n in english if "-zh" in n] == []
    should = [re.sub(r"(-dark)?\.svg$", r"-zh\g<0>", n) for n in english]
    assert chinese == [z if z in drawn else n for z, n in zip(should, english, strict=True)]


def test_most_figures_have_chinese_words(built: Path):
    # Only figures without words (token-lookup: symbols and ids) are the same in both.
    names = {p.stem for p in (built / "figures").glob("*.svg") if not p.stem.endswith("-dark")}
    english = {n for n in names if not n.endswith("-zh")}
    without = sorted(n for n in english if f"{n}-zh" not in names)
    assert len(without) <= 2, f"figures drawn in English only: {without}"


def test_parity_has_something_to_compare(built: Path):
    # A parser that found nothing would make the parity test pass vacuously.
    pe = shown(built, "positional-encoding/")
    assert len(pe.formulas) >= 3 and len(pe.figures) >= 6  # 3 formulas, 3 figures x 2 schemes
    assert {kind for kind, _ in pe.code} == {"python", "output"}
    notebook = shown(built, "notebooks/positional-encoding-walkthrough/")
    assert {kind for kind, _ in notebook.code} == {"notebook"} and notebook.formulas


def test_section_markers_leave_no_trace(built: Path):
    # English pages mark their code and formulas as snippet sections in HTML comments.
    marked = [
        p.relative_to(built).as_posix()
        for p in built.rglob("*.html")
        if re.search(r"--8<--|8&lt;", p.read_text())
    ]
    assert marked == []


def test_chinese_pages_are_chinese(built: Path, site):
    for page in site.english:
        text = (built / ZH / page / "index.html").read_text()
        assert '<html lang="zh"' in text, f"/{ZH}{page} is not marked as Chinese"
        assert "<title>" in text and i18n.SITE_NAME in text.split("</title>")[0]
        assert f'<meta name="description" content="{i18n.SITE_DESCRIPTION}' in text
        article = text[text.find("<article") : text.find("</article>")]
        article = article.split('<div class="doc doc-object')[0]  # API: English docstrings
        prose = re.sub(r"<(pre|code|style|script)\b.*?</\1>|<[^>]+>", " ", article, flags=re.DOTALL)
        han = len(re.findall(r"[\u4e00-\u9fff]", prose))
        words = len(re.findall(r"[A-Za-z]{3,}", prose))
        assert han >= 5 and han >= words / 2, (
            f"/{ZH}{page}: {han} Chinese characters and {words} English words outside code"
        )


def test_language_switcher_points_at_the_same_page(built: Path, site):
    link = re.compile(r'<a href="(?P<href>[^"]*)" hreflang="(?P<lang>\w+)" class="md-select__link"')
    for page in site.english:
        for path, own in ((page, "en"), (ZH + page, "zh")):
            found = {m["lang"]: m["href"] for m in link.finditer(shown_text(built, path))}
            expected = {"en": "/" + page, "zh": "/" + ZH + page}
            assert found == expected, f"switcher of /{path} ({own})"


def shown_text(site: Path, page: str) -> str:
    return (site / page / "index.html").read_text()


def test_each_edition_has_its_sitemap(built: Path, site):
    zh = (built / ZH / "sitemap.xml").read_text()
    locs = re.findall(r"<loc>([^<]+)</loc>", zh)
    assert locs and all(f"/{ZH}" in loc for loc in locs)
    assert len(locs) == len(site.english)


# --- staleness ------------------------------------------------------------------------------------
def has_stale_banner(page_html: str) -> bool:
    return f'<p class="admonition-title">{i18n.STALE_TITLE}</p>' in page_html


def test_banner_in_the_build_matches_the_recorded_hashes(built: Path, site):
    for path in sorted((DOCS / ZH).rglob("*.md")):
        zh_uri = path.relative_to(DOCS).as_posix()
        english = i18n.english_source(zh_uri)
        stale = i18n.recorded_hash(path.read_text()) != i18n.source_hash(english)
        has_banner = has_stale_banner(shown_text(built, site.url_path(zh_uri)))
        assert has_banner == stale, f"{zh_uri}: stale={stale}, banner={has_banner}"
