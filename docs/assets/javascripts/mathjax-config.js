// MathJax 3, vendored in assets/vendor/mathjax (no CDN).
// arithmatex (generic) wraps page math in .arithmatex with \( \) and \[ \] delimiters;
// notebook pages (mkdocs-jupyter) leave raw $...$ inside .jp-RenderedMarkdown.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"], ["$", "$"]],
    displayMath: [["\\[", "\\]"], ["$$", "$$"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".+",
    processHtmlClass: "arithmatex|jp-RenderedMarkdown",
  },
  chtml: {
    fontURL: new URL("../vendor/mathjax/output/chtml/fonts/woff-v2", document.currentScript.src).href,
  },
};

// Material's instant navigation swaps the page body without reloading scripts, so the new
// page must be typeset again. The first emission of document$ fires right after MathJax's
// own first typeset: re-typesetting then leaves that page's formulas blank, so skip it.
let firstPage = true;
document$.subscribe(() => {
  if (firstPage) {
    firstPage = false;
    return;
  }
  MathJax.startup.output.clearCache();
  MathJax.typesetClear();
  MathJax.texReset();
  MathJax.typesetPromise();
});
