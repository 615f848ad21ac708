// The positional-encoding explorer: the sinusoidal table for the reader's d_model and number
// of positions, as a heat map, chosen columns as curves, and PE(p)·PE(p+k) against the offset
// k. The table is computed here by the same formula as encoder.sinusoidal_table; the browser
// tests compare the two.
import { fixed, h, s, sinusoidalTable, statusLine, strings, uid } from "./common.js";

const TEXT = {
  en: {
    dModel: "d_model",
    positions: "positions",
    dims: "dimensions to plot",
    from: "offset curve from position p =",
    heat: (n, d) => `The table: ${n} positions (rows) by ${d} dimensions (columns).`,
    heatLabel: (n, d) =>
      `Heat map of the sinusoidal table, ${n} positions by ${d} dimensions: ` +
      "the left columns alternate quickly down the rows, the right ones slowly.",
    curves: "Chosen dimensions against position.",
    curvesLabel: (dims) => `Columns ${dims} of the table, plotted against position.`,
    dots: (p) => `PE(p)·PE(p+k) against the offset k, for p = 0 and p = ${p}.`,
    dotsLabel: (p, same) =>
      `Dot product of the encodings of positions p and p + k against k, for p = 0 and ` +
      `p = ${p}; ${same ? "the two curves coincide" : "the curves differ"}.`,
    position: "position",
    offset: "offset k",
    dim: (i) => `dimension ${i} (${i % 2 ? "cos" : "sin"})`,
    badInt: (name, lo, hi) => `${name} must be a whole number from ${lo} to ${hi}.`,
    badDims: (d) => `Dimensions must be whole numbers from 0 to ${d - 1}, at most 4 of them.`,
    ok: (n, d) => `${n} positions, d_model = ${d}.`,
  },
  zh: {
    dModel: "d_model",
    positions: "位置数",
    dims: "要画的维度",
    from: "偏移曲线的起点位置 p =",
    heat: (n, d) => `编码表：${n} 个位置（行）× ${d} 个维度（列）。`,
    heatLabel: (n, d) =>
      `正弦编码表的热图，${n} 个位置 × ${d} 个维度：左边的列沿行方向快速交替，右边的列变化缓慢。`,
    curves: "所选维度随位置的变化。",
    curvesLabel: (dims) => `编码表的第 ${dims} 列，随位置绘制。`,
    dots: (p) => `PE(p)·PE(p+k) 随偏移 k 的变化，p = 0 与 p = ${p}。`,
    dotsLabel: (p, same) =>
      `位置 p 与 p + k 的编码的点积随 k 的变化，p = 0 与 p = ${p}；` +
      `${same ? "两条曲线重合" : "两条曲线不同"}。`,
    position: "位置",
    offset: "偏移 k",
    dim: (i) => `第 ${i} 维（${i % 2 ? "cos" : "sin"}）`,
    badInt: (name, lo, hi) => `${name} 必须是 ${lo} 到 ${hi} 之间的整数。`,
    badDims: (d) => `维度必须是 0 到 ${d - 1} 之间的整数，最多 4 个。`,
    ok: (n, d) => `${n} 个位置，d_model = ${d}。`,
  },
};

const LIMITS = { d: [2, 128], n: [2, 100] };
const W = 560; // drawing width in SVG units

function integer(text, [lo, hi]) {
  const value = Number(text.trim());
  return Number.isInteger(value) && value >= lo && value <= hi ? value : null;
}

function axes(svg, box, xLabel, yTicks) {
  const { x0, y0, x1, y1 } = box;
  svg.append(s("line", { x1: x0, y1: y1, x2: x1, y2: y1, class: "explorer__axis" }));
  svg.append(s("line", { x1: x0, y1: y0, x2: x0, y2: y1, class: "explorer__axis" }));
  svg.append(
    s("text", {
      x: (x0 + x1) / 2,
      y: y1 + 24,
      "text-anchor": "middle",
      class: "explorer__tick",
      text: xLabel,
    }),
  );
  for (const [value, y] of yTicks) {
    svg.append(
      s("text", {
        x: x0 - 4,
        y: y + 3,
        "text-anchor": "end",
        class: "explorer__tick",
        text: value,
      }),
    );
  }
}

function heatMap(table, t) {
  const n = table.length;
  const d = table[0].length;
  const cw = W / d;
  const ch = Math.max(2, Math.min(8, 320 / n));
  const svg = s("svg", {
    viewBox: `0 0 ${W} ${n * ch}`,
    role: "img",
    "aria-label": t.heatLabel(n, d),
    class: "explorer__plot",
    preserveAspectRatio: "none",
  });
  table.forEach((row, p) =>
    row.forEach((v, i) => {
      svg.append(
        s("rect", {
          x: fixed(i * cw, 2),
          y: fixed(p * ch, 2),
          width: fixed(cw + 0.05, 2),
          height: fixed(ch + 0.05, 2),
          class: v >= 0 ? "explorer__pos" : "explorer__neg",
          "fill-opacity": fixed(Math.abs(v), 3),
        }),
      );
    }),
  );
  return svg;
}

