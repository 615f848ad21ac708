// The scale explorer of the Multi-Head Attention page: ten attention scores drawn from a
// standard normal, multiplied by a scale s that the reader slides, and their softmax. Unscaled
// dot products of unit-variance vectors of width d_k have standard deviation sqrt(d_k), so s
// plays the role of sqrt(d_k) when the scores are not divided by it; dividing brings s back
// to 1.
import { fixed, h, s, softmax, statusLine, strings, uid } from "./common.js";

const TEXT = {
  en: {
    scale: "score scale s",
    redraw: "New scores",
    spread: (sc, dk) =>
      dk === null
        ? `s = ${sc}: softer than the scaled scores (s = 1). `
        : `s = ${sc}: how far unscaled q·k scores spread at d_k = ${dk}; ` +
          "divided by √d_k, they have s = 1 at every d_k. ",
    stats: (top, ent, jac) =>
      `Largest weight ${top}, entropy ${ent} (at most 2.30, all keys equal), ` +
      `size of the softmax's Jacobian ${jac}.`,
    note: "Bars: the softmax weight of each key. Under each bar, its score z; the softmax reads s·z.",
    label: (sc, weights) => `Softmax weights of ten keys at scale ${sc}: ${weights}.`,
    key: "key",
    weight: "weight",
  },
  zh: {
    scale: "分数缩放 s",
    redraw: "重新抽取分数",
    spread: (sc, dk) =>
      dk === null
        ? `s = ${sc}：比缩放后的分数（s = 1）更平缓。`
        : `s = ${sc}：相当于 d_k = ${dk} 时不做除法的 q·k 的离散程度；做了除法，任何 d_k 下 s 都是 1。`,
    stats: (top, ent, jac) =>
      `最大权重 ${top}，熵 ${ent}（最大为 2.30，即所有键相等时），softmax 雅可比矩阵的大小 ${jac}。`,
    note: "柱：每个键的 softmax 权重。柱下方是它的分数 z；softmax 读取的是 s·z。",
    label: (sc, weights) => `缩放为 ${sc} 时十个键的 softmax 权重：${weights}。`,
    key: "键",
    weight: "权重",
  },
};

const N_KEYS = 10;
const SLIDER = { min: -2, max: 5, step: 0.05 }; // log2 of the scale: 0.25 to 32

/** Ten standard normal numbers (Box–Muller on Math.random). */
function draw() {
  return Array.from({ length: N_KEYS }, () => {
    const u = 1 - Math.random();
    const v = Math.random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  });
}

/** Largest weight, entropy and Frobenius norm of diag(p) - p p^T. */
export function summary(p) {
  const entropy = -p.reduce((a, v) => a + (v > 0 ? v * Math.log(v) : 0), 0);
  let frob = 0;
  p.forEach((pi, i) =>
    p.forEach((pj, j) => {
      frob += ((i === j ? pi : 0) - pi * pj) ** 2;
    }),
  );
  return { top: Math.max(...p), entropy, jacobian: Math.sqrt(frob) };
}

export function mount(root) {
  const t = strings(TEXT);
  const state = { scores: draw(), log2: 0 };
  const id = uid("scale");
  const statusId = uid("scale-status");
  const slider = h("input", {
    type: "range",
    id,
    min: SLIDER.min,
    max: SLIDER.max,
    step: SLIDER.step,
    value: state.log2,
    "aria-describedby": statusId,
  });
  const readout = h("output", { for: id, class: "explorer__readout" });
  const redraw = h("button", { type: "button", text: t.redraw });
  const status = statusLine(statusId);
  const chart = h("div", { class: "explorer__bars" });
  root.replaceChildren(
    h(
      "div",
      { class: "explorer__controls" },
      h(
        "span",
        { class: "explorer__field" },
        h("label", { for: id, text: t.scale }),
        slider,
        readout,
      ),
      redraw,
    ),
    chart,
    h("p", { class: "explorer__note", text: t.note }),
    status,
  );

  const scale = () => 2 ** state.log2;
  const weights = () => softmax(state.scores.map((z) => scale() * z));

  function render() {
    const p = weights();
    const sc = scale();
    readout.textContent = fixed(sc, 2);
    slider.setAttribute("aria-valuetext", `s = ${fixed(sc, 2)}`);
    const { top, entropy, jacobian } = summary(p);
    const dk = sc >= 1 ? fixed(sc * sc, sc * sc < 10 ? 2 : 0) : null;
    status.textContent =
      t.spread(fixed(sc, 2), dk) + t.stats(fixed(top), fixed(entropy), fixed(jacobian));
    const bw = 40;
    const H = 140;
    const svg = s("svg", {
      viewBox: `0 0 ${N_KEYS * (bw + 8) + 40} ${H + 44}`,
      role: "img",
      "aria-label": t.label(fixed(sc, 2), p.map((v) => fixed(v)).join(", ")),
      class: "explorer__plot",
    });
    svg.append(
      s("line", {
        x1: 36,
        y1: H + 8,
        x2: N_KEYS * (bw + 8) + 36,
        y2: H + 8,
        class: "explorer__axis",
      }),
    );
    for (const [v, label] of [
      [0, "0"],
      [1, "1"],
      [0.5, "0.5"],
    ]) {
      svg.append(
        s("text", {
          x: 30,
          y: H + 8 - v * H + 3,
          "text-anchor": "end",
          class: "explorer__tick",
          text: label,
        }),
      );
    }
    p.forEach((w, i) => {
      const x = 40 + i * (bw + 8);
      const bar = s("rect", {
        x,
        y: H + 8 - w * H,
        width: bw,
        height: Math.max(w * H, 0.5),
        class: "explorer__bar",
      });
      bar.append(s("title", { text: `${t.key} ${i}: ${t.weight} ${fixed(w, 3)}` }));
      svg.append(bar);
      svg.append(
        s("text", {
          x: x + bw / 2,
          y: H + 24,
          "text-anchor": "middle",
          class: "explorer__tick",
          text: fixed(state.scores[i], 1),
        }),
      );
      svg.append(
        s("text", {
          x: x + bw / 2,
          y: H + 40,
          "text-anchor": "middle",
          class: "explorer__tick",
          text: `${t.key} ${i}`,
        }),
      );
    });
    chart.replaceChildren(svg);
  }

  slider.addEventListener("input", () => {
    state.log2 = Number(slider.value);
    render();
  });
  redraw.addEventListener("click", () => {
    state.scores = draw();
    render();
  });
  // For the browser tests: the scores, the scale and the weights on show.
  root.explorer = { scores: () => [...state.scores], scale, weights };
  render();
}
