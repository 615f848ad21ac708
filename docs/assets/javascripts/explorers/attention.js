// The attention explorer of the Train page: the trained TokenClassifier of each task, run in
// the browser on a sequence the reader types. The forward pass is the package's, step by step
// (encoder/transformer_embedding.py, encoder_layer.py, attention.py, training.py), in float64 on
// the float32 weights the build exported (docs_build/explorers.py). The browser tests compare
// it with the package's output on exported test vectors.
import { fixed, h, s, sinusoidalTable, softmax, statusLine, strings, uid } from "./common.js";

// Site files the page names (data-model-*) are paths from the site's root, this module being
// at assets/javascripts/explorers/.
const SITE_ROOT = new URL("../../../", import.meta.url);
const TEXT = {
  en: {
    task: "Task",
    tasks: { reverse: "Reverse", sort: "Sort", count: "Count" },
    input: "Sequence (digits 1 to 9)",
    random: "Random sequence",
    rowInput: "Input",
    rowExpected: "Expected",
    rowModel: "Model",
    loading: "Loading the trained weights…",
    failed: (e) => `The trained weights could not be loaded (${e}).`,
    empty: "Type a sequence: digits from 1 to 9.",
    padding: "0 is the padding id, not a token: use the digits 1 to 9.",
    invalid: (c) => `“${c}” is not in the vocabulary: use the digits 1 to 9.`,
    tooLong: (n, max) => `${n} tokens: the model reads at most ${max} (its max_len).`,
    allRight: (n) => `All ${n} positions right.`,
    wrong: (k, n) => `${k} of ${n} positions wrong (marked ✗).`,
    unseen: (n, m) => ` ${n} tokens is longer than any sequence in training (${m}).`,
    layer: (l) => `Layer ${l}`,
    head: (i) => `head ${i}`,
    mapLabel: (l, i, pairs) =>
      `Layer ${l}, head ${i}. For each query, the key with the largest weight: ${pairs}.`,
    query: "query",
    key: "key",
    cell: (q, k, w) => `query ${q} → key ${k}: ${w}`,
    legend:
      "Each map: rows are queries, columns keys; the stronger the colour, the more " +
      "weight. Hover over a cell for its weight.",
  },
  zh: {
    task: "任务",
    tasks: { reverse: "反转", sort: "排序", count: "计数" },
    input: "序列（1 到 9 的数字）",
    random: "随机序列",
    rowInput: "输入",
    rowExpected: "正确答案",
    rowModel: "模型输出",
    loading: "正在加载训练好的权重……",
    failed: (e) => `无法加载训练好的权重（${e}）。`,
    empty: "请输入一个序列：1 到 9 的数字。",
    padding: "0 是填充 id，不是 token：请使用 1 到 9 的数字。",
    invalid: (c) => `“${c}”不在词表中：请使用 1 到 9 的数字。`,
    tooLong: (n, max) => `共 ${n} 个 token：模型最多读取 ${max} 个（它的 max_len）。`,
    allRight: (n) => `${n} 个位置全部正确。`,
    wrong: (k, n) => `${n} 个位置中有 ${k} 个错误（标记为 ✗）。`,
    unseen: (n, m) => ` ${n} 个 token 比训练中的任何序列都长（最长 ${m} 个）。`,
    layer: (l) => `第 ${l} 层`,
    head: (i) => `头 ${i}`,
    mapLabel: (l, i, pairs) => `第 ${l} 层，头 ${i}。每个查询权重最大的键：${pairs}。`,
    query: "查询",
    key: "键",
    cell: (q, k, w) => `查询 ${q} → 键 ${k}：${w}`,
    legend: "每张图：行是查询，列是键；颜色越浓，权重越大。鼠标悬停在格子上可看到权重。",
  },
};

const TRAINED_MAX = 12; // the longest sequence of the tasks' training data

// --- the model ------------------------------------------------------------------------------
function decode(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const view = new DataView(bytes.buffer);
  const out = new Float64Array(bytes.length / 4);
  for (let i = 0; i < out.length; i += 1) out[i] = view.getFloat32(4 * i, true);
  return out;
}

