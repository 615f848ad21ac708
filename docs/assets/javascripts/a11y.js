// Display formulas, tables, tab labels, printed outputs and notebook cells (mkdocs-jupyter) that
// scroll sideways can be reached and scrolled by keyboard, as Material does for its own code
// blocks on a screen with hover (axe-core: scrollable-region-focusable). A box is measured when
// its size changes: when the screen turns, and when it is drawn (a block past the first screen is
// drawn only near the viewport, content-visibility in extra.css, and measures as not scrolling
// until then). On a touch screen Material takes a code block's tabindex away when it shows the
// block: a printed output that scrolls gets it back (below).
const scrolling = [
  "div.arithmatex, .md-typeset__scrollwrap, .tabbed-labels, .language-text pre > code",
  ".jupyter-wrapper :is(.highlight-ipynb, pre, mjx-container[display])",
].join(", ");
const reach = (el) => {
  if (el.matches(scrolling) && el.scrollWidth > el.clientWidth && el.tabIndex < 0) {
    el.tabIndex = 0;
  }
};
// A box and what it holds are watched: a box drawn late may keep its size, what it holds not.
const sized = new ResizeObserver((entries) => {
  for (const { target } of entries) reach(target.closest(scrolling));
});
document$.subscribe(() => {
  sized.disconnect();
  for (const el of document.querySelectorAll(scrolling)) {
    sized.observe(el);
    if (el.firstElementChild) sized.observe(el.firstElementChild);
  }
});

// Material puts each code block's copy button in an unnamed <nav>, added when the block scrolls
// into view: a screen reader's list of landmarks fills with navigation regions of no name
// (axe-core: landmark-unique). They are no landmarks: role none. The same watch gives back the
// tabindex Material takes away (above).
new MutationObserver((records) => {
  for (const { addedNodes, target, type } of records) {
    if (type === "attributes") reach(target); // a tabindex taken away
    for (const node of addedNodes) {
      if (node.classList?.contains("md-code__nav")) node.setAttribute("role", "none");
    }
  }
}).observe(document.body, {
  childList: true, subtree: true, attributes: true, attributeFilter: ["tabindex"],
});

// Material's search dialog has no name (axe-core: aria-dialog-name): it takes its field's.
const search = document.querySelector(".md-search[role=dialog]");
search?.setAttribute("aria-label", search.querySelector("input")?.placeholder ?? "Search");
