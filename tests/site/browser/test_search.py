"""Search in each language, in the browser: Material's search box and worker on the index of the
reader's edition. The name of a concept page, typed as a reader would, lists that page first,
highlighted whole, and only pages of the reader's language. (How Chinese is cut into words is
checked on the build: tests/site/test_i18n.py.)
"""

from __future__ import annotations

import re

import pytest

# (query, the page it names) on each language's home page.
QUERIES = {
    "zh/": [
        ("层归一化", "zh/layer-norm/"),
        ("位置编码", "zh/positional-encoding/"),
        ("多头注意力", "zh/attention/"),
        ("前馈", "zh/feed-forward/"),
        ("词嵌入", "zh/token-embedding/"),
        ("layer norm", "zh/layer-norm/"),  # a concept page's English name is its tag
        ("attention", "zh/attention/"),
    ],
    "": [
        ("layer norm", "layer-norm/"),
        ("positional encoding", "positional-encoding/"),
        ("attention", "attention/"),
        ("token embedding", "token-embedding/"),
        ("transformer embedding", "transformer-embedding/"),
        ("feed forward", "feed-forward/"),
        ("encoder layer", "encoder-layer/"),  # not the home page, whose words hold both
    ],
}
MAX_RESULT = 260  # px of one result at 1280 x 900: a title and two blocks of three lines
# Each result's page (without its section), in order; the first page's marked words and
# "Missing:" words (of the page itself: a section of it may lack a word); every snippet's text.
RESULTS = """() => {
  const links = [...document.querySelectorAll('.md-search-result__list a')];
  const first = document.querySelector('.md-search-result__item > a');  // not its sections
  return {
    pages: [...new Set(links.map(a => a.href.split(/[?#]/)[0]))],
    marked: first ? [...first.querySelectorAll('mark')].map(m => m.textContent) : [],
    missing: first ? [...first.querySelectorAll('del')].map(m => m.textContent) : [],
    snippets: [...document.querySelectorAll('.md-search-result__article')].map(a => a.innerText),
    tallest: Math.max(...[...document.querySelectorAll('.md-search-result__article')]
      .map(a => a.getBoundingClientRect().height)),
  };
}"""


@pytest.mark.parametrize("home", ["zh/", ""], ids=["zh", "en"])
def test_search_finds_the_page_a_query_names(site, page, problems, home):
    """Each concept's name lists its page first, and only pages of the reader's language."""
    page.goto(site.url(home), wait_until="networkidle")
    page.keyboard.press("/")  # Material's key for search: it focuses the box
    box = page.locator("input.md-search__input:focus")
    for query, target in QUERIES[home]:
        box.fill("")
        box.press("Backspace")  # Material reads the box on keyup: now empty, no results
        page.wait_for_function("() => !document.querySelector('.md-search-result__item')")
        box.press_sequentially(query, delay=30)
        # Playwright types characters outside the US layout with insertText: no keyup event.
        # Material reads the query on keyup (or when its index becomes ready), so without a
        # key press the query is never read if the index was ready before typing. An IME user
        # ends a composition with a key press; so does this test.
        box.press("End")
        try:
            page.wait_for_function(f"() => ({RESULTS})().pages.length > 0", timeout=15_000)
        except Exception:
            pytest.fail(f"searching {query!r} found nothing")
        found = page.evaluate(RESULTS)
        assert found["pages"][0] == site.url(target), (query, found["pages"][:3])
        others = [u for u in found["pages"] if (home == "zh/") != u.startswith(site.url("zh/"))]
        assert others == [], f"searching {query!r} on {home or 'en'}: the other edition's {others}"
        # The page's name is highlighted whole (not 层 of 层归一化), and no word is missing.
        marked = " ".join(found["marked"]).lower()
        assert all(word in marked for word in query.lower().split()), (query, found["marked"])
        # Material 9.8.1 lists every word of a Chinese query but the last as missing, with a
        # star (多头注意力: "Missing: 多头*"): its worker joins the words with "* " and adds
        # another star. Any other missing word is a real one.
        missing = [word for word in found["missing"] if not word.endswith("*")]
        assert missing == [], f"searching {query!r}: missing {found['missing']}"
        # The result snippets are the pages' words: no TeX, no copy button's label.
        tex = re.compile(r"Copied!|已复制|\\[()\[\]]|\$\$")
        leaked = [s[:80] for s in found["snippets"] if tex.search(s)]
        assert leaked == [], f"searching {query!r}: snippets with TeX or button labels: {leaked}"
        # A result shows a few lines of its section, not all its code: several fit a screen.
        assert found["tallest"] <= MAX_RESULT, f"searching {query!r}: {found['tallest']} px"
    assert problems == []
