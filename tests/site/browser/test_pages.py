"""Every page, English and Chinese, in Chromium at 1280 px and on a phone (``phone``: 390 px, touch,
every <details> open). Its shown images load, code stays in its box, links and anchors resolve, it
asks no other host (``problems``) and axe-core finds nothing (every rule). A concept page's core
(article top to ``## Deeper``) fits in 8 screens, with at most 2,000 words of prose shown unfolded.
Where the scheme changes what is drawn, the toggle to dark shows the dark figures, loaded and
readable, draws the explorers in other colours and passes axe's contrast rule (what the scheme does
not change, the layout, is checked in the light view). In the light view and on the phone no formula
is drawn under 3 px, no display formula is wider than its column (but a matrix, which scrolls in its
box), one wider than the screen scrolls in a box, the page does not, a box that scrolls sideways
shows it (a fade), a table that scrolls keeps its first column in view, a wrapped line of code does
not start at column 0 (a hanging indent), a printed output does not wrap, the download button is on
screen, and no text of a figure or an explorer is drawn under 9 px; on the phone, axe's target-size
and scrollable-region-focusable rules pass and no explorer control (nor a cell of an attention map,
which takes a tap) nor the download button is under 24 x 24 px. A Chinese page's captions are
upright (Material's italic is a fake slant in a Chinese font), its table headers break between words
only, and no line starts with "，" after an inline formula. No numbered list's box cuts its numbers.
``SCREENSHOTS=1`` saves each view under test-artifacts/."""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from axe_playwright_python.sync_playwright import Axe

SHOTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "browser" / "screenshots"
MAX_SCREENS = 8  # of 900 px, at 1280 px wide
MAX_WORDS = 2000  # of prose shown unfolded on a concept page
MIN_TEXT = 9  # CSS px: the smallest text of a figure or an explorer, as drawn
# axe's rules that a phone's width decides: tap targets (WCAG 2.2 AA), sideways boxes by keyboard.
PHONE_RULES = ["target-size", "scrollable-region-focusable"]

