// Line plots with ticked axes, shared by the explorers. A plot is drawn in a viewBox as wide
// as its container in CSS pixels (plotWidth), so that its text keeps the size the stylesheet
// gives it (explorers.css: .explorer__plot .explorer__tick) on a phone as on a desktop.
import { fixed, h, s } from "./common.js";

/** The width to draw at: the container's, in CSS pixels (560 before layout). */
export function plotWidth(container) {
  const width = Math.round(container.getBoundingClientRect().width);
  return width > 0 ? Math.max(240, width) : 560;
}

/** About `count` round values (1, 2 or 5 times a power of ten apart) from lo to hi. */
function ticksBetween(lo, hi, count = 5) {
  if (hi <= lo) return [lo];
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * power).find((v) => v >= raw * 0.999);
  const ticks = [];
  for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + 1e-9; i += 1) {
    ticks.push(Number((i * step).toPrecision(12)));
  }
  return ticks;
}

/** Round values from 0 to max, for integer axes (positions, dimensions). */
export function niceTicks(max, count = 5) {
  return ticksBetween(0, max, count).filter((v) => Number.isInteger(v));
}

/**
 * series: [{values, name, style}] drawn against their index (or `xs`, the same for all).
 * Options: W, xLabel, yMin, yMax, label (the aria-label), xs, xTicks ([value, text]),
 * marker ({x, y, text}).
 * Returns [svg, legend list].
 */
export function linePlot(series, options) {
  const { W, xLabel, yMin, yMax, label, xs, marker } = options;
  const box = { x0: 48, y0: 10, x1: W - 12, y1: 170 };
  const svg = s("svg", {
    viewBox: `0 0 ${W} 212`,
    role: "img",
    "aria-label": label,
    class: "explorer__plot",
  });
  const n = series[0].values.length;
  const xOf = xs || ((i) => i);
  const xMin = xOf(0);
  const xMax = Math.max(xOf(n - 1), xMin + 1);
  const X = (x) => box.x0 + ((x - xMin) / (xMax - xMin)) * (box.x1 - box.x0);
  const Y = (y) => box.y1 - ((y - yMin) / (yMax - yMin)) * (box.y1 - box.y0);
  const tick = (attrs, text) => s("text", { class: "explorer__tick", ...attrs, text });
  const line = (x1, y1, x2, y2, cls = "explorer__axis") => s("line", { x1, y1, x2, y2, class: cls });
  svg.append(line(box.x0, box.y1, box.x1, box.y1), line(box.x0, box.y0, box.x0, box.y1));
  for (const v of ticksBetween(yMin, yMax, 4)) {
    svg.append(line(box.x0 - 4, Y(v), box.x0, Y(v)));
    svg.append(tick({ x: box.x0 - 7, y: Y(v) + 4, "text-anchor": "end" }, fixed(v, Number.isInteger(v) ? 0 : 1)));
  }
  if (yMin < 0 && yMax > 0) svg.append(line(box.x0, Y(0), box.x1, Y(0), "explorer__grid"));
  const xTicks =
    options.xTicks || niceTicks(xMax - xMin, W < 400 ? 4 : 8).map((v) => [v + xMin, v + xMin]);
  for (const [v, text] of xTicks) {
    svg.append(line(X(v), box.y1, X(v), box.y1 + 4));
    svg.append(tick({ x: X(v), y: box.y1 + 18, "text-anchor": "middle" }, text));
  }
  svg.append(tick({ x: (box.x0 + box.x1) / 2, y: box.y1 + 38, "text-anchor": "middle" }, xLabel));
  const legend = h("ul", { class: "explorer__key" });
  series.forEach(({ values, name, style }, j) => {
    const points = values.map((v, i) => `${fixed(X(xOf(i)), 1)},${fixed(Y(v), 1)}`).join(" ");
    svg.append(
      s("polyline", { points, class: `explorer__line explorer__line--${j} ${style || ""}` }),
    );
    if (name) legend.append(h("li", { class: `explorer__swatch--${j}`, text: name }));
  });
  if (marker) {
    svg.append(s("circle", { cx: X(marker.x), cy: Y(marker.y), r: 5, class: "explorer__marker" }));
    const right = X(marker.x) > (box.x0 + box.x1) / 2;
    svg.append(
      tick(
        { x: X(marker.x) + (right ? -9 : 9), y: Y(marker.y) - 8, "text-anchor": right ? "end" : "start" },
        marker.text,
      ),
    );
  }
  return [svg, legend];
}
