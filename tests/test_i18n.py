"""The Chinese edition (docs/zh/, served at /zh/): complete, the same code, formulas and figures
as the English pages, searchable in Chinese, and visibly stale when the English page changed.

Most tests read the real site, built once (``site_fixtures.shared_build``, shared with the other
tests of the run that need a build). The staleness banner is proven on a two-page site built in a
temporary folder, once with the right hash and once with a wrong one; the test-time expansion of
sections of other pages (``conftest.py``) on a tiny page run by pytest in a subprocess.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import pytest
from site_fixtures import ROOT, Build, shared_build

sys.path.insert(0, str(ROOT))
from docs_build import i18n

DOCS = ROOT / "docs"
ZH = "zh/"


# --- the pages ------------------------------------------------------------------------------------
def built_path(src: str) -> str:
    """Where the build writes a docs source, as a folder path from the site root ('' = home)."""
    stem = src.rsplit(".", 1)[0]
    if stem == "index":
        return ""
    return (stem.removesuffix("/index") if stem.endswith("/index") else stem) + "/"


def english_sources() -> list[str]:
    return sorted(
        p.relative_to(DOCS).as_posix()
        for p in [*DOCS.rglob("*.md"), *DOCS.rglob("*.ipynb")]
        if not p.relative_to(DOCS).as_posix().startswith(ZH)
    )


ENGLISH = [built_path(src) for src in english_sources()]


@pytest.fixture(scope="module")
def build() -> Build:
    return shared_build()


@pytest.fixture(scope="module")
def site(build: Build) -> Path:
    build.check()
    return build.site


def built_pages(site: Path) -> set[str]:
    pages = set()
    for index in site.rglob("index.html"):
        rel = index.parent.relative_to(site)
        if rel.parts and rel.parts[0] in {"assets", "search", "figures"}:
            continue
        pages.add("" if rel == Path(".") else rel.as_posix() + "/")
    return pages


def test_every_page_exists_in_both_languages(site: Path):
    pages = built_pages(site)
    chinese = {p.removeprefix(ZH) for p in pages if p.startswith(ZH)}
    english = {p for p in pages if not p.startswith(ZH)}
    assert english == set(ENGLISH), "the English pages built are not the docs' sources"
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
        self.figures: list[str] = []  # file names of the images
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


@pytest.mark.parametrize("page", ENGLISH, ids=lambda p: p.strip("/") or "home")
def test_chinese_page_shows_the_same_formulas_code_and_figures(site: Path, page: str):
    zh_html = site / ZH / page / "index.html"
    if not zh_html.exists():
        pytest.fail(f"no Chinese page /{ZH}{page} for /{page}")
    en, zh = shown(site, page), shown(site, ZH + page)
    assert zh.formulas == en.formulas, f"display formulas of /{ZH}{page} differ from /{page}"
    assert zh.code == en.code, f"code or outputs of /{ZH}{page} differ from /{page}"
    assert zh.figures == en.figures, f"figures of /{ZH}{page} differ from /{page}"


def test_parity_has_something_to_compare(site: Path):
    # A parser that found nothing would make the parity test pass vacuously.
    pe = shown(site, "positional-encoding/")
    assert len(pe.formulas) >= 4 and len(pe.figures) >= 8
    assert {kind for kind, _ in pe.code} == {"python", "output"}
    notebook = shown(site, "notebooks/positional-encoding-walkthrough/")
    assert {kind for kind, _ in notebook.code} == {"notebook"} and notebook.formulas


def test_section_markers_leave_no_trace(site: Path):
    # English pages mark their code and formulas as snippet sections in HTML comments.
    marked = [
        p.relative_to(site).as_posix()
        for p in site.rglob("*.html")
        if re.search(r"--8<--|8&lt;", p.read_text())
    ]
    assert marked == []


def test_chinese_pages_are_chinese(site: Path):
    for page in ENGLISH:
        text = (site / ZH / page / "index.html").read_text()
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


def test_language_switcher_points_at_the_same_page(site: Path):
    link = re.compile(r'<a href="(?P<href>[^"]*)" hreflang="(?P<lang>\w+)" class="md-select__link"')
    for page in ENGLISH:
        for path, own in ((page, "en"), (ZH + page, "zh")):
            found = {m["lang"]: m["href"] for m in link.finditer(shown_text(site, path))}
            expected = {"en": "/" + page, "zh": "/" + ZH + page}
            assert found == expected, f"switcher of /{path} ({own})"


def shown_text(site: Path, page: str) -> str:
    return (site / page / "index.html").read_text()


def test_each_edition_has_its_sitemap(site: Path):
    zh = (site / ZH / "sitemap.xml").read_text()
    locs = re.findall(r"<loc>([^<]+)</loc>", zh)
    assert locs and all(f"/{ZH}" in loc for loc in locs)
    assert len(locs) == len(ENGLISH)


# --- Chinese search -------------------------------------------------------------------------------
def material_segment(query: str, terms: set[str]) -> set[str]:
    """Material 9.8.1's segmentation of a Chinese query against the index's terms (search worker,
    integrations/search/query/segment), ported line by line."""
    n = len(query)
    cuts = [0] * n
    for i in range(n):
        for j in range(i + 1, n):
            if query[i:j] in terms:
                cuts[i] = j - i
    segments: set[str] = set()
    stack = [0]
    while stack:
        p = stack.pop()
        for q in range(1, cuts[p]):
            if cuts[p + q] > cuts[p] - q:
                segments.add(query[p : p + q])
                stack.append(p + q)
        q = p + cuts[p]
        if q < n and cuts[q] and q < n - 1:
            stack.append(q)
        segments.add(query[p:q])
    return {query} if "" in segments else segments


def test_search_index_segments_chinese_and_finds_positional_encoding(site: Path):
    index = json.loads((site / "search" / "search_index.json").read_text())
    config = index["config"]
    assert "zh" in config["lang"] and "en" in config["lang"]
    separator = re.compile(config["separator"])
    assert separator.fullmatch("\u200b"), "the separator must split at jieba's word breaks"

    def terms(text: str) -> set[str]:
        plain = html.unescape(re.sub(r"<[^>]+>", " ", text)).lower()
        return {t for t in separator.split(plain) if t}

    docs = {doc["location"]: doc for doc in index["docs"]}
    zh_pe = docs.get(ZH + "positional-encoding/")
    assert zh_pe is not None, "the Chinese positional-encoding page is not in the search index"
    assert "\u200b" in zh_pe["text"], "Chinese text was not segmented (is jieba installed?)"

    vocabulary = set().union(*(terms(d["title"]) | terms(d["text"]) for d in docs.values()))
    query = material_segment("位置编码", vocabulary)
    assert query and query <= vocabulary, f"query segments {query} are not terms of the index"
    # The page's title holds every segment: it is boosted 1000x (config.fields.title).
    assert query <= terms(zh_pe["title"]), (zh_pe["title"], query)
    assert not query & terms(docs["positional-encoding/"]["title"])


# --- staleness ------------------------------------------------------------------------------------
def has_stale_banner(page_html: str) -> bool:
    return f'<p class="admonition-title">{i18n.STALE_TITLE}</p>' in page_html


def test_banner_in_the_build_matches_the_recorded_hashes(site: Path):
    for path in sorted((DOCS / ZH).rglob("*.md")):
        zh_uri = path.relative_to(DOCS).as_posix()
        english = i18n.english_source(zh_uri)
        stale = i18n.recorded_hash(path.read_text()) != i18n.source_hash(english)
        has_banner = has_stale_banner(shown_text(site, built_path(zh_uri)))
        assert has_banner == stale, f"{zh_uri}: stale={stale}, banner={has_banner}"


MINI_YML = """\
site_name: mini
site_url: http://127.0.0.1:8000/
theme:
  name: material
  language: en