/** A model from the exported JSON: config and named parameters (Float64Array, row-major). */
function load(json) {
  const params = {};
  for (const [name, p] of Object.entries(json.params)) params[name] = decode(p.data);
  return { task: json.task, config: json.config, params };
}

/** y = x W^T + b for each row x; W is (out, in) row-major. */
function linear(rows, W, b, nOut) {
  return rows.map((x) => {
    const y = new Float64Array(nOut);
    const nIn = x.length;
    for (let o = 0; o < nOut; o += 1) {
      let acc = b ? b[o] : 0;
      for (let i = 0; i < nIn; i += 1) acc += W[o * nIn + i] * x[i];
      y[o] = acc;
    }
    return y;
  });
}

function layerNorm(rows, gamma, beta, eps) {
  return rows.map((x) => {
    const d = x.length;
    const mean = x.reduce((a, v) => a + v, 0) / d;
    const variance = x.reduce((a, v) => a + (v - mean) ** 2, 0) / d; // biased, as torch
    const scale = 1 / Math.sqrt(variance + eps);
    return x.map((v, i) => gamma[i] * (v - mean) * scale + beta[i]);
  });
}

const add = (a, b) => a.map((x, t) => x.map((v, i) => v + b[t][i]));

/** Self-attention of one layer: (output rows, weights [head][query][key]). */
function attention(rows, P, prefix, { d_model: d, n_head: H }) {
  const T = rows.length;
  const dh = d / H;
  const qkv = linear(rows, P[`${prefix}.in_proj.weight`], P[`${prefix}.in_proj.bias`], 3 * d);
  const weights = [];
  const heads = rows.map(() => new Float64Array(d));
  for (let hd = 0; hd < H; hd += 1) {
    const off = hd * dh;
    const w = [];
    for (let q = 0; q < T; q += 1) {
      const scores = [];
      for (let k = 0; k < T; k += 1) {
        let dot = 0;
        for (let j = 0; j < dh; j += 1) dot += qkv[q][off + j] * qkv[k][d + off + j];
        scores.push(dot / Math.sqrt(dh));
      }
      const row = softmax(scores);
      for (let k = 0; k < T; k += 1) {
        for (let j = 0; j < dh; j += 1) heads[q][off + j] += row[k] * qkv[k][2 * d + off + j];
      }
      w.push(row);
    }
    weights.push(w);
  }
  const out = linear(heads, P[`${prefix}.out_proj.weight`], P[`${prefix}.out_proj.bias`], d);
  return [out, weights];
}

function feedForward(rows, P, prefix, { d_model: d, d_ff }) {
  const hidden = linear(rows, P[`${prefix}.linear1.weight`], P[`${prefix}.linear1.bias`], d_ff);
  const relu = hidden.map((x) => x.map((v) => Math.max(0, v)));
  return linear(relu, P[`${prefix}.linear2.weight`], P[`${prefix}.linear2.bias`], d);
}

/**
 * The package's TokenClassifier.forward for one unpadded sequence of ids:
 * {logits: [T][n_classes], attention: [layer][head][query][key]}.
 */
export function forward(model, ids) {
  const { config: c, params: P } = model;
  const d = c.d_model;
  const E = P["encoder.embedding.token.weight"];
  const pe = sinusoidalTable(ids.length, d);
  let x = ids.map((id, t) => {
    const row = new Float64Array(d);
    for (let i = 0; i < d; i += 1) row[i] = E[id * d + i] * c.embedding_scale + pe[t][i];
    return row;
  });
  const attentionMaps = [];
  for (let l = 0; l < c.n_layers; l += 1) {
    const p = `encoder.layers.${l}`;
    const norm = (rows, n) => layerNorm(rows, P[`${p}.${n}.gamma`], P[`${p}.${n}.beta`], c.eps);
    if (c.norm_first) {
      const [a, w] = attention(norm(x, "norm1"), P, `${p}.self_attn`, c);
      x = add(x, a);
      x = add(x, feedForward(norm(x, "norm2"), P, `${p}.ff`, c));
      attentionMaps.push(w);
    } else {
      const [a, w] = attention(x, P, `${p}.self_attn`, c);
      x = norm(add(x, a), "norm1");
      x = norm(add(x, feedForward(x, P, `${p}.ff`, c)), "norm2");
      attentionMaps.push(w);
    }
  }
  if (c.norm_first) x = layerNorm(x, P["encoder.norm.gamma"], P["encoder.norm.beta"], c.eps);
  const W = P["head.weight"] || E; // tied: the head is the token embedding
  const logits = linear(x, W, P["head.bias"], c.n_classes).map((r) => Array.from(r));
  return { logits, attention: attentionMaps };
}

