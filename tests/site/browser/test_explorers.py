"""The interactive explorers in Chromium (pytest-playwright's ``page``), on the run's build.

- The attention explorer (Train page) runs the trained models in JavaScript: its forward pass
  must equal the package's on the test vectors the build exported, and on fresh sequences run
  by the package with the exported weights; so must every step of its trace of one query,
  which the Attention page shows with the same models (its keys table fits a phone, and the
  concatenation marks the traced head's slice).
- The positional-encoding explorer must show the package's sinusoidal table.
- The scale explorer must show softmax(s * scores), sharper as s grows, s = sqrt(d_k).
- "Watch it learn" must show, at each kept step, the package's attention maps of the weights
  the run had then: the test trains the run again from what the export says of it.
- Their text is at least 9 px on a 390 px screen, their sliders and the map cells a reader
  taps are 24 px, and the token table scrolls there.
- Each is driven by the keyboard, answers bad input with a message in the widget (and keeps
  working) and speaks the page's language. Their colours in the dark scheme: ``test_pages.py``.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
import torch

from encoder import Encoder, Task, TokenClassifier, attention_maps, sinusoidal_table, train

EXACT = 1e-5  # in-browser forward pass against the package, max abs difference
LANGUAGES = {"en": "", "zh": "zh/"}
READY = "[data-explorer='{}'][data-mounted] .explorer__status:not(:empty)"


def _open(page, site, path: str, explorer: str):
    page.goto(site.url(path))
    widget = page.locator(f"[data-explorer='{explorer}']")
    widget.scroll_into_view_if_needed()
    page.wait_for_selector(READY.format(explorer))
    return widget


def _status(widget) -> str:
    return widget.locator(".explorer__status").inner_text()


# --- the attention explorer -------------------------------------------------------------------
def _package_model(weights: dict) -> TokenClassifier:
    """A TokenClassifier holding the exported float32 weights, computing in float64 as the
    page does."""
    c = weights["config"]
    encoder = Encoder(
        c["vocab_size"], c["d_model"], c["n_head"], c["d_ff"], c["n_layers"], c["max_len"],
        dropout=0.0, norm_first=c["norm_first"],
    )  # fmt: skip
    model = TokenClassifier(encoder, c["n_classes"]).eval()
    params = dict(model.named_parameters())
    assert sorted(params) == sorted(weights["params"])
    with torch.no_grad():
        for name, p in weights["params"].items():
            data = np.frombuffer(base64.b64decode(p["data"]), dtype="<f4").reshape(p["shape"])
            params[name].copy_(torch.from_numpy(data.copy()))
    return model.double()


# The data-* paths of site files are from the site's root (docs_build.figures.write).
FETCH_JSON = "async ([url, root]) => (await fetch(new URL(url, root))).json()"
RUN = "async ([el, task, ids]) => el.explorer.run(task, ids)"


def _max_diff(got: dict, logits, attention) -> float:
    pairs = ((got["logits"], logits), (got["attention"], attention))
    return max(float(np.abs(np.asarray(a) - np.asarray(b)).max()) for a, b in pairs)


def test_attention_explorer_equals_the_package(page, site, problems):
    widget = _open(page, site, "train/", "attention")
    element = widget.element_handle()
    tests = page.evaluate(FETCH_JSON, [widget.get_attribute("data-tests"), site.base])
    tasks = widget.get_attribute("data-tasks").split()
    assert sorted(tests) == sorted(tasks) == ["count", "reverse", "sort"]
    diffs = {}
    for task in tasks:
        # The vectors the build exported: logits and attention maps from the package.
        for vector in tests[task]:
            got = page.evaluate(RUN, [element, task, vector["ids"]])
            diffs[task, tuple(vector["ids"])] = _max_diff(
                got, vector["logits"], vector["attention"]
            )
        # Fresh sequences, run here by the package with the exported weights.
        weights = page.evaluate(FETCH_JSON, [widget.get_attribute(f"data-model-{task}"), site.base])
        model = _package_model(weights)
        g = torch.Generator().manual_seed(0)
        for n in (1, 5, 12, 16):
            ids = torch.randint(1, 10, (1, n), generator=g)
            with torch.no_grad():
                logits = model(ids)[0].numpy()
                maps = attention_maps(model.encoder, ids)[:, 0].numpy()
            got = page.evaluate(RUN, [element, task, ids[0].tolist()])
            diffs[task, tuple(ids[0].tolist())] = _max_diff(got, logits, maps)
    worst = max(diffs, key=diffs.get)
    print(f"max |browser - package| over {len(diffs)} sequences: {diffs[worst]:.2e}")
    assert diffs[worst] <= EXACT, f"{worst}: max |browser - package| = {diffs[worst]:.2e}"
    assert problems == []


def _load_in_view(page, site, explorer: str, attributes: tuple[str, ...]):
    """Open the Train page, check that no file the explorer's ``attributes`` name is fetched
    before the explorer comes into view, scroll to it and wait until it is drawn. Returns
    those files' URLs, the requests made, and the explorer."""
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(site.url("train/"), wait_until="networkidle")
    widget = page.locator(f"[data-explorer='{explorer}']")
    href = "([u, root]) => new URL(u, root).href"
    files = {page.evaluate(href, [widget.get_attribute(a), site.base]) for a in attributes}
    assert files.isdisjoint(requested), "fetched before the explorer was in view"
    widget.scroll_into_view_if_needed()
    page.wait_for_selector(f"[data-explorer='{explorer}'][data-ready]")
    return files, requested, widget


