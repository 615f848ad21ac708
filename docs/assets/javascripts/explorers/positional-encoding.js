// The positional-encoding explorer: the sinusoidal table for the reader's d_model and number
// of positions, as a heat map with its colour scale, chosen columns as curves, and
// PE(p)·PE(p+m) against the offset m. The names are the page's: pos a position, pair k the
// columns 2k (sine) and 2k+1 (cosine), m an offset. The table is computed here by the same
// formula as encoder.sinusoidal_table; the browser tests compare the two.
import { h, s, sinusoidalTable, statusLine, strings, uid } from "./common.js";
import { linePlot, niceTicks, plotWidth } from "./plot.js";

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
    scaleLabel: "Colour scale: blue is -1, white 0, orange +1.",
    curves: "Chosen dimensions against the position pos.",
    curvesLabel: (dims) => `Columns ${dims} of the table, plotted against the position.`,
    dots: (p) => `PE(p)·PE(p+m) against the offset m, for p = 0 and p = ${p}.`,
    dotsLabel: (p, same) =>
      `Dot product of the encodings of positions p and p + m against m, for p = 0 and ` +
      `p = ${p}; ${same ? "the two curves coincide" : "the curves differ"}.`,
    position: "position pos",
    dimension: "dimension (2k: sin, 2k + 1: cos of pair k)",
    offset: "offset m",
    value: "value",
    dim: (i) => `dimension ${i}: ${i % 2 ? "cos" : "sin"} of pair k = ${Math.floor(i / 2)}`,
    badInt: (name, lo, hi) => `${name} must be a whole number from ${lo} to ${hi}.`,
    badDims: (max) => `Dimensions must be whole numbers from 0 to ${max}, at most 4 of them.`,
    clamped: (past, d) =>
      ` Dimension ${past.join(", ")} is past d_model − 1 = ${d - 1}: ${d - 1} is drawn instead.`,
    cleared: " Nothing is drawn until the input is valid.",
    ok: (n, d) =>
      `${n} position${n === 1 ? "" : "s"}, d_model = ${d}: ` +
      (d === 2 ? "1 pair, k = 0." : `${d / 2} pairs k = 0 … ${d / 2 - 1}.`),
    odd: (n, d) =>
      `${n} position${n === 1 ? "" : "s"}, d_model = ${d} (odd: the last column is a sine alone).`,
  },
  zh: {
    dModel: "d_model",
    positions: "位置数",
    dims: "要画的维度",
    from: "偏移曲线的起点位置 p =",
    heat: (n, d) => `编码表：${n} 个位置（行）× ${d} 个维度（列）。`,
    heatLabel: (n, d) =>
      `正弦编码表的热图，${n} 个位置 × ${d} 个维度：左边的列沿行方向快速交替，右边的列变化缓慢。`,
    scaleLabel: "颜色刻度：蓝色为 -1，白色为 0，橙色为 +1。",
    curves: "所选维度随位置 pos 的变化。",
    curvesLabel: (dims) => `编码表的第 ${dims} 列，随位置绘制。`,
    dots: (p) => `PE(p)·PE(p+m) 随偏移 m 的变化，p = 0 与 p = ${p}。`,
    dotsLabel: (p, same) =>
      `位置 p 与 p + m 的编码的点积随 m 的变化，p = 0 与 p = ${p}；` +
      `${same ? "两条曲线重合" : "两条曲线不同"}。`,
    position: "位置 pos",
    dimension: "维度（2k：第 k 对的 sin，2k + 1：cos）",
    offset: "偏移 m",
    value: "值",
    dim: (i) => `第 ${i} 维：第 k = ${Math.floor(i / 2)} 对的 ${i % 2 ? "cos" : "sin"}`,
    badInt: (name, lo, hi) => `${name} 必须是 ${lo} 到 ${hi} 之间的整数。`,
    badDims: (max) => `维度必须是 0 到 ${max} 之间的整数，最多 4 个。`,
    clamped: (past, d) => `维度 ${past.join("、")} 超出 d_model − 1 = ${d - 1}：改画第 ${d - 1} 维。`,
    cleared: "输入有效之前不绘制任何图。",
    ok: (n, d) => `${n} 个位置，d_model = ${d}：${d / 2} 对，k = 0 … ${d / 2 - 1}。`,
    odd: (n, d) => `${n} 个位置，d_model = ${d}（奇数：最后一列只有正弦）。`,
  },
};

const LIMITS = { d: [2, 256], n: [2, 100] };
// The page's table: 64 positions, d_model = 128 (its heat map under "Deeper").
const DEFAULTS = { d: 128, n: 64, dims: [4, 5, 24], p: 10, past: [] };

