// Helpers shared by the explorers: the page's strings, the site's files, DOM and SVG building,
// and the numbers they share with the encoder package (the sinusoidal table, softmax, argmax).
import { language } from "../explorers.js";

/** The strings of the page's language from {en: {...}, zh: {...}}, after those of `shared`
 * (strings several explorers say, in the same form). */
export function strings(table, shared = {}) {
  return { ...shared[language()], ...table[language()] };
}

// The site's root, this module being at assets/javascripts/explorers/.
const SITE_ROOT = new URL("../../../", import.meta.url);
/** The URL of a site file the page names (data-model, data-run, …): a path from the site's root. */
export const siteFile = (path) => new URL(path, SITE_ROOT);

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

/** The index of the largest of `values` (the first, if several are). */
export function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i += 1) if (values[i] > values[best]) best = i;
  return best;
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
