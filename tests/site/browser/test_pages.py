"""Every page of the built site in headless Chromium, in the light and the dark scheme.

The pages and their visits come from ``conftest.py`` (the run's build, served on 127.0.0.1,
each page visited once per scheme); these tests read the visit records. The tests that drive a
live page (search, instant navigation, the palette toggle) are in ``test_navigation.py``.
"""

from __future__ import annotations

import re
import urllib.parse
import xml.etree.ElementTree as ET

from browsing import MIN_CONTRAST, SCHEMES, anchors, fetch, lines


# --- every page, both schemes ---------------------------------------------------------------------
def test_requests_stay_on_127_0_0_1(visit):
    assert visit.recorder.requests, f"{visit.name}: no request recorded"
    urls = [u for _, u in visit.recorder.requests if not u.startswith(("data:", "blob:"))]
    away = [u for u in urls if urllib.parse.urlsplit(u).hostname != "127.0.0.1"]
    assert not away, f"{visit.name} asked another host for:{lines(away)}"


def test_no_failed_requests(visit):
    failed = visit.recorder.failed
    assert not failed, f"{visit.name}: failed requests:{lines(failed)}"


def test_no_console_errors(visit):
    errors = visit.recorder.errors
    assert not errors, f"{visit.name}: console errors:{lines(errors)}"


def test_formulas_typeset(visit, find_raw_tex):
    math = visit.math
    assert visit.typeset_error is None, f"{visit.name}: MathJax failed: {visit.typeset_error}"
    assert visit.typeset_ms is not None, f"{visit.name}: MathJax never finished its first typeset"
    assert not math["untypeset"], f"{visit.name}: formulas left as TeX:{lines(math['untypeset'])}"
    assert not math["blank"], f"{visit.name}: formulas typeset blank:{lines(math['blank'])}"
    assert not math["errors"], f"{visit.name}: TeX errors:{lines(math['errors'])}"
    raw = find_raw_tex(math["text"])
    assert not raw, f"{visit.name}: raw TeX in the visible text:{lines(raw)}"
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
    assert not layout["overflowing"], f"{visit.name}: overflowing:{lines(layout['overflowing'])}"
    assert not layout["split_names"], f"{visit.name}: names split:{lines(layout['split_names'])}"


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
    assert not problems, f"{visit.name}:{lines(problems)}"


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
        f"{v['id']} ({v['impact']}): {v['help']}" + lines(f"{t} {h}" for t, h in v["nodes"][:5])
        for v in serious
    ]
    assert not serious, f"{visit.name}: axe-core:{lines(report)}"


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
    assert not broken, f"{visit.name}: broken links:{lines(broken)}"