def test_attention_explorer_loads_weights_only_in_view(page, site, problems):
    attributes = ("data-model-count", "data-model-reverse", "data-model-sort")
    models, requested, _ = _load_in_view(page, site, "attention", attributes)
    assert len(models.intersection(requested)) == 1  # one task's model, not all three
    assert problems == []


MESSAGES = {
    "en": {
        "": "Type a sequence",
        "3 a 4": "“a” is not in the vocabulary",
        "3 0 4": "0 is the padding id",
        "1" * 17: "17 tokens: the model reads at most 16",
    },
    "zh": {
        "": "请输入一个序列",
        "3 a 4": "“a”不在词表中",
        "3 0 4": "0 是填充 id",
        "1" * 17: "共 17 个 token：模型最多读取 16 个",
    },
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_attention_explorer_answers_bad_input_and_keeps_working(page, site, problems, lang):
    widget = _open(page, site, LANGUAGES[lang] + "train/", "attention")
    field = widget.locator("input[type=text]")
    for text, message in MESSAGES[lang].items():
        field.fill(text)
        page.wait_for_function(
            "([el, m]) => el.querySelector('.explorer__status').textContent.includes(m)",
            arg=[widget.element_handle(), message],
        )
        assert widget.get_attribute("data-state") == "error"
        assert widget.locator(".explorer__map").count() == 0
    field.fill("9 8 7")
    page.wait_for_selector("[data-explorer='attention'][data-state='ok'] .explorer__map")
    # One map per layer and head, each described for screen readers.
    maps = widget.locator(".explorer__map")
    assert maps.count() == 2 * 4
    assert all(maps.nth(i).get_attribute("role") == "img" for i in range(maps.count()))
    label = maps.first.get_attribute("aria-label")
    assert ("Layer 0, head 0" if lang == "en" else "第 0 层，头 0") in label
    assert widget.locator("[role=status][aria-live=polite]").count() == 1
    assert problems == []


def test_attention_explorer_by_keyboard(page, site, problems):
    widget = _open(page, site, "train/", "attention")
    page.wait_for_selector("[data-explorer='attention'][data-state='ok']")
    widget.locator("input[type=radio]").first.focus()
    page.keyboard.press("ArrowRight")  # the next task: sort
    assert widget.locator("input[type=radio]:checked").get_attribute("value") == "sort"
    page.keyboard.press("Tab")  # to the sequence
    page.keyboard.press("Control+A")
    page.keyboard.type("5 3 8 1")
    expected = "1358"

    def rows() -> list[str]:
        cells = widget.locator(".explorer__output tbody tr").nth(1).locator("td").all_inner_texts()
        return ["".join(c.split()) for c in cells]

    page.wait_for_function(
        "el => el.querySelectorAll('.explorer__output tbody tr:nth-child(2) td').length === 4",
        arg=widget.element_handle(),
    )
    assert "".join(rows()) == expected  # the expected row of the sort task
    page.keyboard.press("Tab")  # to "Random sequence"
    assert page.evaluate("document.activeElement.tagName") == "BUTTON"
    before = widget.locator("input[type=text]").input_value()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "([el, v]) => el.querySelector('input[type=text]').value !== v",
        arg=[widget.element_handle(), before],
    )
    assert problems == []


