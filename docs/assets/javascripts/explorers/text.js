// What the three explorers of Read real text share (sentiment.js, pinyin.js, fill-blank.js):
// their files, fetched once the widget comes into view (frame.js: a model as safetensors of
// float16 parameters, which model.js loadModel reads; a vocabulary), a text box
// whose every edit runs the model again, and the ids of a typed text as encoder/text.py reads
// it. The forward pass is model.js's, the package's step by step, in float64. The pretrained
// encoder's explorers (bert-attention.js, bert-similarity.js) are text explorers too.
import { fetchOk, h, siteFile, strings, uid } from "./common.js";
import { cached, explorerFrame } from "./frame.js";
// encoder/text.py: the special tokens at ids 0 .. 3, then the vocabulary's entries.
export const UNK = 1;
export const CLS = 2;
export const MASK = 3;
export const SPECIALS = 4; // <pad> <unk> <cls> <mask>
// The characters of Read real text's Chinese (its reviews, and what pypinyin reads).
export const HAN = /\p{Script=Han}/u;

export const json = async (url) => (await fetchOk(url)).json();

// What every text explorer says: loading, a failed load, and the characters it reads.
const SAID = {
  en: {
    loading: "Loading…",
    failed: (why) => `The model could not be loaded (${why}).`,
    cut: (n, max) => ` Only the first ${max} of the ${n} characters are read, as in training.`,
    unknown: (n) => ` ${n} character${n > 1 ? "s" : ""} not in the vocabulary (marked), read as <unk>.`,
    unknownTitle: "not in the vocabulary: read as <unk>",
    ask: (mb) => `The model's weights are ${mb} MB: they load when you press the button.`,
    load: (mb) => `Load the model (${mb} MB)`,
  },
  zh: {
    loading: "正在加载……",
    failed: (why) => `模型加载失败（${why}）。`,
    cut: (n, max) => `共 ${n} 个字符，只读前 ${max} 个，与训练时相同。`,
    unknown: (n) => `有 ${n} 个字符不在词表中（已标出），读作 <unk>。`,
    unknownTitle: "不在词表中：读作 <unk>",
    ask: (mb) => `模型的权重共 ${mb} MB：按下按钮才加载。`,
    load: (mb) => `加载模型（${mb} MB）`,
  },
};

/** The strings of an explorer in the page's language, after those every text explorer says. */
export const said = (table) => strings(table, SAID);

/** A vocabulary from its file: Vocabulary.to_json's {specials, chars} (characters, which
 * Array.from splits by code point as Python does) or WordVocabulary's list of words. Gives
 * `ids`, entry -> id, and `token(id)`, what an id stands for. */
export async function loadVocabulary(url) {
  const data = await json(url);
  const entries = Array.from(Array.isArray(data) ? data : data.chars);
  const specials = ["<pad>", "<unk>", "<cls>", "<mask>"];
  return {
    ids: new Map(entries.map((entry, i) => [entry, SPECIALS + i])),
    token: (id) => (id < SPECIALS ? specials[id] : entries[id - SPECIALS]),
  };
}

/** The ids of `tokens` (characters or words); an entry not in `ids` reads as <unk>. */
export const encode = (tokens, ids) => tokens.map((token) => ids.get(token) ?? UNK);

/** A row of tokens, those outside the vocabulary (<unk> to the model) marked. */
export function tokenCells(tokens, ids, unknown) {
  return tokens.map((token, i) => {
    const unk = ids[i] === UNK;
    const attrs = { scope: "col", lang: "zh", class: unk ? "explorer__unk" : false, title: unk ? unknown : false };
    return h("th", attrs, token);
  });
}

const ASKED = new Set(); // the files a reader asked for on this page (data-size)

