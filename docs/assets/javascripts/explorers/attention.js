// The attention explorer of the Train page: the trained TokenClassifier of each task, run in
// the browser on a sequence the reader types, its maps, and under them the trace of one query
// (trace.js; the Attention page shows the same explorer for it). The forward pass is the
// package's, step by step (encoder/transformer_embedding.py, encoder_layer.py, attention.py,
// training.py), in float64 on the float32 weights the build exported (docs_build/explorers.py
// model_file). The browser tests compare it with the package's output on exported test vectors.
import {
  fetchOk,
  fixed,
  h,
  radio,
  s,
  scroller,
  sequenceInput,
  sinusoidalTable,
  softmax,
  statusLine,
  strings,
  uid,
} from "./common.js";
import { traceSection } from "./trace.js";

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
    allRight: (n) => (n === 1 ? "The 1 position is right." : `All ${n} positions right.`),
    wrong: (k, n) => `${k} of ${n} ${n === 1 ? "position" : "positions"} wrong (marked ✗).`,
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
      "weight. Tap or click a cell: its weight shows below, and its query is traced.",
    outputLabel: "Input, expected output and the model's output",
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
    legend: "每张图：行是查询，列是键；颜色越浓，权重越大。点击或轻触格子：下方显示它的权重，并追踪它的查询。",
    outputLabel: "输入、正确答案与模型输出",
  },
};

const TRAINED_MAX = 12; // the longest sequence of the tasks' training data

