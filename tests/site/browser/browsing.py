"""The built site in headless Chromium: what a visit of a page records, and the browsers.

Each page of the run's build (``site``, served at the address it was built for, so Material's
instant navigation works) is visited once per colour scheme (``light``, ``dark``) by Debian's
Chromium (``/usr/bin/chromium``; Playwright never downloads a browser), the two schemes in two
threads, each with its own Chromium. A visit records everything the per-page tests assert on:
requests, failures, console, formulas, images, links, axe-core results, page weight and typeset
time; the tests only read the record. Page weights and typeset times go to
``test-artifacts/browser/report.json``, summarised at the end of the run.
"""

from __future__ import annotations

import dataclasses
import functools
import html.parser
import json
import os
import queue
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = "/usr/bin/chromium"
# Flags that work headless on these machines; without the networking ones Chromium floods a
# closed network with refused connections (which would also count as requests to other hosts).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCHEMES = {"light": "default", "dark": "slate"}  # emulated colour scheme -> Material's palette
VIEWPORT = {"width": 1280, "height": 900}
TIMEOUT_MS = 20_000
MIN_CONTRAST = 4.5  # WCAG AA for body text; formulas are text


def lines(items) -> str:
    """Items one per line, indented under a test's message."""
    return "\n  " + "\n  ".join(map(str, items))


# Formulas arrive typeset in the HTML (MathJax runs at build, docs_build/typeset.py), so they are
# ready when the document is parsed: "typeset" is DOMContentLoaded, as performance.now() (ms since
# the navigation started). A MathJax in the browser is an error. Runs before the page's scripts.
TYPESET_CLOCK = """
performance.setResourceTimingBufferSize(2000);
document.addEventListener("DOMContentLoaded", () => { window.__typesetDone = performance.now(); });
window.addEventListener("load", () => {
  if (window.MathJax) window.__typesetError = "MathJax is loaded in the browser";
});
"""


# TeX left in the visible text of a page (outside code and typeset math): a command, a math
# delimiter, $$, an inline $...$ pair, or a braced sub/superscript.
RAW_TEX = re.compile(r"\\[A-Za-z]{2,}|\\[()\[\]{}]|\$\$|\$[^$\s][^$\n]{0,200}\$|[_^]\{")


def raw_tex(text: str) -> list[str]:
    """Each piece of raw TeX in ``text``, with a little context."""
    return [text[max(m.start() - 30, 0) : m.end() + 30] for m in RAW_TEX.finditer(text)]


# --- the pages ------------------------------------------------------------------------------------
def page_id(path: str) -> str:
    return path.strip("/") or "home"


# --- fetching from the served site (links, images), once per URL per session ----------------------
@dataclasses.dataclass
class Fetched:
    status: int
    content_type: str
    body: bytes


@functools.cache
def fetch(url: str) -> Fetched:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return Fetched(resp.status, resp.headers.get_content_type(), resp.read())
    except urllib.error.HTTPError as err:
        return Fetched(err.code, err.headers.get_content_type(), b"")


