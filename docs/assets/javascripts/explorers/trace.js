// "Trace one query" (the Attention page's section of that name, and the attention explorer's
// on the Train page): one query through one layer's attention, step by step, with the numbers
// of the explorer's forward pass (model.js: forward().trace), each step linked to its
// formula and its code. The browser tests (test_trace_*) compare the numbers with the
// package's, which the build exports (docs_build/explorers.py: trace).
import { fixed, h, scroller, strings, uid } from "./common.js";

const TEXT = {
  en: {
    readout: (l, hd, q, a, k, b, w) =>
      `Layer ${l}, head ${hd}: query ${q} (token ${a}) → key ${k} (token ${b}): weight ${w}.`,
    readoutRow: (l, hd, q, a) => `Traced: layer ${l}, head ${hd}, query ${q} (token ${a}).`,
    traceTable: "Keys of the traced query: scores and weights, and each key's k and v",
    showKV: "Show each key's k_j and v_j",
    hideKV: "Hide k_j and v_j",
    traceTitle: "Trace one query",
    traceIntro:
      "The real numbers of one query through one layer's attention, computed here with the " +
      "exported weights. Pick the layer, head and query (or tap a cell of a map above).",
    pickLayer: "layer",
    pickHead: "head",
    pickQuery: "query position",
    queryOption: (i, id) => `${i} (token ${id})`,
    pages: { attention: "../attention/", api: "../api/" },
    formula: "formula",
    code: "code",
    colKey: "key j",
    colToken: "token",
    colSoftmax: "softmax w_j",
    stepX: (l, i, id) =>
      `x: what layer ${l}'s attention receives at position ${i} (token ${id}), d_model numbers.`,
    stepQ: (hd, dh) => `q = x W^Q_${hd} + b: head ${hd}'s query, ${dh} numbers.`,
    stepScores: (dh, root) =>
      `For every key j: the score q·k_j, divided by √d_k = √${dh} = ${fixed(root, 3)}, ` +
      "and the softmax over the keys; the button shows each key's k_j and v_j " +
      "(x_j W^K_h + b, x_j W^V_h + b).",
    stepSum: (hd) => `The weighted sum Σ_j w_j v_j: head ${hd}'s output for this query.`,
    stepConcat: (H, hd, from, to) =>
      `Concat: the ${H} heads' outputs side by side, d_model numbers; head ${hd}'s, ` +
      `marked, are columns ${from} to ${to}.`,
    stepOut: "Concat · W^O + b: the attention's output at this position.",
  },
  zh: {
    readout: (l, hd, q, a, k, b, w) =>
      `第 ${l} 层，头 ${hd}：查询 ${q}（token ${a}）→ 键 ${k}（token ${b}）：权重 ${w}。`,
    readoutRow: (l, hd, q, a) => `正在追踪：第 ${l} 层，头 ${hd}，查询 ${q}（token ${a}）。`,
    traceTable: "所追踪查询的各个键：分数与权重，以及每个键的 k 与 v",
    showKV: "显示每个键的 k_j 与 v_j",
    hideKV: "隐藏 k_j 与 v_j",
    traceTitle: "追踪一个查询",
    traceIntro:
      "一个查询穿过一层注意力的真实数字，用导出的权重在这里计算。选择层、头和查询（或点击上面图中的格子）。",
    pickLayer: "层",
    pickHead: "头",
    pickQuery: "查询位置",
    queryOption: (i, id) => `${i}（token ${id}）`,
    pages: { attention: "../attention/", api: "../api/" },
    formula: "公式",
    code: "代码",
    colKey: "键 j",
    colToken: "token",
    colSoftmax: "softmax w_j",
    stepX: (l, i, id) => `x：第 ${l} 层的注意力在位置 ${i}（token ${id}）收到的输入，d_model 个数。`,
    stepQ: (hd, dh) => `q = x W^Q_${hd} + b：头 ${hd} 的查询，${dh} 个数。`,
    stepScores: (dh, root) =>
      `每个键 j：分数 q·k_j，除以 √d_k = √${dh} = ${fixed(root, 3)}，再对所有键做 softmax；` +
      "按钮显示每个键的 k_j 与 v_j（x_j W^K_h + b、x_j W^V_h + b）。",
    stepSum: (hd) => `加权和 Σ_j w_j v_j：头 ${hd} 对这个查询的输出。`,
    stepConcat: (H, hd, from, to) =>
      `Concat：${H} 个头的输出并排，共 d_model 个数；头 ${hd} 的输出（已标出）是第 ${from} 到 ${to} 列。`,
    stepOut: "Concat · W^O + b：注意力在这个位置的输出。",
  },
};

