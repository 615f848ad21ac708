// "Type a review" on Read real text: the page's SentenceClassifier reads the typed review as
// the page reads one (<cls>, then its first max_len - 1 characters) and says negative or
// positive, with its probability and how many of the characters it knew, and how much of each
// head's attention the first position, whose vector the readout reads, gives each character.
// Input without a Chinese character gets a message instead: the model read Chinese only.
import { fixed, h, scroller, softmax } from "./common.js";
import { forward, loadModel } from "./model.js";
import { CLS, HAN, UNK, encode, loadVocabulary, said, textExplorer, tokenCells } from "./text.js";

const TEXT = {
  en: {
    input: "A review, in Chinese",
    empty: "Type a review (in Chinese: the model read Chinese reviews only).",
    labels: ["negative", "positive"],
    noHan: "No Chinese character to read: the model read Chinese reviews only.",
    verdict: (label, p) => `The model reads it as ${label}: ${p} %.`,
    knew: (k, n) => ` It knew ${k} of the ${n} characters${k < n ? "; the others (marked) read as <unk>" : ""}.`,
    meter: (p) => `Probability of positive: ${p} %`,
    layer: (l) => `What the first position (<cls>) reads in layer ${l}: each head's weight on each token`,
    head: (i) => `head ${i}`,
  },
  zh: {
    input: "一条中文评论",
    empty: "请输入一条评论（中文：模型只读过中文评论）。",
    labels: ["差评", "好评"],
    noHan: "没有可读的汉字：模型只读过中文评论。",
    verdict: (label, p) => `模型判断为${label}：${p} %。`,
    knew: (k, n) => `${n} 个字符中它认识 ${k} 个${k < n ? "，其余的（已标出）读作 <unk>" : ""}。`,
    meter: (p) => `好评的概率：${p} %`,
    layer: (l) => `第 ${l} 层中第一个位置（<cls>）读什么：每个头在每个 token 上的权重`,
    head: (i) => `头 ${i}`,
  },
};

export function mount(root) {
  const t = said(TEXT);
  const files = { model: loadModel, vocab: loadVocabulary };
  textExplorer(root, t, "zh", files, ({ model, vocab }, text) => {
    if (!text.trim()) return { error: t.empty };
    const chars = Array.from(text);
    const max = model.config.max_len - 1;
    const read = chars.slice(0, max);
    if (!read.some((c) => HAN.test(c))) return { error: t.noHan };
    const ids = [CLS, ...encode(read, vocab.ids)];
    const result = forward(model, ids);
    const p = softmax(result.logits[0]);
    const label = p[1] > p[0] ? 1 : 0;
    const unknown = ids.filter((id) => id === UNK).length;
    let message = t.verdict(t.labels[label], fixed(100 * p[label], 1));
    message += t.knew(read.length - unknown, read.length);
    if (chars.length > max) message += t.cut(chars.length, max);
    const first = result.attention.map((layer) => layer.map((head) => head[0])); // [L][H][T]
    const tokens = ["<cls>", ...read];
    const meter = h(
      "div",
      { class: "explorer__meter" },
      h(
        "div",
        { class: "explorer__meter-bar", role: "img", "aria-label": t.meter(fixed(100 * p[1], 1)) },
        h("span", { style: `width: ${100 * p[1]}%` }),
      ),
      t.labels.map((label, k) => h("span", { text: `${label} ${fixed(100 * p[k], 1)} %` })).reverse(),
    );
    const tables = first.flatMap((heads, l) => [
      h("p", { class: "explorer__layer-title", text: t.layer(l) }),
      scroller(
        t.layer(l),
        h(
          "table",
          { class: "explorer__weights" },
          h("thead", {}, h("tr", {}, h("td"), tokenCells(tokens, ids, t.unknownTitle))),
          h(
            "tbody",
            {},
            heads.map((weights, i) =>
              h(
                "tr",
                {},
                h("th", { scope: "row", text: t.head(i) }),
                weights.map((w) => h("td", { style: `--weight: ${w}` }, fixed(w, 2))),
              ),
            ),
          ),
        ),
      ),
    ]);
    const knew = read.length - unknown;
    return { message, nodes: [meter, ...tables], result: { ids, p, attention: first, knew } };
  });
}
