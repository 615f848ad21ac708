// A pretrained BERT encoder (all-MiniLM-L6-v2) in the page: its weights (int8 per row, which
// model.js loadModel turns into Float32Arrays), its WordPiece vocabulary (in the file's
// metadata) and its forward pass, as Hugging Face's BertModel computes it: word + token type +
// learned position embeddings, then LayerNorm; in each layer, self-attention, the residual sum
// and LayerNorm (post-norm), then the feed-forward with the exact GELU, the residual sum and
// LayerNorm; the sentence's vector is the mean of the last layer's vectors, L2-normalised.
// Weights are Float32Arrays; the sums run in float64 (JavaScript's numbers), the vectors between
// steps are Float64Arrays. The browser tests hold it to PyTorch on the same int8-rounded weights.
import { cached } from "./frame.js";
import { loadModel } from "./model.js";
import { wordPiece } from "./wordpiece.js";

// url -> Promise of {config, params, tokenizer, meta}
const load = cached(async (url) => {
  const model = await loadModel(url, Float32Array);
  return { ...model, tokenizer: wordPiece(model.meta.vocab.split("\n"), JSON.parse(model.meta.special)) };
});

export const MAX_TOKENS = 128; // what the model was trained on (its tokenizer.json's truncation)
export const LETTER = /[\p{L}\p{N}]/u; // a sentence without one has nothing to read

/** The model of the safetensors file at `url` (docs_build/explorers.py bert_explorers), loaded
 * once per page for every explorer that reads it. */
export const loadBert = (url) => load(String(url));

/**
 * erf(x), to double precision (JavaScript has no Math.erf): the series
 * erf(x) = 2/√π e^(-x²) Σ_n 2^n x^(2n+1) / (1·3·…·(2n+1)), whose terms are all of x's sign
 * (nothing cancels); beyond |x| = 6, erf(x) is ±1 in double (erfc(6) ≈ 2e-17).
 */
export function erf(x) {
  const a = Math.abs(x);
  if (a >= 6) return Math.sign(x);
  let term = a;
  let sum = a;
  for (let n = 1; term > 1e-17 * sum; n += 1) {
    term *= (2 * a * a) / (2 * n + 1);
    sum += term;
  }
  return Math.sign(x) * Math.min(1, (2 / Math.sqrt(Math.PI)) * Math.exp(-a * a) * sum);
}

/** The exact GELU, x Φ(x) = x (1 + erf(x / √2)) / 2, as torch's F.gelu (BertModel's "gelu"). */
const gelu = (x) => 0.5 * x * (1 + erf(x * Math.SQRT1_2));

/** y = x W^T + b for the T rows of x (T × nIn, row-major); W is (nOut, nIn). Each row of W is
 * read once, for every row of x: it stays in the cache. */
function linear(x, T, W, b) {
  const nOut = b.length;
  const nIn = W.length / nOut;
  const y = new Float64Array(T * nOut);
  for (let o = 0; o < nOut; o += 1) {
    const w = o * nIn;
    for (let t = 0; t < T; t += 1) {
      const row = t * nIn;
      let acc = b[o];
      for (let i = 0; i < nIn; i += 1) acc += W[w + i] * x[row + i];
      y[t * nOut + o] = acc;
    }
  }
  return y;
}

/** LayerNorm of each row of x + residual (T × d), in place in x. */
function addNorm(x, residual, gamma, beta, eps) {
  const d = gamma.length;
  for (let row = 0; row < x.length; row += d) {
    let mean = 0;
    for (let i = 0; i < d; i += 1) mean += (x[row + i] += residual ? residual[row + i] : 0);
    mean /= d;
    let variance = 0;
    for (let i = 0; i < d; i += 1) variance += (x[row + i] - mean) ** 2;
    const scale = 1 / Math.sqrt(variance / d + eps); // biased variance, as torch
    for (let i = 0; i < d; i += 1) x[row + i] = gamma[i] * (x[row + i] - mean) * scale + beta[i];
  }
  return x;
}

/** Self-attention of one layer on x (T × d): [its output before the dense layer (T × d), its
 * weights: a Float32Array (T × T) per head, [query][key] row-major]. */