def _texts(values, digits: int) -> str:
    return " ".join(f"{v:.{digits}f}" for v in values)


STEPS = ("x", "q", "k", "v", "scores", "scaled", "weights", "heads", "concat", "out")


def test_trace_one_query_equals_the_package(page, site, problems):
    widget = _open(page, site, "attention/", "attention")  # the Train page's models, traced
    page.wait_for_selector("[data-explorer='attention'][data-state='ok'] .explorer__step")
    element = widget.element_handle()
    tests = page.evaluate(FETCH_JSON, [widget.get_attribute("data-tests"), site.base])
    # Every step of every layer, for every task, against the package's intermediate tensors.
    worst = {}
    for task, vectors in tests.items():
        vector = next(v for v in vectors if "trace" in v)
        got = page.evaluate(RUN, [element, task, vector["ids"]])["steps"]
        assert len(got) == len(vector["trace"])
        for layer, (mine, theirs) in enumerate(zip(got, vector["trace"], strict=True)):
            for name in STEPS:
                diff = np.abs(np.asarray(mine[name]) - np.asarray(theirs[name])).max()
                worst[task, layer, name] = float(diff)
    key = max(worst, key=worst.get)
    print(f"trace: max |browser - package| over {len(worst)} steps: {worst[key]:.2e} ({key})")
    assert set(name for *_, name in worst) == set(STEPS)
    assert worst[key] <= EXACT, f"{key}: {worst[key]:.2e}"

    # Tap a cell: layer 1, head 2, query 3, key 5 of the default sequence (reverse's).
    trace = next(v for v in tests["reverse"] if "trace" in v)
    assert widget.locator("input[type=text]").input_value().split() == [
        str(i) for i in trace["ids"]
    ]
    layer, head, q, k = 1, 2, 3, 5
    cell = widget.locator(".explorer__layer").nth(layer).locator(".explorer__map").nth(head)
    cell.locator(f"rect[data-q='{q}'][data-k='{k}']").click()
    assert page.evaluate("el => el.explorer.pick()", element) == {
        "layer": layer,
        "head": head,
        "q": q,
        "k": k,
    }
    steps = trace["trace"][layer]
    weight = steps["weights"][head][q][k]
    assert f"weight {weight:.3f}" in widget.locator(".explorer__readout-line").inner_text()
    # What the trace shows is the package's numbers, rounded.
    shown = {s.get_attribute("data-step"): s for s in widget.locator(".explorer__step").all()}
    assert list(shown) == ["x", "q", "scores", "heads", "concat", "out"]
    assert _texts(steps["x"][q], 2) in shown["x"].inner_text()
    assert _texts(steps["q"][head][q], 2) in shown["q"].inner_text()
    assert _texts(steps["heads"][head][q], 2) in shown["heads"].inner_text()
    assert _texts(steps["out"][q], 2) in shown["out"].inner_text()
    rows = shown["scores"].locator("tbody tr:not(.explorer__kv)").all()
    assert len(rows) == len(trace["ids"])
    for j, row in enumerate(rows):
        token, *numbers = row.locator("td").all_inner_texts()
        assert token == str(trace["ids"][j])
        assert numbers == [f"{steps[n][head][q][j]:.3f}" for n in ("scores", "scaled", "weights")]
    # Each key's k_j and v_j: in a row of its own, shown by the button (and kept shown).
    kv = shown["scores"].locator("tbody tr.explorer__kv")
    assert kv.count() == len(trace["ids"]) and not any(r.is_visible() for r in kv.all())
    toggle = shown["scores"].locator("button[aria-controls]")
    assert toggle.get_attribute("aria-expanded") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    for j, row in enumerate(kv.all()):
        assert row.is_visible()
        for name in ("k", "v"):
            shown_vector = row.locator(f"[data-kv={name}]").inner_text()
            assert shown_vector == f"[{_texts(steps[name][head][j], 2)}]"
    # The concatenation marks the traced head's slice: its d_k columns, the head's output.
    d_k = len(steps["q"][head][q])
    marked = shown["concat"].locator("mark").inner_text()
    assert marked == _texts(steps["concat"][q][head * d_k : (head + 1) * d_k], 2)
    assert marked == _texts(steps["heads"][head][q], 2)
    assert f"{head * d_k} to {(head + 1) * d_k - 1}" in shown["concat"].inner_text()
    # Each step links its formula (the attention page) and its code (the API page): the
    # anchors exist.
    targets = {}
    for link in widget.locator(".explorer__step a").all():
        url = page.evaluate("a => a.href", link.element_handle())
        page_url, _, anchor = url.partition("#")
        targets.setdefault(page_url, set()).add(anchor)
    assert len(widget.locator(".explorer__step a").all()) == 2 * 6
    for page_url, anchors in targets.items():
        text = page.evaluate("async (u) => (await fetch(u)).text()", page_url)
        for anchor in anchors:
            assert f'id="{anchor}"' in text, f"{page_url}#{anchor} does not exist"

    # The keyboard: the query picker moves the trace to the next query.
    picker = widget.locator(".explorer__trace select").nth(2)
    picker.focus()
    page.keyboard.press("ArrowDown")
    assert page.evaluate("el => el.explorer.pick()", element)["q"] == q + 1
    assert _texts(steps["q"][head][q + 1], 2) in widget.locator("[data-step=q]").inner_text()
    assert widget.locator("tr.explorer__kv").first.is_visible()  # k_j and v_j still shown
    assert problems == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_trace_fits_a_phone(phone, site, problems, lang):
    """At 390 px the trace's keys table needs no sideways scrolling, k_j and v_j shown, for
    the longest sequence the tasks train on."""
    widget = _open(phone, site, LANGUAGES[lang] + "attention/", "attention")
    phone.wait_for_selector("[data-explorer='attention'][data-state='ok'] .explorer__step")
    widget.locator("input[type=text]").fill("9 8 7 6 5 4 3 2 1 1 2 3")  # 12 tokens
    phone.wait_for_function(
        "el => el.querySelectorAll('[data-step=scores] tbody tr:not(.explorer__kv)').length === 12",
        arg=widget.element_handle(),
    )
    widget.locator("[data-step=scores] button").click()
    table = widget.locator("[data-step=scores] .explorer__scroll")
    assert table.evaluate("el => el.scrollWidth <= el.clientWidth"), "the keys table scrolls"
    assert widget.locator("tr.explorer__kv").last.is_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert problems == []


