// "Fill the blank" on Read real text: the page's masked-word model reads the typed sentence,
// cut into words as encoder/corpora.py's words() cuts the addresses, with <mask> where the
// reader wrote ___, and gives its best guesses for the blank with their probabilities.
import { fixed, h, softmax } from "./common.js";
import { forward, loadModel } from "./attention.js";
import { MASK, UNK, argmax, encode, loadVocabulary, said, textExplorer } from "./text.js";

const TEXT = {
  en: {
    input: "A sentence in English, ___ for the blank",
    empty: "Type a sentence with ___ where a word is missing.",
    noBlank: "Mark the missing word with ___ (underscores).",
    blanks: (n) => `${n} blanks: the model fills one at a time; keep one ___.`,
    tooLong: (n, max) => `${n} words and marks: the model reads at most ${max}.`,
    guesses: (n) => `The model's ${n} best guesses for the blank:`,
    unknownWords: (list) => ` Not in its vocabulary, read as <unk>: ${list}.`,
    list: "Best guesses for the blank",
  },
  zh: {
    input: "一个英文句子，用 ___ 表示空白",
    empty: "请输入一个英文句子，在缺词处写 ___。",
    noBlank: "请用 ___（下划线）标出缺少的词。",
    blanks: (n) => `有 ${n} 个空白：模型一次只填一个，请只保留一个 ___。`,
    tooLong: (n, max) => `共 ${n} 个词和符号：模型最多读 ${max} 个。`,
    guesses: (n) => `模型对空白处的前 ${n} 个猜测：`,
    unknownWords: (list) => `不在词表中、读作 <unk> 的词：${list}。`,
    list: "对空白处的最佳猜测",
  },
};

const TOP = 5;
// encoder/corpora.py WORD, on the lower-cased text: words (an apostrophe inside one stays),
// numbers, and every other character that is not a space, alone. A space is what Python's \s
// matches, spelled out: JavaScript's \s also takes U+FEFF, and not U+001C to U+001F nor U+0085.
const SPACE = "\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const WORD = new RegExp(`[a-z]+(?:'[a-z]+)?|[0-9]+|[^${SPACE}a-z0-9]`, "gu");
const words = (text) => text.toLowerCase().match(WORD) ?? [];

export function mount(root) {
  const t = said(TEXT);
  textExplorer(root, t, "en", { model: loadModel, words: loadVocabulary }, ({ model, words: vocab }, text) => {
    if (!text.trim()) return { error: t.empty };
    const parts = text.split(/_+/);
    if (parts.length === 1) return { error: t.noBlank };
    if (parts.length > 2) return { error: t.blanks(parts.length - 1) };
    const [left, right] = parts.map(words);
    const ids = [...encode(left, vocab.ids), MASK, ...encode(right, vocab.ids)];
    const max = model.config.max_len;
    if (ids.length > max) return { error: t.tooLong(ids.length, max) };
    const p = softmax(forward(model, ids).logits[left.length]);
    const top = [];
    const rest = [...p];
    for (let k = 0; k < TOP; k += 1) {
      top.push(argmax(rest));
      rest[top[k]] = -Infinity;
    }
    const unknown = [...left, ...right].filter((_, i) => ids[i < left.length ? i : i + 1] === UNK);
    let message = t.guesses(TOP);
    if (unknown.length) message += t.unknownWords(unknown.map((w) => `“${w}”`).join(", "));
    const list = h(
      "ol",
      { class: "explorer__guesses", "aria-label": t.list, lang: "en" },
      top.map((id) =>
        h(
          "li",
          { style: `--weight: ${p[id]}` },
          h("span", { class: "explorer__guess", text: vocab.token(id) }),
          h("span", { text: `${fixed(100 * p[id], 1)} %` }),
        ),
      ),
    );
    return { message, nodes: [list], result: { ids, top, p: top.map((id) => p[id]) } };
  });
}