// --- the tasks -----------------------------------------------------------------------------------
const EXPECTED = {
  reverse: (ids) => [...ids].reverse(),
  sort: (ids) => [...ids].sort((a, b) => a - b),
  count: (ids) => ids.map((t) => ids.filter((u) => u === t).length),
};

/** The ids of the typed text, or {error} (a message) when it is not a valid sequence. */
export function parse(text, maxLen, t) {
  const chars = [...text].filter((c) => !/[\s,;]/.test(c));
  if (!chars.length) return { error: t.empty };
  const bad = chars.find((c) => !/^[1-9]$/.test(c));
  if (bad !== undefined) return { error: bad === "0" ? t.padding : t.invalid(bad) };
  if (chars.length > maxLen) return { error: t.tooLong(chars.length, maxLen) };
  return { ids: chars.map(Number) };
}

// --- the widget ----------------------------------------------------------------------------------
function heatMap(weights, ids, label, t) {
  const T = ids.length;
  const cell = 12;
  const pad = 14;
  const size = pad + T * cell + 1; // + 1: room for the frame's stroke
  const svg = s("svg", {
    viewBox: `0 0 ${size} ${size}`,
    role: "img",
    "aria-label": label,
    class: "explorer__map",
  });
  ids.forEach((id, i) => {
    const y = pad + i * cell + cell * 0.75;
    const x = pad + i * cell + cell / 2;
    const tick = { class: "explorer__tick", text: id };
    svg.append(s("text", { x: pad - 3, y, "text-anchor": "end", ...tick }));
    svg.append(s("text", { x, y: pad - 4, "text-anchor": "middle", ...tick }));
  });
  weights.forEach((row, q) =>
    row.forEach((w, k) => {
      const rect = s("rect", {
        x: pad + k * cell,
        y: pad + q * cell,
        width: cell,
        height: cell,
        class: "explorer__cell",
        "fill-opacity": fixed(w, 3),
      });
      rect.append(s("title", { text: t.cell(q, k, fixed(w, 3)) }));
      svg.append(rect);
    }),
  );
  const frame = { x: pad, y: pad, width: T * cell, height: T * cell };
  svg.append(s("rect", { ...frame, class: "explorer__frame" }));
  return svg;
}

function strongest(weights) {
  return weights
    .map((row, q) => {
      const k = row.indexOf(Math.max(...row));
      return `${q}→${k} (${fixed(row[k])})`;
    })
    .join(", ");
}

