// "Where a head looks": the pretrained encoder (bert.js) reads the typed sentence, cut into
// WordPiece tokens (wordpiece.js), and shows the attention of the chosen layer and head: tap a
// token to see the weight it gives every token (its row of the map, drawn by heatmap.js).
import { argmax, fixed, h, scroller, uid } from "./common.js";
import { LETTER, MAX_TOKENS, forward, loadBert } from "./bert.js";
import { heatMap } from "./heatmap.js";
import { said, textExplorer } from "./text.js";

const TEXT = {
  en: {
    input: "A sentence in English",
    layer: "Layer",
    head: "Head",
    empty: "Type a sentence in English.",
    noLetters: "No letter or digit to read: type a sentence in English.",
    reads: (n) => `The model reads ${n} tokens, [CLS] and [SEP] included.`,
    unknownTokens: (n) => ` ${n} of them [UNK] (not in its vocabulary, marked).`,
    cut: (n, max) => ` The text makes ${n} tokens: only the first ${max} are read (the length it was trained on).`,
    looks: (tok, l, hd, top, w) => ` In layer ${l}, head ${hd}, “${tok}” looks most at “${top}” (${w}). Tap a token.`,
    tokens: "The tokens: tap one to see where it looks",
    weight: (tok, w) => `${tok}: ${w}`,
    mapLabel: (l, hd, q) =>
      `Layer ${l}, head ${hd}: every token's weights (rows: queries, columns: keys), the row of token ${q} outlined.`,
    legend:
      "The map: row i is where token i looks, column j how much it takes from token j " +
      "(numbered from 0, [CLS]); tap a cell to pick its row.",
    noMap: (n, max) => `The map of every token's row is drawn up to ${max} tokens (this text makes ${n}): tap a token above.`,
  },
  zh: {
    input: "一个英文句子",
    layer: "层",
    head: "头",
    empty: "请输入一个英文句子。",
    noLetters: "没有可读的字母或数字：请输入一个英文句子。",
    reads: (n) => `模型读入 ${n} 个 token（含 [CLS] 和 [SEP]）。`,
    unknownTokens: (n) => `其中 ${n} 个是 [UNK]（不在词表中，已标出）。`,
    cut: (n, max) => `这段文字共 ${n} 个 token：只读前 ${max} 个（它训练时的长度）。`,
    looks: (tok, l, hd, top, w) => `在第 ${l} 层的头 ${hd} 中，“${tok}”最关注“${top}”（${w}）。点一个 token 试试。`,
    tokens: "各个 token：点一个，看它关注哪里",
    weight: (tok, w) => `${tok}：${w}`,
    mapLabel: (l, hd, q) => `第 ${l} 层，头 ${hd}：每个 token 的权重（行是查询，列是键），第 ${q} 个 token 的行已框出。`,
    legend: "图中第 i 行是第 i 个 token 关注哪里，第 j 列是它从第 j 个 token 取多少（从 0，即 [CLS]，编号）；点一个格子选中它的行。",
    noMap: (n, max) => `所有 token 的权重图只在 ${max} 个 token 以内画出（这段文字有 ${n} 个）：请点上面的 token。`,
  },
};

const MAX_MAP = 64; // tokens: a longer sentence's map would be T² cells to draw

