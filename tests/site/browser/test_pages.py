"""Every page of the site, English and Chinese, visited once in Chromium.

On each page: its shown images load, code stays in its box, its links and anchors resolve, it
asks no other host for anything (``problems``), and axe-core finds nothing (every rule). A
concept page's core (top of the article to ``## Deeper``) fits in 8 screens. Where the colour
scheme changes what is drawn (figures, explorers), the palette toggle switches to dark: the
dark figures show, the explorers change colours and axe's contrast rule passes there too.
``SCREENSHOTS=1`` saves each page, in each scheme visited, under test-artifacts/browser/.
"""

from __future__ import annotations

import functools
import os
import urllib.parse
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

SHOTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "browser" / "screenshots"
CONCEPT_PAGES = {
    "token-embedding/", "positional-encoding/", "transformer-embedding/", "layer-norm/",
    "feed-forward/", "attention/", "encoder-layer/", "encoder/",
}  # fmt: skip
MAX_SCREENS = 8  # of 900 px, at 1280 px wide

# Draw every block now (the page draws a block near the viewport: content-visibility, which
# axe's colour check and the core's length need drawn), load the shown images (they are
# lazy), draw every explorer (drawn near the viewport), then read what the tests check.
LOOK = """async () => {
  const drawn = document.createElement("style");
  drawn.textContent = ".md-typeset * { content-visibility: visible !important; }";
  document.head.append(drawn);
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const shown = [...document.images].filter((i) => i.checkVisibility());
  for (const img of shown) img.loading = "eager";
  const loaded = Promise.all(shown.map((img) => img.decode().catch(() => null)));
  await Promise.race([loaded, new Promise((r) => setTimeout(r, 10000))]);
  const explorers = [...document.querySelectorAll("[data-explorer]")];
  for (const el of explorers) {
    el.scrollIntoView();
    const drawn = () => el.querySelector(".explorer__status:not(:empty)");
    for (let i = 0; i < 300 && !drawn(); i++) await frame();
  }
  window.scrollTo(0, 0);
  const visible = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.checkVisibility());
  const article = document.querySelector("article");
  const deeper = article?.querySelector("h2#deeper");
  return {
    scheme: document.body.dataset.mdColorScheme,
    unloaded: shown.filter((i) => !(i.complete && i.naturalWidth > 0)).map((i) => i.src),
    variants: visible("img[src*='#only-']").map((i) => i.getAttribute("src")),
    heat: explorers.map((e) => getComputedStyle(e).getPropertyValue("--explorer-heat")),
    overflowing: visible(".md-typeset pre > code, .jupyter-wrapper pre")
      .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent.slice(0, 80))
      .concat(visible(".md-typeset td code").filter((e) => e.getClientRects().length > 1)
      .map((e) => `split: ${e.textContent}`)),
    core: deeper ? (deeper.getBoundingClientRect().top - article.getBoundingClientRect().top)
      / innerHeight : null,
    links: [...new Set([...document.querySelectorAll("a[href]")].map((a) => a.href))]
      .filter((h) => h.startsWith(location.origin)),
  };
}"""


# axe-core's contrast rule takes most of its time on code, where thousands of tokens share a
# few styles, and every rule walks the formulas' drawings, which axe skips (aria-hidden; their
# MathML beside them is checked). Before axe runs, every token but the first of each kind is
# unwrapped into its parent's text (the text and the colour pairs stay), and the drawings are
# emptied: a third of the elements, half the time.
FOR_AXE = """() => {
  const seen = new Set();
  for (const el of document.querySelectorAll("pre code span:not(:has(*))")) {
    const names = [el.closest(".admonition, details, .tabbed-set")?.className];
    for (let e = el; e.tagName !== "PRE"; e = e.parentElement) names.push(e.className);
    const key = names.join("<");
    if (seen.has(key)) el.replaceWith(el.textContent);
    else seen.add(key);
  }
  const drawings = "mjx-container > svg[aria-hidden=true], svg#MJX-SVG-global-cache";
  for (const svg of document.querySelectorAll(drawings)) {
    if (!svg.querySelector("a, [tabindex]")) svg.replaceChildren();
  }
}"""


@functools.cache
def _text(file: Path) -> str:
    return file.read_text(encoding="utf-8")


def _broken(site, links: list[str]) -> list[str]:
    broken = []
    for href in links:
        url, fragment = urllib.parse.urldefrag(href)
        path = urllib.parse.unquote(urllib.parse.urlsplit(url.removeprefix(site.base)).path)
        file = site.dir / path / "index.html" if path.endswith("/") or not path else site.dir / path
        if not file.is_file():
            broken.append(f"{href}: no such file")
        elif fragment and file.suffix == ".html":
            if f'id="{urllib.parse.unquote(fragment)}"' not in _text(file):
                broken.append(f"{href}: no such anchor")
    return broken


