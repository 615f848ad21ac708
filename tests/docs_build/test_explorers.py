"""The explorers' export refuses a model that the page's JavaScript would compute otherwise
(issue 22: learned positions, another padding id, or the scaling hooks left unsaid)."""

from __future__ import annotations

import json

import pytest
import torch

from docs_build.explorers import export_weights
from encoder import Encoder, LearnedPositionalEncoding, TokenClassifier, remove_score_scaling


def model(**changes) -> TokenClassifier:
    torch.manual_seed(0)
    sizes = dict(vocab_size=10, d_model=8, n_head=2, d_ff=16, n_layers=2, max_len=16)
    return TokenClassifier(Encoder(**(sizes | changes)), 10)


def test_a_model_the_page_computes_exports():
    assert export_weights(model(), "reverse")["config"]["positions"] is True
    blind = model()
    blind.encoder.embedding.position = torch.nn.Identity()
    assert export_weights(blind, "count")["config"]["positions"] is False
    unscaled = model()
    remove_score_scaling(unscaled.encoder)
    assert export_weights(unscaled, "sort", scaled=False)["config"]["scaled"] is False


def test_a_model_the_page_would_compute_otherwise_is_refused():
    learned = model()
    learned.encoder.embedding.position = LearnedPositionalEncoding(d_model=8, max_len=16)
    with pytest.raises(ValueError, match="sinusoidal positions or none"):
        export_weights(learned, "reverse")
    with pytest.raises(ValueError, match="padding id, not 5"):
        export_weights(model(padding_idx=5), "reverse")
    hooked = model()
    remove_score_scaling(hooked.encoder)
    with pytest.raises(ValueError, match="layer 0: scaled=True"):
        export_weights(hooked, "reverse")
    with pytest.raises(ValueError, match="layer 0: scaled=False"):
        export_weights(model(), "reverse", scaled=False)


def test_learn_export_holds_each_kept_step_and_needs_step_0():
    """Its maps at each kept step are the package's: test_explorer_equals_the_package[learn]."""
    from docs_build import figures
    from docs_build.explorers import learn_explorer
    from encoder import Task, train

    trained = model()
    history = train(trained, Task("reverse"), steps=3, eval_every=0, checkpoints=[0, 3])
    mirror = {step: torch.zeros(2, 2) for step in history.checkpoints}
    with figures.collect() as written:
        html = learn_explorer(trained, history, mirror, run={"init_seed": 0})
    assert 'data-explorer="learn" data-run="explorers/learn.json"' in html
    data = json.loads(written["explorers/learn.json"])
    assert data["steps"] == [0, 3] and len(data["loss"]) == 3 and len(data["maps"]) == 2
    history.checkpoints.pop(0)
    with pytest.raises(ValueError, match=r"need step 0 and a later step, got \[3\]"):
        learn_explorer(trained, history, mirror, run={})
