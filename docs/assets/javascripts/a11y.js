// Display formulas and notebook cells (mkdocs-jupyter) that scroll sideways can be reached and
// scrolled by keyboard, as Material does for its own code blocks (axe-core:
// scrollable-region-focusable). Measured whenever their box changes size: when a block drawn
// only near the viewport (content-visibility in extra.css) is drawn, and when the screen turns.
const scrolling =
  "div.arithmatex, .jupyter-wrapper :is(.highlight-ipynb, pre, mjx-container[display])";
const sized = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    if (target.scrollWidth > target.clientWidth && target.tabIndex < 0) target.tabIndex = 0;
  }
});
document$.subscribe(() => {
  sized.disconnect();
  for (const el of document.querySelectorAll(scrolling)) sized.observe(el);
});

// Material puts each code block's copy button in an unnamed <nav>, added when the block scrolls
// into view: a screen reader's list of landmarks fills with navigation regions of no name
// (axe-core: landmark-unique). They are no landmarks: role none.
new MutationObserver((records) => {
  for (const { addedNodes } of records) {
    for (const node of addedNodes) {
      if (node.classList?.contains("md-code__nav")) node.setAttribute("role", "none");
    }
  }
}).observe(document.body, { childList: true, subtree: true });

// Material's search dialog has no name (axe-core: aria-dialog-name): it takes its field's.
const search = document.querySelector(".md-search[role=dialog]");
search?.setAttribute("aria-label", search.querySelector("input")?.placeholder ?? "Search");
