// Notebook cells (mkdocs-jupyter) that scroll sideways can be reached and scrolled by keyboard,
// as Material does for its own code blocks (axe-core: scrollable-region-focusable).
document$.subscribe(() => {
  for (const el of document.querySelectorAll(".jupyter-wrapper .highlight-ipynb, .jupyter-wrapper pre")) {
    if (el.scrollWidth > el.clientWidth && el.tabIndex < 0) el.tabIndex = 0;
  }
});