SMALLEST = """root => {
  let min = Infinity, text = "";
  for (const el of root.querySelectorAll("*")) {
    if (["title", "option", "style"].includes(el.localName) || el.closest("[hidden]")) continue;
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGGraphicsElement) {
      const m = el.getScreenCTM();
      size *= Math.hypot(m.a, m.b);
    }
    if (size < min) [min, text] = [size, el.textContent];
  }
  return [min, text];
}"""


TAPS = """(root, selector) => {
  const sides = [...root.querySelectorAll(selector)].map((el) => {
    const r = el.getBoundingClientRect();
    return Math.min(r.width, r.height);
  });
  return sides.length ? Math.min(...sides) : null;
}"""


PAGES = {
    "positional-encoding": "positional-encoding/",
    "scale": "attention/",
    "attention": "train/",
    "learn": "train/",
}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", PAGES)
def test_explorers_on_a_phone(page, site, problems, lang, name):
    page.set_viewport_size({"width": 390, "height": 844})
    widget = _open(page, site, LANGUAGES[lang] + PAGES[name], name)
    if name == "attention":
        page.wait_for_selector("[data-explorer='attention'][data-state='ok']")
        widget.locator("input[type=text]").fill("1 2 3 4 5 6 7 8 9 9 8 7 6 5 4 3")  # 16
        page.wait_for_function(
            "el => el.querySelectorAll('.explorer__output tbody tr:first-child td').length === 16",
            arg=widget.element_handle(),
        )
        # The token table scrolls in its box; the page itself does not.
        box = widget.locator(".explorer__output .explorer__scroll")
        assert box.evaluate("el => el.scrollWidth > el.clientWidth")
        assert box.evaluate("el => getComputedStyle(el).overflowX") == "auto"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # Tap targets of 24 px (WCAG 2.2): the sliders, and the cells of the maps that take a tap.
    taps = "input[type=range]" + (", .explorer__cell" if name == "attention" else "")
    smallest = widget.evaluate(TAPS, taps)
    assert smallest is None or smallest >= 24 - 0.01, (name, smallest)
    size, text = page.evaluate(SMALLEST, widget.element_handle())
    print(f"{name} ({lang}): smallest text {size:.1f} px ({text!r})")
    assert size >= 9, (size, text)
    assert problems == []