export function mount(root) {
  const t = strings(TEXT);
  const tasks = root.dataset.tasks.split(" ");
  const models = {}; // task -> Promise of the loaded model
  const inputId = uid("attention-input");
  const statusId = uid("attention-status");
  const state = { task: tasks[0], text: "3 1 4 1 5 9 2 6" };

  const getModel = (task) => {
    if (!models[task]) {
      const key = `model${task[0].toUpperCase()}${task.slice(1)}`; // data-model-<task>
      models[task] = fetch(new URL(root.dataset[key], SITE_ROOT))
        .then((r) => {
          if (!r.ok) throw new Error(`HTTP ${r.status}`);
          return r.json();
        })
        .then(load);
      models[task].catch(() => delete models[task]); // a later try may succeed
    }
    return models[task];
  };

  const group = uid("attention-task");
  const radios = h(
    "fieldset",
    { class: "explorer__tasks" },
    h("legend", { text: t.task }),
    tasks.map((task) => {
      const id = uid("attention-task");
      const radio = h("input", { type: "radio", name: group, id, value: task });
      radio.checked = task === state.task;
      radio.addEventListener("change", () => {
        state.task = task;
        update();
      });
      const label = h("label", { for: id, text: t.tasks[task] });
      return h("span", { class: "explorer__choice" }, radio, label);
    }),
  );
  const input = h("input", {
    type: "text",
    id: inputId,
    value: state.text,
    autocomplete: "off",
    spellcheck: "false",
    inputmode: "numeric",
    "aria-describedby": statusId,
  });
  input.addEventListener("input", () => {
    state.text = input.value;
    update();
  });
  const random = h("button", { type: "button", text: t.random });
  random.addEventListener("click", () => {
    const n = 2 + Math.floor(Math.random() * (TRAINED_MAX - 1));
    input.value = Array.from({ length: n }, () => 1 + Math.floor(Math.random() * 9)).join(" ");
    state.text = input.value;
    update();
  });
  const status = statusLine(statusId);
  const output = h("div", { class: "explorer__output" });
  const maps = h("div", { class: "explorer__layers" });
  root.replaceChildren(
    h(
      "div",
      { class: "explorer__controls" },
      radios,
      h("span", { class: "explorer__field" }, h("label", { for: inputId, text: t.input }), input),
      random,
    ),
    status,
    output,
    maps,
    h("p", { class: "explorer__legend", text: t.legend }),
  );

  let pending = 0;
  async function update() {
    const ticket = (pending += 1);
    const model = getModel(state.task);
    let loaded;
    try {
      if (!root.dataset.ready) status.textContent = t.loading;
      loaded = await model;
    } catch (error) {
      if (ticket === pending) status.textContent = t.failed(error.message || error);
      return;
    }
    if (ticket !== pending) return; // a newer input is on its way
    root.dataset.ready = "";
    const parsed = parse(state.text, loaded.config.max_len, t);
    root.dataset.state = parsed.error ? "error" : "ok";
    if (parsed.error) {
      status.textContent = parsed.error;
      output.replaceChildren();
      maps.replaceChildren();
      return;
    }
    const { ids } = parsed;
    const result = forward(loaded, ids);
    const predicted = result.logits.map((row) => row.indexOf(Math.max(...row)));
    const expected = EXPECTED[state.task](ids);
    const wrong = predicted.filter((p, i) => p !== expected[i]).length;
    let message = wrong ? t.wrong(wrong, ids.length) : t.allRight(ids.length);
    if (ids.length > TRAINED_MAX) message += t.unseen(ids.length, TRAINED_MAX);
    status.textContent = message;
    const row = (label, values, marks) =>
      h(
        "tr",
        {},
        h("th", { scope: "row", text: label }),
        values.map((v, i) => {
          const bad = marks && marks[i];
          return h("td", { class: bad ? "explorer__wrong" : false }, bad ? `${v} ✗` : `${v}`);
        }),
      );
    output.replaceChildren(
      h(
        "table",
        {},
        h(
          "tbody",
          {},
          row(t.rowInput, ids),
          row(t.rowExpected, expected),
          row(
            t.rowModel,
            predicted,
            predicted.map((p, i) => p !== expected[i]),
          ),
        ),
      ),
    );
    maps.replaceChildren(
      ...result.attention.map((layer, l) =>
        h(
          "div",
          { class: "explorer__layer" },
          h("p", { class: "explorer__layer-title", text: t.layer(l) }),
          h(
            "div",
            { class: "explorer__heads" },
            layer.map((w, i) =>
              h(
                "figure",
                { class: "explorer__head" },
                heatMap(w, ids, t.mapLabel(l, i, strongest(w)), t),
                h("figcaption", { text: t.head(i) }),
              ),
            ),
          ),
        ),
      ),
    );
  }

  // For the browser tests and the curious: the same forward pass on any ids.
  root.explorer = { run: async (task, ids) => forward(await getModel(task), ids) };

  // Fetch the weights only when the widget comes into view.
  const seen = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) {
      seen.disconnect();
      update();
    }
  });
  seen.observe(root);
}