nav:
  - Home: index.md
  - Page: page.md
extra:
  alternate:
    - {{name: English, link: /, lang: en}}
    - {{name: 中文, link: /zh/, lang: zh}}
markdown_extensions: [admonition, attr_list]
hooks:
  - {hook}
"""


def _mini_site(tmp: Path, recorded: str) -> str:
    docs = tmp / "docs"
    (docs / "zh").mkdir(parents=True, exist_ok=True)
    (tmp / "mkdocs.yml").write_text(MINI_YML.format(hook=ROOT / "docs_build" / "i18n.py"))
    (docs / "index.md").write_text("# Home\n")
    (docs / "page.md").write_text("# Page\n\nThe English page.\n")
    (docs / "zh" / "index.md").write_text("# 首页\n")
    (docs / "zh" / "page.md").write_text(f"---\nsource_hash: {recorded}\n---\n\n# 页面\n\n中文。\n")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp / "site")],
        cwd=tmp,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return (tmp / "site" / "zh" / "page" / "index.html").read_text()


def test_stale_banner_appears_only_when_the_hash_is_wrong(tmp_path: Path):
    import hashlib

    right = hashlib.sha256(b"# Page\n\nThe English page.\n").hexdigest()[:12]
    fresh = _mini_site(tmp_path, right)
    assert not has_stale_banner(fresh)
    assert "中文" in fresh and '<html lang="zh"' in fresh

    stale = _mini_site(tmp_path, "0123456789ab")
    banner = re.search(r'<div class="admonition warning">.*?</div>', stale, re.DOTALL)
    assert banner and i18n.STALE_TITLE in banner[0]
    assert 'href="../../page/"' in banner[0], "the banner links to the English page"
    # Under the title: the page keeps its own title.
    assert stale.index("<h1") < stale.index(i18n.STALE_TITLE)


def test_stale_banner_of_a_translated_notebook(tmp_path: Path):
    docs = tmp_path / "docs"
    (docs / "notebooks").mkdir(parents=True)
    (docs / "zh" / "notebooks").mkdir(parents=True)
    english = docs / "notebooks" / "nb.ipynb"
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
        {"cell_type": "code", "metadata": {}, "source": ["x = 1"], "outputs": []},
        {"cell_type": "markdown", "metadata": {}, "source": ["More."]},
    ]
    english.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}))
    translation = docs / "zh" / "notebooks" / "nb.md"
    for recorded, stale in ((i18n.source_hash(english), False), ("0" * 12, True)):
        translation.write_text(
            f"---\nsource_hash: {recorded}\n---\n# 标题\n<!-- cell -->\n更多。\n"
        )
        notebook = i18n.translated_notebook(english, translation, docs)
        sources = ["".join(c["source"]) for c in notebook["cells"]]
        assert sources[-3:] == ["# 标题", "x = 1", "更多。"]
        assert (i18n.STALE_TITLE in sources[0]) == stale


def test_stamp_script_checks_every_chinese_page():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "i18n_stamp.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    pages = len(list((DOCS / ZH).rglob("*.md")))
    assert f"of {pages} Chinese pages are stale" in proc.stdout, proc.stdout + proc.stderr


# --- sections of another page under the tests (conftest.py) ---------------------------------------
ENGLISH_PAGE = """\
# A page

