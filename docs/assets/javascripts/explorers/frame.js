// What every explorer that draws from fetched files shares (attention.js, learn.js, and text.js's
// for Read real text and the pretrained encoder): its files loaded once, fetched only when the
// explorer comes into view, the placeholder's height kept until the first drawing, and a status
// line that says "loading", a failed load, or what the explorer shows.
import { statusLine } from "./common.js";

/** `load(key)`, once per key: its promise is kept, and forgotten if it fails, so that a later
 * call tries again. */
export function cached(load) {
  const promises = new Map();
  return (key) => {
    if (!promises.has(key)) {
      const promise = load(key);
      promise.catch(() => promises.delete(key));
      promises.set(key, promise);
    }
    return promises.get(key);
  };
}

/**
 * The frame of the explorer in `root`, made before its first drawing replaces the placeholder:
 * `status`, its status line (id `statusId`, for the caller to place), `say(state, message)`,
 * which sets root's data-state and the status, and `update()`, which says t.loading until
 * `load()` (a cached loader) gives what the explorer draws from, then runs `draw(loaded)`, or
 * says t.failed(why) in state "error". Of updates that overlap, only the latest draws. The first
 * update runs when the explorer comes into view: nothing is fetched before. While `ask()` gives
 * a message, an update says it (state "ask") instead of loading.
 */
export function explorerFrame(root, t, statusId, { load, draw, ask = () => null }) {
  const status = statusLine(statusId);
  // Keep the placeholder's height (extra.css) until the first drawing: the controls alone are
  // short, and the page would jump, taking the explorer out of view before it is drawn.
  root.style.minHeight = `${root.getBoundingClientRect().height}px`;
  function say(state, message) {
    root.dataset.state = state;
    root.style.minHeight = ""; // drawn, or nothing will be: no placeholder left
    status.textContent = message;
  }
  let pending = 0;
  async function update() {
    const ticket = (pending += 1);
    const asking = ask();
    if (asking) {
      say("ask", asking);
      return;
    }
    let loaded;
    try {
      status.textContent = t.loading; // files already loaded: replaced before the page is drawn
      loaded = await load();
    } catch (error) {
      if (ticket === pending) say("error", t.failed(error.message || error));
      return;
    }
    if (ticket !== pending) return; // a newer input is on its way
    root.dataset.ready = "";
    root.style.minHeight = "";
    draw(loaded);
  }
  const seen = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) {
      seen.disconnect();
      update();
    }
  });
  seen.observe(root);
  return { status, say, update };
}
