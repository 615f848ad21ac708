"""The explorers in Chromium, on the run's build. Each computes what the package computes: the
attention explorer (Train page) on the build's test vectors and on fresh sequences, and every step
of its trace of one query (Attention page, same models); the broken models of "Break it live"; the
positional table; softmax(s * scores); "Watch it learn" at each kept step, its run's file (the run
trained again: ``test_explorer_runs.py``); Read real text's three on typed text. Each is driven by
the keyboard, answers bad input in the widget and speaks the page's language; one that fetches a
model or a run fetches it once in view, not before, and says so when it cannot. Their text, tap
targets and width on a phone, and their colours in the dark scheme: ``test_pages.py``."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import safetensors
import torch
from numpy.testing import assert_allclose
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from docs_build import cache, explorers
from docs_build.explorers import _vectors
from encoder import (
    Encoder,
    SentenceClassifier,
    TokenClassifier,
    attention_maps,
    causal_mask,
    sinusoidal_table,
)
from encoder.text import UNK

EXACT = 1e-5  # in-browser forward pass against the package, max abs difference
LANGUAGES = {"en": "", "zh": "zh/"}


@pytest.fixture(autouse=True)
def _no_problems(problems):
    yield
    assert problems == []


def _scroll_to(page, widget, drawn: str) -> None:
    """Scroll ``widget`` into view until ``drawn`` (a selector) shows it drawn: the blocks above
    it are drawn as the page scrolls (content-visibility) and may push it out of view again."""
    for attempt in range(3):
        widget.scroll_into_view_if_needed()
        try:
            page.wait_for_selector(drawn, timeout=5_000)
            return
        except PlaywrightTimeoutError:
            if attempt == 2:
                raise


def _open(page, site, path: str, name: str, fetched: int = 1):
    """The explorer ``name`` of the page at ``path``, in view and drawn.
    The files it computes from (data-model-*, data-run) are fetched once it is in view, not
    before, and then ``fetched`` of them, each once (the attention explorer: one task's model,
    not all three)."""
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(site.url(path), wait_until="networkidle")
    widget = page.locator(f"[data-explorer='{name}']")
    names = widget.evaluate("e => e.getAttributeNames().filter((a) => /^data-(model|run)/.test(a))")
    files = {site.url(widget.get_attribute(a)) for a in names}
    assert files.isdisjoint(requested), "fetched before the explorer was in view"
    drawn = f"[data-explorer='{name}'][data-mounted] .explorer__status:not(:empty)"
    _scroll_to(page, widget, drawn)
    if files:
        page.wait_for_selector(f"[data-explorer='{name}'][data-ready]")
        got = [url for url in requested if url in files]
        assert len(got) == len(set(got)) == fetched, got
    return widget


def _js(widget, method: str, *args):
    return widget.evaluate(f"(el, args) => el.explorer.{method}(...args)", list(args))


def _fetch(widget, site, attribute: str):
    """The JSON file the explorer's ``attribute`` names (a path from the site's root); for
    "data-tests", the package's outputs the explorer is tested against, which the build keeps in
    its cache, not on the site (``explorers.vectors_key``)."""
    if attribute == "data-tests":
        return cache.get(explorers.vectors_key(widget.get_attribute("data-explorer")))
    return json.loads((site.dir / widget.get_attribute(attribute)).read_text(encoding="utf-8"))


def _status(widget, line: str = ".explorer__status") -> str:
    return widget.locator(line).inner_text()


def _enter(widget, text: str, state: str = "ok", says: str = "", field=None) -> None:
    """Fill ``field`` (the sequence by default) with ``text``; wait until the explorer's state is
    ``state`` and its status says ``says``."""
    (field or widget.locator("input[type=text]").first).fill(text)
    expect(widget).to_have_attribute("data-state", state)
    expect(widget.locator(".explorer__status")).to_contain_text(says)


def _shown(values) -> str:
    return " ".join(f"{v:.2f}" for v in values)


# --- every explorer that runs a model computes what the package computes ----------------------
def _model(site, widget, attribute: str) -> torch.nn.Module:
    """The package's model from the explorer's safetensors file (``attribute`` names it), in
    float64 as the page computes: a SentenceClassifier for the sentiment task, else a
    TokenClassifier (tied when the file holds no head)."""
    path = site.dir / widget.get_attribute(attribute)
    with safetensors.safe_open(path, "pt") as f:
        meta, state = f.metadata(), {k: f.get_tensor(k).double() for k in f.keys()}
    c = json.loads(meta["config"])
    sizes = ("vocab_size", "d_model", "n_head", "d_ff", "n_layers", "max_len")
    encoder = Encoder(*(c[k] for k in sizes), norm_first=c["norm_first"])
    if meta["task"] == "sentiment":
        model = SentenceClassifier(encoder, c["n_classes"])
    else:
        tied = "head.weight" not in state
        model = TokenClassifier(encoder, c["n_classes"], tie_weights=tied)
        state.setdefault("head.weight", state["encoder.embedding.token.weight"])
    model.double().load_state_dict(state)  # strict: the file holds every parameter
    return model.eval()


def _attention(widget, site):
    """The build's test vectors, and fresh sequences run here by the package on the exported
    float32 weights (the file's), in float64 as the page computes."""
    tests, tasks = _fetch(widget, site, "data-tests"), widget.get_attribute("data-tasks").split()
    assert sorted(tests) == sorted(tasks) == ["count", "reverse", "sort"]
    g = torch.Generator().manual_seed(0)
    for task in tasks:
        model = _model(site, widget, f"data-model-{task}")
        fresh = [torch.randint(1, 10, (n,), generator=g).tolist() for n in (1, 5, 12, 16)]
        for vector in tests[task] + _vectors(model, fresh, maps=True):
            got = _js(widget, "run", task, vector["ids"])
            for what in ("logits", "attention"):
                yield (task, *vector["ids"], what), got[what], vector[what]


def _trace(widget, site):
    """Every step of every layer, for every task, against the package's tensors."""
    for task, vectors in _fetch(widget, site, "data-tests").items():
        vector = next(v for v in vectors if "trace" in v)
        got = _js(widget, "run", task, vector["ids"])["trace"]
        for layer, (mine, theirs) in enumerate(zip(got, vector["trace"], strict=True)):
            for step, expected in theirs.items():  # x, q, k, v, scores, ..., out
                yield (task, layer, step), mine[step], expected


def _break_it(widget, site):
    tests = _fetch(widget, site, "data-tests")
    assert sorted(tests) == ["no-mask", "no-positions", "no-scaling", "post-norm"]
    for name, vectors in tests.items():
        for v in vectors:
            yield (name, *v["ids"]), _js(widget, "run", name, v["ids"]), v["logits"]


# The (where, browser's, package's) numbers of each explorer that runs a model ("Watch it learn",
# Read real text's: in their own tests), and (page, explorer) where it is.
NUMBERS = {"attention": _attention, "trace": _trace, "break-it": _break_it}
EXPLORERS = {"attention": ("train/", "attention"), "trace": ("attention/", "attention"),
             "break-it": ("train/", "break-it")}  # fmt: skip


@pytest.mark.parametrize("what", NUMBERS)
def test_explorer_equals_the_package(page, site, what):
    widget = _open(page, site, *EXPLORERS[what])
    for where, got, expected in NUMBERS[what](widget, site):  # max |browser - package| on failure
        assert_allclose(got, expected, rtol=0, atol=EXACT, err_msg=f"{what} {where}")


# --- the attention explorer and its trace of one query ----------------------------------------
MESSAGES = [  # (input, English message, Chinese message)
    ("", "Type a sequence", "请输入一个序列"),
    ("3 a 4", "“a” is not in the vocabulary", "“a”不在词表中"),
    ("3 0 4", "0 is the padding id", "0 是填充 id"),
    ("1" * 17, "17 tokens: the model reads at most 16", "共 17 个 token：模型最多读取 16 个"),
]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_attention_explorer_answers_bad_input_and_the_keyboard(page, site, lang):
    widget = _open(page, site, LANGUAGES[lang] + "train/", "attention")
    for text, *messages in MESSAGES:
        _enter(widget, text, "error", messages[lang == "zh"])
        assert widget.locator(".explorer__map").count() == 0
    _enter(widget, "9 8 7")
    maps = widget.locator(".explorer__map")  # one per layer and head, described for screen readers
    assert maps.count() == 2 * 4 and all(m.get_attribute("role") == "img" for m in maps.all())
    label = maps.first.get_attribute("aria-label")
    assert ("Layer 0, head 0" if lang == "en" else "第 0 层，头 0") in label
    assert widget.locator("[role=status][aria-live=polite]").count() == 1
    # The keyboard: a task, a sequence, a random sequence.
    widget.locator("input[type=radio]").first.focus()
    page.keyboard.press("ArrowRight")  # the next task: sort
    assert widget.locator("input[type=radio]:checked").get_attribute("value") == "sort"
    page.keyboard.press("Tab")  # to the sequence
    page.keyboard.press("Control+A")
    page.keyboard.type("5 3 8 1")
    expected = ".explorer__output tbody tr:nth-child(2) td"  # the sort task's expected row
    expect(widget.locator(expected)).to_have_count(4)
    assert "".join("".join(widget.locator(expected).all_inner_texts()).split()) == "1358"
    page.keyboard.press("Tab")  # to "Random sequence"
    assert page.evaluate("document.activeElement.tagName") == "BUTTON"
    before = widget.locator("input[type=text]").input_value()
    page.keyboard.press("Enter")
    expect(widget.locator("input[type=text]")).not_to_have_value(before)


def test_trace_one_query_shows_the_package_numbers(page, site):
    # The Train page's models, traced on the Attention page. Tap a cell: layer 1, head 2,
    # query 3, key 5 of the default sequence (reverse's).
    widget = _open(page, site, "attention/", "attention")
    trace = next(v for v in _fetch(widget, site, "data-tests")["reverse"] if "trace" in v)
    ids = [str(i) for i in trace["ids"]]
    assert widget.locator("input[type=text]").input_value().split() == ids
    layer, head, q, k = 1, 2, 3, 5
    maps = widget.locator(".explorer__layer").nth(layer).locator(".explorer__map")
    maps.nth(head).locator(f"rect[data-q='{q}'][data-k='{k}']").click()
    steps = trace["trace"][layer]
    weight = steps["weights"][head][q][k]
    assert f"weight {weight:.3f}" in _status(widget, ".explorer__readout-line")
    # What the trace shows is the package's numbers, rounded.
    shown = {s.get_attribute("data-step"): s for s in widget.locator(".trace__step").all()}
    assert list(shown) == ["x", "q", "scores", "heads", "concat", "out"]
    for step, rows in {"x": steps["x"], "q": steps["q"][head], "heads": steps["heads"][head],
                       "out": steps["out"]}.items():  # fmt: skip
        assert _shown(rows[q]) in shown[step].inner_text()
    rows = shown["scores"].locator("tbody tr:not(.trace__kv)").all()
    assert len(rows) == len(ids)
    for j, row in enumerate(rows):
        numbers = [f"{steps[n][head][q][j]:.3f}" for n in ("scores", "scaled", "weights")]
        assert row.locator("td").all_inner_texts() == [ids[j], *numbers]
    # Each key's k_j and v_j: in a row of its own, shown by the button (and kept shown).
    kv = shown["scores"].locator("tbody tr.trace__kv")
    assert kv.count() == len(ids) and not any(r.is_visible() for r in kv.all())
    toggle = shown["scores"].locator("button[aria-controls]")
    assert toggle.get_attribute("aria-expanded") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    for j, row in enumerate(kv.all()):
        assert row.is_visible()
        kv_shown = [row.locator(f"[data-kv={n}]").inner_text() for n in ("k", "v")]
        assert kv_shown == [f"[{_shown(steps[n][head][j])}]" for n in ("k", "v")]
    # The concatenation marks the traced head's slice: its d_k columns, the head's output.
    d_k = len(steps["q"][head][q])
    marked = shown["concat"].locator("mark").inner_text()
    head_slice = steps["concat"][q][head * d_k : (head + 1) * d_k]
    assert marked == _shown(head_slice) == _shown(steps["heads"][head][q])
    assert f"{head * d_k} to {(head + 1) * d_k - 1}" in shown["concat"].inner_text()
    # Each step links its formula (the Attention page) and its code (the API page): both exist.
    links = widget.locator(".trace__step a").evaluate_all("links => links.map((a) => a.href)")
    assert len(links) == 2 * 6
    for link in links:
        url, _, anchor = link.partition("#")
        assert f'id="{anchor}"' in site.html(url.removeprefix(site.base)), f"{link} does not exist"

    # The keyboard: the query picker moves the trace to the next query.
    widget.locator(".trace select").nth(2).focus()
    page.keyboard.press("ArrowDown")
    assert _shown(steps["q"][head][q + 1]) in widget.locator("[data-step=q]").inner_text()
    assert widget.locator("tr.trace__kv").first.is_visible()  # k_j and v_j still shown


# --- on a phone: the longest sequences ---------------------------------------------------------
# Every explorer's text, tap targets and width on a phone, as the page shows it: test_pages.py.
# What an explorer fetches, and when, is the same code at every width: checked above at 1280 px.
@pytest.mark.parametrize("lang", LANGUAGES)
def test_long_sequences_on_a_phone(phone, site, lang):
    # 16 tokens: the attention explorer's token table scrolls in its box; the page does not.
    widget = _open(phone, site, LANGUAGES[lang] + "train/", "attention")
    _enter(widget, "1 2 3 4 5 6 7 8 9 9 8 7 6 5 4 3")
    expect(widget.locator(".explorer__output tbody tr:first-child td")).to_have_count(16)
    box = widget.locator(".explorer__output .explorer__scroll")
    assert box.evaluate("el => el.scrollWidth > el.clientWidth")
    assert box.evaluate("el => getComputedStyle(el).overflowX") == "auto"
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    # The trace's keys table, k_j and v_j shown, needs no sideways scrolling for the longest
    # sequence the tasks train on.
    widget = _open(phone, site, LANGUAGES[lang] + "attention/", "attention")
    _enter(widget, "9 8 7 6 5 4 3 2 1 1 2 3")
    expect(widget.locator("[data-step=scores] tbody tr:not(.trace__kv)")).to_have_count(12)
    widget.locator("[data-step=scores] button").click()
    table = widget.locator("[data-step=scores] .explorer__scroll")
    assert table.evaluate("el => el.scrollWidth <= el.clientWidth"), "the keys table scrolls"
    assert widget.locator("tr.trace__kv").last.is_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390


# --- the positional-encoding explorer ---------------------------------------------------------
@pytest.mark.parametrize("lang", LANGUAGES)
def test_positional_encoding_explorer_shows_the_package_table(page, site, lang):
    widget = _open(page, site, LANGUAGES[lang] + "positional-encoding/", "positional-encoding")
    # The page's table by default: 64 positions, d_model = 128.
    assert _js(widget, "state")["d"] == 128 and len(_js(widget, "table")) == 64
    fields = widget.locator("input")
    for field, value in ((fields.nth(0), "48"), (fields.nth(1), "30")):
        field.focus()
        page.keyboard.press("Control+A")
        page.keyboard.type(value)  # each key press draws the table again, before type returns
    shown = np.array(_js(widget, "table"))
    table = sinusoidal_table(30, 48, dtype=torch.float64).numpy()
    assert shown.shape == (30, 48) and np.abs(shown - table).max() < 1e-12
    dots, p = _js(widget, "dots"), _js(widget, "state")["p"]
    assert np.allclose(dots["p"], [table[p] @ table[p + m] for m in range(30 - p)], atol=1e-9)
    assert np.allclose(dots["p0"], [table[0] @ table[m] for m in range(30 - p)], atol=1e-9)
    # The page's names (offset m, pair k), ticks on the axes, a colour scale.
    text = widget.inner_text() + " ".join(widget.locator("svg text").all_text_contents())
    assert ("offset m" if lang == "en" else "偏移 m") in text
    assert ("pair k = 2" if lang == "en" else "第 k = 2 对") in text
    heat = widget.locator("svg[role=img]").first
    assert {"0", "10", "20", "40", "-1", "+1"} <= set(heat.locator("text").all_text_contents())
    assert heat.locator("linearGradient stop").count() == 4

    # Bad input: a message in the widget, no drawing left over, and it recovers.
    for field, value, message, good in (
        (fields.nth(0), "500", "d_model", "48"),
        (fields.nth(2), "4 x", "0 to 255" if lang == "en" else "0 到 255", "4 5 24"),
    ):
        _enter(widget, value, "error", message, field)
        assert widget.locator("svg").count() == 0
        _enter(widget, good, field=field)
    assert widget.locator("svg[role=img]").count() == 3

    # d_model down to 16 under the chosen dimension 24: still drawn, 24 drawn as 15, and said.
    says = "24 is past d_model − 1 = 15" if lang == "en" else "维度 24 超出 d_model − 1 = 15"
    _enter(widget, "16", "ok", says, fields.nth(0))
    assert _js(widget, "state")["dims"] == [4, 5, 15] and len(_js(widget, "table")[0]) == 16
    assert widget.locator("svg[role=img]").count() == 3
    _enter(widget, "128", "ok", field=fields.nth(0))  # the reader's 24 comes back with d_model
    assert _js(widget, "state")["dims"] == [4, 5, 24] and "24 " not in _status(widget)


# Scroll the explorer's controls just under the header from below, as a reader scrolling back
# up to them does (Material shows its back-to-top button there on a scroll up, navigation.top),
# then list the points across each control that something else covers.
COVERED = """async (el) => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const controls = el.querySelector(".explorer__controls");
  const header = document.querySelector(".md-header").getBoundingClientRect().bottom;
  const y = controls.getBoundingClientRect().top + scrollY - header - 4;
  scrollTo(0, y + 600);
  await frame();
  for (let i = 0; i < 12; i++) {
    scrollBy(0, -50);
    await frame();
  }
  await new Promise((r) => setTimeout(r, 600)); // past Material's transitions
  const covered = [];
  for (const c of controls.querySelectorAll("input, button, label")) {
    const b = c.getBoundingClientRect();
    if (b.top < header || b.bottom > innerHeight) continue;
    for (const f of [0.1, 0.3, 0.5, 0.7, 0.9]) {
      const hit = document.elementFromPoint(b.left + f * b.width, b.top + b.height / 2);
      if (c.contains(hit) || hit?.contains(c)) continue; // the control, or the box it is in
      covered.push(`${c.tagName} under ${hit?.outerHTML.slice(0, 80)}`);
    }
  }
  return covered;
}"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_nothing_covers_an_explorer_the_reader_scrolls_back_to(phone, site, problems, lang):
    phone.goto(site.url(LANGUAGES[lang] + "positional-encoding/"))
    widget = phone.locator("[data-explorer='positional-encoding']")
    widget.scroll_into_view_if_needed()
    expect(widget).to_have_attribute("data-state", "ok")
    assert widget.evaluate(COVERED) == []
    assert problems == []


# --- the scale explorer -----------------------------------------------------------------------
def _softmax(z) -> np.ndarray:
    return torch.tensor(z, dtype=torch.float64).softmax(0).numpy()


def _jacobian_norm(z) -> float:  # of the softmax at z: diag(p) - p p^T
    p = _softmax(z)
    return float(np.linalg.norm(np.diag(p) - np.outer(p, p)))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_scale_explorer_sharpens_the_softmax(page, site, lang):
    widget = _open(page, site, LANGUAGES[lang] + "attention/", "scale")
    assert _js(widget, "dk") == 64  # the paper's d_k, where it starts
    widget.locator("input[type=range]").focus()
    page.keyboard.press("Home")
    scores = np.array(_js(widget, "scores"))
    tops = []
    for step in range(11):  # one key press per power of two: d_k = 1, 2, 4, ..., 1024
        dk, scale, weights = (_js(widget, name) for name in ("dk", "scale", "weights"))
        assert dk == 2**step and scale == pytest.approx(np.sqrt(dk))
        assert np.allclose(weights, _softmax(scale * scores), atol=1e-12)
        tops.append(max(weights))
        page.keyboard.press("ArrowRight")
    assert tops == sorted(tops) and tops[-1] > tops[0]  # larger scale, sharper softmax
    assert "d_k = 1024" in _status(widget) and "32" in _status(widget)
    # Divided by sqrt(d_k): s = 1 at every d_k.
    widget.locator("input[type=checkbox]").check()
    assert _js(widget, "scale") == 1 and "s = 1" in _status(widget)
    # The Jacobian's curve is the package-free formula's, and the sentence says its shape.
    shape = _js(widget, "shape")
    curve = [_jacobian_norm(2**x * scores) for x in shape["logs"]]
    assert np.allclose(shape["values"], curve, atol=1e-12)
    rises = max(curve) > _jacobian_norm(np.zeros(10)) + 1e-6  # above its value at s = 0
    words = {"en": ("is not monotone", "only falls"), "zh": ("并不单调", "只下降")}[lang]
    assert words[0 if rises else 1] in _status(widget)
    assert ("Largest weight" if lang == "en" else "最大权重") in _status(widget)
    # A tap on a bar reads its weight.
    widget.locator(".explorer__hit[data-key='3']").click()
    assert f"{_js(widget, 'weights')[3]:.3f}" in _status(widget, ".explorer__readout-line")
    widget.locator("input[type=checkbox]").focus()
    page.keyboard.press("Tab")  # from "divide" (just checked) to "New scores"
    page.keyboard.press("Enter")
    assert not np.allclose(_js(widget, "scores"), scores)

    # What the sentence says of s = 32 is read off the weights there: three close scores share
    # them (0.60, 0.31, 0.09), one far ahead takes them.
    for z, held in (
        ([1.8, 1.78, 1.74, 0.3, -0.2, 0.1, -1.0, 0.5, -0.4, 0.0], (2, 0.91)),
        ([2.5, 1.2, 0.9, 0.3, -0.2, 0.1, -1.0, 0.5, -0.4, 0.0], (1, 1.00)),
    ):
        _js(widget, "use", z)
        top = np.sort(_softmax(32 * np.array(z)))[::-1]
        k = int(np.argmax(np.cumsum(top) >= 0.9)) + 1
        assert (k, round(float(top[:k].sum()), 2)) == held
        said = {
            "en": f"{k} keys share {held[1]:.2f}" if k > 1 else f"one key takes {held[1]:.2f}",
            "zh": f"有 {k} 个键分享 {held[1]:.2f}" if k > 1 else f"一个键拿走 {held[1]:.2f}",
        }[lang]
        assert said in _status(widget), _status(widget)


# --- Break it live ----------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGUAGES)
def test_break_it_predict_then_see(page, site, lang):
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    widget = _open(page, site, LANGUAGES[lang] + "train/", "break-it")
    show = widget.locator("button:not([data-challenge])")

    def see(prediction: str) -> None:
        widget.locator(f"input[value={prediction}]").check()
        show.click()
        page.wait_for_selector("[data-explorer='break-it'][data-revealed] table")

    # Each switch starts on the input the page's fence checked: the intact model right at every
    # position, the broken one not. Predict "wrong", then see both models.
    variants = json.loads(widget.get_attribute("data-variants"))
    said_right = {"en": "Your prediction was right", "zh": "你的预测是对的"}[lang]
    for n, (name, variant) in enumerate(variants.items()):
        widget.locator(f"input[value={name}]").check()  # hides the answer of the last switch
        show.click()  # nothing is shown before a prediction
        assert widget.locator("table").count() == 0
        start = " ".join(map(str, variant["start"]))
        assert widget.locator("input[type=text]").input_value() == start
        see("wrong")
        wrong = [r.locator(".explorer__wrong").count() for r in widget.locator("tbody tr").all()]
        assert len(wrong) == 4 and wrong[2] == 0 < wrong[3], name  # rows: input, expected, both
        assert said_right in _status(widget)
        if n == 0:
            assert any("broken-no-positions.safetensors" in url for url in requested)
            assert not any("broken-no-scaling.safetensors" in url for url in requested)  # on demand
    # The challenge "3 3 3" on count: the intact model's answer and the page's numbers.
    challenges = json.loads(widget.get_attribute("data-challenges"))
    widget.locator("[data-challenge=count]").click()
    see("right")
    answer = challenges["count"]["answer"]
    cells = widget.locator("tbody tr").nth(2).locator("td").all_inner_texts()
    assert [c.split()[0] for c in cells] == [str(a) for a in answer]
    note = widget.locator(".explorer__note").inner_text()
    assert " ".join(map(str, answer)) in note
    assert f"{100 * challenges['count']['all_equal']:.1f} %" in note
    assert ("Not what you predicted" if lang == "en" else "和你预测的不一样") in _status(widget)
    # 13 tokens on reverse.
    widget.locator("[data-challenge=reverse]").click()
    see("wrong")
    assert widget.locator("tbody tr").first.locator("td").count() == 13
    note = widget.locator(".explorer__note").inner_text()
    assert f"{100 * challenges['reverse']['accuracy']:.1f} %" in note


# --- Watch it learn ---------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGUAGES)
def test_learn_explorer_shows_its_runs_maps_and_speaks_the_pages_language(page, site, lang):
    """At each kept step, reached by the keyboard, the maps of each input are the run's (which
    are the package's, the run trained again: tests/site/test_explorer_runs.py); in Chinese, the
    same script on the same file, the keys say each step in its words, and the last step's maps
    are checked against the run (below). The slider keeps to the kept steps and takes a tap;
    the status says the step and the mirrored key's weight."""
    widget = _open(page, site, LANGUAGES[lang] + "train/", "learn")
    data = _fetch(widget, site, "data-run")
    steps, inputs = data["steps"], data["inputs"]
    slider = widget.locator("input[type=range]")
    # Below step 0 it stays at step 0, ArrowRight moves one kept step, past the last it stays.
    keys = ["Home", "ArrowLeft", *["ArrowRight"] * len(steps), "End"]
    for key, step in zip(keys, [0, *steps, steps[-1], steps[-1]], strict=True):
        slider.focus()
        page.keyboard.press(key)
        said = {"en": f"step {step}", "zh": f"第 {step} 步"}[lang]  # to a screen reader
        assert slider.get_attribute("aria-valuetext") == said
        for k, ids in enumerate(inputs if lang == "en" else []):
            widget.locator("input[type=radio]").nth(k).check()
            shown = _js(widget, "shown")
            assert shown["step"] == step and shown["ids"] == ids
            expected = data["maps"][steps.index(step)][k]
            assert_allclose(shown["maps"], expected, rtol=0, atol=EXACT, err_msg=f"{step} {k}")
    # A value the slider does not hold is clamped to the kept steps, never an empty drawing.
    for value, index in (("99", len(steps) - 1), ("-3", 0), ("2.6", 3)):
        slider.evaluate("(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", value)
        assert _js(widget, "shown")["step"] == steps[index]
        assert widget.locator(".explorer__map").count() == 8  # 2 layers x 4 heads
    box = slider.bounding_box()
    slider.click(position={"x": box["width"] - 2, "y": box["height"] / 2})  # at the far end
    last = steps[-1]
    words = {"en": f"Step {last} of {last}", "zh": f"第 {last} 步（共 {last} 步）"}
    assert words[lang] in _status(widget)
    assert widget.locator(".explorer__marker").count() == 1
    # What the maps draw: the run's at the last step, each cell's opacity the weight, rounded.
    shown = _js(widget, "shown")
    expected = data["maps"][-1][inputs.index(shown["ids"])]
    assert_allclose(shown["maps"], expected, rtol=0, atol=EXACT)
    cells = widget.locator(".explorer__map").nth(4).locator("rect[data-q='0']")  # layer 1, head 0
    opacities = [float(c.get_attribute("fill-opacity")) for c in cells.all()]
    assert opacities == pytest.approx(shown["maps"][1][0][0], abs=5e-4)
    # The status says the page's measured weight on the mirrored key at this step.
    mirror = data["mirror"][-1][1]
    head = mirror.index(max(mirror))
    words = {"en": f"layer 1, head {head}: ", "zh": f"第 1 层的头 {head}："}
    assert f"{words[lang]}{mirror[head]:.3f}" in _status(widget)


# --- Read real text: a typed review, pinyin both ways, a blank to fill ------------------------
def _typed(widget, text: str) -> dict:
    """Type ``text`` into the explorer's box; the numbers of what it then shows."""
    _enter(widget, text)
    return _js(widget, "result")


def _sentiment(widget, site):
    """The build's vectors (characters outside the vocabulary, more than the model reads), and a
    review of random characters of the vocabulary, run here by the package on the file's weights."""
    vectors = _fetch(widget, site, "data-tests")
    chars = _fetch(widget, site, "data-vocab")["chars"]
    model = _model(site, widget, "data-model")
    text = "".join(random.Random(0).choices(chars[:500], k=30))
    ids = [2, *(4 + chars.index(c) for c in text)]  # <cls>, then the characters
    with torch.no_grad():
        p = model(torch.tensor([ids]))[0].softmax(-1)
        first = attention_maps(model.encoder, torch.tensor([ids]))[:, 0, :, 0]
    for v in [*vectors, {"text": text, "ids": ids, "p": p.tolist(), "attention": first.tolist()}]:
        got = _typed(widget, v["text"])
        assert got["ids"] == v["ids"], v["text"]
        assert got["knew"] == sum(k != UNK for k in v["ids"][1:]), v["text"]  # <cls> aside
        yield (v["text"], "p"), got["p"], v["p"]
        yield (v["text"], "attention"), got["attention"], v["attention"]


def _han(char: str) -> bool:
    """A common Chinese character (the vectors' rarer ones are outside the vocabulary)."""
    return 0x4E00 <= ord(char) <= 0x9FFF


def _pinyin(widget, site):
    vectors = _fetch(widget, site, "data-tests")
    chars = _fetch(widget, site, "data-vocab")["chars"]
    models = {k: _model(site, widget, f"data-model-{k}") for k in ("encoder", "causal")}
    size = models["encoder"].encoder.embedding.position.max_len  # as many as it reads
    text = "".join(random.Random(1).choices(chars[:500], k=size))
    fresh = {"text": text, "ids": [4 + chars.index(c) for c in text]}
    for name, model in models.items():
        mask = causal_mask(len(text)) if name == "causal" else None
        with torch.no_grad():
            p, top = model(torch.tensor([fresh["ids"]]), mask)[0].softmax(-1).max(-1)
        fresh[name] = {"top": top.tolist(), "p": p.tolist()}
    frequent = _fetch(widget, site, "data-frequent")
    for v in [*vectors, fresh]:
        got = _typed(widget, v["text"])
        assert got["ids"] == v["ids"], v["text"]
        read = v["text"][: len(v["ids"])]
        assert got["frequent"] == [frequent.get(c) if _han(c) else None for c in read]
        for name in models:
            assert got[name]["top"] == v[name]["top"], (name, v["text"])
            yield (v["text"], name), got[name]["p"], v[name]["p"]


def _fill_blank(widget, site):
    """The build's vectors: the window read around the blank, the best guesses (no special
    token among them) and the rank of each candidate word typed into the second box."""
    candidate = widget.locator("input[name=candidate]")
    for v in _fetch(widget, site, "data-tests"):
        candidate.fill("")
        got = _typed(widget, v["text"])
        assert got["ids"] == v["ids"] and got["top"] == v["top"], v["text"]
        assert min(got["top"]) >= 4 and "candidate" not in got
        yield (v["text"],), got["p"], v["p"]
        for word, expected in v["candidates"].items():
            _enter(widget, word, field=candidate)
            got = _js(widget, "result")["candidate"]
            assert (got["id"], got["rank"]) == (expected["id"], expected["rank"]), (v, word)
            yield (v["text"], word), got["p"], expected["p"]


TEXT_NUMBERS = {"sentiment": _sentiment, "pinyin": _pinyin, "fill-blank": _fill_blank}


@pytest.mark.parametrize("name", TEXT_NUMBERS)
def test_text_explorer_equals_the_package_on_typed_text(page, site, name):
    widget = _open(page, site, "text/", name, fetched=1 + (name == "pinyin"))
    start = _fetch(widget, site, "data-tests")[0]["text"]
    assert widget.locator("input[type=text]").first.input_value() == start  # the page's example
    for where, got, expected in TEXT_NUMBERS[name](widget, site):
        assert_allclose(got, expected, rtol=0, atol=EXACT, err_msg=f"{name} {where}")


TEXT_MESSAGES = {  # explorer -> [(input, English message, Chinese message)]
    "sentiment": [
        ("", "Type a review", "请输入一条评论"),
        ("great book, 5 stars!", "No Chinese character", "没有可读的汉字"),
    ],
    "pinyin": [
        ("", "Type a sentence", "请输入一个"),
        ("ok 123!", "No Chinese character", "没有可读的汉字"),
    ],
    "fill-blank": [
        ("", "Type a sentence with ___", "请输入一个英文句子"),
        ("no blank here", "Mark the missing word with ___", "请用 ___"),
        ("a ___ b ___", "2 blanks", "有 2 个空白"),
    ],
}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", TEXT_MESSAGES)
def test_text_explorer_says_what_it_reads_and_refuses_bad_input(page, site, lang, name):
    """Bad input: a message, no output left over, and it recovers. What is shown: the numbers of
    the page's example as the package computes them, characters outside the vocabulary marked,
    and (pinyin) every character where the two models disagree."""
    widget = _open(page, site, LANGUAGES[lang] + "text/", name, fetched=1 + (name == "pinyin"))
    vectors = _fetch(widget, site, "data-tests")
    for text, *messages in TEXT_MESSAGES[name]:
        _enter(widget, text, "error", messages[lang == "zh"])
        assert widget.locator(".explorer__output > *").count() == 0
    start = vectors[0]
    _enter(widget, start["text"])
    status = _status(widget)
    if name == "sentiment":
        label = {"en": ("negative", "positive"), "zh": ("差评", "好评")}[lang][start["p"][1] > 0.5]
        assert f"{label}: {100 * max(start['p']):.1f} %" in status.replace("：", ": ")
        assert widget.locator(".explorer__weights").count() == len(start["attention"])
        n, k = len(start["ids"]) - 1, sum(i != UNK for i in start["ids"][1:])
        assert {"en": f"It knew {k} of the {n} characters", "zh": f"{n} 个字符中它认识 {k} 个"}[
            lang
        ] in status
    if name == "pinyin":
        classes = _fetch(widget, site, "data-classes")
        han = [0x4E00 <= ord(c) <= 0x9FFF for c in start["text"]]
        both = zip(start["encoder"]["top"], start["causal"]["top"], strict=True)
        differ = [i for i, (a, b) in enumerate(both) if a != b and han[i]]
        assert widget.locator("td.explorer__differ").count() == 2 * len(differ)
        cells = widget.locator("tbody tr").first.locator("td")
        shown = [cells.nth(i).inner_text().split() for i in range(len(han)) if han[i]]
        both_ways = zip(start["encoder"]["top"], start["encoder"]["p"], han, strict=True)
        expected = [(classes[k], f"{100 * q:.0f}") for k, q, h in both_ways if h]
        assert [(cell[0], cell[-1]) for cell in shown] == expected  # reading, probability
        n, of = len(differ), sum(han)
        said = {"en": f"read {n} of the {of} characters", "zh": f"在 {of} 个汉字中有 {n} 个"}
        assert said[lang] in status
        # Each model's accuracy on 不, measured on the page, beside its name; then the row of
        # each character's most frequent reading.
        on_bu = json.loads(widget.get_attribute("data-bu"))
        heads = widget.locator("tbody th").all_inner_texts()
        for head, model in zip(heads, ("encoder", "causal"), strict=False):
            assert f"{100 * on_bu[model]:.0f} %" in head
        frequent = _fetch(widget, site, "data-frequent")
        row = widget.locator("tr.explorer__frequent td").all_inner_texts()
        assert row == [frequent.get(c, "") if _han(c) else "" for c in start["text"]]
    if name == "fill-blank":
        words = _fetch(widget, site, "data-words")
        rows = widget.locator(".explorer__guesses li").all_inner_texts()
        assert [r.split()[0] for r in rows] == [words[k - 4] for k in start["top"]]
        assert rows[0].endswith(f"{100 * start['p'][0]:.1f} %")
        # The page's candidate word, ranked; a long sentence read in the window of the blank.
        rank = start["candidates"][widget.get_attribute("data-candidate")]["rank"]
        said = {"en": f"is guess no. {rank} of", "zh": f"中的第 {rank} 个猜测"}[lang]
        assert said in widget.locator(".explorer__rank").inner_text()
        _enter(widget, "one two three four five six ___ seven eight nine ten .")
        window = "three four five six ___ seven eight nine"
        said = {"en": f"as it was trained: the 8 around the blank, “{window}”",
                "zh": f"空白周围的 8 个，“{window}”"}[lang]  # fmt: skip
        assert said in _status(widget)
    # A character (a word) outside the vocabulary is marked, and the status says so.
    outside = {"sentiment": "齉好", "pinyin": "齉不好", "fill-blank": "the zyzzyva ___ ."}[name]
    _enter(widget, outside)
    if name == "fill-blank":
        assert "“zyzzyva”" in _status(widget)
    else:
        assert set(widget.locator("th.explorer__unk").all_inner_texts()) == {"齉"}
        said = {"en": "not in", "zh": "不在词表中"}
        if name == "sentiment":
            said = {"en": "It knew 1 of the 2 characters", "zh": "2 个字符中它认识 1 个"}
        assert said[lang] in _status(widget)


UNLOADED = {  # explorer -> (page, the file it fails to get, English words, Chinese words)
    "attention": ("train/", "attention-*.safetensors", "The trained weights could not be loaded",
                  "无法加载训练好的权重"),
    "learn": ("train/", "learn.json", "The kept steps could not be loaded", "无法加载保存的各步"),
    "sentiment": ("text/", "sentiment-model.safetensors", "The model could not be loaded",
                  "模型加载失败"),
}  # fmt: skip


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", UNLOADED)
def test_an_explorer_says_when_its_files_cannot_be_loaded(page, site, problems, lang, name):
    path, missing, *said = UNLOADED[name]
    page.route(f"**/explorers/{missing}", lambda route: route.fulfill(status=404))
    widget = page.locator(f"[data-explorer='{name}']")
    page.goto(site.url(LANGUAGES[lang] + path))
    _scroll_to(page, widget, f"[data-explorer='{name}'][data-state='error']")
    assert said[lang == "zh"] in _status(widget) and "HTTP 404" in _status(widget)
    assert widget.evaluate("e => e.style.minHeight") == ""  # no placeholder left
    # The 404, its console line and the aborted request: nothing else.
    file = missing.split("*")[0]
    assert problems and all(file in p or "404" in p for p in problems), problems
    problems.clear()  # the 404 was the point


# --- A pretrained encoder: all-MiniLM-L6-v2 reads typed English --------------------------------
# The reference: transformers' BertModel (eager attention, which returns its weights) on the
# int8-rounded weights of the file the page fetches, in float64; and on the float32 checkpoint,
# which the page's similarities stay within 0.01 of. The tokenizer: tokenizers with the
# checkpoint's tokenizer.json.
BERT = "pretrained/"
ROUNDED = 0.01  # the page's cosines against those of the float32 checkpoint
MAX_TOKENS = 128  # the checkpoint's tokenizer.json cuts there
BERT_TEXTS = [
    "The animal didn't cross the street because it was too tired.",
    "Crème brûlée à la carte: a naïve façade in São Paulo, Ångström!",
    "“Quotes”, (brackets) [and] {braces}; dashes — and… ¿Qué? ¡Sí! 3.14 $5 50% #1 @you",
    "The zyzzyva qwxzq flumbergasted the snorklewhap 🤖.",
    "我爱 transformer 模型",
    "Every word here is read, " * 30,  # 152 tokens: cut to 128
]
EDGE_LINES = [  # tokenizer edge cases besides the site's lines
    *BERT_TEXTS, "", " \t\n ", "[PAD] [CLS]x[SEP] [MASK] [unk] [UNK]", "a" * 100, "a" * 101,
    "a\x00b\u200bc\ufeffd\x85e\x1cf\x0bg\u3000h\xa0i\ufffdj", "ΟΔΟΣ Σίσυφος ὅτι", "İstanbul ǅ ß",
    "ﬁne ＡＢＣ ①②", "e\u0301 \u0301 n\u0303", "don't can't o'clock U.S.A. e-mail",
    "𠀋𪚥 ㄅㄆ 가나 カタカナ",
    "tab\there\nnewline\r\nwindows", "unaffable unaffableness antidisestablishmentarianism",
]  # fmt: skip


def _bert_file(site, widget):
    path = site.dir / widget.get_attribute("data-model")
    with safetensors.safe_open(path, "pt") as f:
        return path, f.metadata(), {k: f.get_tensor(k) for k in f.keys()}


def _bert_state(tensors: dict) -> dict:
    """The file's tensors as the page holds them: int8 NAME times NAME.scale per row, float32."""
    state = {}
    for name, t in tensors.items():
        if name.endswith(".scale"):
            continue
        state[name] = t.float() * tensors[f"{name}.scale"][:, None] if t.dtype == torch.int8 else t
    return state


@pytest.fixture(scope="module")
def bert_reference():
    """The package's Encoder on the checkpoint ("float32", as load_bert gives it), its config
    and the tokenizers' Tokenizer of the shipped tokenizer.json."""
    from encoder.pretrained import MINILM_SHA256, load_bert, load_tokenizer, minilm_folder

    folder = minilm_folder()
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    tokenizer = load_tokenizer(folder)
    tokenizer.no_padding()
    float32 = load_bert(folder, MINILM_SHA256)
    return {"config": config, "float32": float32, "tokenizer": tokenizer}


def _int8_model(reference, tensors):
    """The package's Encoder on the page's int8-rounded weights, in float64."""
    from encoder.pretrained import bert_names, encoder_for

    model = encoder_for(reference["config"]).double().eval()
    state = _bert_state(tensors)
    names = bert_names(reference["config"]["num_hidden_layers"])
    model.load_state_dict({ours: torch.cat([state[n] for n in theirs]).double()
                           for ours, theirs in names.items()})  # fmt: skip
    return model


@torch.no_grad()
def _bert_run(model, ids: list[int]):
    """Attention (L, H, T, T) and the sentence vector: mean over the tokens, L2-normalised."""
    from encoder import attention_maps

    x = torch.tensor([ids])
    types = torch.zeros_like(x)
    maps = attention_maps(model, x, types)[:, 0]  # (L, H, T, T)
    vector = torch.nn.functional.normalize(model(x, token_types=types)[0].mean(0), dim=0)
    return maps, vector


def _bert_open(page, site, lang: str, name: str):
    """The explorer ``name``, in view and asking for its model: not fetched before its button,
    which says the file's size; pressed, the file is fetched once for both explorers. Returns
    the widget and what loading took: seconds from the press to the drawing, and the tab's
    memory then (V8's heap and the typed arrays' backing stores, after a garbage collection)."""
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(site.url(LANGUAGES[lang] + BERT), wait_until="networkidle")
    widget = page.locator(f"[data-explorer='{name}']")
    _scroll_to(page, widget, f"[data-explorer='{name}'][data-state='ask']")
    path = site.dir / widget.get_attribute("data-model")
    size = path.stat().st_size
    assert int(widget.get_attribute("data-size")) == size <= 25e6
    mb = f"{size / 1e6:.1f} MB"
    button = widget.locator("button.explorer__load")
    assert mb in button.inner_text() and mb in _status(widget)
    url = site.url(widget.get_attribute("data-model"))
    assert url not in requested, "fetched before the button"
    start = page.evaluate("performance.now()")
    button.click()
    both = page.locator("[data-explorer^='bert-']")
    assert both.count() == 2
    for each in both.all():
        expect(each).to_have_attribute("data-state", "ok", timeout=120_000)
    seconds = (page.evaluate("performance.now()") - start) / 1000
    assert requested.count(url) == 1, requested
    assert page.locator("button.explorer__load").count() == 0
    cdp = page.context.new_cdp_session(page)
    cdp.send("HeapProfiler.collectGarbage")
    heap = cdp.send("Runtime.getHeapUsage")
    return widget, {"load_s": seconds, "MB": size / 1e6, **heap}


def _typed_text(page, widget, text: str, lines: bool = False) -> dict:
    """Type ``text``; once the explorer shows it, the numbers it shows (typed arrays as lists:
    Playwright sends one as its bytes, where an array goes number by number)."""
    widget.locator("textarea" if lines else "input[type=text]").fill(text)
    shown = "(r) => r.sentences.join('\\n')" if lines else "(r) => r.text"
    if lines:  # the sentences it reads: the lines, trimmed, without the empty ones
        text = "\n".join(line.strip() for line in text.split("\n") if line.strip())
    page.wait_for_function(
        f"([el, text]) => {{ const r = el.explorer.result(); return r && ({shown})(r) === text; }}",
        arg=[widget.element_handle(), text],
        timeout=60_000,
    )
    return widget.evaluate("el => el.explorer.result()")


def _bert_attention_equals(page, site, widget, bert_reference, measured):
    """Typed English, in the attention explorer: the page's tokens are tokenizers', its
    attention of every layer and head BertModel's on the same int8-rounded weights (1e-5); a
    tap on a token picks it, and the status names where it looks most."""
    _, meta, tensors = _bert_file(site, widget)
    model = _int8_model(bert_reference, tensors)
    tokenizer = bert_reference["tokenizer"]
    words = meta["vocab"].split("\n")
    fresh = " ".join(random.Random(2).choices([w for w in words[1000:] if w.isalpha()], k=20))
    times = []
    for text in [*BERT_TEXTS, fresh]:
        got = _typed_text(page, widget, text)
        times.append((len(got["ids"]), got["ms"]))
        expected = tokenizer.encode(text)  # cut at 128 as its tokenizer.json says
        assert got["ids"] == expected.ids, text
        attention, _ = _bert_run(model, got["ids"])
        assert_allclose(np.array(got["attention"]).reshape(attention.shape), attention.numpy(),
                        rtol=0, atol=EXACT, err_msg=text)  # fmt: skip
        tokenizer.no_truncation()
        n = len(tokenizer.encode(text).ids)
        tokenizer.enable_truncation(MAX_TOKENS)
        assert got["n"] == n
        assert (f"only the first {MAX_TOKENS}" in _status(widget)) == (n > MAX_TOKENS)
    # Layer 2, head 5, tap the 4th token: it is the one pressed, and the status names its
    # strongest key as the reference has it.
    text = BERT_TEXTS[0]
    got = _typed_text(page, widget, text)
    widget.locator("select").nth(0).select_option("2")
    widget.locator("select").nth(1).select_option("5")
    widget.locator("button.explorer__token").nth(4).click()
    expect(widget.locator("button.explorer__token[aria-pressed=true]")).to_have_text(
        tokenizer.encode(text).tokens[4]
    )
    attention, _ = _bert_run(model, got["ids"])
    tokens = tokenizer.encode(text).tokens
    top = tokens[int(attention[2, 5, 4].argmax())]
    assert f"In layer 2, head 5, “{tokens[4]}” looks most at “{top}”" in _status(widget)
    per = [(n, round(ms)) for n, ms in times]
    print(f"\nbert: {measured}; a sentence's tokens and forward pass (tokens, ms): {per}")
    assert measured["usedSize"] + measured.get("backingStorageSize", 0) <= 250e6, measured


def _bert_similarity_equals(page, site, bert_reference):
    """Typed sentences: the page's cosines are BertModel's on the int8-rounded weights (1e-5),
    and within 0.01 of the float32 checkpoint's."""
    widget = page.locator("[data-explorer='bert-similarity']")
    _, _, tensors = _bert_file(site, widget)
    model, float32 = _int8_model(bert_reference, tensors), bert_reference["float32"]
    tokenizer = bert_reference["tokenizer"]
    start = widget.get_attribute("data-start")
    mine = "A cat sleeps on the sofa.\n  \nA kitten naps on the couch.\nTaxes rose again."
    for text in [start, "\n".join(BERT_TEXTS), mine]:
        got = _typed_text(page, widget, text, lines=True)
        ids = [tokenizer.encode(s).ids for s in got["sentences"]]
        assert got["ids"] == ids
        vectors = torch.stack([_bert_run(model, i)[1] for i in ids])
        exact = np.asarray(got["cosines"])
        assert_allclose(exact, (vectors @ vectors.T).numpy(), rtol=0, atol=EXACT)
        vectors = torch.stack([_bert_run(float32, i)[1] for i in ids]).double()
        assert_allclose(exact, (vectors @ vectors.T).numpy(), rtol=0, atol=ROUNDED)
        vector = _js(widget, "embed", got["sentences"][0])
        assert_allclose(vector, _bert_run(model, ids[0])[1].numpy(), rtol=0, atol=EXACT)


def _site_lines() -> list[str]:
    """Every line of the site's English pages (docs/, not docs/zh/), as written."""
    from tests.site.conftest import DOCS

    lines = set()
    for path in sorted(DOCS.rglob("*.md")):
        if "zh" not in path.relative_to(DOCS).parts:
            text = path.read_text(encoding="utf-8")
            lines.update(line for line in text.splitlines() if line.strip())
    return sorted(lines)


def _wordpiece_equals_tokenizers(page, site, widget, bert_reference):
    """The page's WordPiece against tokenizers with the checkpoint's tokenizer.json, uncut, on
    every English line of the site and the edge cases; cut at 128 as the model reads; and its
    erf (for the exact GELU) against Python's to double precision."""
    import math

    _, meta, _ = _bert_file(site, widget)
    module = site.url("assets/javascripts/explorers/")
    lines = [*_site_lines(), *EDGE_LINES]
    assert len(lines) > 3000
    got = page.evaluate(
        """async ([module, vocab, special, lines, max]) => {
          const { wordPiece } = await import(module + "wordpiece.js");
          const tokenizer = wordPiece(vocab.split("\\n"), JSON.parse(special));
          const ids = (cut) => lines.map((line) => tokenizer.sentence(line, cut).ids);
          // As typed arrays, which Playwright sends as their bytes, not number by number.
          return [ids(Infinity), ids(max)].map((each) => each.map((i) => Int32Array.from(i)));
        }""",
        [module, meta["vocab"], meta["special"], lines, MAX_TOKENS],
    )  # fmt: skip
    tokenizer = bert_reference["tokenizer"]
    cut = [e.ids for e in tokenizer.encode_batch(lines)]
    tokenizer.no_truncation()
    try:
        whole = [e.ids for e in tokenizer.encode_batch(lines)]
    finally:
        tokenizer.enable_truncation(MAX_TOKENS)
    differ = [line for line, a, b in zip(lines, got[0], whole, strict=True) if a != b]
    assert differ == [], f"{len(differ)} of {len(lines)} lines differ: {differ[:5]}"
    assert got[1] == cut
    print(f"\nWordPiece: {len(lines)} lines equal to tokenizers'")
    xs = np.linspace(-7, 7, 14_001).tolist()
    erf = page.evaluate(
        "async ([module, xs]) => Float64Array.from(xs, (await import(module + 'bert.js')).erf)",
        [module, xs],
    )
    assert max(abs(e - math.erf(x)) for x, e in zip(xs, erf, strict=True)) < 1e-14


BERT_MESSAGES = {  # explorer -> [(input, English message, Chinese message)]
    "bert-attention": [
        ("", "Type a sentence in English", "请输入一个英文句子"),
        ("!!! ... ???", "No letter or digit", "没有可读的字母或数字"),
    ],
    "bert-similarity": [
        ("", "Type two sentences or more", "请输入两个或更多句子"),
        ("Only one sentence here.", "One sentence", "只有一个句子"),
        ("A first sentence.\n???", "Sentence 2 has no letter", "第 2 个句子没有可读的字母"),
        ("\n".join(f"Sentence {i}." for i in range(9)), "9 sentences", "共 9 个句子"),
    ],
}


def _bert_refuses_bad_input(page, lang: str):
    for name, messages in BERT_MESSAGES.items():
        widget = page.locator(f"[data-explorer='{name}']")
        field = widget.locator("textarea" if name == "bert-similarity" else "input[type=text]")
        for text, *said in messages:
            field.fill(text)
            expect(widget).to_have_attribute("data-state", "error")
            expect(widget.locator(".explorer__status")).to_contain_text(said[lang == "zh"])
            assert widget.locator(".explorer__output > *").count() == 0
        field.fill(widget.get_attribute("data-start"))
        expect(widget).to_have_attribute("data-state", "ok")
    long = "Every word here is read, " * 30
    widget = page.locator("[data-explorer='bert-attention']")
    widget.locator("input[type=text]").fill(long)
    said = {"en": "only the first 128 are read", "zh": "只读前 128 个"}[lang]
    expect(widget.locator(".explorer__status")).to_contain_text(said, timeout=60_000)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_bert_explorers_on_their_button(page, site, bert_reference, subtests, lang):
    """One press of the button loads the model for both explorers, once. In English, what they
    compute is BertModel's, their tokens tokenizers'; in each language, bad input is refused in
    the page's words."""
    widget, measured = _bert_open(page, site, lang, "bert-attention")
    if lang == "en":
        with subtests.test("attention equals BertModel's"):
            _bert_attention_equals(page, site, widget, bert_reference, measured)
        with subtests.test("similarity equals BertModel's"):
            _bert_similarity_equals(page, site, bert_reference)
        with subtests.test("WordPiece equals tokenizers'"):
            _wordpiece_equals_tokenizers(page, site, widget, bert_reference)
    with subtests.test("bad input refused"):
        _bert_refuses_bad_input(page, lang)
