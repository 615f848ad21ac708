// The scale explorer of the Multi-Head Attention page. Ten scores z drawn from a standard
// normal stand for q·k / √d_k at unit variance; the softmax reads s·z. Without the division
// the scores of unit-variance q and k of width d_k spread like √d_k·z, so s = √d_k; with
// it, s = 1 at every d_k. The reader picks d_k among powers of two and whether to divide.
// A second panel plots the size of the softmax's Jacobian against s for the same scores:
// it is not monotone (it rises from the uniform softmax, peaks, then vanishes). What the
// sentence says of s = 32 it reads off the weights there: how many keys hold 90 % of them.
import { argmax, choice, fixed, h, s, softmax, statusLine, strings, uid } from "./common.js";
import { linePlot, plotWidth } from "./plot.js";

const TEXT = {
  en: {
    dk: "head width d_k",
    divide: "divide the scores by √d_k",
    redraw: "New scores",
    spread: (dk, sc, divided) =>
      divided
        ? `d_k = ${dk}, divided by √d_k: s = 1, as at every d_k. `
        : `d_k = ${dk}, not divided: s = √d_k = ${sc}. `,
    stats: (top, ent, jac) =>
      `Largest weight ${top}, entropy ${ent} (at most 2.30, all keys equal), ` +
      `size of the softmax's Jacobian ‖J‖ = ${jac}.`,
    shape: (j0, peak, sPeak, j32, held) =>
      `For these scores ‖J‖ is not monotone in s: ${j0} when all keys are equal (s → 0), ` +
      `up to ${peak} at s = ${sPeak}, then down ` +
      `to ${j32} at s = 32 (d_k = 1024, not divided), where ${held}.`,
    held: (k, share) =>
      k === 1 ? `one key takes ${share} of the weight` : `${k} keys share ${share} of the weight`,
    falls: (j0, j32) =>
      `For these scores ‖J‖ only falls as s grows: ${j0} when all keys are equal (s → 0), ` +
      `${j32} at s = 32. Other scores make it rise first: try new scores.`,
    note: "Bars: the softmax weight of each key. Under each bar, its score z; the softmax reads s·z.",
    tap: "Tap or click a bar for its weight.",
    picked: (i, z, sz, w) => `Key ${i}: score z = ${z}, s·z = ${sz}, weight ${w}.`,
    label: (sc, weights) => `Softmax weights of ten keys at s = ${sc}: ${weights}.`,
    jacLabel: "Size of the softmax's Jacobian, ‖diag(p) − p pᵀ‖, against the scale s.",
    jacAxis: "scale s (log scale)",
    jacCaption:
      "The softmax's Jacobian J = diag(p) − p pᵀ says how much each weight moves when each " +
      "score moves; its size ‖J‖ (Frobenius) against s, for the scores above. The dot is the current s.",
    key: "key",
    weight: "weight",
  },
  zh: {
    dk: "头的宽度 d_k",
    divide: "分数除以 √d_k",
    redraw: "重新抽取分数",
    spread: (dk, sc, divided) =>
      divided
        ? `d_k = ${dk}，除以 √d_k：s = 1，任何 d_k 都一样。`
        : `d_k = ${dk}，不做除法：s = √d_k = ${sc}。`,
    stats: (top, ent, jac) =>
      `最大权重 ${top}，熵 ${ent}（最大为 2.30，即所有键相等时），softmax 雅可比矩阵的大小 ‖J‖ = ${jac}。`,
    shape: (j0, peak, sPeak, j32, held) =>
      `对这组分数，‖J‖ 随 s 并不单调：所有键相等时（s → 0）为 ${j0}，在 s = ${sPeak} 处升到 ${peak}` +
      `，之后在 s = 32（d_k = 1024，不做除法）降到 ${j32}，此时${held}。`,
    held: (k, share) =>
      k === 1 ? `一个键拿走 ${share} 的权重` : `有 ${k} 个键分享 ${share} 的权重`,
    falls: (j0, j32) =>
      `对这组分数，‖J‖ 随 s 增大只下降：所有键相等时（s → 0）为 ${j0}，s = 32 时为 ${j32}。` +
      "换一组分数，它往往先升后降。",
    note: "柱：每个键的 softmax 权重。柱下方是它的分数 z；softmax 读取的是 s·z。",
    tap: "点击或轻触一根柱，可看到它的权重。",
    picked: (i, z, sz, w) => `键 ${i}：分数 z = ${z}，s·z = ${sz}，权重 ${w}。`,
    label: (sc, weights) => `s = ${sc} 时十个键的 softmax 权重：${weights}。`,
    jacLabel: "softmax 雅可比矩阵的大小 ‖diag(p) − p pᵀ‖ 随缩放 s 的变化。",
    jacAxis: "缩放 s（对数刻度）",
    jacCaption:
      "softmax 的雅可比矩阵 J = diag(p) − p pᵀ 说明每个分数变动时每个权重挪动多少；" +
      "图中是它的大小 ‖J‖（Frobenius 范数）随 s 的变化，分数同上。圆点是当前的 s。",
    key: "键",
    weight: "权重",
  },
};

