// The package's models in the browser: the safetensors files the build exports
// (docs_build/explorers.py model_file, bert_file), read by loadModel, and the forward pass of
// TokenClassifier and SentenceClassifier, step by step (encoder/transformer_embedding.py,
// encoder_layer.py, attention.py, training.py), in float64. The attention explorer, Break it
// and Read real text's explorers run it; bert.js reads its file with loadModel too.
import { fetchOk, sinusoidalTable, softmax } from "./common.js";

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
  };
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
