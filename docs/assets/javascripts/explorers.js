// The site's interactive explorers: every element with data-explorer="NAME" gets the module
// explorers/NAME.js, which exports mount(element). Modules and their stylesheet load only on
// pages that have an explorer (document$ also covers Material's instant navigation, if on).
// An explorer is claimed at once (data-mounted) but loaded and drawn only when it comes near
// the viewport: drawing one (a model's forward pass, a dozen plots) is main-thread
// work that a page load should not pay for a widget below the fold (Lighthouse's blocking time).
// An ES module (mkdocs.yml), which the explorers import the page's language from.
const here = new URL(".", import.meta.url);
const STYLE_ID = "explorers-stylesheet";

/** "zh" on the Chinese pages (under /zh/), otherwise "en". */
export function language() {
  const lang = document.documentElement.lang || "";
  return lang.startsWith("zh") || /\/zh\//.test(location.pathname) ? "zh" : "en";
}

const FAILED = {
  en: (error) => `The explorer could not start: ${error}`,
  zh: (error) => `探索器无法启动：${error}`,
};

function addStylesheet() {
  if (document.getElementById(STYLE_ID)) return;
  const link = document.createElement("link");
  link.id = STYLE_ID;
  link.rel = "stylesheet";
  link.href = new URL("../stylesheets/explorers.css", here).href;
  document.head.append(link);
}

function load(element) {
  addStylesheet();
  const module = new URL(`explorers/${element.dataset.explorer}.js`, here).href;
  import(module)
    .then((m) => m.mount(element))
    .catch((error) => {
      element.textContent = FAILED[language()](error);
      console.error(error);
    });
}

// Half a screen ahead of the reader: drawn by the time it scrolls into view, and not at load
// when it sits two screens down (the Chinese Attention page's, measured by Lighthouse).
const near = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      near.unobserve(entry.target);
      load(entry.target);
    }
  },
  { rootMargin: "50% 0px" },
);

function mountAll() {
  for (const element of document.querySelectorAll("[data-explorer]:not([data-mounted])")) {
    element.dataset.mounted = "";
    near.observe(element);
  }
}

if (window.document$) window.document$.subscribe(mountAll);
else document.addEventListener("DOMContentLoaded", mountAll);
