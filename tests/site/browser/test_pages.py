"""Every page of the built site in headless Chromium, in the light and the dark scheme.

The pages and their visits come from ``conftest.py`` (the run's build, served on 127.0.0.1,
each page visited once per scheme); these tests read the visit records. Then three tests drive a
live page: search, instant navigation, and the palette toggle.
"""

from __future__ import annotations

import re
import urllib.parse
import xml.etree.ElementTree as ET

import pytest
from browsing import SCHEMES, anchors, fetch

MIN_CONTRAST = 4.5  # WCAG AA for body text; formulas are text


def _lines(items) -> str:
    return "\n  " + "\n  ".join(map(str, items))


# --- every page, both schemes ---------------------------------------------------------------------
def test_requests_stay_on_127_0_0_1(visit):
    assert visit.recorder.requests, f"{visit.name}: no request recorded"
    urls = [u for _, u in visit.recorder.requests if not u.startswith(("data:", "blob:"))]
    away = [u for u in urls if urllib.parse.urlsplit(u).hostname != "127.0.0.1"]
    assert not away, f"{visit.name} asked another host for:{_lines(away)}"


def test_no_failed_requests(visit):
    failed = visit.recorder.failed
    assert not failed, f"{visit.name}: failed requests:{_lines(failed)}"


def test_no_console_errors(visit):
    errors = visit.recorder.errors
    assert not errors, f"{visit.name}: console errors:{_lines(errors)}"


def test_formulas_typeset(visit, find_raw_tex):
    math = visit.math
    assert visit.typeset_error is None, f"{visit.name}: MathJax failed: {visit.typeset_error}"
    assert visit.typeset_ms is not None, f"{visit.name}: MathJax never finished its first typeset"
    assert not math["untypeset"], f"{visit.name}: formulas left as TeX:{_lines(math['untypeset'])}"
    assert not math["blank"], f"{visit.name}: formulas typeset blank:{_lines(math['blank'])}"
    assert not math["errors"], f"{visit.name}: TeX errors:{_lines(math['errors'])}"
    raw = find_raw_tex(math["text"])
    assert not raw, f"{visit.name}: raw TeX in the visible text:{_lines(raw)}"
    assert math["containers"] >= math["arithmatex"]
    if math["min_contrast"] is not None:
        assert math["min_contrast"] >= MIN_CONTRAST, (
            f"{visit.name}: a formula's contrast with its background is "
            f"{math['min_contrast']:.2f} < {MIN_CONTRAST}"
        )


def test_code_stays_in_its_box(visit):
    """No code or output block scrolls sideways at 1280 px (its end would be hidden), and no
    class name in a table breaks over two lines."""
    layout = visit.layout
    assert not layout["overflowing"], f"{visit.name}: overflowing:{_lines(layout['overflowing'])}"
    assert not layout["split_names"], f"{visit.name}: names split:{_lines(layout['split_names'])}"


def test_images_load(visit):
    problems = []
    for img in visit.images:
        if img["visible"] and not (img["complete"] and img["naturalWidth"] > 0):
            problems.append(f"{img['src']}: shown but not loaded")
        # The other scheme's variant is display:none and lazy, so never loaded here: fetch it.
        got = fetch(urllib.parse.urldefrag(img["url"]).url)
        if got.status != 200 or not got.content_type.startswith("image/"):
            problems.append(f"{img['src']}: HTTP {got.status} {got.content_type}")
        elif got.content_type == "image/svg+xml":
            try:
                root = ET.fromstring(got.body)
            except ET.ParseError as err:
                problems.append(f"{img['src']}: not well-formed SVG ({err})")
            else:
                if not root.tag.endswith("svg"):
                    problems.append(f"{img['src']}: root element is {root.tag}")
    assert not problems, f"{visit.name}:{_lines(problems)}"


def test_figures_follow_the_scheme(visit):
    assert visit.color_scheme == SCHEMES[visit.scheme], (
        f"{visit.name}: data-md-color-scheme is {visit.color_scheme!r}"
    )
    variants = [i["src"] for i in visit.images if re.search(r"#only-(light|dark)$", i["src"] or "")]
    light = sorted(s.removesuffix(".svg#only-light") for s in variants if s.endswith("#only-light"))
    dark = sorted(
        s.removesuffix("-dark.svg#only-dark") for s in variants if s.endswith("#only-dark")
    )
    assert light == dark, f"{visit.name}: figures without their other-scheme variant"
    want = "-dark.svg#only-dark" if visit.scheme == "dark" else ".svg#only-light"
    for figure in visit.figures:
        if figure["visible"]:
            shown = figure["shown"]
            assert len(shown) == 1 and shown[0].endswith(want), (
                f"{visit.name}: a figure shows {shown}, not its {visit.scheme} variant alone"
            )
        else:
            assert not figure["shown"]