export function mount(root) {
  const t = said(TEXT);
  const pick = { layer: 0, head: 0, q: 1 };
  const choices = (what, n, key) => {
    const select = h("select", { id: uid(`bert-${key}`) });
    for (let i = 0; i < n; i += 1) select.append(h("option", { value: i, text: i }));
    select.addEventListener("change", () => {
      pick[key] = Number(select.value);
      root.explorer.update();
    });
    return h("span", { class: "explorer__field" }, h("label", { for: select.id, text: what }), select);
  };
  // The checkpoint's layers and heads (data-layers, data-heads: the build reads its config).
  const { layers, heads } = root.dataset;
  const controls = [
    choices(t.layer, Number(layers), "layer"),
    choices(t.head, Number(heads), "head"),
  ];
  const selects = controls.map((field) => field.querySelector("select"));
  // data-look "QUERY KEY": the first drawing shows the token QUERY of the page's sentence, in the
  // layer and head where it gives KEY the most weight (found here, on the reader's machine).
  let look = root.dataset.look?.split(" ");
  let last = { text: null }; // the forward pass of the text shown: a new pick draws, not runs
  let focus = false;

  textExplorer(root, t, "en", { model: loadBert }, ({ model }, text) => {
    if (!text.trim()) return { error: t.empty };
    if (!LETTER.test(text)) return { error: t.noLetters };
    if (last.text !== text) {
      const start = performance.now();
      const { ids, n } = model.tokenizer.sentence(text, MAX_TOKENS);
      last = { text, ids, n, ...forward(model, ids) };
      last.ms = performance.now() - start; // the tokenizer and the forward pass, for the tests

    }
    const { ids, n, attention, ms } = last;
    const T = ids.length;
    const tokens = ids.map((id) => model.tokenizer.token(id));
    if (look && text === root.dataset.start) {
      const [q, k] = look.map((word) => tokens.indexOf(word));
      let best = -1;
      attention.forEach((heads, l) =>
        heads.forEach((m, hd) => {
          if (q >= 0 && k >= 0 && m[q * T + k] > best) [best, pick.layer, pick.head, pick.q] = [m[q * T + k], l, hd, q];
        }),
      );
      [selects[0].value, selects[1].value] = [pick.layer, pick.head];
    }
    look = null;
    pick.q = Math.min(pick.q, T - 1);
    const map = attention[pick.layer][pick.head];
    const row = Array.from(map.subarray(pick.q * T, (pick.q + 1) * T));
    const top = argmax(row);
    const unknown = ids.filter((id) => id === model.tokenizer.unk).length;
    let message = t.reads(T);
    if (unknown) message += t.unknownTokens(unknown);
    if (n > MAX_TOKENS) message += t.cut(n, MAX_TOKENS);
    message += t.looks(tokens[pick.q], pick.layer, pick.head, tokens[top], fixed(row[top]));

    const buttons = tokens.map((token, i) => {
      const button = h("button", {
        type: "button",
        class: ids[i] === model.tokenizer.unk ? "explorer__token explorer__unk" : "explorer__token",
        "aria-pressed": i === pick.q ? "true" : "false",
        style: `--weight: ${row[i]}`,
        title: t.weight(token, fixed(row[i], 3)),
        text: token,
      });
      button.addEventListener("click", () => {
        pick.q = i;
        focus = true; // the redrawn row's button takes the focus, as this one had it
        root.explorer.update();
      });
      return button;
    });
    if (focus) setTimeout(() => buttons[pick.q].focus());
    focus = false;
    const nodes = [h("div", { class: "explorer__tokens", role: "group", "aria-label": t.tokens, lang: "en" }, buttons)];
    if (T <= MAX_MAP) {
      const weights = Array.from({ length: T }, (_, q) => Array.from(map.subarray(q * T, (q + 1) * T)));
      const every = T > 30 ? 5 : T > 10 ? 2 : 1; // numbers of two digits: every other one
      const positions = ids.map((_, i) => (i % every ? "" : i));
      const svg = heatMap(weights, positions, t.mapLabel(pick.layer, pick.head, pick.q), { q: pick.q, k: null });
      svg.style.width = `${Math.round(1.5 * svg.viewBox.baseVal.width)}px`; // cells of 18 px
      svg.style.maxWidth = "none";
      svg.addEventListener("click", (event) => {
        const cell = event.target.closest("[data-q]");
        if (!cell) return;
        pick.q = Number(cell.dataset.q);
        root.explorer.update();
      });
      nodes.push(scroller(t.mapLabel(pick.layer, pick.head, pick.q), svg), h("p", { class: "explorer__legend", text: t.legend }));
    } else nodes.push(h("p", { class: "explorer__legend", text: t.noMap(T, MAX_MAP) }));
    // attention: [layer][head] Float32Array (T × T), as forward() gives it.
    return { message, nodes, result: { text, ids, n, pick: { ...pick }, attention, ms } };
  }, { wait: 250, controls });
}
