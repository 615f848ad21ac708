// The light/dark toggle in the header (overrides/partials/palette.html), in place of Material's
// palette component. Material's component, mounted at load, restyles every element of the page
// three times before the reader does anything: it marks <body> as switching (a rule of the
// theme then matches every element), adds a color-scheme <meta> (the browser restyles the whole
// page for that too) and reads the header's computed style between them. On a long page that is
// most of the load's blocking time (Lighthouse; scripts/lighthouse.py). This does what the
// component does: the chosen scheme on <body>, the toggle that offers the other one, the choice
// kept in localStorage with Material's __md_get/__md_set (the theme's inline script applies it
// on the next page before it is drawn), Enter on the toggle, and the browser's colour-scheme and
// theme-colour <meta> from the header's colours; at load it only shows the right toggle.
// (Material's "(prefers-color-scheme)" automatic option is not handled: mkdocs.yml has none.)
(() => {
  const form = document.querySelector("form[data-palette]");
  if (form === null) return;
  const inputs = [...form.querySelectorAll("input")];
  const body = document.body;

  const colorOf = (input) =>
    Object.fromEntries(
      ["media", "scheme", "primary", "accent"].map((k) => [
        k,
        input.getAttribute(`data-md-color-${k}`),
      ]),
    );

  function setMeta(name, content) {
    let meta = document.head.querySelector(`meta[name="${name}"]`);
    if (meta === null) {
      meta = document.createElement("meta");
      meta.name = name;
      document.head.append(meta);
    }
    if (meta.content !== content) meta.content = content;
  }

  // As Material: the browser's scrollbars and bars in the scheme's colours. A color-scheme
  // <meta> restyles the whole page, so a light page, already light by default, gets none.
  function browserColours() {
    const style = getComputedStyle(document.querySelector("[data-md-component=header]"));
    if (style.colorScheme !== "light" || document.head.querySelector("meta[name=color-scheme]")) {
      setMeta("color-scheme", style.colorScheme);
    }
    const rgb = style.backgroundColor.match(/\d+/g).slice(0, 3);
    setMeta("theme-color", `#${rgb.map((c) => (+c).toString(16).padStart(2, "0")).join("")}`);
  }

  let current = 0;
  function apply(index) {
    current = index;
    const color = colorOf(inputs[index]);
    const changed = Object.entries(color).filter(
      ([k, v]) => body.getAttribute(`data-md-color-${k}`) !== v,
    );
    // (data-md-color-media alone, which no style reads, is set without restyling anything)
    if (changed.some(([k]) => k !== "media")) {
      body.setAttribute("data-md-color-switching", ""); // the theme's: no transitions meanwhile
      setTimeout(() => body.removeAttribute("data-md-color-switching"));
    }
    for (const [k, v] of changed) body.setAttribute(`data-md-color-${k}`, v);
    inputs.forEach((input, i) => {
      const label = input.nextElementSibling;
      if (label instanceof HTMLElement) label.hidden = i !== index;
    });
    __md_set("__palette", { index, color });
  }

  const stored = __md_get("__palette");
  const index = stored
    ? stored.index
    : inputs.findIndex((input) => matchMedia(input.getAttribute("data-md-color-media")).matches);
  apply(Math.max(0, Math.min(index, inputs.length - 1)));
  (window.requestIdleCallback || setTimeout)(browserColours);

  inputs.forEach((input, i) =>
    input.addEventListener("change", () => {
      if (!input.checked) return;
      apply(i);
      browserColours();
    }),
  );
  form.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter") return;
    const next = inputs[(current + 1) % inputs.length];
    next.click();
    next.focus();
  });

  // Named as Material names it only now, after the theme's bundle has collected its components
  // (it would mount its own palette on this form); the browser tests find the toggle so.
  form.setAttribute("data-md-component", "palette");
})();
