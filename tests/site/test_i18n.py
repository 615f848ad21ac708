"""The Chinese edition (docs/zh/, served at /zh/) in the run's build: every page in both
languages with the same code, outputs, formulas and figures, the switcher to the same page, one
search index per language, and the staleness banner where the English page changed."""

from __future__ import annotations

import json
import re
from urllib.parse import urljoin

from docs_build import i18n

ZH = "zh/"
FORMULA = re.compile(r'<mjx-container[^>]*display="true".*?</mjx-container>', re.S)
# Python code and its output (not shell commands: their comments are translated); a notebook's
# cells, input and output.
CODE = re.compile(r'<div class="language-(?:python|text) highlight"><pre\b.*?</pre>', re.S)
CELL = re.compile(r"<pre\b.*?</pre>", re.S)


def shown(site, page: str) -> dict[str, list[str]]:
    """What a page pair must share: display formulas (MathJax's MathML, typeset at build), code
    and outputs, and the images (the figures by file name)."""
    body = site.article(site.html(page))
    code = [site.text(m) for m in CODE.findall(body)]
    if "jp-CodeCell" in body:  # one text without spaces: each edition's run of the notebook
        # may split a cell's printed output into blocks elsewhere, even inside a word
        code = ["".join(site.text("".join(CELL.findall(body))).split())]
    return {
        "formulas": [site.text(m) for m in FORMULA.findall(body)],
        "code": code,
        "images": [src.rsplit("/", 1)[-1] for src in re.findall(r'<img [^>]*?src="([^"#]+)', body)],
    }


def test_chinese_page_is_the_english_page_in_chinese(site, english_page):
    """The Chinese page is titled and written in Chinese (a notebook is translated as a notebook
    or Chinese already; the API's docstrings stay English), with the same code, outputs,
    formulas and figures. A figure with words is drawn in Chinese too, as figures/NAME-zh.svg
    (docs_build/figures.py): the Chinese page shows it where the English page shows NAME.svg,
    the English page never."""
    en, zh = shown(site, english_page), shown(site, ZH + english_page)
    for what in ("formulas", "code"):
        assert zh[what] == en[what], f"{what} of /{ZH}{english_page} differ from /{english_page}"
    drawn = {p.name for p in (site.dir / "figures").glob("*.svg")}
    english = en["images"]
    assert not [n for n in english if "-zh" in n]
    chinese = [re.sub(r"(-dark)?\.svg$", r"-zh\g<0>", n) for n in english]
    assert zh["images"] == [c if c in drawn else n for c, n in zip(chinese, english, strict=True)]
    text = site.html(ZH + english_page)
    assert "Transformer 编码器" in text.split("</title>")[0]
    if not english_page.startswith("notebooks/") or english_page == "notebooks/":
        body = site.article(text).split('<div class="doc doc-object')[0]  # API: English
        prose = site.text(re.sub(r"<(pre|code|style|script)\b.*?</\1>", " ", body, flags=re.S))
        han = len(re.findall(r"[\u4e00-\u9fff]", prose))
        words = len(re.findall(r"[A-Za-z]{3,}", prose))
        assert han >= 5 and han >= words / 2, f"{han} Chinese characters, {words} English words"


def test_the_comparison_has_something_to_compare(site):
    page = shown(site, "positional-encoding/")
    assert len(page["formulas"]) >= 3 and len(page["code"]) >= 6 and len(page["images"]) >= 6
    notebook = shown(site, "notebooks/positional-encoding-walkthrough/")
    assert notebook["code"] and notebook["formulas"]


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


def test_each_edition_searches_its_own_pages_word_by_word(site):
    """Each edition's index holds its own pages, a Chinese page's relative to /zh/, where its
    search looks (overrides/main.html); English loads no Chinese word cutter. Material's search
    plugin cuts Chinese text into words with jieba (zero-width spaces between them), and the
    separator splits there: 位置 is a word, and the name of a concept page is one word
    (docs_build/jieba-words.txt), as the search box needs. A formula's text form stands in the
    index where the formula stands in the page: a snippet reads "它自己的 d_model 个特征上", not
    "它自己的 个特征上" (the page has no trace of it: test_build.py)."""
    path = "search/search_index.json"
    english, chinese = (json.loads((site.dir / e / path).read_text("utf-8")) for e in ("", ZH))
    assert {d["location"].split("#")[0] for d in english["docs"]} == set(site.english)
    assert english["config"]["lang"] == ["en"]
    locations = {ZH + d["location"].split("#")[0] for d in chinese["docs"]}
    assert locations == {ZH + p for p in site.english} | set(site.zh_only)
    assert chinese["config"]["lang"] == ["en", "zh"]
    separator = re.compile(chinese["config"]["separator"])
    assert separator.fullmatch("\u200b")
    page = next(d for d in chinese["docs"] if d["location"] == "positional-encoding/")
    words = set(separator.split(site.text(page["title"] + " " + page["text"])))
    assert {"位置", "位置编码"} <= words
    for index in (english, chinese):
        norm = next(d for d in index["docs"] if d["location"] == "layer-norm/")
        assert "d_model" in norm["text"], norm["text"][:300]


def test_the_stale_banner_shows_where_the_english_page_changed(site):
    stale = set(i18n.stale())
    for page, source in site.source.items():
        if page.startswith(ZH) and source.suffix == ".md":
            banner = f'<p class="admonition-title">{i18n.STALE_TITLE}</p>' in site.html(page)
            assert banner == (source in stale), page