const N_KEYS = 10;
const LOG2_DK = { min: 0, max: 10, start: 6 }; // d_k = 1 … 1024; the paper's d_k = 64 first
const CURVE = { min: -4, max: 5, steps: 180 }; // log2 s for the Jacobian's curve

/** Ten standard normal numbers (Box–Muller on Math.random). */
function draw() {
  return Array.from({ length: N_KEYS }, () => {
    const u = 1 - Math.random();
    const v = Math.random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  });
}

/** Largest weight, entropy and Frobenius norm of diag(p) - p p^T. */
function summary(p) {
  const entropy = -p.reduce((a, v) => a + (v > 0 ? v * Math.log(v) : 0), 0);
  let frob = 0;
  p.forEach((pi, i) =>
    p.forEach((pj, j) => {
      frob += ((i === j ? pi : 0) - pi * pj) ** 2;
    }),
  );
  return { top: Math.max(...p), entropy, jacobian: Math.sqrt(frob) };
}

/** How many of the largest weights hold 90 % of them, and their share. */
function held(p) {
  const sorted = [...p].sort((a, b) => b - a);
  let [k, share] = [0, 0];
  while (share < 0.9) share += sorted[k++];
  return { k, share };
}

/** ‖J‖ at s = 0, its largest value on the curve (and where), and at s = 32, with how many
 * keys hold the weight there. */
function jacobianShape(scores) {
  const at = (sc) => summary(softmax(scores.map((z) => sc * z))).jacobian;
  const logs = Array.from(
    { length: CURVE.steps + 1 },
    (_, i) => CURVE.min + ((CURVE.max - CURVE.min) * i) / CURVE.steps,
  );
  const values = logs.map((l) => at(2 ** l));
  const best = argmax(values);
  const { k, share } = held(softmax(scores.map((z) => 32 * z)));
  return { logs, values, j0: at(0), peak: values[best], sPeak: 2 ** logs[best], j32: at(32), k,
           share };
}