function linePlot(series, { xLabel, yMin, yMax, label, xMax }) {
  const box = { x0: 44, y0: 8, x1: W - 8, y1: 168 };
  const svg = s("svg", {
    viewBox: `0 0 ${W} 200`,
    role: "img",
    "aria-label": label,
    class: "explorer__plot",
  });
  const X = (x) => box.x0 + (x / Math.max(1, xMax)) * (box.x1 - box.x0);
  const Y = (y) => box.y1 - ((y - yMin) / (yMax - yMin)) * (box.y1 - box.y0);
  axes(svg, box, xLabel, [
    [fixed(yMax, 0), Y(yMax)],
    [fixed((yMin + yMax) / 2, yMin + yMax ? 1 : 0), Y((yMin + yMax) / 2)],
    [fixed(yMin, 0), Y(yMin)],
  ]);
  const legend = h("ul", { class: "explorer__key" });
  series.forEach(({ values, name, style }, j) => {
    const points = values.map((v, x) => `${fixed(X(x), 1)},${fixed(Y(v), 1)}`).join(" ");
    svg.append(
      s("polyline", { points, class: `explorer__line explorer__line--${j} ${style || ""}` }),
    );
    legend.append(h("li", { class: `explorer__swatch--${j}`, text: name }));
  });
  return [svg, legend];
}

export function mount(root) {
  const t = strings(TEXT);
  const state = { d: 64, n: 50, dims: [4, 5, 24], p: 10 };
  const statusId = uid("pe-status");
  const field = (label, value, attrs = {}) => {
    const id = uid("pe-field");
    const input = h("input", { id, value, "aria-describedby": statusId, ...attrs });
    return [
      h("span", { class: "explorer__field" }, h("label", { for: id, text: label }), input),
      input,
    ];
  };
  const number = (lo, hi, step = 1) => ({
    type: "number",
    min: lo,
    max: hi,
    step,
    inputmode: "numeric",
  });
  const [dField, dInput] = field(t.dModel, state.d, number(...LIMITS.d));
  const [nField, nInput] = field(t.positions, state.n, number(...LIMITS.n));
  const [dimsField, dimsInput] = field(t.dims, state.dims.join(" "), {
    type: "text",
    autocomplete: "off",
  });
  const [pField, pInput] = field(t.from, state.p, number(0, LIMITS.n[1] - 2));
  const status = statusLine(statusId);
  const panels = h("div", { class: "explorer__panels" });
  root.replaceChildren(
    h("div", { class: "explorer__controls" }, dField, nField, dimsField, pField),
    status,
    panels,
  );

  let table = sinusoidalTable(state.n, state.d);
  let dots = { p0: [], p: [] };

  function read() {
    const d = integer(dInput.value, LIMITS.d);
    const n = integer(nInput.value, LIMITS.n);
    if (d === null) return t.badInt(t.dModel, ...LIMITS.d);
    if (n === null) return t.badInt(t.positions, ...LIMITS.n);
    const p = integer(pInput.value, [0, n - 2]);
    if (p === null) return t.badInt("p", 0, n - 2);
    const words = dimsInput.value.split(/[\s,]+/).filter(Boolean);
    const dims = words.map((w) => integer(w, [0, d - 1]));
    if (!words.length || words.length > 4 || dims.includes(null)) return t.badDims(d);
    Object.assign(state, { d, n, p, dims });
    return null;
  }

  function render() {
    const error = read();
    root.dataset.state = error ? "error" : "ok";
    if (error) {
      status.textContent = error;
      return; // the last valid drawing stays
    }
    status.textContent = t.ok(state.n, state.d);
    const { d, n, p, dims } = state;
    table = sinusoidalTable(n, d);
    const dot = (a, b) => table[a].reduce((acc, v, i) => acc + v * table[b][i], 0);
    const span = n - 1 - p; // offsets k with p + k < n
    dots = {
      p0: Array.from({ length: span + 1 }, (_, k) => dot(0, k)),
      p: Array.from({ length: span + 1 }, (_, k) => dot(p, p + k)),
    };
    const same = dots.p.every((v, k) => Math.abs(v - dots.p0[k]) < 1e-9);
    const [curves, curvesKey] = linePlot(
      dims.map((i) => ({ values: table.map((row) => row[i]), name: t.dim(i) })),
      { xLabel: t.position, yMin: -1, yMax: 1, label: t.curvesLabel(dims.join(", ")), xMax: n - 1 },
    );
    const [offsets, offsetsKey] = linePlot(
      [
        { values: dots.p0, name: "p = 0" },
        { values: dots.p, name: `p = ${p}`, style: "explorer__line--dashed" },
      ],
      { xLabel: t.offset, yMin: -d / 2, yMax: d / 2, label: t.dotsLabel(p, same), xMax: span },
    );
    panels.replaceChildren(
      h("figure", {}, heatMap(table, t), h("figcaption", { text: t.heat(n, d) })),
      h("figure", {}, curves, curvesKey, h("figcaption", { text: t.curves })),
      h("figure", {}, offsets, offsetsKey, h("figcaption", { text: t.dots(p) })),
    );
  }

  for (const input of [dInput, nInput, dimsInput, pInput]) input.addEventListener("input", render);
  // For the browser tests: the table and dot products on show.
  root.explorer = {
    table: () => table.map((row) => Array.from(row)),
    dots: () => dots,
    state: () => ({ ...state }),
  };
  render();
}
