// MathJax 3 in Node: TeX in, MathJax's SVG output (with assistive MathML) out. Started once
// by docs_build/mathjax.py and fed one page at a time, so the build typesets every formula and
// the reader's browser typesets none.
//
// Protocol, one JSON object per line:
//   start  -> {"version": "3.2.2", "css": "<the SVG output's stylesheet>"}
//   in     {"math": [["TeX", display], ...]}
//   out    {"html": ["<mjx-container ...>", ...], "defs": "<svg ...><defs>...</defs></svg>",
//           "errors": ["TeX: message", ...]}
// A page's formulas share one font cache (its glyphs are defined once, in "defs", and used by
// reference), so "defs" must be on the page with them.
import readline from "node:readline";

import { mathjax } from "mathjax-full/js/mathjax.js";
import { TeX } from "mathjax-full/js/input/tex.js";
import { SVG } from "mathjax-full/js/output/svg.js";
import { liteAdaptor } from "mathjax-full/js/adaptors/liteAdaptor.js";
import { RegisterHTMLHandler } from "mathjax-full/js/handlers/html.js";
import { AssistiveMmlHandler } from "mathjax-full/js/a11y/assistive-mml.js";
import "mathjax-full/js/input/tex/base/BaseConfiguration.js";
import "mathjax-full/js/input/tex/ams/AmsConfiguration.js";
import "mathjax-full/js/input/tex/newcommand/NewcommandConfiguration.js";
import "mathjax-full/js/input/tex/boldsymbol/BoldsymbolConfiguration.js";
import { VERSION } from "mathjax-full/js/components/version.js";

const adaptor = liteAdaptor();
AssistiveMmlHandler(RegisterHTMLHandler(adaptor));

// What the site used in the browser (tex-chtml.js): base, ams, newcommand, plus boldsymbol.
// No noundefined/noerrors: an unknown macro or a TeX error is reported, and fails the build.
const PACKAGES = ["base", "ams", "newcommand", "boldsymbol"];

function newDocument() {
  const tex = new TeX({
    packages: PACKAGES,
    formatError: (_jax, err) => {
      throw err;
    },
  });
  const svg = new SVG({ fontCache: "global" });
  return { svg, doc: mathjax.document("", { InputJax: tex, OutputJax: svg }) };
}

// MathJax wraps each MathML node's drawing in a group that only names the node
// (<g data-mml-node="mi">): a quarter of a formula's SVG elements, each one more for the reader's
// browser to parse and style. Such a group draws nothing itself (no transform, no class), so its
// children take its place, and the picture stays the same. The nodes MathJax's stylesheet selects
// keep theirs.
const STYLED = new Set(["maction", "merror", "mtable"]);

function unwrapNamingGroups(node) {
  for (const child of [...adaptor.childNodes(node)]) {
    if (adaptor.kind(child) === "#text") continue;
    unwrapNamingGroups(child);
    const attrs = adaptor.allAttributes(child);
    if (
      adaptor.kind(child) === "g" &&
      attrs.length === 1 &&
      attrs[0].name === "data-mml-node" &&
      !STYLED.has(attrs[0].value)
    ) {
      for (const grandchild of [...adaptor.childNodes(child)]) adaptor.insert(grandchild, child);
      adaptor.remove(child);
    }
  }
  return node;
}

function typesetPage(math) {
  const { svg, doc } = newDocument();
  const html = [];
  const errors = [];
  for (const [tex, display] of math) {
    try {
      html.push(adaptor.outerHTML(unwrapNamingGroups(doc.convert(tex, { display }))));
    } catch (err) {
      html.push("");
      errors.push(`${tex}: ${err.message}`);
    }
  }
  // As MathJax does in a browser (SVG.pageElements): one hidden <svg> holds the page's glyphs.
  const cache = svg.svg("svg", { id: SVG.FONTCACHEID, style: { display: "none" } }, [
    svg.fontCache.getCache(),
  ]);
  return { html, defs: adaptor.outerHTML(cache), errors };
}

const { svg, doc } = newDocument();
const css = adaptor.textContent(svg.styleSheet(doc));
process.stdout.write(JSON.stringify({ version: VERSION, css }) + "\n");

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  let reply;
  try {
    reply = typesetPage(JSON.parse(line).math);
  } catch (err) {
    reply = { error: String(err && err.stack ? err.stack : err) };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
}
