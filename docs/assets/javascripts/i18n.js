// The language switcher lands on the same page in the other language.
//
// docs_build/i18n.py renders each switcher link (.md-select__link[hreflang]) with the
// counterpart of the page it is built for, and with data-i18n-root, the home of its language
// ("/" or "/zh/"). Material's instant navigation swaps the page without re-rendering the
// header, so the links are recomputed from the location on every page change (document$),
// and again on click, to keep the section the reader is at (#anchor: both languages share
// heading ids). A link into the other language loads that page in full: its interface
// language, search and <html lang> are those of the other edition.
(() => {
  const switcher = () => document.querySelectorAll("a.md-select__link[data-i18n-root]");
  const roots = () => [...switcher()].map((a) => a.dataset.i18nRoot)
    .sort((a, b) => b.length - a.length);  // longest first: "/zh/" before "/"

  // The language home a path is under, and the path below it.
  const split = (path) => {
    const root = roots().find((r) => path.startsWith(r));
    return root === undefined ? null : { root, rest: path.slice(root.length) };
  };

  const update = () => {
    const here = split(location.pathname);
    if (here === null) return;
    for (const a of switcher()) a.href = a.dataset.i18nRoot + here.rest + location.hash;
  };

  document$.subscribe(update);

  // Capture phase: runs before Material's instant navigation, which listens on <body>.
  document.addEventListener("click", (ev) => {
    const a = ev.target instanceof Element ? ev.target.closest("a[href]") : null;
    if (a === null || ev.metaKey || ev.ctrlKey || ev.shiftKey || a.target) return;
    if (a.matches("a.md-select__link[data-i18n-root]")) update();
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin) return;
    const here = split(location.pathname);
    const there = split(url.pathname);
    if (here !== null && there !== null && here.root !== there.root) {
      ev.stopPropagation();  // not instant: a full load of the other edition
    }
  }, true);
})();
