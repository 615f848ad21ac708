"""Search in each language, in the browser: what lunr finds for a query and ranks first. (Which
pages each index holds, Chinese segmentation and the switcher are checked on the build:
tests/site/test_i18n.py.)
"""

from __future__ import annotations

import re

import pytest

RESULTS = "() => [...document.querySelectorAll('.md-search-result__list a')].map(a => a.href)"


@pytest.mark.parametrize(
    ("home", "query", "target", "index"),
    [
        ("zh/", "位置编码", "zh/positional-encoding/", "zh/search/search_index.json"),
        ("", "positional encoding", "positional-encoding/", "search/search_index.json"),
    ],
    ids=["zh", "en"],
)
def test_search_in_each_language(site, page, problems, home, query, target, index):
    """Each language searches its own pages with its own index, fetched once the reader reaches
    for search, and the page a query names comes first."""
    indexes: list[str] = []
    page.on("request", lambda r: r.url.endswith("search_index.json") and indexes.append(r.url))
    page.goto(site.url(home), wait_until="networkidle")
    assert indexes == []  # the index comes when the reader reaches for search
    page.keyboard.press("/")  # Material's key for search: it focuses the box
    box = page.locator("input.md-search__input:focus")
    box.press_sequentially(query, delay=30)
    # Playwright types characters outside the US layout with insertText: no keyup event.
    # Material reads the query on keyup (or when its index becomes ready), so without a key
    # press the query is never read if the index was ready before typing. An IME user ends
    # a composition with a key press; so does this test.
    box.press("End")
    pages = f"[...new Set(({RESULTS})().map(h => h.split(/[?#]/)[0]))]"
    try:
        page.wait_for_function(f"() => {pages}.length > 0", timeout=15_000)
    except Exception:
        pytest.fail(f"searching {query!r} found nothing")
    found = page.evaluate(f"() => {pages}")
    assert found[0] == site.url(target), f"searching {query!r}: first results {found[:5]}"
    other = [u for u in found if (home == "zh/") != u.startswith(site.url("zh/"))]
    assert other == [], f"searching {query!r} found pages of the other language: {other}"
    assert indexes == [site.url(index)]
    # The result snippets are the pages' words: no TeX, no copy button's label.
    snippets = page.evaluate(
        "() => [...document.querySelectorAll('.md-search-result__article')].map(a => a.innerText)"
    )
    leaked = [s[:80] for s in snippets if re.search(r"Copied!|已复制|\\[()\[\]]|\$\$", s)]
    assert leaked == [], f"searching {query!r}: snippets with TeX or button labels: {leaked}"
    assert problems == []