// --- the model ------------------------------------------------------------------------------
/** The number an IEEE 754 half-precision bit pattern stands for. */
function half(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24; // zero and subnormals
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

// How each dtype of a safetensors file is read: its bytes per value, and the value at a byte.
const DTYPES = {
  F32: [4, (view, at) => view.getFloat32(at, true)],
  F16: [2, (view, at) => half(view.getUint16(at, true))],
  I8: [1, (view, at) => view.getInt8(at)],
};
// An int8 tensor NAME (rows, columns) comes with the float32 tensor NAME + SCALE (rows,): row r
// stands for its integers times scale[r] (docs_build/explorers.py int8_rows).
const SCALE = ".scale";

/** A model from its safetensors file (docs_build/explorers.py model_file), as forward() takes
 * one: {task, config, params: name -> `array` (Float64Array, or Float32Array for a large model),
 * row-major, meta: the file's metadata}. The file: an 8-byte little-endian header length, the
 * JSON header (each tensor's dtype, shape and byte range; the metadata), then the bytes. */
export async function loadModel(url, array = Float64Array) {
  const buffer = await (await fetchOk(url)).arrayBuffer();
  const view = new DataView(buffer);
  const n = Number(view.getBigUint64(0, true));
  const { __metadata__: meta, ...tensors } = JSON.parse(
    new TextDecoder().decode(new Uint8Array(buffer, 8, n)),
  );
  const read = (name) => {
    const { dtype, data_offsets: [begin, end] } = tensors[name];
    if (!DTYPES[dtype]) throw new Error(`${name} is ${dtype}, not F32, F16 or I8`);
    const [size, value] = DTYPES[dtype];
    const values = new array((end - begin) / size);
    for (let i = 0; i < values.length; i += 1) values[i] = value(view, 8 + n + begin + size * i);
    return values;
  };
  const params = {};
  for (const [name, { dtype, shape }] of Object.entries(tensors)) {
    if (name.endsWith(SCALE) && tensors[name.slice(0, -SCALE.length)]?.dtype === "I8") continue;
    params[name] = read(name);
    if (dtype !== "I8") continue;
    if (!tensors[name + SCALE]) throw new Error(`${name} is I8 without ${name + SCALE}`);
    const [values, scale, columns] = [params[name], read(name + SCALE), shape[1] ?? 1];
    for (let i = 0; i < values.length; i += 1) values[i] *= scale[Math.floor(i / columns)];
  }
  return { task: meta.task, config: JSON.parse(meta.config), params, meta };
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

const dot = (a, b) => a.reduce((acc, v, i) => acc + v * b[i], 0);

/**
 * Self-attention of one layer, as MultiHeadAttention.forward with need_weights=True:
 * [output rows, weights [head][query][key], its trace: every step {x, q, k, v, scores, scaled,
 * weights, heads, concat, out}] with q, k, v, heads [head][position][d_k], scores, scaled and weights
 * [head][query][key], concat and out [position][d_model].
 */
function attention(rows, P, prefix, { d_model: d, n_head: H, scaled: divide = true }, causal) {
  const dh = d / H;
  const qkv = linear(rows, P[`${prefix}.in_proj.weight`], P[`${prefix}.in_proj.bias`], 3 * d);
  // in_proj's output holds [q | k | v]; head hd owns columns hd * dh … (hd + 1) * dh of each.
  const split = (offset) =>
    Array.from({ length: H }, (_, hd) =>
      qkv.map((r) => Array.from(r.subarray(offset + hd * dh, offset + (hd + 1) * dh))),
    );
  const [q, k, v] = [split(0), split(d), split(2 * d)];
  const scores = q.map((qh, hd) => qh.map((qi) => k[hd].map((kj) => dot(qi, kj))));
  // divide false: remove_score_scaling's model (the Train page's "Why √d_k"), softmax(q k^T).
  const divisor = divide === false ? 1 : Math.sqrt(dh);
  // causal: a query reads no key to its right (encoder.causal_mask), whose weight is then 0.
  const scaled = scores.map((sh) =>
    sh.map((row, i) => row.map((z, j) => (causal && j > i ? -Infinity : z / divisor))),
  );
  const weights = scaled.map((sh) => sh.map((row) => softmax(row)));
  const heads = weights.map((wh, hd) =>
    wh.map((row) => {
      const o = new Array(dh).fill(0);
      row.forEach((w, j) => v[hd][j].forEach((x, c) => (o[c] += w * x)));
      return o;
    }),
  );
  const concat = rows.map((_, i) => heads.flatMap((hh) => hh[i]));
  const out = linear(concat, P[`${prefix}.out_proj.weight`], P[`${prefix}.out_proj.bias`], d);
  const trace = {
    x: rows.map((r) => Array.from(r)),
    q, k, v, scores, scaled, weights, heads, concat,
    out: out.map((r) => Array.from(r)),
  }; // prettier-ignore
  return [out, weights, trace];
}

function feedForward(rows, P, prefix, { d_model: d, d_ff }) {
  const hidden = linear(rows, P[`${prefix}.linear1.weight`], P[`${prefix}.linear1.bias`], d_ff);
  const relu = hidden.map((x) => x.map((v) => Math.max(0, v)));
  return linear(relu, P[`${prefix}.linear2.weight`], P[`${prefix}.linear2.bias`], d);
}

/**
 * The package's TokenClassifier.forward for one unpadded sequence of ids, with the causal mask
 * if `causal` (a SentenceClassifier's logits are those of position 0):
 * {logits: [T][n_classes], attention: [layer][head][query][key], trace: [layer] of every
 * step of the layer's attention (see attention()), which trace.js shows}.
 */
export function forward(model, ids, { causal = false } = {}) {
  const { config: c, params: P } = model;
  const d = c.d_model;
  const E = P["encoder.embedding.token.weight"];
  const pe = sinusoidalTable(ids.length, d);
  const withPositions = c.positions !== false; // false: the Train page's model without them
  let x = ids.map((id, t) => {
    const row = new Float64Array(d);
    for (let i = 0; i < d; i += 1) {
      row[i] = E[id * d + i] * c.embedding_scale + (withPositions ? pe[t][i] : 0);
    }
    return row;
  });
  const attentionMaps = [];
  const trace = [];
  for (let l = 0; l < c.n_layers; l += 1) {
    const p = `encoder.layers.${l}`;
    const norm = (rows, n) => layerNorm(rows, P[`${p}.${n}.gamma`], P[`${p}.${n}.beta`], c.eps);
    if (c.norm_first) {
      const [a, w, st] = attention(norm(x, "norm1"), P, `${p}.self_attn`, c, causal);
      trace.push(st);
      x = add(x, a);
      x = add(x, feedForward(norm(x, "norm2"), P, `${p}.ff`, c));
      attentionMaps.push(w);
    } else {
      const [a, w, st] = attention(x, P, `${p}.self_attn`, c, causal);
      trace.push(st);
      x = norm(add(x, a), "norm1");
      x = norm(add(x, feedForward(x, P, `${p}.ff`, c)), "norm2");
      attentionMaps.push(w);
    }
  }
  if (c.norm_first) x = layerNorm(x, P["encoder.norm.gamma"], P["encoder.norm.beta"], c.eps);
  const W = P["head.weight"] || E; // tied: the head is the token embedding
  const logits = linear(x, W, P["head.bias"], c.n_classes).map((r) => Array.from(r));
  return { logits, attention: attentionMaps, trace };
}

// --- the tasks -----------------------------------------------------------------------------------
export const EXPECTED = {
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
/** A map of weights [query][key]; picked: the traced query (and key); marked: [q, k] cells to
 * outline. */
export function heatMap(weights, ids, label, picked, marked = []) {
  const T = ids.length;
  const cell = 12;
  const pad = 16;
  const size = pad + T * cell + 1; // + 1: room for the frame's stroke
  const svg = s("svg", {
    viewBox: `0 0 ${size} ${size}`,
    role: "img",
    "aria-label": label,
    class: "explorer__map",
    // Two tokens: not a giant 2 × 2. --map-width: cells of 24 px, the size of a tap target
    // (explorers.css draws the attention explorer's maps at it on a phone).
    style: `--map-max: ${Math.max(80, 2 * size)}px; --map-width: ${2 * size}px`,
  });
  ids.forEach((id, i) => {
    const y = pad + i * cell + cell * 0.8;
    const x = pad + i * cell + cell / 2;
    const tick = { class: "explorer__tick", text: id };
    svg.append(s("text", { x: pad - 3, y, "text-anchor": "end", ...tick }));
    svg.append(s("text", { x, y: pad - 4, "text-anchor": "middle", ...tick }));
  });
  weights.forEach((row, q) =>
    row.forEach((w, k) => {
      svg.append(
        s("rect", {
          x: pad + k * cell,
          y: pad + q * cell,
          width: cell,
          height: cell,
          class: "explorer__cell",
          "fill-opacity": fixed(w, 3),
          "data-q": q,
          "data-k": k,
        }),
      );
    }),
  );
  const frame = { x: pad, y: pad, width: T * cell, height: T * cell };
  svg.append(s("rect", { ...frame, class: "explorer__frame" }));
  for (const [q, k] of marked) {
    svg.append(s("rect", { x: pad + k * cell, y: pad + q * cell, width: cell, height: cell, class: "explorer__mark" }));
  } // prettier-ignore
  if (picked) {
    // The traced query's row, and the tapped cell in it.
    const row = { x: pad, y: pad + picked.q * cell, height: cell };
    svg.append(s("rect", { ...row, width: T * cell, class: "explorer__pick-row" }));
    if (picked.k !== null) {
      svg.append(s("rect", { ...row, x: pad + picked.k * cell, width: cell, class: "explorer__pick" }));
    }
  }
  return svg;
}

export function strongest(weights) {
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
  // The traced query: layer, head, query position; k the tapped key (null: none).
  const pick = { layer: 1, head: 0, q: 0, k: null };

  const getModel = (task) => {
    if (!models[task]) {
      const key = `model${task[0].toUpperCase()}${task.slice(1)}`; // data-model-<task>
      models[task] = loadModel(new URL(root.dataset[key], SITE_ROOT));
      models[task].catch(() => delete models[task]); // a later try may succeed
    }
    return models[task];
  };

  const group = uid("attention-task");
  const radios = h(
    "fieldset",
    { class: "explorer__tasks" },
    h("legend", { text: t.task }),
    tasks.map((task) =>
      radio(group, task, t.tasks[task], task === state.task, () => {
        state.task = task;
        update();
      }),
    ),
  );
  const input = sequenceInput(inputId, state, statusId, update);
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
  // The trace (trace.js): pick a layer, a head and a query there, or tap a cell of a map.
  const trace = traceSection({ layer: t.layer, head: t.head }, repick);
  // Keep the placeholder's height (extra.css) until the first drawing: the controls alone are
  // short, and the page would jump, taking the explorer out of view before it is drawn.
  root.style.minHeight = `${root.getBoundingClientRect().height}px`;
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
    trace.readout,
    trace.section,
  );

  let current = null; // {loaded, ids, result}

  function drawMaps() {
    const { ids, result } = current;
    maps.replaceChildren(
      ...result.attention.map((layer, l) =>
        h(
          "div",
          { class: "explorer__layer" },
          h("p", { class: "explorer__layer-title", text: t.layer(l) }),
          h(
            "div",
            // On a phone the layer's heads scroll sideways (explorers.css): focusable, so that
            // a keyboard scrolls them too.
            { class: "explorer__heads", tabindex: 0, role: "region", "aria-label": t.layer(l) },
            layer.map((w, i) => {
              const picked = l === pick.layer && i === pick.head ? pick : null;
              const svg = heatMap(w, ids, t.mapLabel(l, i, strongest(w)), picked);
              svg.addEventListener("click", (event) => {
                const cell = event.target.closest("[data-q]");
                if (cell) repick({ layer: l, head: i, q: Number(cell.dataset.q), k: Number(cell.dataset.k) });
              }); // prettier-ignore
              return h("figure", { class: "explorer__head" }, svg, h("figcaption", { text: t.head(i) }));
            }),
          ),
        ),
      ),
    );
  }

  function draw() {
    const { ids, result, loaded } = current;
    drawMaps();
    trace.draw(result.trace, ids, pick, loaded.config);
  }

  function repick(changes) {
    Object.assign(pick, changes);
    if (current) draw();
  }

  let pending = 0;
  async function update() {
    const ticket = (pending += 1);
    const model = getModel(state.task);
    let loaded;
    try {
      if (!root.dataset.ready) status.textContent = t.loading;
      loaded = await model;
    } catch (error) {
      if (ticket !== pending) return;
      root.dataset.state = "error";
      root.style.minHeight = ""; // no placeholder left where nothing will be drawn
      status.textContent = t.failed(error.message || error);
      return;
    }
    if (ticket !== pending) return; // a newer input is on its way
    root.dataset.ready = "";
    root.style.minHeight = "";
    const parsed = parse(state.text, loaded.config.max_len, t);
    root.dataset.state = parsed.error ? "error" : "ok";
    if (parsed.error) {
      status.textContent = parsed.error;
      current = null;
      output.replaceChildren();
      maps.replaceChildren();
      trace.clear();
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
      scroller(
        t.outputLabel,
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
      ),
    );
    pick.layer = Math.min(pick.layer, loaded.config.n_layers - 1);
    if (pick.q >= ids.length) Object.assign(pick, { q: 0, k: null });
    if (pick.k !== null && pick.k >= ids.length) pick.k = null;
    current = { loaded, ids, result };
    draw();
  }

  // For the browser tests and the curious: the same forward pass on any ids, and the trace.
  root.explorer = {
    run: async (task, ids) => forward(await getModel(task), ids),
    pick: () => ({ ...pick }),
  };

  // Fetch the weights only when the widget comes into view.
  const seen = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) {
      seen.disconnect();
      update();
    }
  });
  seen.observe(root);
}