# Draw every block (content-visibility draws only near the viewport; axe's colour check and the
# core's length need them drawn), every lazy image and explorer, then read what the tests check:
# ``fails``, per check, the shown elements a reader cannot see or use as the page means them.
LOOK = """async ([phone, MIN_TEXT, schemeOnly]) => {
  if (phone) for (const d of document.querySelectorAll("article details")) d.open = true;
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  await frame(); // the page's own observers see the blocks drawn
  const visible = (sel, test = () => true) => [...document.querySelectorAll(sel)]
    .filter((e) => e.checkVisibility() && test(e));
  for (const img of visible("img")) img.loading = "eager";
  const decoded = Promise.allSettled(visible("img").map((img) => img.decode()));
  await Promise.race([decoded, new Promise((r) => setTimeout(r, 10000))]);
  // An explorer is drawn once it says something and has the files it computes from (its
  // status says "Loading…" while it fetches them).
  const explorers = [...document.querySelectorAll("[data-explorer]")];
  const fetches = (el) => el.getAttributeNames().some((a) => /^data-(model|run)/.test(a));
  const drawn = (el) => !!el.querySelector(".explorer__status:not(:empty)")
    && (!fetches(el) || "ready" in el.dataset);
  for (const el of explorers) {
    el.scrollIntoView();
    // One whose model loads on a button (a large one) is looked at loaded: the button pressed.
    const says = () => !!el.querySelector(".explorer__status:not(:empty)");
    for (let i = 0; i < 300 && !says(); i++) await frame();
    el.querySelector("button.explorer__load")?.click(); // gone once another's was pressed
    for (let i = 0; i < ("size" in el.dataset ? 6000 : 300) && !drawn(el); i++) await frame();
  }
  await frame();
  window.scrollTo(0, 0);
  const box = (e) => e.getBoundingClientRect();
  const width = document.documentElement.clientWidth;
  const sideways = document.documentElement.scrollWidth > width;
  const out = (e) => box(e).right > width + 1;
  const above = (e, test, p = e.parentElement) => // an element between e and <body> passes test
    !!p && p !== document.body && (test(p) || above(p, test));
  const scrolls = (e) => /auto|scroll/.test(getComputedStyle(e).overflowX)
    && e.scrollWidth > e.clientWidth;
  const clips = (e) => getComputedStyle(e).overflowX !== "visible";
  const under = (b, e, r = document.createRange()) => { // a line of e's text under the box b
    r.selectNodeContents(e);
    return [...r.getClientRects()].some((l) => l.width > 0 && l.left < b.right
      && l.right > b.left && l.top < b.bottom && l.bottom > b.top);
  };
  const style = (e, p) => getComputedStyle(e).getPropertyValue(p);
  // The width of e's content box, or (side "left") where it starts on the screen.
  const inner = (e, side) => side === "left"
    ? box(e).left + e.clientLeft + parseFloat(style(e, "padding-left"))
    : e.clientWidth - parseFloat(style(e, "padding-left")) - parseFloat(style(e, "padding-right"));
  // The lines e's text is drawn on: {top, left} of each, the left of its first piece of text.
  const lines = (e, r = document.createRange()) => {
    r.selectNodeContents(e);
    const drawn = new Map();
    for (const l of [...r.getClientRects()].filter((l) => l.width > 0)) {
      const top = Math.round(l.top);
      const line = [...drawn.keys()].find((t) => Math.abs(t - top) < 3) ?? top;
      drawn.set(line, Math.min(drawn.get(line) ?? Infinity, l.left));
    }
    return [...drawn].map(([top, left]) => ({ top, left }));
  };
  const sourceLines = (e) => e.textContent.split("\\n").filter((l) => l.length > 0).length;
  const small = (e, px) => box(e).width < px || box(e).height < px;
  const drawnSize = (e, m = e instanceof SVGGraphicsElement ? e.getScreenCTM() : { a: 1, b: 0 }) =>
    parseFloat(getComputedStyle(e).fontSize) * Math.hypot(m.a, m.b);
  // Explorer controls (a control in a <label> is as big as the label) and the download button
  // under 24 x 24 px (WCAG 2.2 AA), without axe's exception for small targets far apart: an
  // explorer's are close together.
  const controls = "input, button, select, a[href], [role=slider], [role=button]";
  const other = document.body.dataset.mdColorScheme === "slate" ? "light" : "dark";
  const zh = document.documentElement.lang === "zh";
  const checks = {
    "not loaded": ["img", (i) => !(i.complete && i.naturalWidth > 0)],
    "formula drawn too small": ["mjx-container > svg", (svg) => small(svg, 3)],
    "formula or download button past the screen, scrolls nowhere": [`mjx-container > svg,
      a[data-run-notebook]`, (e) => (box(e).left < -1 || out(e)) && !above(e, scrolls)],
    // The outermost elements past the screen's right edge, in no box that scrolls or clips them.
    "the page scrolls sideways": ["body *", (e) => sideways && out(e) && !out(e.parentElement)
      && !above(e, clips) && getComputedStyle(e).position !== "fixed"],
    // (What was printed keeps its columns and may scroll, showing it: below.)
    "code scrolls sideways in its box, or splits over lines in a table": [`.md-typeset pre >
      code:not(.language-text *), .jupyter-wrapper pre:not(.jp-OutputArea-output *),
      .md-typeset td code`,
      (e) => !phone && (e.scrollWidth > e.clientWidth + 1 || e.getClientRects().length > 1)],
    // A display formula fits the column it is in (its TeX broken over lines); only one that
    // cannot be broken, a matrix (a table of MathML without displaystyle, which aligned and
    // gathered have), may be wider, in a box that scrolls (and shows it, below).
    "formula wider than its column": ["mjx-container[display] > svg", (svg) => {
      const block = svg.closest("div.arithmatex") ?? svg.parentElement;
      let column = block.parentElement; // the block it is in (a notebook's is in a <span>)
      while (style(column, "display") === "inline") column = column.parentElement;
      const matrix = !!block.querySelector("mtable:not([displaystyle])") && above(svg, scrolls);
      return box(svg).width > inner(column) + 0.5 && !matrix;
    }],
    // A box that scrolls sideways shows it: its content fades out at the edge where more lies.
    "box scrolls sideways and does not show it": ["article *:not([data-explorer] *)", (e) =>
      scrolls(e) && e.scrollLeft === 0 && !(parseFloat(style(e, "--fade-end")) > 0)],
    "table scrolls its first column out of view": [".md-typeset__scrollwrap", (w) => {
      if (!scrolls(w)) return false;
      w.scrollLeft = w.scrollWidth;
      const first = w.querySelector("tr > :first-child");
      const gone = box(first).left < box(w).left - 1;
      w.scrollLeft = 0;
      return gone;
    }],
    // Code wraps with a hanging indent: a line of the source starts at the box's left edge, what
    // wraps of it further right. Printed outputs do not wrap: a printed table keeps its columns.
    "code wraps into column 0": [
      ".md-typeset pre > code:not(.language-text *), .jp-InputArea-editor pre",
      (e) => lines(e).filter((l) => l.left < inner(e, "left") + 1).length > sourceLines(e)],
    "printed output wraps": [".md-typeset .language-text pre > code, .jp-OutputArea-output pre",
      (e) => lines(e).length > sourceLines(e)],
    "code under its copy button": ["clipboard-copy", (b) => under(b.getBoundingClientRect(),
      b.closest(".jp-InputArea-editor").querySelector("pre"))],
    "notebook code beside its prompt on a phone": [".jp-InputArea-editor",
      (e) => phone && box(e).width < 0.85 * box(e.closest(".jp-Cell")).width],
    [`figure of the ${other} scheme`]: [`img[src*='#only-${other}']`, () => true],
    "explorer not drawn": ["[data-explorer]", (e) => !drawn(e)],
    "figure shows none of its images": ["figure:has(img)",
      (f) => ![...f.querySelectorAll("img")].some((i) => i.checkVisibility())],
    "tap target under 24 px": [`[data-explorer] :is(label:has(${controls}),
      :is(${controls}):not(label *)), [data-explorer=attention] .explorer__cell,
      a[data-run-notebook]`, (e) => phone && small(e, 23.5)],
    // An explorer's text as drawn: an SVG's scaled to the box the drawing is shown in.
    [`explorer text under ${MIN_TEXT} px`]: ["[data-explorer] :not(title, option, style)",
      (e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())
        && drawnSize(e) < MIN_TEXT],
    "Chinese caption slanted": ["article figcaption",
      (c) => zh && getComputedStyle(c).fontStyle !== "normal"],
    "Chinese header broken in a word": ["article th",
      (h) => zh && getComputedStyle(h).wordBreak !== "keep-all"],
    // A formula followed by closing punctuation is kept with it in a .nowrap span, on one line.
    "formula apart from its closing punctuation": ["article span.arithmatex", (m) =>
      /^[，。、；：！？）」』》】]/.test(m.nextSibling?.nodeType === 3 ? m.nextSibling.data : "")
      && !m.parentElement.classList.contains("nowrap")],
    ".nowrap drawn over lines": ["article .nowrap", (n) =>
      new Set([...n.getClientRects()].map((r) => Math.round(r.top))).size > 1],
  };
  // In the other scheme only what it changes: which figures show, that they load, the explorers.
  const scheme = ["not loaded", `figure of the ${other} scheme`, "explorer not drawn",
    "figure shows none of its images", `explorer text under ${MIN_TEXT} px`];
  const run = Object.entries(checks).filter(([what]) => !schemeOnly || scheme.includes(what));
  const text = (e) => e.textContent.replace(/\\s+/g, " ").trim().slice(0, 50);
  const say = (e, r = box(e)) => `${e.tagName}.${e.getAttribute("class")} ${e.src ?? text(
    e.closest("mjx-container") ?? e)} at ${r.left} to ${r.right} px, ${r.width} x ${r.height} px`;
  const deeper = document.querySelector("article h2#deeper");
  return {
    fails: Object.fromEntries(run.map(([what, [sel, test]]) =>
      [what, visible(sel, test).slice(0, 5).map((e) => say(e))])),
    heat: explorers.map((e) => getComputedStyle(e).getPropertyValue("--explorer-heat")),
    core: deeper ? (box(deeper).top - box(deeper.closest("article")).top) / innerHeight : Infinity,
    links: [...document.links].filter((a) => a.origin === location.origin)
      .map((a) => [a.pathname, decodeURIComponent(a.hash.slice(1))]),
    words: schemeOnly ? 0 : prose(),
    figures: visible("article img[src*='.svg']")
      .map((i) => [new URL(i.currentSrc).pathname, box(i).width]),
  };

  // Words of prose shown unfolded (not in a closed <details> nor a hidden tab), outside code,
  // formulas and explorers; a Chinese character counts 0.6 of a word (its twin's limit holds).
  function prose() {
    const skip = "pre, code, mjx-container, [data-explorer], script, style, .headerlink";
    const text = visible("article, article *", (e) => !e.closest(skip))
      .flatMap((e) => [...e.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE))
      .map((n) => n.data).join(" ");
    const han = text.match(/\\p{Script=Han}/gu)?.length ?? 0;
    const latin = text.replace(/\\p{Script=Han}/gu, " ").match(/[\\p{L}\\p{N}]+/gu)?.length ?? 0;
    return latin + 0.6 * han;
  }
}"""


