// "Watch it learn" on the Train page: the reversal run's weights kept at a dozen steps. A slider
// picks the step; the loss curve marks it, and the maps show the attention of every layer and
// head at that step on a few fixed sequences. The maps are the package's attention_maps of the
// kept weights, computed at build time (docs_build/explorers.py: learn_explorer); the browser
// tests retrain the run and compare.
import { argmax, fetchOk, fixed, h, radio, siteFile, strings, uid } from "./common.js";
import { explorerFrame } from "./frame.js";
import { heatMap, strongest } from "./heatmap.js";
import { linePlot, niceTicks, plotWidth } from "./plot.js";

const TEXT = {
  en: {
    step: "Training step",
    stepValue: (s) => `step ${s}`,
    input: "Sequence",
    loading: "Loading the kept steps…",
    failed: (e) => `The kept steps could not be loaded (${e}).`,
    status: (s, last, loss, hd, w1, w0) =>
      `Step ${s} of ${last}: training loss ${loss}. Weight on the mirrored key n−1−i, ` +
      `mean over 500 held-out sequences: layer 1, head ${hd}: ${w1}; layer 0: at most ${w0}.`,
    lossAxis: "training step",
    lossLabel: (s, loss) => `Training loss at every step, from about 2.3 down; marked: step ${s}, loss ${loss}.`,
    lossCaption: "Training loss of the run, with the chosen step marked.",
    layer: (l) => `Layer ${l}`,
    head: (i) => `head ${i}`,
    mapLabel: (s, l, i, pairs) =>
      `Step ${s}, layer ${l}, head ${i}. For each query, the key with the largest weight: ${pairs}.`,
    legend:
      "Each map: rows are queries, columns keys; the stronger the colour, the more weight. " +
      "The mirrored key of query i, n−1−i, is outlined: the anti-diagonal, from bottom left " +
      "to top right.",
  },
  zh: {
    step: "训练步数",
    stepValue: (s) => `第 ${s} 步`,
    input: "序列",
    loading: "正在加载保存的各步……",
    failed: (e) => `无法加载保存的各步（${e}）。`,
    status: (s, last, loss, hd, w1, w0) =>
      `第 ${s} 步（共 ${last} 步）：训练损失 ${loss}。镜像键 n−1−i 上的权重（500 条留出序列的平均）：` +
      `第 1 层的头 ${hd}：${w1}；第 0 层：最多 ${w0}。`,
    lossAxis: "训练步数",
    lossLabel: (s, loss) => `每一步的训练损失，从约 2.3 往下降；标记处：第 ${s} 步，损失 ${loss}。`,
    lossCaption: "这次训练的损失曲线，标出所选的步数。",
    layer: (l) => `第 ${l} 层`,
    head: (i) => `头 ${i}`,
    mapLabel: (s, l, i, pairs) => `第 ${s} 步，第 ${l} 层，头 ${i}。每个查询权重最大的键：${pairs}。`,
    legend: "每张图：行是查询，列是键；颜色越浓，权重越大。查询 i 的镜像键 n−1−i 用虚线框出：从左下到右上的反对角线。",
  },
};

/** The loss at a kept step: the loss of the step's own update (step 0: the first one's). */
const lossAt = (data, step) => data.loss[Math.max(step, 1) - 1];

export function mount(root) {
  const t = strings(TEXT);
  const sliderId = uid("learn-step");
  const statusId = uid("learn-status");
  const state = { index: 0, input: 0 };
  const slider = h("input", {
    type: "range",
    id: sliderId,
    min: 0,
    max: 0,
    step: 1,
    value: 0,
    disabled: true,
    "aria-describedby": statusId,
  });
  const readout = h("output", { for: sliderId, class: "explorer__readout" });
  const inputs = h("fieldset", { class: "explorer__tasks" }, h("legend", { text: t.input }));
  // The kept steps, fetched once the widget comes into view (its only update).
  const load = async () => (await fetchOk(siteFile(root.dataset.run))).json();
  const { status } = explorerFrame(root, t, statusId, { load, draw: start });
  const curve = h("figure", { class: "explorer__curve" });
  const maps = h("div", { class: "explorer__layers" });
  root.replaceChildren(
    h(
      "div",
      { class: "explorer__controls" },
      h("span", { class: "explorer__field" }, h("label", { for: sliderId, text: t.step }), slider, readout),
    ),
    h("div", { class: "explorer__controls" }, inputs),
    status,
    curve,
    maps,
    h("p", { class: "explorer__legend", text: t.legend }),
  );

  let data = null;
  let drawnWidth = 0;
  function draw() {
    const step = data.steps[state.index];
    const last = data.steps[data.steps.length - 1];
    const loss = fixed(lossAt(data, step), 3);
    slider.value = state.index;
    slider.setAttribute("aria-valuetext", t.stepValue(step));
    readout.textContent = `${step}`;
    const mirror = data.mirror[state.index];
    const mirroring = data.mirror[data.mirror.length - 1][1];
    const hd = argmax(mirroring); // layer 1's mirroring head, at the end
    const [w1, w0] = [fixed(mirror[1][hd], 3), fixed(Math.max(...mirror[0]), 3)];
    status.textContent = t.status(step, last, loss, hd, w1, w0);
    drawnWidth = plotWidth(curve);
    const yMax = Math.ceil(Math.max(...data.loss));
    const [svg] = linePlot([{ values: data.loss }], {
      W: drawnWidth,
      xs: (i) => i + 1,
      xTicks: [1, ...niceTicks(data.loss.length, drawnWidth < 400 ? 4 : 6).slice(1)].map((v) => [v, v]),
      xLabel: t.lossAxis,
      yMin: 0,
      yMax,
      label: t.lossLabel(step, loss),
      marker: { x: Math.max(step, 1), y: lossAt(data, step), text: t.stepValue(step) },
    });
    curve.replaceChildren(svg, h("figcaption", { text: t.lossCaption }));
    const ids = data.inputs[state.input];
    const mirrored = ids.map((_, q) => [q, ids.length - 1 - q]); // query i, key n-1-i
    maps.replaceChildren(
      ...data.maps[state.index][state.input].map((layer, l) =>
        h(
          "div",
          { class: "explorer__layer" },
          h("p", { class: "explorer__layer-title", text: t.layer(l) }),
          h(
            "div",
            { class: "explorer__heads" },
            layer.map((w, i) =>
              h(
                "figure",
                { class: "explorer__head" },
                heatMap(w, ids, t.mapLabel(step, l, i, strongest(w)), null, mirrored),
                h("figcaption", { text: t.head(i) }),
              ),
            ),
          ),
        ),
      ),
    );
    root.dataset.step = `${step}`;
  }

  function start(loaded) {
    data = loaded;
    slider.max = data.steps.length - 1;
    slider.disabled = false;
    const group = uid("learn-input");
    inputs.append(
      ...data.inputs.map((ids, k) =>
        radio(group, k, ids.join(" "), k === state.input, () => {
          state.input = k;
          draw();
        }),
      ),
    );
    slider.addEventListener("input", () => {
      state.index = Number(slider.value);
      draw();
    });
    new ResizeObserver(() => {
      if (Math.abs(plotWidth(curve) - drawnWidth) > 8) draw();
    }).observe(curve);
    root.dataset.state = "ok";
    draw();
  }

  // For the browser tests: the kept steps, and the step, sequence and maps on show.
  root.explorer = {
    steps: () => (data ? [...data.steps] : []),
    shown: () => ({
      step: data.steps[state.index],
      ids: data.inputs[state.input],
      maps: data.maps[state.index][state.input],
    }),
  };
}
