// The attention map of one head, drawn as a grid of cells: the attention explorer's, Watch it
// learn's (learn.js) and the pretrained encoder's (bert-attention.js).
import { argmax, fixed, s } from "./common.js";

/** A map of weights [query][key]; picked: the traced query (and key); marked: [q, k] cells to
 * outline. */
export function heatMap(weights, ids, label, picked, marked = []) {
  const T = ids.length;
  const cell = 12;
  const pad = 16;
  const size = pad + T * cell + 1; // + 1: room for the frame's stroke
  const svg = s("svg", {
    viewBox: `0 0 ${size} ${size}`,
    role: "img",
    "aria-label": label,
    class: "explorer__map",
    // Two tokens: not a giant 2 × 2. --map-width: cells of 24 px, the size of a tap target
    // (explorers.css draws the attention explorer's maps at it on a phone).
    style: `--map-max: ${Math.max(80, 2 * size)}px; --map-width: ${2 * size}px`,
  });
  ids.forEach((id, i) => {
    const y = pad + i * cell + cell * 0.8;
    const x = pad + i * cell + cell / 2;
    const tick = { class: "explorer__tick", text: id };
    svg.append(s("text", { x: pad - 3, y, "text-anchor": "end", ...tick }));
    svg.append(s("text", { x, y: pad - 4, "text-anchor": "middle", ...tick }));
  });
  weights.forEach((row, q) =>
    row.forEach((w, k) => {
      svg.append(
        s("rect", {
          x: pad + k * cell,
          y: pad + q * cell,
          width: cell,
          height: cell,
          class: "explorer__cell",
          "fill-opacity": fixed(w, 3),
          "data-q": q,
          "data-k": k,
        }),
      );
    }),
  );
  const frame = { x: pad, y: pad, width: T * cell, height: T * cell };
  svg.append(s("rect", { ...frame, class: "explorer__frame" }));
  for (const [q, k] of marked) {
    const at = { x: pad + k * cell, y: pad + q * cell, width: cell, height: cell };
    svg.append(s("rect", { ...at, class: "explorer__mark" }));
  }
  if (picked) {
    // The traced query's row, and the tapped cell in it.
    const row = { x: pad, y: pad + picked.q * cell, height: cell };
    svg.append(s("rect", { ...row, width: T * cell, class: "explorer__pick-row" }));
    if (picked.k !== null) {
      svg.append(s("rect", { ...row, x: pad + picked.k * cell, width: cell, class: "explorer__pick" }));
    }
  }
  return svg;
}

/** Each query's strongest key and its weight, "query→key (weight)", for a map's label. */
export function strongest(weights) {
  return weights
    .map((row, q) => {
      const k = argmax(row);
      return `${q}→${k} (${fixed(row[k])})`;
    })
    .join(", ");
}