# Before axe: code tokens but the first of each kind become their parent's text (the text and
# its colour pairs stay) and the formulas' drawings, which axe skips for their MathML, are emptied.
FOR_AXE = """() => {
  const seen = new Set();
  for (const el of document.querySelectorAll("pre code span:not(:has(*))")) {
    const names = [el.closest(".admonition, details, .tabbed-set")?.className];
    for (let e = el; e.tagName !== "PRE"; e = e.parentElement) names.push(e.className);
    seen.has(`${names}`) ? el.replaceWith(el.textContent) : seen.add(`${names}`);
  }
  const drawings = "mjx-container > svg[aria-hidden=true], svg#MJX-SVG-global-cache";
  for (const svg of document.querySelectorAll(`:is(${drawings}):not(:has(a, [tabindex]))`)) {
    svg.replaceChildren();
  }
}"""


# Numbered lists whose box clips what is drawn outside it (containment, content-visibility: auto,
# overflow), too narrow on the left for their widest marker: "10." drawn as ".0.". Read before
# LOOK, which draws every block.
CLIPPED_MARKERS = """() => [...document.querySelectorAll("article ol")].filter((ol) => {
  const style = getComputedStyle(ol);
  const clips = style.contentVisibility === "auto" || style.overflowX !== "visible"
    || /paint|strict|content/.test(style.contain);
  const last = ol.lastElementChild;
  if (!clips || !last) return false;
  const pen = document.createElement("canvas").getContext("2d");
  const font = getComputedStyle(last);
  pen.font = `${font.fontStyle} ${font.fontWeight} ${font.fontSize} ${font.fontFamily}`;
  const marker = pen.measureText(`${ol.start + ol.children.length - 1}. `).width; // as drawn
  return last.getBoundingClientRect().left - ol.getBoundingClientRect().left < marker;
}).map((ol) => ol.textContent.trim().slice(0, 40))"""


