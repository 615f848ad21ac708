// The attention explorer of the Train page: the trained TokenClassifier of each task, run in
// the browser on a sequence the reader types, its maps, and under them the trace of one query
// (trace.js; the Attention page shows the same explorer for it). The forward pass is model.js's,
// the package's step by step, on the float32 weights the build exported (docs_build/explorers.py
// model_file). The browser tests compare it with the package's output on exported test vectors.
import { argmax, h, radio, scroller, sequenceInput, siteFile, strings, uid } from "./common.js";
import { cached, explorerFrame } from "./frame.js";
import { heatMap, strongest } from "./heatmap.js";
import { forward, loadModel } from "./model.js";
import { EXPECTED, SEQUENCES, parse } from "./tasks.js";
import { traceSection } from "./trace.js";

const TEXT = {
  en: {
    task: "Task",
    tasks: { reverse: "Reverse", sort: "Sort", count: "Count" },
    random: "Random sequence",
    rowModel: "Model",
    loading: "Loading the trained weights…",
    failed: (e) => `The trained weights could not be loaded (${e}).`,
    tooLong: (n, max) => `${n} tokens: the model reads at most ${max} (its max_len).`,
    allRight: (n) => (n === 1 ? "The 1 position is right." : `All ${n} positions right.`),
    wrong: (k, n) => `${k} of ${n} ${n === 1 ? "position" : "positions"} wrong (marked ✗).`,
    unseen: (n, m) => ` ${n} tokens is longer than any sequence in training (${m}).`,
    layer: (l) => `Layer ${l}`,
    head: (i) => `head ${i}`,
    mapLabel: (l, i, pairs) =>
      `Layer ${l}, head ${i}. For each query, the key with the largest weight: ${pairs}.`,
    legend:
      "Each map: rows are queries, columns keys; the stronger the colour, the more " +
      "weight. Tap or click a cell: its weight shows below, and its query is traced.",
    outputLabel: "Input, expected output and the model's output",
  },
  zh: {
    task: "任务",
    tasks: { reverse: "反转", sort: "排序", count: "计数" },
    random: "随机序列",
    rowModel: "模型输出",
    loading: "正在加载训练好的权重……",
    failed: (e) => `无法加载训练好的权重（${e}）。`,
    tooLong: (n, max) => `共 ${n} 个 token：模型最多读取 ${max} 个（它的 max_len）。`,
    allRight: (n) => `${n} 个位置全部正确。`,
    wrong: (k, n) => `${n} 个位置中有 ${k} 个错误（标记为 ✗）。`,
    unseen: (n, m) => ` ${n} 个 token 比训练中的任何序列都长（最长 ${m} 个）。`,
    layer: (l) => `第 ${l} 层`,
    head: (i) => `头 ${i}`,
    mapLabel: (l, i, pairs) => `第 ${l} 层，头 ${i}。每个查询权重最大的键：${pairs}。`,
    legend: "每张图：行是查询，列是键；颜色越浓，权重越大。点击或轻触格子：下方显示它的权重，并追踪它的查询。",
    outputLabel: "输入、正确答案与模型输出",
  },
};

