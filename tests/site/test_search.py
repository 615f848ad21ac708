"""Search in the run's build: one index per language (``docs_build/i18n.py`` splits Material's),
holding the pages' words only (no TeX, no button labels), each section once, and Chinese
segmented so that 位置编码 finds the Chinese positional-encoding page. That it comes first, and
that each language's pages search their own index, is checked in the browser:
tests/site/browser/test_i18n_in_browser.py."""

from __future__ import annotations

import collections
import html
import json
import re

import pytest

ZH = "zh/"
INDEXES = {"en": "search/search_index.json", "zh": ZH + "search/search_index.json"}
# TeX that would show in a result: a command, a math delimiter, $$, a braced sub/superscript.
RAW_TEX = re.compile(r"\\[A-Za-z]{2,}|\\[()\[\]]|\$\$|[_^]\{")


@pytest.fixture(scope="module")
def indexes(site) -> dict[str, dict]:
    return {
        lang: json.loads((site.dir / path).read_text(encoding="utf-8"))
        for lang, path in INDEXES.items()
    }


def plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def test_each_language_has_its_own_index(indexes, site):
    english, chinese = indexes["en"]["docs"], indexes["zh"]["docs"]
    assert [d["location"] for d in english if d["location"].startswith(ZH)] == []
    assert [d["location"] for d in chinese if not d["location"].startswith(ZH)] == []
    pages = {d["location"] for d in english + chinese if "#" not in d["location"]}
    assert pages >= set(site.english) - {"notebooks/embedding-zh/"}, "pages missing from search"
    # The English index needs no Chinese support in the browser (no lunr.zh to load).
    assert indexes["en"]["config"]["lang"] == ["en"]
    assert "zh" in indexes["zh"]["config"]["lang"]


CODE = re.compile(r"<pre\b.*?</pre>|<code\b.*?</code>", re.DOTALL)  # code may print "\n"
COPY_LABELS = ("Copied!", "Copy to clipboard", "已复制", "复制到剪贴板")  # Material's, en and zh


@pytest.mark.parametrize("lang", INDEXES)
def test_index_holds_words_not_tex_nor_buttons(indexes, lang):
    problems = []
    for doc in indexes[lang]["docs"]:
        text = plain(doc["title"] + " " + doc["text"])
        prose = plain(CODE.sub(" ", doc["title"] + " " + doc["text"]))
        problems += [f"{doc['location']}: TeX {m[0]!r}" for m in RAW_TEX.finditer(prose)]
        problems += [f"{doc['location']}: {label!r}" for label in COPY_LABELS if label in text]
    assert problems == []


@pytest.mark.parametrize("lang", INDEXES)
def test_no_duplicate_hits(indexes, lang):
    docs = indexes[lang]["docs"]
    locations = collections.Counter(d["location"] for d in docs)
    assert [loc for loc, n in locations.items() if n > 1] == []

    # A page's title is not indexed a second time, as a section of the same page.
    def title(doc: dict) -> str:
        return re.sub(r"[\s\u200b¶]+", "", plain(doc["title"]))

    pages = {d["location"]: title(d) for d in docs if "#" not in d["location"]}
    again = [
        d["location"]
        for d in docs
        if "#" in d["location"] and pages.get(d["location"].split("#")[0]) == title(d)
    ]
    assert again == []


# --- Chinese ------------------------------------------------------------------------------------
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


def test_chinese_is_segmented_and_positional_encoding_found(indexes):
    index = indexes["zh"]
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