def _axe(page, **options) -> list[str]:
    found = Axe().run(page, options={"resultTypes": ["violations"], **options})
    return [
        f"axe {v['id']} ({v['impact']}): {v['help']}: {[n['target'] for n in v['nodes'][:5]]}"
        for v in found.response["violations"]
    ]


def _shot(page, path: str, scheme: str) -> None:
    if os.environ.get("SCREENSHOTS"):
        name = (path.strip("/") or "home").replace("/", "-")
        page.screenshot(path=SHOTS / f"{name}-{scheme}.png", full_page=True)


def test_page(page, site, page_path, problems):
    page.goto(site.url(page_path))
    light = page.evaluate(LOOK)
    _shot(page, page_path, "light")
    fails = [f"not loaded: {u}" for u in light["unloaded"]]
    fails += [f"scrolls sideways: {t!r}" for t in light["overflowing"]]
    fails += _broken(site, light["links"])
    fails += [f"dark figure in light: {s}" for s in light["variants"] if "#only-dark" in s]
    if page_path.removeprefix("zh/") in CONCEPT_PAGES:
        print(f"{page_path}: core {light['core']} screens")
        if light["core"] is None or light["core"] > MAX_SCREENS:
            fails.append(f"core (article top to `## Deeper`): {light['core']} screens")

    html = site.html(page_path)
    if "#only-dark" in html or "data-explorer" in html:
        toggle = page.locator("form[data-md-component=palette] label:visible")
        toggle.click()
        page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
        dark = page.evaluate(LOOK)
        _shot(page, page_path, "dark")
        fails += [f"not loaded in dark: {u}" for u in dark["unloaded"]]
        fails += [f"light figure in dark: {s}" for s in dark["variants"] if "#only-light" in s]
        if len(dark["variants"]) != len(light["variants"]):
            fails.append(f"figures shown: {len(light['variants'])} light, {dark['variants']}")
        same = set(dark["heat"]) & set(light["heat"])
        fails += [f"explorer colours stay in dark: {h}" for h in same]
        page.evaluate(FOR_AXE)
        fails += _axe(page, runOnly={"type": "rule", "values": ["color-contrast"]})
        toggle.click()
        page.wait_for_function("document.body.dataset.mdColorScheme === 'default'")
    page.evaluate(FOR_AXE)
    fails += _axe(page)
    fails += problems
    assert not fails, "\n".join(fails)


# Each linked box of the home page's diagram, from the drawing's source (docs_build.figures):
# where the link lies over the shown image, in % of it, and where the point at its centre
# belongs to (the link itself, unless something covers it).
BOXES = """() => {
  const img = [...document.querySelectorAll(".figure-map img")].find((i) => i.checkVisibility());
  img.scrollIntoView({ block: "center" });
  const at = img.getBoundingClientRect();
  return [...img.parentElement.querySelectorAll("a.figure-link")].map((a) => {
    const r = a.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return {
      label: a.getAttribute("aria-label"),
      href: a.href,
      where: [r.x - at.x, r.y - at.y, r.width, r.height]
        .map((v, i) => (100 * v) / (i % 2 ? at.height : at.width)),
      hit: hit === a,
    };
  });
}"""


@pytest.mark.parametrize("home", ["", "zh/"], ids=["en", "zh"])
def test_home_diagram_boxes_open_their_pages(page, site, problems, home):
    """The boxes of the home page's diagram are links, over the boxes they name, in the
    page's language; a click on one opens its page, and so does Enter on it."""
    from docs_build import figures

    page.goto(site.url(home))
    boxes = page.evaluate(BOXES)
    drawn = figures.box_links("transformer-zh" if home else "transformer")
    assert [b["label"] for b in boxes] == [label for _, label, _ in drawn]
    for box, (target, _, where) in zip(boxes, drawn, strict=True):
        assert box["hit"], f"{box['label']}: its centre is covered"
        assert box["href"] == site.url(home + target.replace(".md", "/")), box
        assert box["where"] == pytest.approx(where, abs=0.2), box["label"]

    diagram = page.locator(".figure-map")
    diagram.get_by_role("link", name="前馈网络" if home else "Feed-forward", exact=True).click()
    page.wait_for_url(site.url(f"{home}feed-forward/"))
    page.go_back()
    diagram.get_by_role("link", name="词嵌入" if home else "Token embedding", exact=True).focus()
    page.keyboard.press("Enter")
    page.wait_for_url(site.url(f"{home}token-embedding/"))
    # Leaving a page cancels what it was still loading (its search index, the sitemaps).
    assert [p for p in problems if not p.endswith("net::ERR_ABORTED")] == []
