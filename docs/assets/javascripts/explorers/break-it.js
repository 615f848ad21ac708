// "Break it live" on the Train page: the ablations the page trains (no positions, no padding
// mask, no 1/√d_k, post-norm without warm-up), run in the browser beside the intact model on
// the reader's sequence, after the reader has said what to expect. Each switch starts on the
// input the page's fence chose and checked (data-variants' start): there the intact model is
// right at every position and the broken one is not. Two challenges trip the
// intact models themselves, explained with the numbers the page's fence measured and
// asserted (data-challenges). The forward pass is the attention explorer's (model.js);
// the browser tests compare it with the package's on test vectors the build does not publish.
import { argmax, fixed, h, radio, scroller, sequenceInput, siteFile, statusLine, strings, uid } from "./common.js";
import { cached } from "./frame.js";
import { forward, loadModel } from "./model.js";
import { EXPECTED, SEQUENCES, parse } from "./tasks.js";

const pct = (v) => `${fixed(100 * v, 1)} %`;
const TEXT = {
  en: {
    variant: "Break it",
    // Each switch's label, from its entry of data-variants.
    variants: {
      "no-positions": () => "no positions (count)",
      "no-mask": (v) => `no padding mask (reverse, padded to ${v.pad_to})`,
      "no-scaling": (v) => `no 1/√d_k (sort, one head, d_k = ${v.d_k})`,
      "post-norm": (v) => `post-norm, no warm-up (sort, ${v.n_layers} layers)`,
    },
    predict: "Your prediction",
    right: "it still gets every position right",
    wrong: "it gets some positions wrong",
    show: "Show",
    first: "Say what you expect first, then press Show.",
    loading: "Loading the weights…",
    failed: (e) => `The weights could not be loaded (${e}).`,
    rowIntact: "Intact",
    rowBroken: "Broken",
    tally: (a, b, n) => `Intact model: ${a} of ${n} right. Broken model: ${b} of ${n} right.`,
    tallyIntact: (a, n) => `Intact model: ${a} of ${n} right.`,
    verdict: (ok) => (ok ? " Your prediction was right." : " Not what you predicted."),
    challenges: "Challenges for the intact models",
    challenge: { count: "3 3 3 on count", reverse: "13 tokens on reverse" },
    explain: {
      count: (c) =>
        `The count model answers ${c.answer.join(" ")} for 3 3 3: right on d d d for ` +
        `${pct(c.same_right)} of the 9 digits d. Three equal tokens and nothing else are ` +
        `${pct(c.all_equal)} of the training sequences, and held-out accuracy falls with the ` +
        `count: ${Object.entries(c.by_value).map(([k, v]) => `${k}: ${pct(v)}`).join(", ")}.`,
      reverse: (c) =>
        `Training held sequences of at most ${c.max_len} tokens; on sequences of 13, the ` +
        `reversal model gets ${pct(c.accuracy)} of the tokens right (measured above on 2,000).`,
    },
    tableLabel: "Input, expected output, intact and broken models' outputs",
    tooLong: (n, max) => `${n} tokens: this model reads at most ${max}.`,
  },
  zh: {
    variant: "破坏它",
    variants: {
      "no-positions": () => "没有位置编码（计数）",
      "no-mask": (v) => `没有填充掩码（反转，填充到 ${v.pad_to}）`,
      "no-scaling": (v) => `没有 1/√d_k（排序，单头，d_k = ${v.d_k}）`,
      "post-norm": (v) => `后归一化，没有预热（排序，${v.n_layers} 层）`,
    },
    predict: "你的预测",
    right: "它仍然每个位置都对",
    wrong: "它会错一些位置",
    show: "显示",
    first: "先说出你的预期，再按「显示」。",
    loading: "正在加载权重……",
    failed: (e) => `无法加载权重（${e}）。`,
    rowIntact: "完整模型",
    rowBroken: "被破坏的模型",
    tally: (a, b, n) => `完整模型：${n} 个位置对 ${a} 个。被破坏的模型：${n} 个位置对 ${b} 个。`,
    tallyIntact: (a, n) => `完整模型：${n} 个位置对 ${a} 个。`,
    verdict: (ok) => (ok ? "你的预测是对的。" : "和你预测的不一样。"),
    challenges: "给完整模型的挑战",
    challenge: { count: "计数任务上的 3 3 3", reverse: "反转任务上的 13 个 token" },
    explain: {
      count: (c) =>
        `计数模型对 3 3 3 的回答是 ${c.answer.join(" ")}：在 9 个数字 d 的 d d d 上，答对的占 ` +
        `${pct(c.same_right)}。只有三个相同 token 的序列只占训练序列的 ${pct(c.all_equal)}，` +
        `而留出准确率随计数值下降：${Object.entries(c.by_value).map(([k, v]) => `${k}：${pct(v)}`).join("，")}。`,
      reverse: (c) =>
        `训练序列最多 ${c.max_len} 个 token；在 13 个 token 的序列上，反转模型答对 ${pct(c.accuracy)} ` +
        "的 token（上面在 2000 条序列上测得）。",
    },
    tableLabel: "输入、正确答案、完整模型与被破坏模型的输出",
    tooLong: (n, max) => `共 ${n} 个 token：这个模型最多读取 ${max} 个。`,
  },
};