const vector = (values, digits = 2) => values.map((v) => fixed(v, digits)).join(" ");

/** Every step of the picked query through its layer's attention (st: that layer's
 * forward().trace), with links. view.kv: the keys' k_j and v_j shown (a row under each key's,
 * whose numbers wrap: it fits a phone). */
function steps(st, ids, pick, t, config, view) {
  const { layer: l, head: hd, q: i } = pick;
  const dh = config.d_model / config.n_head;
  const links = (formula, code) =>
    h(
      "span",
      { class: "trace__links" },
      h("a", { href: `${t.pages.attention}#${formula}`, text: t.formula }),
      " · ",
      h("a", { href: `${t.pages.api}#${code}`, text: t.code }),
    );
  const step = (name, title, formula, code, ...body) =>
    h(
      "li",
      { class: "trace__step", "data-step": name },
      h("p", { class: "trace__step-title" }, h("strong", { text: title }), " ", links(formula, code)),
      ...body,
    );
  const line = (label, values, digits) =>
    h("p", { class: "trace__vector" }, h("span", { text: `${label} = ` }), h("code", { text: `[${vector(values, digits)}]` }));
  const kvId = uid("trace-kv");
  const keys = ids.flatMap((id, j) => {
    const picked = j === pick.k ? "trace__picked" : false;
    const numbers = h(
      "tr",
      { class: picked },
      h("th", { scope: "row", text: `${j}` }),
      h("td", { text: `${id}` }),
      h("td", { text: fixed(st.scores[hd][i][j], 3) }),
      h("td", { text: fixed(st.scaled[hd][i][j], 3) }),
      h("td", { text: fixed(st.weights[hd][i][j], 3) }),
    );
    const kv = h(
      "tr",
      { class: ["trace__kv", picked].filter(Boolean).join(" "), "data-key": j, hidden: !view.kv },
      h(
        "td",
        { colspan: 5 },
        h("span", { class: "trace__vector" }, `k_${j} = `, h("code", { "data-kv": "k", text: `[${vector(st.k[hd][j])}]` })),
        " ",
        h("span", { class: "trace__vector" }, `v_${j} = `, h("code", { "data-kv": "v", text: `[${vector(st.v[hd][j])}]` })),
      ),
    );
    return [numbers, kv];
  });
  const head = h(
    "tr",
    {},
    [t.colKey, t.colToken, "q·k_j", `÷ √${dh}`, t.colSoftmax].map((c) => h("th", { scope: "col", text: c })),
  );
  const table = h("table", { id: kvId }, h("thead", {}, head), h("tbody", {}, keys));
  const toggle = h("button", {
    type: "button",
    class: "trace__toggle",
    "aria-controls": kvId,
    "aria-expanded": view.kv ? "true" : "false",
    text: view.kv ? t.hideKV : t.showKV,
  });
  toggle.addEventListener("click", () => {
    view.kv = !view.kv;
    toggle.setAttribute("aria-expanded", view.kv ? "true" : "false");
    toggle.textContent = view.kv ? t.hideKV : t.showKV;
    for (const row of table.querySelectorAll(".trace__kv")) row.hidden = !view.kv;
  });
  // The concatenation, the traced head's slice marked: columns hd·d_k … (hd + 1)·d_k − 1.
  const concat = st.concat[i];
  const [from, to] = [hd * dh, (hd + 1) * dh];
  const concatLine = h(
    "p",
    { class: "trace__vector" },
    h("span", { text: "concat = " }),
    h(
      "code",
      {},
      `[${vector(concat.slice(0, from))}${from ? " " : ""}`,
      h("mark", { class: "trace__slice", text: vector(concat.slice(from, to)) }),
      `${to < concat.length ? " " : ""}${vector(concat.slice(to))}]`,
    ),
  );
  const M = "scaled-dot-product-attention";
  const MH = "many-heads";
  const SDPA = "encoder.scaled_dot_product_attention";
  const MHA = "encoder.MultiHeadAttention";
  return h(
    "ol",
    { class: "trace__steps" },
    step("x", t.stepX(l, i, ids[i]), MH, MHA, line(`x_${i}`, st.x[i])),
    step("q", t.stepQ(hd, dh), MH, MHA, line(`q_${i}`, st.q[hd][i])),
    step("scores", t.stepScores(dh, Math.sqrt(dh)), M, SDPA, toggle, scroller(t.traceTable, table)),
    step("heads", t.stepSum(hd), M, SDPA, line(`head_${hd}`, st.heads[hd][i])),
    step("concat", t.stepConcat(config.n_head, hd, from, to - 1), MH, MHA, concatLine),
    step("out", t.stepOut, MH, MHA, line(`out_${i}`, st.out[i])),
  );
}

