// The site's interactive explorers: every element with data-explorer="NAME" gets the module
// explorers/NAME.js, which exports mount(element). Modules and their stylesheet load only on
// pages that have an explorer, and again after each of Material's instant navigations.
(() => {
  const here = new URL(".", document.currentScript.src);
  const STYLE_ID = "explorers-stylesheet";

  function addStylesheet() {
    if (document.getElementById(STYLE_ID)) return;
    const link = document.createElement("link");
    link.id = STYLE_ID;
    link.rel = "stylesheet";
    link.href = new URL("../stylesheets/explorers.css", here).href;
    document.head.append(link);
  }

  function mountAll() {
    const found = document.querySelectorAll("[data-explorer]:not([data-mounted])");
    if (found.length) addStylesheet();
    for (const element of found) {
      element.dataset.mounted = "";
      const module = new URL(`explorers/${element.dataset.explorer}.js`, here).href;
      import(module)
        .then((m) => m.mount(element))
        .catch((error) => {
          element.textContent = `The explorer could not start: ${error}`;
          console.error(error);
        });
    }
  }

  if (window.document$) window.document$.subscribe(mountAll);
  else document.addEventListener("DOMContentLoaded", mountAll);
})();