export function mount(root) {
  const t = strings(TEXT, SEQUENCES);
  const variants = JSON.parse(root.dataset.variants);
  const challenges = JSON.parse(root.dataset.challenges);
  const intactModels = JSON.parse(root.dataset.intact); // task -> its trained model's file
  const get = cached((path) => loadModel(siteFile(path))); // path -> Promise of the model
  // The mode: a broken variant, or a challenge (the intact model of a task on given ids).
  const first = Object.keys(variants)[0];
  const state = { mode: { variant: first }, text: variants[first].start.join(" ") };
  const statusId = uid("break-status");
  const variantGroup = uid("break-variant");
  const variantField = h(
    "fieldset",
    { class: "explorer__tasks" },
    h("legend", { text: t.variant }),
    Object.keys(variants).map((name, i) =>
      radio(variantGroup, name, t.variants[name](variants[name]), i === 0, () => {
        state.mode = { variant: name };
        input.value = state.text = variants[name].start.join(" ");
        reset();
      }),
    ),
  );
  const inputId = uid("break-input");
  const input = sequenceInput(inputId, state, statusId, reset);
  const guessGroup = uid("break-guess");
  const guessField = h(
    "fieldset",
    { class: "explorer__tasks" },
    h("legend", { text: t.predict }),
    radio(guessGroup, "right", t.right, false, () => {}),
    radio(guessGroup, "wrong", t.wrong, false, () => {}),
  );
  const show = h("button", { type: "button", text: t.show });
  show.addEventListener("click", () => reveal());
  const challengeButtons = Object.keys(challenges).map((task) => {
    const b = h("button", { type: "button", text: t.challenge[task], "data-challenge": task });
    b.addEventListener("click", () => {
      state.mode = { challenge: task };
      input.value = challenges[task].ids.join(" ");
      state.text = input.value;
      for (const r of variantField.querySelectorAll("input")) r.checked = false;
      reset();
    });
    return b;
  });
  const status = statusLine(statusId);
  const output = h("div", { class: "explorer__output" });
  const explanation = h("p", { class: "explorer__note" });
  root.replaceChildren(
    h(
      "div",
      { class: "explorer__controls" },
      variantField,
      h("span", { class: "explorer__field" }, h("label", { for: inputId, text: t.input }), input),
    ),
    h(
      "div",
      { class: "explorer__controls explorer__challenges" },
      h("span", { class: "explorer__field-title", text: t.challenges }),
      challengeButtons,
    ),
    h("div", { class: "explorer__controls" }, guessField, show),
    status,
    output,
    explanation,
  );

  function reset() {
    delete root.dataset.revealed;
    output.replaceChildren();
    explanation.textContent = "";
    for (const r of guessField.querySelectorAll("input")) r.checked = false;
    status.textContent = t.first;
    root.dataset.state = "ok";
  }

  /** Logits of a variant (or the intact model of a task) on ids, as on the page. */
  async function run(mode, ids) {
    if (mode.challenge) return forward(await get(intactModels[mode.challenge]), ids).logits;
    const v = variants[mode.variant];
    const model = await get(v.model);
    const padded = v.pad_to ? [...ids, ...Array(Math.max(0, v.pad_to - ids.length)).fill(0)] : ids;
    return forward(model, padded).logits.slice(0, ids.length);
  }

  async function reveal() {
    const guess = guessField.querySelector("input:checked");
    if (!guess) {
      status.textContent = t.first;
      return;
    }
    const mode = state.mode;
    const task = mode.challenge || variants[mode.variant].task;
    let intact;
    try {
      status.textContent = t.loading;
      intact = await get(intactModels[task]);
      if (mode.variant) await get(variants[mode.variant].model); // the broken one, cached
    } catch (error) {
      root.dataset.state = "error";
      status.textContent = t.failed(error.message || error);
      return;
    }
    const maxLen = (mode.variant && variants[mode.variant].pad_to) || intact.config.max_len;
    const parsed = parse(state.text, maxLen, t);
    if (parsed.error) {
      root.dataset.state = "error";
      status.textContent = parsed.error;
      output.replaceChildren();
      return;
    }
    const { ids } = parsed;
    const expected = EXPECTED[task](ids);
    const rows = [
      [t.rowInput, ids],
      [t.rowExpected, expected],
    ];
    try {
      rows.push([t.rowIntact, forward(intact, ids).logits.map(argmax), true]);
      if (mode.variant) rows.push([t.rowBroken, (await run(mode, ids)).map(argmax), true]);
    } catch (error) {
      root.dataset.state = "error";
      status.textContent = t.failed(error.message || error);
      output.replaceChildren();
      throw error; // and to the console, where the browser tests see it
    }
    const right = (p) => p.filter((v, i) => v === expected[i]).length;
    const a = right(rows[2][1]);
    const b = mode.variant ? right(rows[3][1]) : a;
    const allRight = b === ids.length;
    status.textContent =
      (mode.variant ? t.tally(a, b, ids.length) : t.tallyIntact(a, ids.length)) +
      t.verdict((guess.value === "right") === allRight);
    output.replaceChildren(
      scroller(
        t.tableLabel,
        h(
          "table",
          {},
          h(
            "tbody",
            {},
            rows.map(([label, values, mark]) =>
              h(
                "tr",
                {},
                h("th", { scope: "row", text: label }),
                values.map((v, i) => {
                  const bad = mark && v !== expected[i];
                  return h("td", { class: bad ? "explorer__wrong" : false }, bad ? `${v} ✗` : `${v}`);
                }),
              ),
            ),
          ),
        ),
      ),
    );
    explanation.textContent = mode.challenge ? t.explain[mode.challenge](challenges[mode.challenge]) : "";
    root.dataset.state = "ok";
    root.dataset.revealed = "";
  }

  // For the browser tests: the logits of a broken variant, as the page computes them.
  root.explorer = { run: (name, ids) => run({ variant: name }, ids) };
  reset();
}

