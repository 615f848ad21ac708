// "Pinyin both ways" on Read real text: the page's two pinyin models, one reading the whole
// sentence and one with the causal mask (each position reads only itself and what lies to its
// left), read the typed sentence side by side, each named with its accuracy on 不 measured on
// the page; the characters where they disagree are marked. A third row gives each character's
// most frequent reading in the training texts, which a model falls back on without context.
import { argmax, fixed, h, scroller, softmax } from "./common.js";
import { forward, loadModel } from "./model.js";
import { HAN, UNK, encode, json, loadVocabulary, said, textExplorer, tokenCells } from "./text.js";

const TEXT = {
  en: {
    input: "A sentence, in Chinese",
    empty: "Type a sentence in Chinese characters.",
    noHan: "No Chinese character to read: the models give the pinyin of Chinese characters.",
    differ: (n, of) =>
      n ? `The two models read ${n} of the ${of} characters differently (marked ≠).` : `The two models agree on all ${of} characters.`,
    table: "The pinyin of each character from both models, and its probability in percent",
    rows: ["both ways", "left only"],
    onBu: (p) => `不 right: ${p} %`,
    frequent: "most frequent",
  },
  zh: {
    input: "一个中文句子",
    empty: "请输入一个由汉字组成的句子。",
    noHan: "没有可读的汉字：模型只给出汉字的拼音。",
    differ: (n, of) => (n ? `两个模型在 ${of} 个汉字中有 ${n} 个读法不同（标为 ≠）。` : `两个模型对全部 ${of} 个汉字的读法相同。`),
    table: "两个模型给出的每个汉字的拼音及其概率（百分比）",
    rows: ["双向", "只向左"],
    onBu: (p) => `「不」读对 ${p} %`,
    frequent: "最常见读音",
  },
};

/** Each position's most probable reading and its probability. */
function readings(logits) {
  return logits.reduce(
    (out, row) => {
      const best = argmax(row);
      out.top.push(best);
      out.p.push(softmax(row)[best]);
      return out;
    },
    { top: [], p: [] },
  );
}

export function mount(root) {
  const t = said(TEXT);
  const files = { modelEncoder: loadModel, modelCausal: loadModel, vocab: loadVocabulary, classes: json, frequent: json };
  const onBu = JSON.parse(root.dataset.bu); // each model's accuracy on 不, measured on the page
  textExplorer(root, t, "zh", files, ({ modelEncoder, modelCausal, vocab, classes, frequent }, text) => {
    if (!text.trim()) return { error: t.empty };
    const chars = Array.from(text);
    const max = modelEncoder.config.max_len;
    const read = chars.slice(0, max);
    const han = read.map((c) => HAN.test(c));
    if (!han.some(Boolean)) return { error: t.noHan };
    const ids = encode(read, vocab.ids);
    const encoder = readings(forward(modelEncoder, ids).logits);
    const causal = readings(forward(modelCausal, ids, { causal: true }).logits);
    const differ = read.map((_, i) => han[i] && encoder.top[i] !== causal.top[i]);
    const nDiffer = differ.filter(Boolean).length;
    const unknown = ids.filter((id) => id === UNK).length;
    let message = t.differ(nDiffer, han.filter(Boolean).length);
    if (chars.length > max) message += t.cut(chars.length, max);
    if (unknown) message += t.unknown(unknown);
    const row = (label, onBuShown, { top, p }) =>
      h(
        "tr",
        {},
        h("th", { scope: "row" }, label, h("small", { text: t.onBu(fixed(100 * onBuShown, 0)) })),
        read.map((_, i) =>
          han[i]
            ? h(
                "td",
                { class: differ[i] ? "explorer__differ" : false },
                differ[i] ? `${classes[top[i]]} ≠` : classes[top[i]],
                h("small", {}, fixed(100 * p[i], 0)), // in percent: the table's label says so
              )
            : h("td"),
        ),
      );
    const table = scroller(
      t.table,
      h(
        "table",
        { class: "explorer__pinyin" },
        h("thead", {}, h("tr", {}, h("td"), tokenCells(read, ids, t.unknownTitle))),
        h(
          "tbody",
          {},
          row(t.rows[0], onBu.encoder, encoder),
          row(t.rows[1], onBu.causal, causal),
          h(
            "tr",
            { class: "explorer__frequent" },
            h("th", { scope: "row", text: t.frequent }),
            read.map((c, i) => h("td", { text: han[i] ? (frequent[c] ?? "") : "" })),
          ),
        ),
      ),
    );
    const mostFrequent = read.map((c, i) => (han[i] ? (frequent[c] ?? null) : null));
    return { message, nodes: [table], result: { ids, encoder, causal, frequent: mostFrequent } };
  });
}