# --- the positional-encoding explorer ---------------------------------------------------------
@pytest.mark.parametrize("lang", LANGUAGES)
def test_pe_explorer_shows_the_package_table(page, site, problems, lang):
    widget = _open(page, site, LANGUAGES[lang] + "positional-encoding/", "positional-encoding")
    handle = widget.element_handle()
    # The page's table by default: 64 positions, d_model = 128.
    assert page.evaluate("el => el.explorer.state()", handle)["d"] == 128
    assert len(page.evaluate("el => el.explorer.table()", handle)) == 64
    fields = widget.locator("input")
    d_model, positions = fields.nth(0), fields.nth(1)
    for field, value in ((d_model, "48"), (positions, "30")):
        field.focus()
        page.keyboard.press("Control+A")
        page.keyboard.type(value)
    page.wait_for_function("el => el.explorer.state().d === 48 && el.explorer.state().n === 30",
                           arg=handle)  # fmt: skip
    shown = np.array(page.evaluate("el => el.explorer.table()", handle))
    table = sinusoidal_table(30, 48, dtype=torch.float64).numpy()
    assert shown.shape == (30, 48)
    assert np.abs(shown - table).max() < 1e-12
    dots = page.evaluate("el => el.explorer.dots()", handle)
    p = page.evaluate("el => el.explorer.state().p", handle)
    expected = [table[p] @ table[p + m] for m in range(30 - p)]
    assert np.allclose(dots["p"], expected, atol=1e-9)
    assert np.allclose(dots["p0"], [table[0] @ table[m] for m in range(30 - p)], atol=1e-9)
    # The page's names (offset m, pair k), ticks on the axes, a colour scale.
    text = widget.inner_text() + " ".join(widget.locator("svg text").all_text_contents())
    assert ("offset m" if lang == "en" else "偏移 m") in text
    assert ("pair k = 2" if lang == "en" else "第 k = 2 对") in text
    heat = widget.locator("svg[role=img]").first
    assert {"0", "10", "20", "40"} <= set(heat.locator("text").all_text_contents())
    assert heat.locator("linearGradient stop").count() == 4
    assert {"-1", "0", "+1"} <= set(heat.locator("text").all_text_contents())

    # Bad input: a message in the widget, no drawing left over, and it recovers.
    for field, value, message in (
        (d_model, "500", "d_model"),
        (fields.nth(2), "4 99", "0 to 47" if lang == "en" else "0 到 47"),
    ):
        field.fill(value)
        page.wait_for_selector("[data-explorer='positional-encoding'][data-state='error']")
        assert message in _status(widget)
        assert widget.locator("svg").count() == 0
        field.fill("48" if field is d_model else "4 5")
        page.wait_for_selector("[data-explorer='positional-encoding'][data-state='ok']")
    assert widget.locator("svg[role=img]").count() == 3
    assert problems == []