def test_accessibility(visit):
    serious = visit.serious_axe()
    report = [
        f"{v['id']} ({v['impact']}): {v['help']}" + _lines(f"{t} {h}" for t, h in v["nodes"][:5])
        for v in serious
    ]
    assert not serious, f"{visit.name}: axe-core:{_lines(report)}"


# --- every page -----------------------------------------------------------------------------------
def test_internal_links_and_anchors_resolve(site, visits, page_path):
    visit = visits[page_path, "light"]
    broken = []
    for href in sorted(set(visit.links)):
        if not href.startswith(site.base):
            continue  # another host: not fetched (the site must work offline, links may not)
        target, fragment = urllib.parse.urldefrag(href)
        got = fetch(target)
        if got.status != 200:
            broken.append(f"{href}: HTTP {got.status}")
        elif fragment and got.content_type == "text/html":
            if urllib.parse.unquote(fragment) not in anchors(target):
                broken.append(f"{href}: no element with id {urllib.parse.unquote(fragment)!r}")
    assert not broken, f"{visit.name}: broken links:{_lines(broken)}"


# --- live pages -----------------------------------------------------------------------------------
def _no_errors(live) -> None:
    assert not live.recorder.errors, f"console errors:{_lines(live.recorder.errors)}"
    assert not live.recorder.failed, f"failed requests:{_lines(live.recorder.failed)}"


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
        pytest.fail(f"no search result for 'positional' links to {path}:{_lines(hrefs)}")
    _no_errors(live_page)


def _shared_segments(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        n += 1
    return n


def _pages_with_math(site, visits) -> list[str]:
    return [p for p in site.pages if p and visits[p, "light"].math["containers"] > 0]


def test_instant_navigation_typesets(site, visits, live_page, find_raw_tex):
    """From the home page, follow links to every other page with formulas: Material swaps each
    page in without reloading, and its formulas must be typeset all the same (as many as on a
    full load, none left as TeX). A page the current one does not link to is reached by a full
    load of a page that does (e.g. another language's pages), then a click."""
    targets = _pages_with_math(site, visits)
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
            sources = [p for p in site.pages if p != path and url in visits[p, "light"].links]
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
        expected = visits[path, "light"].math["containers"]
        page.wait_for_function(  # the new page is in, and typeset
            "n => document.querySelector('.md-content') !== window.__oldContent && "
            "document.querySelectorAll('mjx-container').length >= n && [...document"
            ".querySelectorAll('.arithmatex')].every(e => e.querySelector('mjx-container'))",
            arg=expected,
        )
        assert page.evaluate("window.__notReloaded === true"), f"{name}: reloaded, not swapped in"
        documents = [u for kind, u in live_page.recorder.requests[seen:] if kind == "document"]
        assert not documents, f"{name}: loaded as a document:{_lines(documents)}"
        math = live_page.inspect()["math"]
        assert math["containers"] == expected, (
            f"{name}: {math['containers']} formulas after instant navigation, "
            f"{expected} on a full load"
        )
        assert not math["untypeset"], f"{name}: formulas left as TeX:{_lines(math['untypeset'])}"
        assert not math["blank"], f"{name}: formulas typeset blank:{_lines(math['blank'])}"
        raw = find_raw_tex(math["text"])
        assert not raw, f"{name}: raw TeX after instant navigation:{_lines(raw)}"
    _no_errors(live_page)


def _figure_page(site, visits) -> str:
    with_figures = [
        p
        for p in site.pages
        if any("#only-dark" in (i["src"] or "") for i in visits[p, "light"].images)
    ]
    if "positional-encoding/" in with_figures:
        return "positional-encoding/"
    return with_figures[0] if with_figures else ""


def test_palette_toggle_switches_scheme_and_figures(site, visits, live_page, find_raw_tex):
    path = _figure_page(site, visits)
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
        assert not wrong, f"{want}: shows the other scheme's figure:{_lines(wrong)}"
        unloaded = [i["src"] for i in shown if i["naturalWidth"] == 0]
        assert not unloaded, f"{want}: figures not loaded:{_lines(unloaded)}"
        math = data["math"]
        assert not math["untypeset"] and not math["blank"], f"{want}: formulas lost"
        assert not find_raw_tex(math["text"])
        if math["min_contrast"] is not None:
            assert math["min_contrast"] >= MIN_CONTRAST, f"{want}: formulas hard to read"
    _no_errors(live_page)
