"""The Chinese edition (docs/zh/, served at /zh/) in the run's build: every page in both
languages with the same code, outputs, formulas and figures, the switcher to the same page, one
search index per language, and the staleness banner where the English page changed."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from urllib.parse import urljoin

import pytest

from docs_build import i18n

ZH = "zh/"


def article(site, page: str) -> str:
    text = site.html(page)
    return text[text.index("<article") : text.index("</article>")]


def plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


FORMULA = re.compile(r'<mjx-container[^>]*display="true".*?</mjx-container>', re.S)
# Python code and its output (not shell commands: their comments are translated); a notebook's
# cells, input and output.
CODE = re.compile(r'<div class="language-(?:python|text) highlight"><pre\b.*?</pre>', re.S)
CELL = re.compile(r"<pre\b.*?</pre>", re.S)


def shown(site, page: str) -> dict[str, list[str]]:
    """What a page pair must share: display formulas (MathJax's MathML, typeset at build), code
    and outputs, and the figures (less a Chinese variant's "-zh")."""
    body = article(site, page)
    images = [src.rsplit("/", 1)[-1] for src in re.findall(r'<img [^>]*?src="([^"#]+)', body)]
    code = [plain(m) for m in CODE.findall(body)]
    if "jp-CodeCell" in body:  # one text without spaces: each edition's run of the notebook
        # may split a cell's printed output into blocks elsewhere, even inside a word
        code = ["".join(html.unescape(re.sub(r"<[^>]+>", "", "".join(CELL.findall(body)))).split())]
    return {
        "formulas": [plain(m) for m in FORMULA.findall(body)],
        "code": code,
        "figures": [re.sub(r"-zh(?=(-dark)?\.svg$)", "", name) for name in images],
        "images": images,
    }


def test_chinese_page_shows_the_same_code_formulas_and_figures(site, english_page):
    """A figure with words is drawn in Chinese too, as figures/NAME-zh.svg (docs_build/figures.py):
    the Chinese page shows it where the English page shows NAME.svg, the English page never."""
    en, zh = shown(site, english_page), shown(site, ZH + english_page)
    for what in ("formulas", "code", "figures"):
        assert zh[what] == en[what], f"{what} of /{ZH}{english_page} differ from /{english_page}"
    drawn = {p.name for p in (site.dir / "figures").glob("*.svg")}
    english = [n for n in en["images"] if n in drawn]
    assert not [n for n in english if "-zh" in n]
    chinese = [re.sub(r"(-dark)?\.svg$", r"-zh\g<0>", n) for n in english]
    shows = [c if c in drawn else n for c, n in zip(chinese, english, strict=True)]
    assert [n for n in zh["images"] if n in drawn] == shows


def test_the_comparison_has_something_to_compare(site):
    page = shown(site, "positional-encoding/")
    assert len(page["formulas"]) >= 3 and len(page["code"]) >= 6 and len(page["figures"]) >= 6
    notebook = shown(site, "notebooks/positional-encoding-walkthrough/")
    assert notebook["code"] and notebook["formulas"]


def test_chinese_pages_are_chinese(site, english_page):
    text = site.html(ZH + english_page)
    assert '<html lang="zh"' in text
    assert "Transformer 编码器" in text.split("</title>")[0]
    if english_page.startswith("notebooks/") and english_page != "notebooks/":
        return  # a notebook: translated as a notebook, or Chinese already
    body = article(site, ZH + english_page).split('<div class="doc doc-object')[0]  # API: English
    prose = plain(re.sub(r"<(pre|code|style|script)\b.*?</\1>", " ", body, flags=re.S))
    han, words = len(re.findall(r"[\u4e00-\u9fff]", prose)), len(re.findall(r"[A-Za-z]{3,}", prose))
    assert han >= 5 and han >= words / 2, f"{han} Chinese characters, {words} English words"


def test_the_404_page_is_english(site):
    """Each edition writes 404.html at the root; the site's is the default edition's."""
    text = (site.dir / "404.html").read_text(encoding="utf-8")
    assert '<html lang="en"' in text and "Token Embedding" in text and "词嵌入" not in text


def test_switcher_goes_to_the_same_page(site, english_page):
    same = {"en": site.url(english_page), "zh": site.url(ZH + english_page)}
    homes = {"en": site.url(""), "zh": site.url(ZH)}
    for path in (english_page, ZH + english_page):
        text, url = site.html(path), site.url(path)
        links = re.findall(r'<a href="([^"]*)" hreflang="(\w+)" class="md-select__link"', text)
        assert {lang: urljoin(url, href) for href, lang in links} == same, path
        # Material fetches sitemap.xml beside the head's alternates: they stay at the homes.
        heads = re.findall(r'<link rel="alternate" href="([^"]*)" hreflang="(\w+)">', text)
        assert {lang: urljoin(url, href) for href, lang in heads} == homes, path


@pytest.fixture(scope="module")
def index(site) -> dict:
    """{edition: its search index}: each edition searches its own pages."""
    path = "search/search_index.json"
    return {e: json.loads((site.dir / e / path).read_text(encoding="utf-8")) for e in ("", ZH)}


def test_each_edition_searches_its_own_pages(site, index):
    english, chinese = index[""], index[ZH]
    assert {d["location"].split("#")[0] for d in english["docs"]} == set(site.english)
    assert english["config"]["lang"] == ["en"]  # no Chinese word cutter to load
    # Relative to /zh/, where a Chinese page's search looks (overrides/main.html).
    locations = {ZH + d["location"].split("#")[0] for d in chinese["docs"]}
    assert locations == {ZH + p for p in site.english} | set(site.zh_only)
    assert chinese["config"]["lang"] == ["en", "zh"]


def test_chinese_is_segmented_into_words(index):
    """Material's search plugin cuts Chinese text into words with jieba (zero-width spaces
    between them), and the separator splits there: 位置 is a word, and the name of a concept
    page is one word (docs_build/jieba-words.txt), as the search box needs."""
    separator = re.compile(index[ZH]["config"]["separator"])
    assert separator.fullmatch("\u200b")
    page = next(d for d in index[ZH]["docs"] if d["location"] == "positional-encoding/")
    words = set(separator.split(plain(page["title"] + " " + page["text"])))
    assert {"位置", "位置编码"} <= words


def test_the_stale_banner_shows_where_the_english_page_changed(site):
    stale = set(i18n.stale())
    for page, source in site.source.items():
        if page.startswith(ZH) and source.suffix == ".md":
            banner = f'<p class="admonition-title">{i18n.STALE_TITLE}</p>' in site.html(page)
            assert banner == (source in stale), page


def test_stamp_checks_every_chinese_page():
    check = [sys.executable, "-m", "docs_build.i18n", "--check"]
    done = subprocess.run(check, capture_output=True, text=True, timeout=60)
    assert done.returncode == (1 if i18n.stale() else 0), done.stdout + done.stderr
