"""Search in each language, in the browser: the ranking that lunr gives a query. (Which pages
each index holds, and Chinese segmentation, are checked on the build: tests/site/test_i18n.py;
the switcher too.)
"""

from __future__ import annotations

import re

import pytest

RESULTS = "() => [...document.querySelectorAll('.md-search-result__list a')].map(a => a.href)"


def _clean(live) -> None:
    assert not live.recorder.errors, f"console errors: {live.recorder.errors}"
    assert not live.recorder.failed, f"failed requests: {live.recorder.failed}"


def _index_requests(live) -> list[str]:
    return [u for _, u in live.recorder.requests if u.endswith("search_index.json")]


@pytest.mark.parametrize(
    ("home", "query", "target", "index"),
    [
        ("zh/", "位置编码", "zh/positional-encoding/", "zh/search/search_index.json"),
        ("", "positional encoding", "positional-encoding/", "search/search_index.json"),
    ],
    ids=["zh", "en"],
)
def test_search_in_each_language(site, live_page, home, query, target, index):
    """Each language searches its own pages with its own index, fetched when search opens, and
    the page a query names comes first."""
    page = live_page.page
    page.goto(site.url(home), wait_until="load")
    live_page.settle()
    assert _index_requests(live_page) == [], "the search index was fetched before search opened"
    box = page.locator("input.md-search__input")
    box.click()
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
    other = "/zh/" if home == "" else None
    wrong = [u for u in found if (other and other in u) or (other is None and "/zh/" not in u)]
    assert wrong == [], f"searching {query!r} found pages of the other language: {wrong}"
    assert _index_requests(live_page) == [site.url(index)]
    # The result snippets are the pages' words: no TeX, no copy button's label.
    snippets = page.evaluate(
        "() => [...document.querySelectorAll('.md-search-result__article')].map(a => a.innerText)"
    )
    leaked = [s[:80] for s in snippets if re.search(r"Copied!|已复制|\\[()\[\]]|\$\$", s)]
    assert leaked == [], f"searching {query!r}: snippets with TeX or button labels: {leaked}"
    _clean(live_page)
