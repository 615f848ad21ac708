// MathJax 3 in Node: TeX in, MathJax's SVG output (with assistive MathML) out. Started once
// by docs_build/mathjax.py and fed one page at a time. Protocol, one JSON object per line:
//   in     {"math": [["TeX", display], ...]}
//   out    {"html": ["<mjx-container ...>", ...], "defs": "<svg ...><defs>...</defs></svg>",
//           "errors": ["TeX: message", ...]}; for no formulas, {"css": "<the SVG stylesheet>"}
// A page's formulas share one font cache (its glyphs are defined once, in "defs", and used by
// reference), so "defs" must be on the page with them.
import readline from "node:readline";

import { init } from "mathjax-full/es5/node-main.js";

// MathJax's own setup for Node (its components, as in a browser), with what the site used in the
// browser (tex-chtml.js): base, ams, newcommand, plus boldsymbol. No noundefined/noerrors: an
// unknown macro or a TeX error is reported, and fails the build.
const MathJax = await init({
  loader: {
    load: ["input/tex-base", "[tex]/ams", "[tex]/newcommand", "[tex]/boldsymbol", "output/svg",
      "a11y/assistive-mml"],
  },
  tex: {
    packages: ["base", "ams", "newcommand", "boldsymbol"],
    formatError: (_jax, err) => {
      throw err;
    },
  },
  svg: { fontCache: "global" },
});
const { adaptor } = MathJax.startup;

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
    const [attr, ...more] = adaptor.allAttributes(child);
    const naming = attr?.name === "data-mml-node" && !more.length && !STYLED.has(attr.value);
    if (adaptor.kind(child) === "g" && naming) {
      for (const grandchild of [...adaptor.childNodes(child)]) adaptor.insert(grandchild, child);
      adaptor.remove(child);
    }
  }
  return node;
}

function typesetPage(math) {
  MathJax.startup.getComponents(); // a fresh document: no glyph nor macro of another page
  const { output: svg, document: doc } = MathJax.startup;
  if (!math.length) return { css: adaptor.textContent(svg.styleSheet(doc)) };
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
  // What MathJax adds to a page in a browser: one hidden <svg> that holds the page's glyphs.
  return { html, defs: adaptor.outerHTML(svg.pageElements(doc)), errors };
}

// Anything but a TeX error ends the process, its stack on stderr: mathjax.py raises.
for await (const line of readline.createInterface({ input: process.stdin })) {
  process.stdout.write(JSON.stringify(typesetPage(JSON.parse(line).math)) + "\n");
}
