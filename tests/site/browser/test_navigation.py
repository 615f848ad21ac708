"""Live pages in headless Chromium, driven as a reader drives them: search, instant navigation
from page to page, and the light/dark toggle.

They read the run's build (``site``) but not the page visits (``conftest.py``), so they run
while the visits go on in their own threads.
"""

from __future__ import annotations

import re
import urllib.parse

import pytest
from browsing import MIN_CONTRAST, lines

HREF = re.compile(r'<a\b[^>]*\bhref="([^"#]+)[^"]*"')


# --- live pages -----------------------------------------------------------------------------------
def _no_errors(live) -> None:
    assert not live.recorder.errors, f"console errors:{lines(live.recorder.errors)}"
    assert not live.recorder.failed, f"failed requests:{lines(live.recorder.failed)}"


def test_search_finds_positional_encoding(site, live_page):
    page = live_page.page
    page.goto(site.base)
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially("positional", delay=30)
    page.locator(".md-search-result__list a").first.wait_for()
    found = "() => [...document.querySelectorAll('.md-search-result__list a')].map(a => a.href)"
    path = "/positional-encoding/"  # results carry ?h=positional (search.highlight) and anchors
    try:
        page.wait_for_function(
            f"() => ({found})().some(h => new URL(h).pathname === {path!r})", timeout=10_000
        )
    except Exception:
        hrefs = page.evaluate(found)
        pytest.fail(f"no search result for 'positional' links to {path}:{lines(hrefs)}")
    _no_errors(live_page)


def _shared_segments(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        n += 1
    return n


def _formulas(site, path: str) -> int:
    return site.html(path).count("<mjx-container")  # typeset at build: as a full load has them


def _links(site, path: str) -> set[str]:
    return {urllib.parse.urljoin(site.url(path), h) for h in HREF.findall(site.html(path))}


def _pages_with_math(site) -> list[str]:
    return [p for p in site.pages if p and _formulas(site, p) > 0]


def test_instant_navigation_typesets(site, live_page, find_raw_tex):
    """From the home page, follow links to every other page with formulas: Material swaps each
    page in without reloading, and its formulas must be typeset all the same (as many as on a
    full load, none left as TeX). A page the current one does not link to is reached by a full
    load of a page that does (e.g. another language's pages), then a click."""
    targets = _pages_with_math(site)
    # With no other page with formulas yet, go away and come back to the home page (it has some).
    route = targets or [next(p for p in site.pages if p), ""]
    page = live_page.page
    # A link to the target in the navigation, else in the text. (Not the language switcher's:
    # switching language is a full load, by design.)
    find = """url => {
      for (const sel of [".md-nav--primary a", ".md-content a"]) {
        const i = [...document.querySelectorAll(sel)].findIndex((a) => a.href === url);
        if (i >= 0) return [sel, i];
      }
      return null;
    }"""

    def load(path: str) -> None:
        live_page.settle()
        page.goto(site.url(path))
        live_page.wait_for_typeset()

    load("")
    for path in route:
        url, name = site.url(path), path or "home"
        if page.evaluate(find, url) is None:
            # Load a page that links to it, nearest in the tree first (same language).
            sources = [p for p in site.pages if p != path and url in _links(site, p)]
            sources.sort(key=lambda p: -_shared_segments(p, path))
            for source in sources:
                load(source)
                if page.evaluate(find, url) is not None:
                    break
            else:
                pytest.fail(f"no page links to {name} from its navigation or text")
        selector, index = page.evaluate(find, url)
        link = page.locator(selector).nth(index)
        live_page.settle()
        seen = len(live_page.recorder.requests)
        page.evaluate("window.__notReloaded = true")
        page.evaluate("window.__oldContent = document.querySelector('.md-content')")
        if link.is_visible():
            link.click()
        else:  # in a collapsed section or a menu: Material handles the click event the same
            link.dispatch_event("click")
        page.wait_for_url(url)
        expected = _formulas(site, path)
        page.wait_for_function(  # the new page is in, and typeset
            "n => document.querySelector('.md-content') !== window.__oldContent && "
            "document.querySelectorAll('mjx-container').length >= n && [...document"
            ".querySelectorAll('.arithmatex')].every(e => e.querySelector('mjx-container'))",
            arg=expected,
        )
        assert page.evaluate("window.__notReloaded === true"), f"{name}: reloaded, not swapped in"
        documents = [u for kind, u in live_page.recorder.requests[seen:] if kind == "document"]
        assert not documents, f"{name}: loaded as a document:{lines(documents)}"
        math = live_page.inspect()["math"]
        assert math["containers"] == expected, (
            f"{name}: {math['containers']} formulas after instant navigation, "
            f"{expected} on a full load"
        )
        assert not math["untypeset"], f"{name}: formulas left as TeX:{lines(math['untypeset'])}"
        assert not math["blank"], f"{name}: formulas typeset blank:{lines(math['blank'])}"
        raw = find_raw_tex(math["text"])
        assert not raw, f"{name}: raw TeX after instant navigation:{lines(raw)}"
    _no_errors(live_page)


def _figure_page(site) -> str:
    with_figures = [p for p in site.pages if "#only-dark" in site.html(p)]
    if "positional-encoding/" in with_figures:
        return "positional-encoding/"
    return with_figures[0] if with_figures else ""


def test_palette_toggle_switches_scheme_and_figures(site, live_page, find_raw_tex):
    path = _figure_page(site)
    page = live_page.page
    page.goto(site.url(path))
    live_page.wait_for_typeset()
    scheme = "() => document.body.getAttribute('data-md-color-scheme')"
    toggle = page.locator('form[data-md-component="palette"] label').filter(visible=True)

    for want, variant in (("slate", "-dark.svg#only-dark"), ("default", ".svg#only-light")):
        before = page.evaluate(scheme)
        assert before != want
        toggle.first.click()
        page.wait_for_function(f"() => ({scheme})() === {want!r}")
        live_page.load_lazy()
        data = live_page.inspect()
        shown = [i for i in data["images"] if i["visible"] and "#only-" in (i["src"] or "")]
        wrong = [i["src"] for i in shown if not i["src"].endswith(variant)]
        assert not wrong, f"{want}: shows the other scheme's figure:{lines(wrong)}"
        unloaded = [i["src"] for i in shown if i["naturalWidth"] == 0]
        assert not unloaded, f"{want}: figures not loaded:{lines(unloaded)}"
        math = data["math"]
        assert not math["untypeset"] and not math["blank"], f"{want}: formulas lost"
        assert not find_raw_tex(math["text"])
        if math["min_contrast"] is not None:
            assert math["min_contrast"] >= MIN_CONTRAST, f"{want}: formulas hard to read"
    _no_errors(live_page)