# --- the scale explorer -----------------------------------------------------------------------
def _jacobian_norm(p: np.ndarray) -> float:
    return float(np.linalg.norm(np.diag(p) - np.outer(p, p)))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_scale_explorer_sharpens_the_softmax(page, site, problems, lang):
    widget = _open(page, site, LANGUAGES[lang] + "attention/", "scale")
    handle = widget.element_handle()
    state = "el => [el.explorer.dk(), el.explorer.scale(), el.explorer.weights()]"
    assert page.evaluate(state, handle)[0] == 64  # the paper's d_k, where it starts
    slider = widget.locator("input[type=range]")
    slider.focus()
    page.keyboard.press("Home")
    scores = np.array(page.evaluate("el => el.explorer.scores()", handle))
    tops = []
    for step in range(11):  # one key press per power of two: d_k = 1, 2, 4, ..., 1024
        dk, scale, weights = page.evaluate(state, handle)
        assert dk == 2**step and scale == pytest.approx(np.sqrt(dk))
        expected = np.exp(scale * scores - (scale * scores).max())
        assert np.allclose(weights, expected / expected.sum(), atol=1e-12)
        tops.append(max(weights))
        page.keyboard.press("ArrowRight")
    assert tops == sorted(tops) and tops[-1] > tops[0]  # larger scale, sharper softmax
    assert "d_k = 1024" in _status(widget) and "32" in _status(widget)
    # Divided by sqrt(d_k): s = 1 at every d_k.
    widget.locator("input[type=checkbox]").check()
    assert page.evaluate(state, handle)[1] == 1
    assert "s = 1" in _status(widget)
    # The Jacobian's curve is the package-free formula's, and the sentence says its shape.
    shape = page.evaluate("el => el.explorer.shape()", handle)
    curve = [_jacobian_norm(np.exp(z := 2**x * scores - (2**x * scores).max()) / np.exp(z).sum())
             for x in shape["logs"]]  # fmt: skip
    assert np.allclose(shape["values"], curve, atol=1e-12)
    rises = max(curve) > _jacobian_norm(np.full(10, 0.1)) + 1e-6
    words = {"en": ("is not monotone", "only falls"), "zh": ("并不单调", "只下降")}[lang]
    assert words[0 if rises else 1] in _status(widget)
    assert ("Largest weight" if lang == "en" else "最大权重") in _status(widget)
    # A tap on a bar reads its weight.
    widget.locator(".explorer__hit[data-key='3']").click()
    weight = page.evaluate("el => el.explorer.weights()[3]", handle)
    assert f"{weight:.3f}" in widget.locator(".explorer__readout-line").inner_text()
    widget.locator("input[type=checkbox]").focus()
    page.keyboard.press("Tab")  # from "divide" (just checked) to "New scores"
    page.keyboard.press("Enter")
    assert not np.allclose(page.evaluate("el => el.explorer.scores()", handle), scores)
    assert problems == []


