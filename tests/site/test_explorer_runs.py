"""What the explorers show from a file rather than compute in the page is the package's: "Watch
it learn" (Train page) shows the maps its file holds at each kept step (``test_explorers.py``
checks the page shows them), and here the run, trained again from the recipe the file records,
gives those maps and that loss."""

from __future__ import annotations

import json
import re

import torch
from numpy.testing import assert_allclose

from encoder import Encoder, Task, TokenClassifier, attention_maps, train

EXACT = 1e-5  # the file's maps are rounded to 6 decimals, its loss to 5


def test_watch_it_learn_is_the_run_trained_again(site):
    path = re.search(r'data-explorer="learn"[^>]* data-run="([^"]+)"', site.html("train/"))[1]
    data = json.loads((site.dir / path).read_text(encoding="utf-8"))
    steps, inputs, run = data["steps"], data["inputs"], data["run"]
    assert len(steps) >= 10 and steps[0] == 0 and steps == sorted(steps)
    assert steps[-1] == run["train"]["steps"] == len(data["loss"])
    torch.manual_seed(run["init_seed"])
    model = TokenClassifier(Encoder(**run["model"]), Task("reverse").n_classes)
    history = train(model, Task("reverse"), **run["train"], checkpoints=steps)
    assert_allclose(data["loss"], history.loss, rtol=0, atol=EXACT)
    for step, maps in zip(steps, data["maps"], strict=True):
        model.load_state_dict(history.checkpoints[step])
        for ids, shown in zip(inputs, maps, strict=True):
            with torch.no_grad():
                expected = attention_maps(model.encoder, torch.tensor([ids]))[:, 0]
            assert_allclose(shown, expected, rtol=0, atol=EXACT, err_msg=f"step {step}, {ids}")