@functools.cache
def _served(folder: Path, path: str) -> str | None:
    """The text of the file of the build in ``folder`` served at URL ``path``; None if none."""
    file = folder / unquote(path).strip("/") / ("index.html" if path.endswith("/") else "")
    return file.read_text(encoding="utf-8", errors="replace") if file.is_file() else None


def _broken(site, links: list[list[str]]) -> list[str]:
    broken = []
    for path, anchor in sorted({tuple(link) for link in links}):
        text = _served(site.dir, path)
        if text is None:
            broken.append(f"{path}: no such file")
        elif anchor and f'id="{anchor}"' not in text:
            broken.append(f"{path}#{anchor}: no such anchor")
    return broken


def _look(page, site, path: str, view: str, fails: list[str]) -> dict:
    """LOOK at the page in ``view`` (light, dark or 390); add to ``fails`` what a reader cannot
    see there: LOOK's fails (in dark, those the scheme can change) and figure text drawn under
    MIN_TEXT. ``SCREENSHOTS=1`` saves it."""
    page.add_style_tag(content=".md-typeset * { content-visibility: visible !important; }")
    look = page.evaluate(LOOK, [view == "390", MIN_TEXT, view == "dark"])
    if os.environ.get("SCREENSHOTS"):  # zh/attention/ in light: zh/attention-light.png
        page.screenshot(path=SHOTS / f"{path.strip('/') or 'home'}-{view}.png", full_page=True)
    fails += [f"{view}: {what}: {e}" for what, found in look["fails"].items() for e in found]
    # The smallest text of each SVG figure as drawn: matplotlib's glyphs are paths in groups
    # `scale(s -s)` (font size 100 s), a diagram's <text> is sized by its stylesheet.
    for src, width in look["figures"]:
        svg = _served(site.dir, src)
        sizes = [100 * float(s) for s in re.findall(r"scale\(([\d.e+-]+) -", svg)]
        sizes += [float(s) for s in re.findall(r"font-size:\s*([\d.]+)px", svg)]
        px = width * min(sizes) / float(re.search(r'viewBox="\S+ \S+ (\S+)', svg)[1])
        if px < MIN_TEXT:
            fails.append(f"{view}: figure text {px:.2f} px: {src}")
    return look


