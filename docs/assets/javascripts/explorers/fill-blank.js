// "Fill the blank" on Read real text: the page's masked-word model reads the typed sentence,
// cut into words as encoder/corpora.py's words() cuts the addresses, with <mask> where the
// reader wrote ___: the window of words around the blank that the model reads (encoder/text.py
// blank_window), and its best guesses for the blank with their probabilities, the special
// tokens left out; a word the reader types in the second box gets its rank among the guesses.
import { argmax, fixed, h, softmax } from "./common.js";
import { forward, loadModel } from "./model.js";
import { MASK, SPECIALS, UNK, encode, loadVocabulary, said, textExplorer } from "./text.js";

const TEXT = {
  en: {
    input: "A sentence in English, ___ for the blank",
    candidate: "A word to rank",
    empty: "Type a sentence with ___ where a word is missing.",
    noBlank: "Mark the missing word with ___ (underscores).",
    blanks: (n) => `${n} blanks: the model fills one at a time; keep one ___.`,
    reads: (n, all, window) =>
      n < all
        ? `The model reads ${n} words and marks, as it was trained: the ${n} around the blank, “${window}”.`
        : `The model reads all ${n} words and marks: “${window}”.`,
    guesses: (n) => ` Its ${n} best guesses:`,
    unknownWords: (list) => ` Not in its vocabulary, read as <unk>: ${list}.`,
    list: "Best guesses for the blank",
    rank: (word, r, n, p) => `“${word}” is guess no. ${r} of ${n} (${p} %).`,
    notAWord: (word) => `“${word}” is not one of the model's words: it never guesses it.`,
    oneWord: "Type one word to see its rank.",
  },
  zh: {
    input: "一个英文句子，用 ___ 表示空白",
    candidate: "一个要看排名的词",
    empty: "请输入一个英文句子，在缺词处写 ___。",
    noBlank: "请用 ___（下划线）标出缺少的词。",
    blanks: (n) => `有 ${n} 个空白：模型一次只填一个，请只保留一个 ___。`,
    reads: (n, all, window) =>
      n < all
        ? `模型按训练时的方式读 ${n} 个词和符号：空白周围的 ${n} 个，“${window}”。`
        : `模型读全部 ${n} 个词和符号：“${window}”。`,
    guesses: (n) => `它的前 ${n} 个猜测：`,
    unknownWords: (list) => `不在词表中、读作 <unk> 的词：${list}。`,
    list: "对空白处的最佳猜测",
    rank: (word, r, n, p) => `“${word}”是 ${n} 个词中的第 ${r} 个猜测（${p} %）。`,
    notAWord: (word) => `“${word}”不是模型的词：它从不猜这个词。`,
    oneWord: "请输入一个词，看它的排名。",
  },
};

const TOP = 5;
// encoder/corpora.py WORD, on the lower-cased text: words (an apostrophe inside one stays),
// numbers, and every other character that is not a space, alone. A space is what Python's \s
// matches, spelled out: JavaScript's \s also takes U+FEFF, and not U+001C to U+001F nor U+0085.
const SPACE = "\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const WORD = new RegExp(`[a-z]+(?:'[a-z]+)?|[0-9]+|[^${SPACE}a-z0-9]`, "gu");
const words = (text) => text.toLowerCase().match(WORD) ?? [];

/** encoder/text.py blank_window: MASK and the nearest ids around it, `size` at most. */
function blankWindow(left, right, size) {
  const nRight = Math.min(right.length, Math.max(Math.floor((size - 1) / 2), size - 1 - left.length));
  const nLeft = Math.min(left.length, size - 1 - nRight);
  return { left: left.slice(left.length - nLeft), right: right.slice(0, nRight) };
}

export function mount(root) {
  const t = said(TEXT);
  const files = { model: loadModel, words: loadVocabulary };
  textExplorer(
    root,
    t,
    "en",
    files,
    ({ model, words: vocab }, text, { candidate }) => {
      if (!text.trim()) return { error: t.empty };
      const parts = text.split(/_+/);
      if (parts.length === 1) return { error: t.noBlank };
      if (parts.length > 2) return { error: t.blanks(parts.length - 1) };
      const all = parts.map(words);
      const { left, right } = blankWindow(...all, model.config.max_len);
      const ids = [...encode(left, vocab.ids), MASK, ...encode(right, vocab.ids)];
      // The words' probabilities, the special tokens (never a guess) left out: p[k] is id SPECIALS + k's.
      const p = softmax(forward(model, ids).logits[left.length].slice(SPECIALS));
      const top = [];
      const rest = [...p];
      for (let k = 0; k < TOP; k += 1) {
        top.push(argmax(rest));
        rest[top[k]] = -Infinity;
      }
      const tokens = [...left, "___", ...right];
      const unknown = tokens.filter((_, i) => ids[i] === UNK);
      let message = t.reads(ids.length, all[0].length + all[1].length + 1, tokens.join(" "));
      if (unknown.length) message += t.unknownWords(unknown.map((w) => `“${w}”`).join(", "));
      message += t.guesses(TOP);
      const list = h(
        "ol",
        { class: "explorer__guesses", "aria-label": t.list, lang: "en" },
        top.map((k) =>
          h(
            "li",
            { style: `--weight: ${p[k]}` },
            h("span", { class: "explorer__guess", text: vocab.token(SPECIALS + k) }),
            h("span", { text: `${fixed(100 * p[k], 1)} %` }),
          ),
        ),
      );
      const result = { ids, top: top.map((k) => SPECIALS + k), p: top.map((k) => p[k]) };
      const nodes = [list];
      if (candidate.trim()) {
        const typed = words(candidate);
        const id = typed.length === 1 ? vocab.ids.get(typed[0]) : undefined;
        let line = t.oneWord;
        if (typed.length === 1 && id === undefined) line = t.notAWord(typed[0]);
        if (id !== undefined) {
          const q = p[id - SPECIALS];
          const rank = 1 + p.filter((other) => other > q).length;
          line = t.rank(typed[0], rank, p.length, fixed(100 * q, 2));
          result.candidate = { id, rank, p: q };
        }
        nodes.push(h("p", { class: "explorer__rank", text: line }));
      }
      return { message, nodes, result };
    },
    { more: { candidate: t.candidate } },
  );
}