# --- Break it live ----------------------------------------------------------------------------
def test_broken_models_equal_the_package(page, site, problems):
    widget = _open(page, site, "train/", "break-it")
    element = widget.element_handle()
    tests = page.evaluate(FETCH_JSON, [widget.get_attribute("data-tests"), site.base])
    assert sorted(tests) == ["no-mask", "no-positions", "no-scaling", "post-norm"]
    worst = {}
    for name, vectors in tests.items():
        for vector in vectors:
            got = page.evaluate("async ([el, n, ids]) => el.explorer.run(n, ids)",
                                [element, name, vector["ids"]])  # fmt: skip
            diff = np.abs(np.asarray(got) - np.asarray(vector["logits"])).max()
            worst[name, tuple(vector["ids"])] = float(diff)
    key = max(worst, key=worst.get)
    print(f"broken models: max |browser - package| over {len(worst)} runs: {worst[key]:.2e}")
    assert worst[key] <= EXACT, f"{key}: {worst[key]:.2e}"
    assert problems == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_break_it_predict_then_see(page, site, problems, lang):
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    widget = _open(page, site, LANGUAGES[lang] + "train/", "break-it")
    show = widget.locator("button:not([data-challenge])")
    # Nothing is shown before a prediction.
    show.click()
    assert widget.locator("table").count() == 0
    assert widget.get_attribute("data-revealed") is None
    # Each switch starts on the input the page's fence checked: the intact model right at every
    # position, the broken one not. Predict "wrong", then see both models.
    variants = json.loads(widget.get_attribute("data-variants"))
    sequence = widget.locator("input[type=text]")
    said_right = {"en": "Your prediction was right", "zh": "你的预测是对的"}[lang]
    for n, (name, variant) in enumerate(variants.items()):
        if n:  # switching variant hides the answer until the next prediction
            widget.locator(f"input[value={name}]").check()
            assert widget.get_attribute("data-revealed") is None
            assert widget.locator("table").count() == 0
        assert sequence.input_value() == " ".join(map(str, variant["start"]))
        widget.locator("input[value=wrong]").check()
        show.click()
        page.wait_for_selector("[data-explorer='break-it'][data-revealed] table")
        rows = widget.locator("tbody tr")
        assert rows.count() == 4
        assert rows.nth(2).locator(".explorer__wrong").count() == 0, name  # intact
        assert rows.nth(3).locator(".explorer__wrong").count() > 0, name  # broken
        assert said_right in _status(widget)
        if n == 0:
            assert any("broken-no-positions.json" in url for url in requested)
            assert not any("broken-no-scaling.json" in url for url in requested)  # on demand
    # The challenge "3 3 3" on count: the intact model's answer and the page's numbers.
    challenges = json.loads(widget.get_attribute("data-challenges"))
    widget.locator("[data-challenge=count]").click()
    widget.locator("input[value=right]").check()
    show.click()
    page.wait_for_selector("[data-explorer='break-it'][data-revealed] table")
    answer = challenges["count"]["answer"]
    cells = widget.locator("tbody tr").nth(2).locator("td").all_inner_texts()
    assert [c.split()[0] for c in cells] == [str(a) for a in answer]
    note = widget.locator(".explorer__note").inner_text()
    assert " ".join(map(str, answer)) in note
    assert f"{100 * challenges['count']['all_equal']:.1f} %" in note
    assert ("Not what you predicted" if lang == "en" else "和你预测的不一样") in _status(widget)
    # 13 tokens on reverse.
    widget.locator("[data-challenge=reverse]").click()
    widget.locator("input[value=wrong]").check()
    show.click()
    page.wait_for_selector("[data-explorer='break-it'][data-revealed] table")
    assert widget.locator("tbody tr").first.locator("td").count() == 13
    note = widget.locator(".explorer__note").inner_text()
    assert f"{100 * challenges['reverse']['accuracy']:.1f} %" in note
    assert problems == []


# --- Watch it learn ---------------------------------------------------------------------------
def _kept_maps(run: dict, steps: list[int], inputs: list[list[int]]) -> dict:
    """The run again, as the page trained it: step -> the attention maps of each input."""
    torch.manual_seed(run["init_seed"])
    task = Task("reverse")
    model = TokenClassifier(Encoder(**run["model"]), task.n_classes)
    history = train(model, task, **run["train"], checkpoints=steps)
    maps = {}
    with torch.no_grad():
        for step, state in history.checkpoints.items():
            model.load_state_dict(state)
            maps[step] = [attention_maps(model.encoder, torch.tensor([ids]))[:, 0].numpy()
                          for ids in inputs]  # fmt: skip
    return maps


SHOWN = "el => el.explorer.shown()"


