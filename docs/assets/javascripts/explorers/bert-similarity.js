// "How alike": the pretrained encoder (bert.js) reads each typed sentence (one a line) and gives
// its vector, the mean of its tokens' last vectors, L2-normalised (sentence-transformers'
// recipe); the table holds the cosine of every pair, the dot product of their vectors.
import { fixed, h, scroller, siteFile } from "./common.js";
import { LETTER, MAX_TOKENS, cosine, forward, loadBert } from "./bert.js";
import { said, textExplorer } from "./text.js";

const TEXT = {
  en: {
    input: "Sentences in English, one a line",
    empty: "Type two sentences or more, one a line.",
    one: "One sentence: type another on a new line, to compare them.",
    noLetters: (i) => `Sentence ${i} has no letter or digit to read.`,
    tooMany: (n, max) => `${n} sentences: compare at most ${max} at a time.`,
    alike: (a, b, c) => `Most alike: ${a} and ${b} (cosine ${c}).`,
    unlike: (a, b, c) => ` Least alike: ${a} and ${b} (${c}).`,
    cut: (i, n, max) => ` Sentence ${i} makes ${n} tokens: only the first ${max} are read.`,
    unknownTokens: (n) => ` ${n} tokens [UNK] (not in the vocabulary).`,
    table: "The cosine of every pair of sentences",
    sentences: "The sentences",
  },
  zh: {
    input: "英文句子，每行一个",
    empty: "请输入两个或更多句子，每行一个。",
    one: "只有一个句子：请在新的一行再输入一个，才能比较。",
    noLetters: (i) => `第 ${i} 个句子没有可读的字母或数字。`,
    tooMany: (n, max) => `共 ${n} 个句子：一次最多比较 ${max} 个。`,
    alike: (a, b, c) => `最相近：${a} 和 ${b}（余弦 ${c}）。`,
    unlike: (a, b, c) => `最不相近：${a} 和 ${b}（${c}）。`,
    cut: (i, n, max) => `第 ${i} 个句子共 ${n} 个 token：只读前 ${max} 个。`,
    unknownTokens: (n) => `有 ${n} 个 token 是 [UNK]（不在词表中）。`,
    table: "每对句子的余弦",
    sentences: "这些句子",
  },
};

const MAX_SENTENCES = 8;

export function mount(root) {
  const t = said(TEXT);
  const seen = new Map(); // sentence -> {ids, n, embedding}: an edit runs only the edited line

  textExplorer(root, t, "en", { model: loadBert }, ({ model }, text) => {
    const sentences = text.split("\n").map((line) => line.trim()).filter(Boolean);
    if (!sentences.length) return { error: t.empty };
    const bad = sentences.findIndex((line) => !LETTER.test(line));
    if (bad >= 0) return { error: t.noLetters(bad + 1) };
    if (sentences.length === 1) return { error: t.one };
    if (sentences.length > MAX_SENTENCES) return { error: t.tooMany(sentences.length, MAX_SENTENCES) };
    const read = sentences.map((line) => {
      if (!seen.has(line)) {
        const start = performance.now();
        const { ids, n } = model.tokenizer.sentence(line, MAX_TOKENS);
        const { embedding } = forward(model, ids);
        seen.set(line, { ids, n, embedding, ms: performance.now() - start }); // ms: for the tests
      }
      return seen.get(line);
    });
    const cosines = read.map((a) => read.map((b) => cosine(a.embedding, b.embedding)));
    const pairs = [];
    cosines.forEach((row, i) => row.forEach((c, j) => j > i && pairs.push([i + 1, j + 1, c])));
    pairs.sort((a, b) => b[2] - a[2]);
    const [best, worst] = [pairs[0], pairs[pairs.length - 1]];
    let message = t.alike(best[0], best[1], fixed(best[2]));
    if (pairs.length > 1) message += t.unlike(worst[0], worst[1], fixed(worst[2]));
    read.forEach(({ n }, i) => n > MAX_TOKENS && (message += t.cut(i + 1, n, MAX_TOKENS)));
    const unknown = read.flatMap(({ ids }) => ids).filter((id) => id === model.tokenizer.unk).length;
    if (unknown) message += t.unknownTokens(unknown);

    const list = h("ol", { class: "explorer__sentences", "aria-label": t.sentences, lang: "en" },
      sentences.map((line) => h("li", { text: line })));
    const number = (i) => h("th", { scope: "col", text: i + 1 });
    const table = h(
      "table",
      { class: "explorer__weights explorer__cosines" },
      h("thead", {}, h("tr", {}, h("td"), sentences.map((_, i) => number(i)))),
      h(
        "tbody",
        {},
        cosines.map((row, i) =>
          h(
            "tr",
            {},
            h("th", { scope: "row", text: i + 1 }),
            row.map((c) => h("td", { style: `--weight: ${Math.max(0, c)}` }, fixed(c, 2))),
          ),
        ),
      ),
    );
    const result = { sentences, ids: read.map(({ ids }) => ids), cosines, ms: read.map(({ ms }) => ms) };
    return { message, nodes: [list, scroller(t.table, table)], result };
  }, { lines: 5, wait: 400 });
  // For the browser tests: the sentence vector of any text, as the table computes it.
  root.explorer.embed = async (text) => {
    const model = await loadBert(siteFile(root.dataset.model));
    return Array.from(forward(model, model.tokenizer.sentence(text, MAX_TOKENS).ids).embedding);
  };
}