function integer(text, [lo, hi]) {
  const value = Number(String(text).trim());
  return Number.isInteger(value) && value >= lo && value <= hi ? value : null;
}

/** The heat map, with ticks on both axes and its colour scale beside the axis labels. */
function heatMap(table, t, W) {
  const n = table.length;
  const d = table[0].length;
  const box = { x0: 40, y0: 6, x1: W - 6 };
  const cw = (box.x1 - box.x0) / d;
  const ch = Math.max(2, Math.min(6, 300 / n));
  box.y1 = box.y0 + n * ch;
  const H = box.y1 + 78;
  const svg = s("svg", {
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-label": `${t.heatLabel(n, d)} ${t.scaleLabel}`,
    class: "explorer__plot",
  });
  // The cells: one pixel each on two canvases (the positive values, the negative ones) whose
  // opacity is |value|, used as masks over two rectangles coloured by the stylesheet (so the
  // dark scheme recolours them): 2 image elements, not n·d rectangles.
  const area = { x: box.x0, y: box.y0, width: box.x1 - box.x0, height: box.y1 - box.y0 };
  for (const [sign, cls] of [[1, "explorer__pos"], [-1, "explorer__neg"]]) {
    const canvas = document.createElement("canvas");
    [canvas.width, canvas.height] = [d, n];
    const ctx = canvas.getContext("2d");
    const pixels = ctx.createImageData(d, n);
    table.flatMap((row) => [...row]).forEach((v, j) => {
      pixels.data.fill(255, 4 * j, 4 * j + 3);
      pixels.data[4 * j + 3] = Math.sign(v) === sign ? Math.round(255 * Math.abs(v)) : 0;
    });
    ctx.putImageData(pixels, 0, 0);
    const mask = uid("pe-cells");
    svg.append(
      s("mask", { id: mask }, s("image", { ...area, href: canvas.toDataURL(),
        preserveAspectRatio: "none", style: "image-rendering: pixelated" })),
      s("rect", { ...area, class: cls, mask: `url(#${mask})` }),
    );
  }
  const tick = (attrs, text) => s("text", { class: "explorer__tick", ...attrs, text });
  const mark = (x1, y1, x2, y2) => s("line", { x1, y1, x2, y2, class: "explorer__axis" });
  for (const p of niceTicks(n - 1, 5)) {
    const y = box.y0 + (p + 0.5) * ch;
    svg.append(mark(box.x0 - 4, y, box.x0, y));
    svg.append(tick({ x: box.x0 - 6, y: y + 4, "text-anchor": "end" }, p));
  }
  for (const i of niceTicks(d - 1, W < 400 ? 4 : 8)) {
    const x = box.x0 + (i + 0.5) * cw;
    svg.append(mark(x, box.y1, x, box.y1 + 4));
    svg.append(tick({ x, y: box.y1 + 16, "text-anchor": "middle" }, i));
  }
  svg.append(
    tick({ x: box.x0, y: box.y1 + 32, "text-anchor": "start" }, t.dimension),
    tick(
      { x: 12, y: (box.y0 + box.y1) / 2, "text-anchor": "middle",
        transform: `rotate(-90 12 ${(box.y0 + box.y1) / 2})` },
      t.position,
    ),
  );
  // The colour scale: -1 … 0 … +1, the same opacities as the cells.
  const id = uid("pe-scale");
  const scale = { x0: box.x0, x1: Math.min(box.x1, box.x0 + 220), y: box.y1 + 44, h: 10 };
  svg.append(
    s(
      "defs",
      {},
      s(
        "linearGradient",
        { id },
        s("stop", { offset: "0", class: "explorer__stop-neg", "stop-opacity": 1 }),
        s("stop", { offset: "0.5", class: "explorer__stop-neg", "stop-opacity": 0 }),
        s("stop", { offset: "0.5", class: "explorer__stop-pos", "stop-opacity": 0 }),
        s("stop", { offset: "1", class: "explorer__stop-pos", "stop-opacity": 1 }),
      ),
    ),
    s("rect", {
      x: scale.x0,
      y: scale.y,
      width: scale.x1 - scale.x0,
      height: scale.h,
      fill: `url(#${id})`,
      class: "explorer__colour-scale",
    }),
  );
  [
    [-1, scale.x0],
    [0, (scale.x0 + scale.x1) / 2],
    [1, scale.x1],
  ].forEach(([v, x]) => {
    svg.append(mark(x, scale.y + scale.h, x, scale.y + scale.h + 4));
    svg.append(tick({ x, y: scale.y + scale.h + 17, "text-anchor": "middle" }, v > 0 ? "+1" : v));
  });
  svg.append(tick({ x: scale.x1 + 14, y: scale.y + scale.h, "text-anchor": "start" }, t.value));
  return svg;
}