/**
 * A text explorer in `root`, in the frame of frame.js: a box (label t.input, first text
 * data-start, in the language `reads`: "zh" or "en"; a box of several lines if `lines`), a
 * status line and the output. `files`: {data key: loader(url)}, fetched once. On every edit,
 * `show(files, text, more)` gives {error} or {message, nodes, result}: the status says the error
 * or the message, the output shows the nodes, and `root.explorer.result()` gives the numbers of
 * what is shown (the browser tests hold them to the package's); `root.explorer.update()` shows
 * the text again (after a choice in the explorer's own `controls`, shown beside the boxes).
 * `more`: further boxes, {name: label}, whose texts `show` gets as {name: text} (the first
 * text: data-NAME). `wait`: milliseconds of no typing before the model runs.
 * With data-size (bytes), the files are fetched only when the reader presses the button that
 * says their size: a large model. Pressed in one explorer, it loads them for every explorer
 * of the page that reads the same files (event "explorer-asked"; one drawn later finds them in
 * ASKED).
 */
export function textExplorer(root, t, reads, files, show, { lines = 0, wait = 0, controls = [], more = {} } = {}) {
  const statusId = uid(`${root.dataset.explorer}-status`);
  const box = (name, label, value, rows = 0) => {
    const id = uid(`${root.dataset.explorer}-${name}`);
    const input = h(rows ? "textarea" : "input", {
      type: rows ? false : "text",
      rows: rows || false,
      id,
      name,
      lang: reads, // the language the model reads, whichever the page's
      autocomplete: "off",
      spellcheck: "false",
      "aria-describedby": statusId,
    });
    input.value = value ?? "";
    const field = h("span", { class: "explorer__field explorer__field--text" }, h("label", { for: id, text: label }), input);
    return { input, field };
  };
  const main = box("input", t.input, root.dataset.start, lines);
  const input = main.input;
  const others = Object.entries(more).map(([name, label]) => [name, box(name, label, root.dataset[name])]);
  const output = h("div", { class: "explorer__output" });
  const paths = () => Object.keys(files).map((key) => siteFile(root.dataset[key]).href);
  const size = Number(root.dataset.size);
  let asked = !size || paths().every((path) => ASKED.has(path));
  const mb = (size / 1e6).toFixed(1);
  const button = size && !asked ? h("button", { type: "button", class: "explorer__load", text: t.load(mb) }) : "";
  if (button) {
    button.addEventListener("click", () => {
      paths().forEach((path) => ASKED.add(path));
      document.dispatchEvent(new CustomEvent("explorer-asked", { detail: paths() }));
    });
    document.addEventListener("explorer-asked", ({ detail }) => {
      if (asked || !paths().every((path) => detail.includes(path))) return;
      asked = true;
      button.remove();
      update();
    });
  }
  const load = cached(async () => {
    const loading = Object.entries(files).map(async ([key, loader]) => [key, await loader(siteFile(root.dataset[key]))]);
    return Object.fromEntries(await Promise.all(loading));
  });
  const ask = () => (asked ? null : t.ask(mb));
  const { status, say, update } = explorerFrame(root, t, statusId, { load, draw, ask });
  root.replaceChildren(
    h("div", { class: "explorer__controls" }, main.field, others.map(([, other]) => other.field), controls, button),
    status,
    output,
  );

  let current = null;
  function draw(loaded) {
    current = null;
    let shown;
    try {
      shown = show(loaded, input.value, Object.fromEntries(others.map(([name, other]) => [name, other.input.value])));
    } catch (error) {
      say("error", t.failed(error.message || error));
      output.replaceChildren();
      throw error; // and to the console, where the browser tests see it
    }
    say(shown.error ? "error" : "ok", shown.error || shown.message);
    output.replaceChildren(...(shown.nodes ?? []));
    current = shown.error ? null : shown.result;
  }
  // A Chinese input method fires "input" for each letter of the pinyin it is composing: run the
  // model on the characters it commits, not on the letters in between.
  // `wait` ms: a model that takes a while runs once the reader pauses, not at every key.
  let timer;
  const edited = () => (clearTimeout(timer), wait ? (timer = setTimeout(update, wait)) : update());
  for (const each of [input, ...others.map(([, other]) => other.input)]) {
    each.addEventListener("input", (event) => event.isComposing || edited());
    each.addEventListener("compositionend", edited);
  }
  root.explorer = { result: () => current, update };
}