Text.

<!-- --8<-- [start:define] -->
```python exec="on" session="s"
value = 41
```
<!-- --8<-- [end:define] -->

!!! note "Inside"

    <!-- --8<-- [start:check] -->
    ```python exec="on" session="s"
    assert value == 42, "the value is wrong"
    ```
    <!-- --8<-- [end:check] -->

<!-- --8<-- [start:two] -->
```python
a = 1
```

```python
b = 2
```
<!-- --8<-- [end:two] -->
"""

PYTEST_INI = """\
[pytest]
addopts = --markdown-docs --markdown-docs-syntax=superfences -p no:cacheprovider
          -p no:hypothesispytest
"""

SNIPPETS_YML = """\
site_name: probe
markdown_extensions:
  - pymdownx.snippets:
      base_path: [!relative $config_dir]
      check_paths: true
      dedent_subsections: true
"""


def _run_page(tmp: Path, text: str) -> subprocess.CompletedProcess:
    (tmp / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    (tmp / "mkdocs.yml").write_text(SNIPPETS_YML)
    (tmp / "pytest.ini").write_text(PYTEST_INI)
    (tmp / "docs" / "zh").mkdir(parents=True, exist_ok=True)
    (tmp / "docs" / "page.md").write_text(ENGLISH_PAGE)
    (tmp / "docs" / "zh" / "page.md").write_text(textwrap.dedent(text).lstrip())
    return subprocess.run(
        [sys.executable, "-m", "pytest", "docs/zh/page.md"],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_included_sections_run_and_fail_at_their_own_lines(tmp_path: Path):
    proc = _run_page(
        tmp_path,
        """
        # 页面

        --8<-- "docs/page.md:define"

        !!! note "里面"

            --8<-- "docs/page.md:check"
        """,
    )
    out = proc.stdout
    assert "1 failed, 1 passed" in out, out
    # Named by the include's line on the Chinese page; traceback at the English page's line.
    assert "docs/zh/page.md::[CodeFence#2][line:7]" in out, out
    line = ENGLISH_PAGE.splitlines().index('    assert value == 42, "the value is wrong"') + 1
    assert f'docs/page.md", line {line}, in <module>' in out, out
    assert "the value is wrong" in out


def test_an_included_section_with_two_python_fences_fails_collection(tmp_path: Path):
    proc = _run_page(tmp_path, '# 页面\n\n--8<-- "docs/page.md:two"\n')
    assert proc.returncode != 0
    assert "are python fences of one included section" in proc.stdout, proc.stdout