function selfAttention(x, T, P, prefix, { d, H }) {
  const dh = d / H;
  const [q, k, v] = ["query", "key", "value"].map((n) =>
    linear(x, T, P[`${prefix}.${n}.weight`], P[`${prefix}.${n}.bias`]),
  );
  const context = new Float64Array(T * d);
  const maps = [];
  const scale = 1 / Math.sqrt(dh);
  const scores = new Float64Array(T);
  for (let h = 0; h < H; h += 1) {
    const map = new Float32Array(T * T);
    const off = h * dh;
    for (let i = 0; i < T; i += 1) {
      let top = -Infinity;
      for (let j = 0; j < T; j += 1) {
        let acc = 0;
        for (let c = 0; c < dh; c += 1) acc += q[i * d + off + c] * k[j * d + off + c];
        scores[j] = acc * scale;
        if (scores[j] > top) top = scores[j];
      }
      let total = 0;
      for (let j = 0; j < T; j += 1) total += (scores[j] = Math.exp(scores[j] - top));
      for (let j = 0; j < T; j += 1) {
        const w = scores[j] / total;
        map[i * T + j] = w;
        for (let c = 0; c < dh; c += 1) context[i * d + off + c] += w * v[j * d + off + c];
      }
    }
    maps.push(map);
  }
  return [context, maps];
}

/**
 * BertModel's forward pass on one sentence's ids (token type 0, no padding):
 * {hidden: the last layer's vectors (T × d, Float64Array), attention: [layer][head] Float32Array
 * (T × T), embedding: the sentence's vector (d), mean of hidden over the T tokens, L2-normalised}.
 */
export function forward({ config: c, params: P }, ids) {
  const d = c.hidden_size;
  const shape = { d, H: c.num_attention_heads };
  const eps = c.layer_norm_eps;
  const T = ids.length;
  if (T > c.max_position_embeddings) throw new Error(`${T} tokens: at most ${c.max_position_embeddings}`);
  const [word, position, type] = ["word", "position", "token_type"].map((n) => P[`embeddings.${n}_embeddings.weight`]);
  let x = new Float64Array(T * d);
  ids.forEach((id, t) => {
    for (let i = 0; i < d; i += 1) x[t * d + i] = word[id * d + i] + type[i] + position[t * d + i];
  });
  addNorm(x, null, P["embeddings.LayerNorm.weight"], P["embeddings.LayerNorm.bias"], eps);
  const attention = [];
  for (let l = 0; l < c.num_hidden_layers; l += 1) {
    const p = `encoder.layer.${l}`;
    const [context, maps] = selfAttention(x, T, P, `${p}.attention.self`, shape);
    attention.push(maps);
    const a = linear(context, T, P[`${p}.attention.output.dense.weight`], P[`${p}.attention.output.dense.bias`]);
    x = addNorm(a, x, P[`${p}.attention.output.LayerNorm.weight`], P[`${p}.attention.output.LayerNorm.bias`], eps);
    const hidden = linear(x, T, P[`${p}.intermediate.dense.weight`], P[`${p}.intermediate.dense.bias`]);
    for (let i = 0; i < hidden.length; i += 1) hidden[i] = gelu(hidden[i]);
    const f = linear(hidden, T, P[`${p}.output.dense.weight`], P[`${p}.output.dense.bias`]);
    x = addNorm(f, x, P[`${p}.output.LayerNorm.weight`], P[`${p}.output.LayerNorm.bias`], eps);
  }
  const embedding = new Float64Array(d);
  for (let t = 0; t < T; t += 1) for (let i = 0; i < d; i += 1) embedding[i] += x[t * d + i] / T;
  const norm = Math.hypot(...embedding);
  for (let i = 0; i < d; i += 1) embedding[i] /= Math.max(norm, 1e-12); // as F.normalize
  return { hidden: x, attention, embedding };
}

/** The cosine of two L2-normalised vectors: their dot product. */
export function cosine(a, b) {
  let acc = 0;
  for (let i = 0; i < a.length; i += 1) acc += a[i] * b[i];
  return acc;
}
