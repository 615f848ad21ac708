// Helpers shared by the explorers: language, DOM and SVG building, and the numbers they
// share with the encoder package (the sinusoidal table, softmax).

/** "zh" on the Chinese pages (under /zh/), otherwise "en". */
export function language() {
  const lang = document.documentElement.lang || "";
  return lang.startsWith("zh") || /\/zh\//.test(location.pathname) ? "zh" : "en";
}

/** The strings of the page's language from {en: {...}, zh: {...}}. */
export function strings(table) {
  return table[language()];
}

/** fetch(url), failing on an HTTP error as on a network error. */
export async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${new URL(url, location.href).pathname}`);
  return response;
}

let counter = 0;
/** An id unique on the page, for label/aria wiring. */
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** document.createElement with attributes and children (strings or nodes). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  node.append(...children.flat());
  return node;
}

/** A radio button or a checkbox inside its label: the label is the tap target, 24 px tall at
 * least (explorers.css). */
export function choice(input, label) {
  return h("label", { class: "explorer__choice" }, input, h("span", { text: label }));
}

/** A radio button of `group` with its label; onChange runs when it is chosen. */
export function radio(group, value, label, checked, onChange) {
  const el = h("input", { type: "radio", name: group, id: uid(group), value });
  el.checked = checked;
  el.addEventListener("change", onChange);
  return choice(el, label);
}

/** A scrolling box for a wide table: focusable, so that a keyboard scrolls it too. */
export function scroller(label, child) {
  return h("div", { class: "explorer__scroll", tabindex: 0, role: "region", "aria-label": label }, child);
}

/** The line where an explorer says what it shows, or what is wrong with the input. */
export function statusLine(id) {
  return h("p", { id, class: "explorer__status", role: "status", "aria-live": "polite" });
}

const SVG = "http://www.w3.org/2000/svg";
/** An SVG element with attributes and children. */
export function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, String(value));
  }
  node.append(...children.flat());
  return node;
}

/**
 * The (n_positions, d_model) sinusoidal table, as encoder.sinusoidal_table computes it:
 * PE[pos, 2k] = sin(pos * w_k), PE[pos, 2k+1] = cos(pos * w_k), w_k = 10000^(-2k / d_model).
 * Rows are Float64Arrays.
 */
export function sinusoidalTable(nPositions, dModel) {
  const rows = [];
  for (let pos = 0; pos < nPositions; pos += 1) {
    const row = new Float64Array(dModel);
    for (let i = 0; i < dModel; i += 2) {
      const angle = pos * 10000 ** (-i / dModel);
      row[i] = Math.sin(angle);
      if (i + 1 < dModel) row[i + 1] = Math.cos(angle);
    }
    rows.push(row);
  }
  return rows;
}

/** softmax of an array of numbers, computed stably. */
export function softmax(values) {
  const top = Math.max(...values);
  const e = values.map((v) => Math.exp(v - top));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / total);
}

/** Format a number with a fixed number of decimals, in the page's convention. */
export function fixed(value, digits = 2) {
  return Number(value).toFixed(digits);
}

/** The text box of a sequence of digits: edits go to state.text, then to onInput(). */
export function sequenceInput(id, state, describedBy, onInput) {
  const input = h("input", {
    type: "text",
    id,
    value: state.text,
    autocomplete: "off",
    spellcheck: "false",
    inputmode: "numeric",
    "aria-describedby": describedBy,
  });
  input.addEventListener("input", () => {
    state.text = input.value;
    onInput();
  });
  return input;
}