export function mount(root) {
  const t = strings(TEXT);
  const state = { ...DEFAULTS };
  const statusId = uid("pe-status");
  const field = (label, value, attrs = {}) => {
    const id = uid("pe-field");
    const input = h("input", { id, value, "aria-describedby": statusId, ...attrs });
    return [
      h("span", { class: "explorer__field" }, h("label", { for: id, text: label }), input),
      input,
    ];
  };
  const number = (lo, hi) => ({ type: "number", min: lo, max: hi, step: 1, inputmode: "numeric" });
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

  let table = [];
  let dots = { p0: [], p: [] };

  function read() {
    const d = integer(dInput.value, LIMITS.d);
    const n = integer(nInput.value, LIMITS.n);
    if (d === null) return t.badInt(t.dModel, ...LIMITS.d);
    if (n === null) return t.badInt(t.positions, ...LIMITS.n);
    const p = integer(pInput.value, [0, n - 2]);
    if (p === null) return t.badInt("p", 0, n - 2);
    const words = dimsInput.value.split(/[\s,]+/).filter(Boolean);
    const typed = words.map((w) => integer(w, [0, LIMITS.d[1] - 1]));
    if (!words.length || words.length > 4 || typed.includes(null)) {
      return t.badDims(LIMITS.d[1] - 1);
    }
    // A dimension past the table's last (d_model went down under it) is drawn as the last one,
    // and the status says so: the drawing stays, and the reader's choice comes back with d_model.
    const past = typed.filter((i) => i >= d);
    const dims = [...new Set(typed.map((i) => Math.min(i, d - 1)))];
    Object.assign(state, { d, n, p, dims, past });
    return null;
  }

  let drawnWidth = 0;
  function render() {
    const error = read();
    root.dataset.state = error ? "error" : "ok";
    if (error) {
      // An old drawing beside an error would show numbers that no longer match the input.
      status.textContent = error + t.cleared;
      panels.replaceChildren();
      table = [];
      dots = { p0: [], p: [] };
      return;
    }
    const { d, n, p, dims, past } = state;
    const clamped = past.length ? t.clamped(past, d) : "";
    status.textContent = (d % 2 ? t.odd(n, d) : t.ok(n, d)) + clamped;
    table = sinusoidalTable(n, d);
    const dot = (a, b) => table[a].reduce((acc, v, i) => acc + v * table[b][i], 0);
    const span = n - 1 - p; // offsets m with p + m < n
    dots = {
      p0: Array.from({ length: span + 1 }, (_, m) => dot(0, m)),
      p: Array.from({ length: span + 1 }, (_, m) => dot(p, p + m)),
    };
    const same = dots.p.every((v, m) => Math.abs(v - dots.p0[m]) < 1e-9);
    const W = plotWidth(panels);
    drawnWidth = W;
    const [curves, curvesKey] = linePlot(
      dims.map((i) => ({ values: table.map((row) => row[i]), name: t.dim(i) })),
      { W, xLabel: t.position, yMin: -1, yMax: 1, label: t.curvesLabel(dims.join(", ")) },
    );
    const [offsets, offsetsKey] = linePlot(
      [
        { values: dots.p0, name: "p = 0" },
        { values: dots.p, name: `p = ${p}`, style: "explorer__line--dashed" },
      ],
      { W, xLabel: t.offset, yMin: -d / 2, yMax: d / 2, label: t.dotsLabel(p, same) },
    );
    panels.replaceChildren(
      h("figure", {}, heatMap(table, t, W), h("figcaption", { text: t.heat(n, d) })),
      h("figure", {}, curves, curvesKey, h("figcaption", { text: t.curves })),
      h("figure", {}, offsets, offsetsKey, h("figcaption", { text: t.dots(p) })),
    );
  }

  for (const input of [dInput, nInput, dimsInput, pInput]) input.addEventListener("input", render);
  // Drawn at the panel's width in CSS pixels, so that its text keeps its size: again on resize.
  new ResizeObserver(() => {
    if (root.dataset.state === "ok" && Math.abs(plotWidth(panels) - drawnWidth) > 8) render();
  }).observe(panels);
  // For the browser tests: the table and dot products on show.
  root.explorer = {
    table: () => table.map((row) => Array.from(row)),
    dots: () => dots,
    state: () => ({ ...state }),
  };
  render();
}
