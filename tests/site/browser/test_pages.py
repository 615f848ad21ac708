"""Every page, English and Chinese, in Chromium at 1280 px and on a phone (``phone``: 390 px,
touch, every <details> open). Its shown images load, code stays in its box, links and anchors
resolve, it asks no other host (``problems``) and axe-core finds nothing (every rule). A concept
page's core (article top to ``## Deeper``) fits in 8 screens, with at most 2,000 words of prose
shown unfolded. Where the scheme changes what is drawn, the toggle to dark shows the dark figures,
changes the explorers' colours and passes axe's contrast rule. At both widths no formula is drawn
under 3 px, one wider than the screen scrolls in a box, the page does not, and no figure's text is
drawn under 9 px; on the phone, axe's target-size and scrollable-region-focusable rules pass and
no explorer control is under 24 x 24 px. ``SCREENSHOTS=1`` saves each view under test-artifacts/.
"""

from __future__ import annotations

import collections
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
MAX_WORDS = 2000  # of prose shown unfolded on a concept page (``words``)
MIN_TEXT = 9  # CSS px: the smallest figure text, as drawn
# axe's rules that a phone's width decides: tap targets (WCAG 2.2 AA), sideways boxes by keyboard.
PHONE_RULES = ["target-size", "scrollable-region-focusable"]

# Draw every block (content-visibility draws only near the viewport; axe's colour check and the
# core's length need them drawn), every lazy image and explorer, then read what the tests check.
LOOK = """async ({ phone, measure, minText }) => {
  if (phone) for (const d of document.querySelectorAll("article details")) d.open = true;
  const drawn = document.createElement("style");
  drawn.textContent = ".md-typeset * { content-visibility: visible !important; }";
  document.head.append(drawn);
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  await frame(); // the page's own observers see the blocks drawn
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
  const width = document.documentElement.clientWidth;
  const above = (e, test, p = e.parentElement) => // an element between e and <body> passes test
    !!p && p !== document.body && (test(p) || above(p, test));
  const scrolls = (e) => /auto|scroll/.test(getComputedStyle(e).overflowX)
    && e.scrollWidth > e.clientWidth;
  const formulas = !measure ? [] : visible("mjx-container > svg").map((svg) => ({
    tex: svg.parentElement.textContent.replace(/\\s+/g, " ").trim().slice(0, 50),
    r: svg.getBoundingClientRect(),
    svg,
  }));
  return {
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
    words: measure && article && prose(article),
    formulas: formulas.filter((f) => f.r.width < 3 || f.r.height < 3)
      .map((f) => `${f.tex}: drawn ${f.r.width} x ${f.r.height} px`),
    unscrolled: formulas
      .filter((f) => (f.r.left < -1 || f.r.right > width + 1) && !above(f.svg, scrolls))
      .map((f) => `${f.tex}: ${Math.round(f.r.left)} to ${Math.round(f.r.right)} px of ${width}`),
    figures: measure ? await figureText(visible("article img")) : [],
    sideways: measure && document.documentElement.scrollWidth > width ? sticking(width) : [],
    taps: phone ? smallControls() : [],
  };

  // Explorer controls under 24 x 24 px (WCAG 2.2 AA), without axe's exception for small targets
  // far apart: theirs are close together. A control in a <label> is as big as the label.
  function smallControls() {
    const controls = "input, button, select, a[href], [role=slider], [role=button]";
    return visible(`[data-explorer] :is(${controls})`).map((e) => {
      const r = (e.closest("label") ?? e).getBoundingClientRect();
      return [e, Math.round(r.width), Math.round(r.height)];
    }).filter(([, w, h]) => w < 24 || h < 24).map(([e, w, h]) => {
      const name = e.getAttribute("aria-label") ?? e.labels?.[0]?.textContent ?? e.textContent;
      const where = e.closest("[data-explorer]").dataset.explorer;
      return `${where}: ${e.tagName} ${e.type ?? ""} ${name.trim().slice(0, 30)}: ${w} x ${h} px`;
    });
  }

  // Words of prose shown unfolded (not in a closed <details> nor a hidden tab), outside code,
  // formulas and explorers; Chinese characters counted apart (see ``words``).
  function prose(root) {
    const skip = "pre, code, mjx-container, [data-explorer], script, style, .headerlink";
    const counted = new Map();
    const counts = (el) => {
      if (!counted.has(el)) counted.set(el, el.checkVisibility() && !el.closest(skip));
      return counted.get(el);
    };
    let latin = 0, han = 0;
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n; (n = walk.nextNode()); ) {
      if (!counts(n.parentElement)) continue;
      han += (n.data.match(/\\p{Script=Han}/gu) || []).length;
      latin += (n.data.replace(/\\p{Script=Han}/gu, " ").match(/[\\p{L}\\p{N}]+/gu) || []).length;
    }
    return { latin, han };
  }

  // The smallest text of each shown SVG image, in CSS px as drawn: matplotlib's glyphs are paths
  // in groups `scale(s -s)` (font size 100 s); a diagram's <text> takes its size from its own
  // stylesheet (read in a shadow root). Either is scaled by drawn width over viewBox width.
  async function figureText(images) {
    window.fontSizes ??= new Map();
    const small = [];
    for (const img of images) {
      const url = img.currentSrc || img.src;
      if (!/\\.svg([#?]|$)/.test(url)) continue;
      if (!fontSizes.has(url)) fontSizes.set(url, await smallestText(url));
      const { size, box } = fontSizes.get(url);
      const px = (size * img.getBoundingClientRect().width) / box;
      const name = url.split("/").pop().split("#")[0];
      if (px < minText) small.push([name, Math.round(px * 100) / 100]);
    }
    return small;
  }
  async function smallestText(url) {
    const text = await (await fetch(url)).text();
    const svg = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
    const box = +(svg.getAttribute("viewBox")?.split(/[\\s,]+/)[2]
      ?? parseFloat(svg.getAttribute("width")));
    const sizes = [];
    for (const g of svg.querySelectorAll("g[transform*=scale]")) {
      const s = /scale\\(\\s*([\\d.e+-]+)[\\s,]+-/.exec(g.getAttribute("transform"));
      if (s && g.querySelector("use")) sizes.push(100 * s[1]);
    }
    if (svg.querySelector("text")) {
      const host = document.createElement("div");
      host.style.display = "none";
      document.body.append(host);
      const inline = document.importNode(svg, true);
      host.attachShadow({ mode: "open" }).append(inline);
      for (const t of inline.querySelectorAll("text, tspan")) {
        if (t.textContent.trim()) sizes.push(parseFloat(getComputedStyle(t).fontSize));
      }
      host.remove();
    }
    return { size: Math.min(...sizes), box };
  }

  // The outermost elements past the screen's right edge, in no box that scrolls or clips them.
  function sticking(width) {
    const out = (e) => e.getBoundingClientRect().right > width + 1;
    const clipped = (e) => above(e, (p) => getComputedStyle(p).overflowX !== "visible");
    return [...document.body.querySelectorAll("*")]
      .filter((e) => out(e) && !(e.parentElement && out(e.parentElement)) && !clipped(e))
      .filter((e) => getComputedStyle(e).position !== "fixed")
      .slice(0, 5)
      .map((e) => `${e.tagName}.${e.getAttribute("class")}: ${e.textContent.slice(0, 40)}`);
  }
}"""