class _Anchors(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if value and (key == "id" or (key == "name" and tag == "a")):
                self.ids.add(value)


@functools.cache
def anchors(url: str) -> frozenset[str]:
    parser = _Anchors()
    parser.feed(fetch(url).body.decode("utf-8", "replace"))
    return frozenset(parser.ids)


# --- one visit of one page in one scheme ----------------------------------------------------------
class Recorder:
    """Everything a page asks for and says, from the moment it is created to ``stop``."""

    def __init__(self, page) -> None:
        self.requests: list[tuple[str, str]] = []  # (resource type, url)
        self.failed: list[str] = []
        self.console: list[str] = []
        self.errors: list[str] = []
        self.in_flight: set = set()
        self._mine: set = set()  # (the tab's previous page may still report on its requests)
        self._page = page
        self._handlers = {
            "request": self._request,
            "requestfinished": lambda r: self.in_flight.discard(r),
            "requestfailed": self._failed,
            "response": self._response,
            "console": self._console,
            "pageerror": lambda e: self.errors.append(f"pageerror: {e}"),
        }
        for event, handler in self._handlers.items():
            page.on(event, handler)

    def stop(self) -> None:
        for event, handler in self._handlers.items():
            self._page.remove_listener(event, handler)

    def _request(self, request) -> None:
        self.requests.append((request.resource_type, request.url))
        self.in_flight.add(request)
        self._mine.add(request)

    def _response(self, response) -> None:
        if response.status >= 400 and response.request in self._mine:
            self.failed.append(f"{response.url}: HTTP {response.status}")

    def _failed(self, request) -> None:
        self.in_flight.discard(request)
        if request in self._mine:
            self.failed.append(f"{request.url}: {request.failure}")

    def _console(self, msg) -> None:
        loc = msg.location or {}
        line = f"[{msg.type}] {msg.text} ({loc.get('url', '')}:{loc.get('lineNumber', '')})"
        self.console.append(line)
        if msg.type == "error":
            self.errors.append(line)

    def log(self) -> str:
        lines = ["# console", *self.console, "", "# page errors", *self.errors]
        lines += ["", "# failed requests", *self.failed, "", "# requests"]
        lines += [f"{kind} {url}" for kind, url in self.requests]
        return "\n".join(lines) + "\n"


@dataclasses.dataclass
class Visit:
    path: str
    scheme: str
    url: str
    recorder: Recorder
    color_scheme: str  # Material's data-md-color-scheme on <body>
    typeset_ms: float | None
    typeset_error: str | None
    math: dict
    images: list[dict]
    links: list[str]
    figures: list[dict]
    weight: dict
    layout: dict  # "overflowing" code boxes, "split_names" in tables; the article's heights
    axe: list[dict]

    @property
    def name(self) -> str:
        return f"{page_id(self.path)} ({self.scheme})"

    def serious_axe(self) -> list[dict]:
        return [v for v in self.axe if v["impact"] in {"serious", "critical"}]

    def record(self) -> dict:
        return {
            "page": self.path or "/",
            "scheme": self.scheme,
            "requests": len(self.recorder.requests),
            "hosts": sorted({urllib.parse.urlsplit(u).netloc for _, u in self.recorder.requests}),
            "failed_requests": self.recorder.failed,
            "console_errors": self.recorder.errors,
            "weight_bytes": self.weight["bytes"],
            "resources": self.weight["resources"],
            "typeset_ms": None if self.typeset_ms is None else round(self.typeset_ms, 1),
            "formulas": self.math["containers"],
            "images": len(self.images),
            "links": len(self.links),
            "axe": [
                {"id": v["id"], "impact": v["impact"], "nodes": len(v["nodes"])} for v in self.axe
            ],
        }


# Load every displayed image now (they are loading="lazy": a reader scrolling would load them),
# and wait until each has loaded or failed; then draw every explorer (drawn near the viewport).
LOAD_LAZY = """
async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const shown = [...document.images].filter((i) => i.checkVisibility());
  for (const img of shown) img.loading = "eager";
  const done = (img) => img.complete ? null : new Promise((r) => {
    img.addEventListener("load", r, {once: true});
    img.addEventListener("error", r, {once: true});
  });
  await Promise.race([Promise.all(shown.map(done)), new Promise((r) => setTimeout(r, 10000))]);
  for (const explorer of document.querySelectorAll("[data-explorer]")) {
    explorer.scrollIntoView();
    const start = performance.now();
    while (!explorer.querySelector(".explorer__status:not(:empty)")) {
      if (performance.now() - start > 10000) break;  // the explorer tests report it
      await frame();
    }
  }
  window.scrollTo(0, 0);
  await frame();
}
"""

# Formulas, visible text outside code and math, images, links and bytes loaded, in one pass.
INSPECT = """
() => {
  const visible = (el) => el.checkVisibility();
  const rgba = (s) => {
    const m = s.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (fg, bg) => [0, 1, 2].map((k) => fg[k] * fg[3] + bg[k] * (1 - fg[3])).concat(1);
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let bg = [255, 255, 255, 1];
    for (const c of layers.reverse()) bg = over(c, bg);
    return bg;
  };
  const lum = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (el) => {
    const bg = background(el);
    const fg = rgba(getComputedStyle(el).color);
    if (!fg) return null;
    const [a, b] = [lum(over(fg, bg)), lum(bg)];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  };

  const containers = [...document.querySelectorAll("mjx-container")];
  const shownMath = containers.filter(visible);
  const contrasts = shownMath.slice(0, 200).map(contrast).filter((c) => c !== null);
  const math = {
    arithmatex: document.querySelectorAll(".arithmatex").length,
    untypeset: [...document.querySelectorAll(".arithmatex")]
      .filter((e) => !e.querySelector("mjx-container"))
      .map((e) => e.textContent.trim().slice(0, 120)),
    containers: containers.length,
    blank: shownMath.filter((c) => c.getBoundingClientRect().width === 0)
      .map((c) => (c.parentElement.textContent || "").trim().slice(0, 120)),
    errors: [...document.querySelectorAll("mjx-merror")].map((e) => e.textContent.slice(0, 120)),
    min_contrast: contrasts.length ? Math.min(...contrasts) : null,
  };

  const root = document.querySelector(".md-content") || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => {
      const p = n.parentElement;
      if (!p || p.closest("pre, code, script, style, textarea, mjx-container")) {
        return NodeFilter.FILTER_REJECT;
      }
      return visible(p) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
    },
  });
  const texts = [];
  while (walker.nextNode()) texts.push(walker.currentNode.nodeValue);
  math.text = texts.join("");

  const images = [...document.images].map((i) => ({
    src: i.getAttribute("src"),
    url: i.src,
    alt: i.getAttribute("alt"),
    visible: visible(i),
    complete: i.complete,
    naturalWidth: i.naturalWidth,
  }));
  const links = [...document.querySelectorAll("a[href]")].map((a) => a.href);
  // Figures drawn in a light and a dark variant: which of each pair is shown (in a closed
  // <details> or an inactive tab, neither is).
  const figures = [...document.querySelectorAll("figure")]
    .filter((f) => f.querySelector('img[src$="#only-light"], img[src$="#only-dark"]'))
    .map((f) => ({
      visible: visible(f),
      shown: [...f.querySelectorAll("img")].filter(visible).map((i) => i.getAttribute("src")),
    }));

  // Code and outputs that scroll sideways (their end hidden), and names in a table's code split
  // over two lines (extra.css wraps long lines at spaces and keeps a table's names whole).
  const longest = (e) => e.textContent.split("\\n").reduce((a, b) => (b.length > a.length ? b : a));
  const layout = {
    overflowing: [...document.querySelectorAll(".md-typeset pre > code, .jupyter-wrapper pre")]
      .filter(visible)
      .filter((e) => e.scrollWidth > e.clientWidth + 1)
      .map((e) => longest(e).trim().slice(0, 100)),
    split_names: [...document.querySelectorAll(".md-typeset td code, .md-typeset th code")]
      .filter(visible)
      .filter((e) => e.getClientRects().length > 1)
      .map((e) => e.textContent),
  };
  // The article's height and its core's, from its top to the `## Deeper` heading (id "deeper"
  // in both languages), as laid out now, images loaded (test_pages_core_length.py).
  const article = document.querySelector("article");
  if (article !== null) {
    const top = article.getBoundingClientRect().top;
    const deeper = article.querySelector("h2#deeper");
    const details = [...article.querySelectorAll("details")];
    Object.assign(layout, {
      article: article.getBoundingClientRect().height,
      core: deeper === null ? null : deeper.getBoundingClientRect().top - top,
      closed: details.filter((d) => !d.open).length,
      details: details.length,
    });
  }

  const entries = [
    ...performance.getEntriesByType("navigation"),
    ...performance.getEntriesByType("resource"),
  ];
  const weight = {
    bytes: entries.reduce((s, e) => s + (e.encodedBodySize || 0), 0),
    resources: entries.length,
  };
  return {
    scheme: document.body.getAttribute("data-md-color-scheme"),
    typesetDone: window.__typesetDone ?? null,
    typesetError: window.__typesetError ?? null,
    math, images, links, figures, weight, layout,
  };
}
"""


# Contrast depends on a text's colour, its font and the backgrounds behind it. In code blocks,
# thousands of tokens share a few such styles, and axe-core checks each one (most of its time);
# every rule also walks every element. Before axe runs, every token but the first of each style
# is unwrapped into its parent's text (the text and the layout stay): axe still meets every pair
# of colours the page shows, on a page with a third of the elements.
KEEP_ONE_TEXT_PER_STYLE = """
() => {
  const hasText = (el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.data.trim());
  const seen = new Set(), same = [];
  for (const el of [...document.querySelectorAll("pre code *")].filter(hasText)) {
    const style = getComputedStyle(el);
    const key = [style.color, style.fontSize, style.fontWeight, style.fontStyle];
    for (let e = el; e; e = e.parentElement) {
      const bg = getComputedStyle(e).backgroundColor;
      if (bg === "rgba(0, 0, 0, 0)") continue;
      key.push(bg);
      if (bg.startsWith("rgb(")) break;  // opaque: nothing behind it shows
    }
    const id = key.join("|");
    if (seen.has(id)) same.push(el); else seen.add(id);
  }
  for (const el of same) el.replaceWith(...el.childNodes);
}
"""

# A formula is drawn by an SVG that is aria-hidden (its assistive MathML beside it is what a
# screen reader reads, and axe checks that) from glyphs in one hidden SVG: axe's rules skip both
# but its walk still meets their elements (a third of what is left on Multi-Head Attention, 40% on
# Notation). They are emptied before axe runs (the visit has recorded the formulas and taken its
# screenshot), unless one holds something focusable, which axe's aria-hidden-focus rule must see.
EMPTY_FORMULA_DRAWINGS = """
() => {
  const drawings = "mjx-container > svg[aria-hidden='true'], svg#MJX-SVG-global-cache";
  for (const svg of document.querySelectorAll(drawings)) {
    if (!svg.querySelector("a, [tabindex]")) svg.replaceChildren();
  }
}
"""


# A page has the same elements in both schemes, only other colours: in the second scheme, axe-core
# runs the rules that read colours alone.
AXE_OPTIONS = {
    "light": {"resultTypes": ["violations"]},
    "dark": {
        "resultTypes": ["violations"],
        "runOnly": {"type": "rule", "values": ["color-contrast", "link-in-text-block"]},
    },
}


class Chromium:
    """One headless Chromium, for the thread that starts it (Playwright's objects stay there)."""

    def __init__(self, origin: str) -> None:
        from playwright.sync_api import sync_playwright

        if not os.access(CHROMIUM, os.X_OK):
            pytest.fail(f"{CHROMIUM} is missing: run `make chromium` (Debian's chromium package)")
        self.origin = origin
        self._pw = sync_playwright().start()
        self.browser = self._pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

    def new_context(self, scheme: str):
        ctx = self.browser.new_context(viewport=VIEWPORT, color_scheme=scheme)
        ctx.set_default_timeout(TIMEOUT_MS)
        ctx.add_init_script(TYPESET_CLOCK)
        # Nothing may leave 127.0.0.1: such a request is recorded by the page, then refused here
        # (the network is closed anyway; refusing makes it fail at once). Routing also turns off
        # the HTTP cache, so every visit measures the full weight of its page.
        origin = self.origin + "/"
        ctx.route(lambda url: not url.startswith(origin), lambda route: route.abort())
        return ctx

    def close(self) -> None:
        self.browser.close()
        self._pw.stop()


def visit_all(
    site, jobs: queue.SimpleQueue, shots: Path | None
) -> dict[tuple[str, str], Visit | str]:
    """Visit pages, taking (path, scheme) from ``jobs`` until it is empty, in a Chromium of this
    thread: {(path, scheme): Visit, or the error that stopped the visit}. Threads that share
    ``jobs`` end together. With ``shots``, save a full-page screenshot of each there."""
    from axe_playwright_python.sync_playwright import Axe

    chromium, axe, tabs, done = Chromium(site.origin), Axe(), {}, {}
    try:
        while True:
            try:
                path, scheme = jobs.get_nowait()
            except queue.Empty:
                return done
            # One tab per scheme, reused from page to page as a reader's is: a new tab per page
            # costs a third more.
            if scheme not in tabs:
                tabs[scheme] = chromium.new_context(scheme).new_page()
            try:
                done[path, scheme] = _visit(tabs[scheme], site.url(path), path, scheme, axe, shots)
            except Exception as err:  # reported by every test of the visit
                done[path, scheme] = f"visiting {site.url(path)} ({scheme}) failed: {err}"
    finally:
        chromium.close()


def _visit(page, url: str, path: str, scheme: str, axe, shots: Path | None) -> Visit:
    recorder = Recorder(page)
    try:
        page.goto(url, wait_until="load")
        try:
            page.wait_for_function(
                "() => window.__typesetDone !== undefined || window.__typesetError"
            )
        except Exception as err:  # recorded: the math test reports it
            recorder.errors.append(f"MathJax did not finish typesetting: {err}")
        live = LivePage(page, recorder)
        live.load_lazy()
        live.settle()
        data = live.inspect()
        if shots:
            name = f"{page_id(path).replace('/', '-')}-{scheme}.png"
            page.screenshot(path=shots / name, full_page=True)
        # axe last: its script is not the site's, and nothing it does counts as the page's.
        page.evaluate(KEEP_ONE_TEXT_PER_STYLE)
        page.evaluate(EMPTY_FORMULA_DRAWINGS)
        violations = axe.run(page, options=AXE_OPTIONS[scheme]).response["violations"]
    finally:
        recorder.stop()
    return Visit(
        path=path,
        scheme=scheme,
        url=url,
        recorder=recorder,
        color_scheme=data["scheme"],
        typeset_ms=data["typesetDone"],
        typeset_error=data["typesetError"],
        math=data["math"],
        images=data["images"],
        links=data["links"],
        figures=data["figures"],
        weight=data["weight"],
        layout=data["layout"],
        axe=[
            {
                "id": v["id"],
                "impact": v["impact"],
                "help": v["help"],
                "nodes": [(n["target"], n["html"][:200]) for n in v["nodes"]],
            }
            for v in violations
        ],
    )


@dataclasses.dataclass
class LivePage:
    """A page the test drives itself (search, navigation, palette), with its recorder."""

    page: object  # playwright.sync_api.Page
    recorder: Recorder

    def wait_for_typeset(self) -> None:
        self.page.wait_for_function("() => window.__typesetDone !== undefined")

    def settle(self, quiet_ms: int = 300, timeout_s: float = 15) -> None:
        """Wait until no request has been in flight for ``quiet_ms``, as a reader who reads the
        page before clicking on: leaving earlier would cancel its requests (net::ERR_ABORTED)."""
        deadline, quiet = time.monotonic() + timeout_s, 0
        while quiet < quiet_ms and time.monotonic() < deadline:
            self.page.wait_for_timeout(50)
            quiet = 0 if self.recorder.in_flight else quiet + 50

    def load_lazy(self) -> None:
        """Load the lazy images the page shows, and draw its explorers."""
        self.page.evaluate(LOAD_LAZY)

    def inspect(self) -> dict:
        return self.page.evaluate(INSPECT)


# --- report ---------------------------------------------------------------------------------------
def write_report(site, visits: list[Visit]) -> list[str]:
    """Write report.json; return a short summary for the terminal."""
    records = [v.record() for v in visits]
    if not records:
        return []
    heaviest = max(records, key=lambda r: r["weight_bytes"])
    timed = [r for r in records if r["typeset_ms"] is not None]
    slowest = max(timed, key=lambda r: r["typeset_ms"]) if timed else None
    summary = {
        "pages": len({r["page"] for r in records}),
        "visits": len(records),
        "requests": sum(r["requests"] for r in records),
        "hosts": sorted({h for r in records for h in r["hosts"]}),
        "build_seconds": round(site.build.seconds, 1),
        "largest_page": {"page": heaviest["page"], "bytes": heaviest["weight_bytes"]},
        "slowest_typeset": slowest and {"page": slowest["page"], "ms": slowest["typeset_ms"]},
        "axe_violations": sorted({f"{a['id']} ({a['impact']})" for r in records for a in r["axe"]}),
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    report = {"base_url": site.base, "summary": summary, "pages": records}
    (ARTIFACTS / "report.json").write_text(json.dumps(report, indent=2) + "\n")

    lines = [
        f"{summary['pages']} pages x {len(SCHEMES)} schemes, {summary['requests']} requests "
        f"to {', '.join(summary['hosts'])}; site built in {summary['build_seconds']} s",
        f"{'page':<46} {'scheme':<6} {'requests':>8} {'weight':>10} {'typeset':>9} {'formulas':>8}",
    ]
    for r in sorted(records, key=lambda r: (r["page"], r["scheme"])):
        ms = "-" if r["typeset_ms"] is None else f"{r['typeset_ms']:.0f} ms"
        lines.append(
            f"{r['page']:<46} {r['scheme']:<6} {r['requests']:>8} "
            f"{r['weight_bytes'] / 1e6:>7.2f} MB {ms:>9} {r['formulas']:>8}"
        )
    lines.append(
        f"largest page: {heaviest['page']} {heaviest['weight_bytes'] / 1e6:.2f} MB; "
        + (f"slowest typeset: {slowest['page']} {slowest['typeset_ms']:.0f} ms" if slowest else "")
    )
    if summary["axe_violations"]:
        lines.append("axe findings (any impact): " + ", ".join(summary["axe_violations"]))
    lines.append(f"report: {(ARTIFACTS / 'report.json').relative_to(ROOT)}")
    return lines