def _axe(page, *rules: str) -> list[str]:
    """axe-core's violations of ``rules`` (of every rule if none), after FOR_AXE."""
    page.evaluate(FOR_AXE)
    only = {"runOnly": {"type": "rule", "values": list(rules)}} if rules else {}
    found = Axe().run(page, options={"resultTypes": ["violations"], **only})
    return [found.generate_report()] if found.violations_count else []


def test_page(page, phone, site, page_path, problems):
    page.goto(site.url(page_path))
    problems += [f"numbers of a list cut: {ol}" for ol in page.evaluate(CLIPPED_MARKERS)]
    light = _look(page, site, page_path, "light", problems)  # and what the page shows wrong
    problems += _broken(site, light["links"])
    if page_path.removeprefix("zh/") in site.concepts:
        core, words = light["core"], round(light["words"])
        measured = f"core (article top to `## Deeper`): {core} screens, {words} words unfolded"
        print(f"{page_path}: {measured}")
        if core > MAX_SCREENS or words > MAX_WORDS:
            problems.append(measured)

    problems += _axe(page)

    # The dark view last: the page stays in it (a toggle back redraws the page for nothing).
    if re.search("#only-dark|data-explorer", site.html(page_path)):
        page.locator("form[data-md-component=palette] label:visible").click()
        page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
        dark = _look(page, site, page_path, "dark", problems)
        same = set(dark["heat"]) & set(light["heat"])
        problems += [f"explorer colours stay in dark: {h}" for h in same]
        problems += _axe(page, "color-contrast")

    phone.goto(site.url(page_path))
    _look(phone, site, page_path, "390", problems)
    problems += [f"390: {f}" for f in _axe(phone, *PHONE_RULES)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("home", ["", "zh/"], ids=["en", "zh"])
def test_home_contrast_at_load_on_a_phone(phone, site, problems, home):
    """As Lighthouse's accessibility audit measures it: axe's contrast rule on a phone at load,
    before the blocks past the first screen are drawn (content-visibility). A block not drawn
    yet is laid out at its placeholder's height, so the links of a long one that ends a page
    were measured over the footer and read against its dark background (Lighthouse: 97)."""
    phone.goto(site.url(home), wait_until="networkidle")
    only = {"runOnly": {"type": "rule", "values": ["color-contrast"]}}
    found = Axe().run(phone, options={"resultTypes": ["violations"], **only})
    assert found.violations_count == 0, found.generate_report()
    assert problems == []


@pytest.mark.parametrize("home", ["", "zh/"], ids=["en", "zh"])
def test_home_diagram_boxes_open_their_pages(page, site, problems, home):
    """The home diagram's boxes are links over the boxes they name, in the page's language; a
    click on one opens its page, and so does Enter."""
    from docs_build import figures

    page.goto(site.url(home))
    img = page.locator(".figure-map img:visible")
    links = page.locator(".figure-map a.figure-link").all()
    drawn = figures.box_links("transformer-zh" if home else "transformer")
    assert [a.get_attribute("aria-label") for a in links] == [label for _, label, _ in drawn]
    for link, (target, label, where) in zip(links, drawn, strict=True):
        link.click(trial=True, timeout=2000)  # a click at its centre lands on it, not on another
        assert link.evaluate("a => a.href") == site.url(home + target.replace(".md", "/"))
        at, box = img.bounding_box(), link.bounding_box()
        x, y = 100 * (box["x"] - at["x"]) / at["width"], 100 * (box["y"] - at["y"]) / at["height"]
        w, h = 100 * box["width"] / at["width"], 100 * box["height"] / at["height"]
        assert [x, y, w, h] == pytest.approx(where, abs=0.2), label

    page.locator(f".figure-map [aria-label='{'前馈网络' if home else 'Feed-forward'}']").click()
    page.wait_for_url(site.url(f"{home}feed-forward/"))
    page.go_back()
    page.locator(f".figure-map [aria-label='{'词嵌入' if home else 'Token embedding'}']").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(site.url(f"{home}token-embedding/"))
    # Leaving a page cancels what it was still loading (its search index, the sitemaps).
    assert [p for p in problems if not p.endswith("net::ERR_ABORTED")] == []