/**
 * The trace under the explorer's maps: a line that says what is traced (readout), then the
 * layer, head and query pickers and the steps (section). onPick(changes) runs when the reader
 * picks; draw() shows the pick in forward().trace of ids; clear() hides it while the input is
 * wrong. labels: the explorer's names of a layer and of a head.
 */
export function traceSection(labels, onPick) {
  const t = strings(TEXT);
  const view = { kv: false }; // the keys' k_j and v_j, hidden until asked for
  const readout = h("p", { class: "explorer__readout-line", "aria-live": "polite" });
  const select = (label, changes) => {
    const id = uid("trace-pick");
    const el = h("select", { id });
    el.addEventListener("change", () => onPick(changes(Number(el.value))));
    return [h("span", { class: "explorer__field" }, h("label", { for: id, text: label }), el), el];
  };
  const [layerField, layerSelect] = select(t.pickLayer, (v) => ({ layer: v, k: null }));
  const [headField, headSelect] = select(t.pickHead, (v) => ({ head: v, k: null }));
  const [queryField, querySelect] = select(t.pickQuery, (v) => ({ q: v, k: null }));
  const body = h("div", { class: "trace__body" });
  const section = h(
    "section",
    { class: "trace", "aria-label": t.traceTitle },
    h("p", { class: "explorer__layer-title", text: t.traceTitle }),
    h("p", { class: "explorer__note", text: t.traceIntro }),
    h("div", { class: "explorer__controls" }, layerField, headField, queryField),
    body,
  );
  const options = (el, values, label, chosen) => {
    el.replaceChildren(...values.map((v) => h("option", { value: v, text: label(v) })));
    el.value = chosen;
  };

  function draw(trace, ids, pick, config) {
    section.hidden = false;
    options(layerSelect, [...Array(config.n_layers).keys()], labels.layer, pick.layer);
    options(headSelect, [...Array(config.n_head).keys()], labels.head, pick.head);
    options(querySelect, [...ids.keys()], (i) => t.queryOption(i, ids[i]), pick.q);
    const st = trace[pick.layer];
    body.replaceChildren(steps(st, ids, pick, t, config, view));
    const w = st.weights[pick.head][pick.q];
    readout.textContent =
      pick.k === null
        ? t.readoutRow(pick.layer, pick.head, pick.q, ids[pick.q])
        : t.readout(pick.layer, pick.head, pick.q, ids[pick.q], pick.k, ids[pick.k], fixed(w[pick.k], 3));
  }

  function clear() {
    readout.textContent = "";
    body.replaceChildren();
    section.hidden = true;
  }

  return { readout, section, draw, clear };
}
