"""The interactive explorers in Chromium (pytest-playwright's ``page``), on the run's build.

- The attention explorer (Train page) runs the trained models in JavaScript: its forward pass
  must equal the package's on the test vectors the build exported, and on fresh sequences run
  by the package with the exported weights.
- The positional-encoding explorer must show the package's sinusoidal table.
- The scale explorer must show softmax(s * scores), sharper as s grows.
- Each is driven by the keyboard, answers bad input with a message in the widget (and keeps
  working) and speaks the page's language. Their colours in the dark scheme: ``test_pages.py``.
"""

from __future__ import annotations

import base64

import numpy as np
import pytest
import torch

from encoder import Encoder, TokenClassifier, attention_maps, sinusoidal_table

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


FETCH_JSON = "async (url) => (await fetch(new URL(url, location.href))).json()"
RUN = "async ([el, task, ids]) => el.explorer.run(task, ids)"


def _max_diff(got: dict, logits, attention) -> float:
    pairs = ((got["logits"], logits), (got["attention"], attention))
    return max(float(np.abs(np.asarray(a) - np.asarray(b)).max()) for a, b in pairs)


def test_attention_explorer_equals_the_package(page, site, problems):
    widget = _open(page, site, "train/", "attention")
    element = widget.element_handle()
    tests = page.evaluate(FETCH_JSON, widget.get_attribute("data-tests"))
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
        weights = page.evaluate(FETCH_JSON, widget.get_attribute(f"data-model-{task}"))
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


def test_attention_explorer_loads_weights_only_in_view(page, site, problems):
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(site.url("train/"), wait_until="networkidle")
    widget = page.locator("[data-explorer='attention']")
    models = {page.evaluate("u => new URL(u, location.href).href", widget.get_attribute(a))
              for a in ("data-model-count", "data-model-reverse", "data-model-sort")}  # fmt: skip
    assert models.isdisjoint(requested), "weights fetched before the explorer was in view"
    widget.scroll_into_view_if_needed()
    page.wait_for_selector("[data-explorer='attention'][data-ready]")
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
        cells = widget.locator("tbody tr").nth(1).locator("td").all_inner_texts()
        return ["".join(c.split()) for c in cells]

    page.wait_for_function(
        "el => el.querySelectorAll('tbody tr:nth-child(2) td').length === 4",
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


# --- the positional-encoding explorer ---------------------------------------------------------
@pytest.mark.parametrize("lang", LANGUAGES)
def test_pe_explorer_shows_the_package_table(page, site, problems, lang):
    widget = _open(page, site, LANGUAGES[lang] + "positional-encoding/", "positional-encoding")
    fields = widget.locator("input")
    d_model, positions = fields.nth(0), fields.nth(1)
    for field, value in ((d_model, "48"), (positions, "30")):
        field.focus()
        page.keyboard.press("Control+A")
        page.keyboard.type(value)
    page.wait_for_function("el => el.explorer.state().d === 48 && el.explorer.state().n === 30",
                           arg=widget.element_handle())  # fmt: skip
    shown = np.array(page.evaluate("el => el.explorer.table()", widget.element_handle()))
    table = sinusoidal_table(30, 48, dtype=torch.float64).numpy()
    assert shown.shape == (30, 48)
    assert np.abs(shown - table).max() < 1e-12
    dots = page.evaluate("el => el.explorer.dots()", widget.element_handle())
    p = page.evaluate("el => el.explorer.state().p", widget.element_handle())
    expected = [table[p] @ table[p + k] for k in range(30 - p)]
    assert np.allclose(dots["p"], expected, atol=1e-9)
    assert np.allclose(dots["p0"], [table[0] @ table[k] for k in range(30 - p)], atol=1e-9)

    # Bad input: a message in the widget, the last drawing stays, and it recovers.
    for field, value, message in (
        (d_model, "500", "d_model"),
        (fields.nth(2), "4 99", "0 to 47" if lang == "en" else "0 到 47"),
    ):
        field.fill(value)
        page.wait_for_selector("[data-explorer='positional-encoding'][data-state='error']")
        assert message in _status(widget)
        field.fill("48" if field is d_model else "4 5")
        page.wait_for_selector("[data-explorer='positional-encoding'][data-state='ok']")
    assert widget.locator("svg[role=img]").count() == 3
    assert problems == []


# --- the scale explorer -----------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGUAGES)
def test_scale_explorer_sharpens_the_softmax(page, site, problems, lang):
    widget = _open(page, site, LANGUAGES[lang] + "attention/", "scale")
    handle = widget.element_handle()
    slider = widget.locator("input[type=range]")
    slider.focus()
    tops = []
    for _ in range(4):
        scores = np.array(page.evaluate("el => el.explorer.scores()", handle))
        scale = page.evaluate("el => el.explorer.scale()", handle)
        weights = np.array(page.evaluate("el => el.explorer.weights()", handle))
        expected = np.exp(scale * scores - (scale * scores).max())
        assert np.allclose(weights, expected / expected.sum(), atol=1e-12)
        tops.append(weights.max())
        for _ in range(20):
            page.keyboard.press("ArrowRight")  # the scale doubles every 20 steps
    assert tops == sorted(tops) and tops[-1] > tops[0]  # larger scale, sharper softmax
    assert "s = 16.00" in _status(widget)
    assert ("Largest weight" if lang == "en" else "最大权重") in _status(widget)
    page.keyboard.press("Tab")  # to "New scores"
    page.keyboard.press("Enter")
    assert not np.allclose(page.evaluate("el => el.explorer.scores()", handle), scores)
    assert problems == []