# Before axe: code tokens but the first of each kind become their parent's text (the text and
# its colour pairs stay) and the formulas' drawings, which axe skips for their MathML, are emptied.
FOR_AXE = """() => {
  const seen = new Set();
  for (const el of document.querySelectorAll("pre code span:not(:has(*))")) {
    const names = [el.closest(".admonition, details, .tabbed-set")?.className];
    for (let e = el; e.tagName !== "PRE"; e = e.parentElement) names.push(e.className);
    const key = names.join("<");
    seen.has(key) ? el.replaceWith(el.textContent) : seen.add(key);
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


def _look(page, phone: bool = False, measure: bool = True) -> dict:
    """LOOK; ``measure``: formulas, figure text, width, words too (dark draws the same)."""
    return page.evaluate(LOOK, {"phone": phone, "measure": measure, "minText": MIN_TEXT})


def _seen(look: dict, where: str) -> list[str]:
    """What a reader cannot see: images, formulas, figure text, past the page's width."""
    fails = [f"{where}: not loaded: {u}" for u in look["unloaded"]]
    fails += [f"{where}: formula drawn too small: {f}" for f in look["formulas"]]
    fails += [f"{where}: formula past the screen, scrolls nowhere: {f}" for f in look["unscrolled"]]
    fails += [f"{where}: figure text {px} px: {name}" for name, px in look["figures"]]
    fails += [f"{where}: the page scrolls sideways: {e}" for e in look["sideways"]]
    return fails


def words(count: dict) -> int:
    """Latin words, and 0.6 of a word per Chinese character: a Chinese page's limit, its twin's."""
    return round(count["latin"] + 0.6 * count["han"])


def test_page(page, phone, site, page_path, problems):
    page.goto(site.url(page_path))
    light = _look(page)
    _shot(page, page_path, "light")
    fails = [f"scrolls sideways: {t!r}" for t in light["overflowing"]]
    fails += _broken(site, light["links"])
    fails += [f"dark figure in light: {s}" for s in light["variants"] if "#only-dark" in s]
    fails += _seen(light, "1280 px")
    if page_path.removeprefix("zh/") in CONCEPT_PAGES:
        print(f"{page_path}: core {light['core']} screens, {words(light['words'])} words")
        if light["core"] is None or light["core"] > MAX_SCREENS:
            fails.append(f"core (article top to `## Deeper`): {light['core']} screens")
        if words(light["words"]) > MAX_WORDS:
            fails.append(f"prose shown unfolded: {words(light['words'])} words")

    html = site.html(page_path)
    if "#only-dark" in html or "data-explorer" in html:
        toggle = page.locator("form[data-md-component=palette] label:visible")
        toggle.click()
        page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
        dark = _look(page, measure=False)
        _shot(page, page_path, "dark")
        fails += _seen(dark, "dark")
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

    phone.goto(site.url(page_path))
    small = _look(phone, phone=True)
    _shot(phone, page_path, "390")
    fails += _seen(small, "390 px")
    taps = collections.Counter(small["taps"])
    fails += [f"390 px: tap target under 24 px: {t} ({n}x)" for t, n in taps.items()]
    phone.evaluate(FOR_AXE)
    fails += [f"390 px: {f}" for f in _axe(phone, runOnly={"type": "rule", "values": PHONE_RULES})]
    fails += problems
    assert not fails, "\n".join(fails)


# Each linked box of the home diagram: where it lies over the shown image (% of it), and whether
# the point at its centre belongs to the link itself.
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
    """The home diagram's boxes are links over the boxes they name, in the page's language; a
    click on one opens its page, and so does Enter."""
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