export function mount(root) {
  const t = strings(TEXT);
  const state = { scores: draw(), log2dk: LOG2_DK.start, divided: false, picked: null };
  const id = uid("scale");
  const divideId = uid("scale-divide");
  const statusId = uid("scale-status");
  const slider = h("input", {
    type: "range",
    id,
    min: LOG2_DK.min,
    max: LOG2_DK.max,
    step: 1,
    value: state.log2dk,
    "aria-describedby": statusId,
  });
  const readout = h("output", { for: id, class: "explorer__readout" });
  const divide = h("input", { type: "checkbox", id: divideId, "aria-describedby": statusId });
  const redraw = h("button", { type: "button", text: t.redraw });
  const status = statusLine(statusId);
  const chart = h("div", { class: "explorer__bars" });
  const picked = h("p", { class: "explorer__readout-line", "aria-live": "polite" });
  const curve = h("figure", { class: "explorer__curve" });
  root.replaceChildren(
    h(
      "div",
      { class: "explorer__controls" },
      h(
        "span",
        { class: "explorer__field" },
        h("label", { for: id, text: t.dk }),
        slider,
        readout,
      ),
      choice(divide, t.divide),
      redraw,
    ),
    status,
    chart,
    picked,
    h("p", { class: "explorer__note", text: t.note }),
    curve,
  );

  const dk = () => 2 ** state.log2dk;
  const scale = () => (state.divided ? 1 : Math.sqrt(dk()));
  const weights = () => softmax(state.scores.map((z) => scale() * z));
  const fmt = (v) => (Number.isInteger(v) ? String(v) : fixed(v, 2));

  function bars(p, sc, W) {
    const H = 140;
    const left = 34;
    const step = (W - left - 4) / N_KEYS;
    const bw = Math.min(40, step - 6);
    const svg = s("svg", {
      viewBox: `0 0 ${W} ${H + 48}`,
      role: "img",
      "aria-label": t.label(fmt(sc), p.map((v) => fixed(v)).join(", ")),
      class: "explorer__plot",
    });
    svg.append(s("line", { x1: left, y1: H + 8, x2: W - 4, y2: H + 8, class: "explorer__axis" }));
    for (const [v, label] of [[0, "0"], [0.5, "0.5"], [1, "1"]]) {
      svg.append(s("text", { x: left - 6, y: H + 8 - v * H + 4, "text-anchor": "end",
                             class: "explorer__tick", text: label }));
    }
    p.forEach((w, i) => {
      const x = left + 4 + i * step;
      const bar = s("rect", {
        x,
        y: H + 8 - w * H,
        width: bw,
        height: Math.max(w * H, 0.5),
        class: "explorer__bar",
      });
      bar.append(s("title", { text: `${t.key} ${i}: ${t.weight} ${fixed(w, 3)}` }));
      // The whole column is the target, so that a small bar is easy to tap.
      const hit = s("rect", { x: x - 3, y: 0, width: bw + 6, height: H + 48, "data-key": i,
                              class: "explorer__hit" });
      svg.append(bar, hit);
      const tick = (y, text) =>
        s("text", { x: x + bw / 2, y, "text-anchor": "middle", class: "explorer__tick", text });
      svg.append(tick(H + 26, fixed(state.scores[i], 1)), tick(H + 44, `${i}`));
    });
    return svg;
  }

  let shape = jacobianShape(state.scores);
  let drawnWidth = 0;
  function render() {
    const p = weights();
    const sc = scale();
    readout.textContent = `d_k = ${dk()}, s = ${fmt(sc)}`;
    slider.setAttribute("aria-valuetext", `d_k = ${dk()}`);
    const { top, entropy, jacobian } = summary(p);
    const rises = shape.peak > shape.j0 + 1e-6;
    status.textContent =
      t.spread(dk(), fmt(sc), state.divided) +
      t.stats(fixed(top), fixed(entropy), fixed(jacobian)) +
      " " +
      (rises
        ? t.shape(fixed(shape.j0), fixed(shape.peak), fixed(shape.sPeak, 1), fixed(shape.j32, 3),
                  t.held(shape.k, fixed(shape.share)))
        : t.falls(fixed(shape.j0), fixed(shape.j32, 3)));
    const W = plotWidth(chart);
    drawnWidth = W;
    const barChart = bars(p, sc, W);
    barChart.addEventListener("click", (event) => {
      const hit = event.target.closest("[data-key]");
      if (!hit) return;
      state.picked = Number(hit.dataset.key);
      render();
    });
    chart.replaceChildren(barChart);
    const i = state.picked;
    picked.textContent =
      i === null ? t.tap : t.picked(i, fixed(state.scores[i], 2), fixed(sc * state.scores[i], 2), fixed(p[i], 3));
    const xTicks = [-4, -2, 0, 2, 4].map((l) => [l, l < 0 ? `1/${2 ** -l}` : `${2 ** l}`]);
    const [svg] = linePlot([{ values: shape.values }], {
      W,
      xs: (i) => shape.logs[i],
      xTicks,
      xLabel: t.jacAxis,
      yMin: 0,
      yMax: 0.6,
      label: t.jacLabel,
      marker: { x: Math.log2(sc), y: jacobian, text: `s = ${fmt(sc)}` },
    });
    curve.replaceChildren(svg, h("figcaption", { text: t.jacCaption }));
  }

  slider.addEventListener("input", () => {
    state.log2dk = Number(slider.value);
    render();
  });
  divide.addEventListener("change", () => {
    state.divided = divide.checked;
    render();
  });
  redraw.addEventListener("click", () => use(draw()));
  new ResizeObserver(() => {
    if (Math.abs(plotWidth(chart) - drawnWidth) > 8) render();
  }).observe(chart);
  // For the browser tests: the scores, d_k, the scale and the weights on show, and the
  // Jacobian's curve; use(scores) draws the reader's own scores.
  const use = (scores) => {
    state.scores = [...scores];
    shape = jacobianShape(state.scores);
    render();
  };
  root.explorer = { scores: () => [...state.scores], dk, scale, weights, shape: () => shape, use };
  render();
}