def test_learn_explorer_shows_the_package_maps_at_every_step(page, site, problems):
    widget = _open(page, site, "train/", "learn")
    page.wait_for_selector("[data-explorer='learn'][data-ready]")
    element = widget.element_handle()
    data = page.evaluate(FETCH_JSON, [widget.get_attribute("data-run"), site.base])
    steps = data["steps"]
    assert len(steps) >= 10 and steps[0] == 0 and steps == sorted(steps)
    assert steps[-1] == data["run"]["train"]["steps"] == len(data["loss"])
    expected = _kept_maps(data["run"], steps, data["inputs"])
    slider = widget.locator("input[type=range]")
    slider.focus()
    page.keyboard.press("Home")
    worst, seen = 0.0, []
    for index, step in enumerate(steps):
        if index:
            page.keyboard.press("ArrowRight")  # the keyboard moves one kept step
        for k in range(len(data["inputs"])):
            if k:
                widget.locator("input[type=radio]").nth(k).check()
            shown = page.evaluate(SHOWN, element)
            assert shown["step"] == step and shown["ids"] == data["inputs"][k]
            worst = max(worst, float(np.abs(np.asarray(shown["maps"]) - expected[step][k]).max()))
        widget.locator("input[type=radio]").first.check()
        slider.focus()
        seen.append(widget.get_attribute("data-step"))
        assert slider.get_attribute("aria-valuetext") == f"step {step}"
    print(f"learn: max |browser - package| over {len(steps)} steps: {worst:.2e}")
    assert worst <= EXACT
    assert seen == [str(s) for s in steps]
    # What the maps draw: each cell's opacity is the weight shown, rounded.
    shown = page.evaluate(SHOWN, element)
    cells = widget.locator(".explorer__map").nth(4).locator("rect[data-q='0']")  # layer 1, head 0
    opacities = [float(c.get_attribute("fill-opacity")) for c in cells.all()]
    assert opacities == pytest.approx(shown["maps"][1][0][0], abs=5e-4)
    # The status says the page's measured weight on the mirrored key at this step.
    mirror = data["mirror"][-1][1]
    head = mirror.index(max(mirror))
    assert f"layer 1, head {head}: {mirror[head]:.3f}" in _status(widget)
    assert problems == []


def test_learn_explorer_fetches_only_in_view_and_keeps_to_its_steps(page, site, problems):
    (url,), requested, widget = _load_in_view(page, site, "learn", ("data-run",))
    assert requested.count(url) == 1
    element = widget.element_handle()
    steps = page.evaluate("el => el.explorer.steps()", element)
    slider = widget.locator("input[type=range]")
    slider.focus()
    page.keyboard.press("ArrowLeft")  # below step 0: stays at step 0
    assert page.evaluate(SHOWN, element)["step"] == 0
    page.keyboard.press("End")
    assert page.evaluate(SHOWN, element)["step"] == steps[-1]
    page.keyboard.press("ArrowRight")  # past the last: stays there
    assert page.evaluate(SHOWN, element)["step"] == steps[-1]
    # A value the slider does not hold is clamped to the kept steps, never an empty drawing.
    for value, index in (("99", len(steps) - 1), ("-3", 0), ("2.6", 3)):
        slider.evaluate("(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", value)
        assert page.evaluate(SHOWN, element)["step"] == steps[index]
        assert widget.locator(".explorer__map").count() == 8  # 2 layers x 4 heads
    assert problems == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_learn_explorer_speaks_the_pages_language_and_takes_a_tap(page, site, problems, lang):
    widget = _open(page, site, LANGUAGES[lang] + "train/", "learn")
    page.wait_for_selector("[data-explorer='learn'][data-ready]")
    slider = widget.locator("input[type=range]")
    box = slider.bounding_box()
    slider.click(position={"x": box["width"] - 2, "y": box["height"] / 2})  # at the far end
    steps = page.evaluate("el => el.explorer.steps()", widget.element_handle())
    assert widget.get_attribute("data-step") == str(steps[-1])
    last = steps[-1]
    words = {"en": f"Step {last} of {last}", "zh": f"第 {last} 步（共 {last} 步）"}
    assert words[lang] in _status(widget)
    assert widget.locator(".explorer__marker").count() == 1
    assert problems == []