export function mount(root) {
  const t = strings(TEXT, SEQUENCES);
  const tasks = root.dataset.tasks.split(" ");
  const trainedMax = Number(root.dataset.trainedMax); // the longest sequence the tasks train on
  const inputId = uid("attention-input");
  const statusId = uid("attention-status");
  const state = { task: tasks[0], text: "3 1 4 1 5 9 2 6" };
  // The traced query: layer, head, query position; k the tapped key (null: none).
  const pick = { layer: 1, head: 0, q: 0, k: null };

  const getModel = cached((task) => {
    const key = `model${task[0].toUpperCase()}${task.slice(1)}`; // data-model-<task>
    return loadModel(siteFile(root.dataset[key]));
  });
  const load = () => getModel(state.task);
  const { status, say, update } = explorerFrame(root, t, statusId, { load, draw: show });

  const group = uid("attention-task");
  const radios = h(
    "fieldset",
    { class: "explorer__tasks" },
    h("legend", { text: t.task }),
    tasks.map((task) =>
      radio(group, task, t.tasks[task], task === state.task, () => {
        state.task = task;
        update();
      }),
    ),
  );
  const input = sequenceInput(inputId, state, statusId, update);
  const random = h("button", { type: "button", text: t.random });
  random.addEventListener("click", () => {
    const n = 2 + Math.floor(Math.random() * (trainedMax - 1));
    input.value = Array.from({ length: n }, () => 1 + Math.floor(Math.random() * 9)).join(" ");
    state.text = input.value;
    update();
  });
  const output = h("div", { class: "explorer__output" });
  const maps = h("div", { class: "explorer__layers" });
  // The trace (trace.js): pick a layer, a head and a query there, or tap a cell of a map.
  const trace = traceSection({ layer: t.layer, head: t.head }, repick);
  root.replaceChildren(
    h(
      "div",
      { class: "explorer__controls" },
      radios,
      h("span", { class: "explorer__field" }, h("label", { for: inputId, text: t.input }), input),
      random,
    ),
    status,
    output,
    maps,
    h("p", { class: "explorer__legend", text: t.legend }),
    trace.readout,
    trace.section,
  );

  let current = null; // {loaded, ids, result}

  function drawMaps() {
    const { ids, result } = current;
    maps.replaceChildren(
      ...result.attention.map((layer, l) =>
        h(
          "div",
          { class: "explorer__layer" },
          h("p", { class: "explorer__layer-title", text: t.layer(l) }),
          h(
            "div",
            // On a phone the layer's heads scroll sideways (explorers.css): focusable, so that
            // a keyboard scrolls them too.
            { class: "explorer__heads", tabindex: 0, role: "region", "aria-label": t.layer(l) },
            layer.map((w, i) => {
              const picked = l === pick.layer && i === pick.head ? pick : null;
              const svg = heatMap(w, ids, t.mapLabel(l, i, strongest(w)), picked);
              svg.addEventListener("click", (event) => {
                const cell = event.target.closest("[data-q]");
                if (!cell) return;
                repick({ layer: l, head: i, q: Number(cell.dataset.q), k: Number(cell.dataset.k) });
              });
              return h("figure", { class: "explorer__head" }, svg, h("figcaption", { text: t.head(i) }));
            }),
          ),
        ),
      ),
    );
  }

  function draw() {
    const { ids, result, loaded } = current;
    drawMaps();
    trace.draw(result.trace, ids, pick, loaded.config);
  }

  function repick(changes) {
    Object.assign(pick, changes);
    if (current) draw();
  }

  /** The loaded model of the task on the typed sequence. */
  function show(loaded) {
    const parsed = parse(state.text, loaded.config.max_len, t);
    if (parsed.error) {
      say("error", parsed.error);
      current = null;
      output.replaceChildren();
      maps.replaceChildren();
      trace.clear();
      return;
    }
    const { ids } = parsed;
    const result = forward(loaded, ids);
    const predicted = result.logits.map(argmax);
    const expected = EXPECTED[state.task](ids);
    const wrong = predicted.filter((p, i) => p !== expected[i]).length;
    let message = wrong ? t.wrong(wrong, ids.length) : t.allRight(ids.length);
    if (ids.length > trainedMax) message += t.unseen(ids.length, trainedMax);
    say("ok", message);
    const row = (label, values, marks) =>
      h(
        "tr",
        {},
        h("th", { scope: "row", text: label }),
        values.map((v, i) => {
          const bad = marks && marks[i];
          return h("td", { class: bad ? "explorer__wrong" : false }, bad ? `${v} ✗` : `${v}`);
        }),
      );
    output.replaceChildren(
      scroller(
        t.outputLabel,
        h(
          "table",
          {},
          h(
            "tbody",
            {},
            row(t.rowInput, ids),
            row(t.rowExpected, expected),
            row(
              t.rowModel,
              predicted,
              predicted.map((p, i) => p !== expected[i]),
            ),
          ),
        ),
      ),
    );
    pick.layer = Math.min(pick.layer, loaded.config.n_layers - 1);
    if (pick.q >= ids.length) Object.assign(pick, { q: 0, k: null });
    if (pick.k !== null && pick.k >= ids.length) pick.k = null;
    current = { loaded, ids, result };
    draw();
  }

  // For the browser tests and the curious: the same forward pass on any ids, and the trace.
  root.explorer = {
    run: async (task, ids) => forward(await getModel(task), ids),
    pick: () => ({ ...pick }),
  };
}
