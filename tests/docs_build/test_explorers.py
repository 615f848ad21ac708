"""The explorers' export refuses a model that the page's JavaScript would compute otherwise
(issue 22: learned positions, another padding id, or the scaling hooks left unsaid). That it
exports the models the page does compute (with and without positions or the scaling), and what
they compute, is test_explorer_equals_the_package's (tests/site/browser/test_explorers.py), as
is that Watch it learn's export starts at step 0."""

from __future__ import annotations

import pytest
import torch

from docs_build.explorers import model_file
from encoder import Encoder, LearnedPositionalEncoding, TokenClassifier, remove_score_scaling


def model(**changes) -> TokenClassifier:
    torch.manual_seed(0)
    sizes = dict(vocab_size=10, d_model=8, n_head=2, d_ff=16, n_layers=2, max_len=16)
    return TokenClassifier(Encoder(**(sizes | changes)), 10)


def test_a_model_the_page_would_compute_otherwise_is_refused():
    learned = model()
    learned.encoder.embedding.position = LearnedPositionalEncoding(d_model=8, max_len=16)
    with pytest.raises(ValueError, match="sinusoidal positions or none"):
        model_file(learned, "reverse")
    with pytest.raises(ValueError, match="padding id, not 5"):
        model_file(model(padding_idx=5), "reverse")
    hooked = model()
    remove_score_scaling(hooked.encoder)
    with pytest.raises(ValueError, match="layer 0: scaled=True"):
        model_file(hooked, "reverse")
    with pytest.raises(ValueError, match="layer 0: scaled=False"):
        model_file(model(), "reverse", scaled=False)


def test_a_weight_that_float16_cannot_hold_is_refused():
    big = model()
    with torch.no_grad():
        big.head.weight[0, 0] = 70_000.0  # float16's largest is 65504
    with pytest.raises(ValueError, match=r"head.weight holds \|values\| up to 70000"):
        model_file(big, "pinyin", torch.float16)
    assert model_file(model(), "pinyin", torch.float16)  # a model that fits is written


def test_int8_rows_round_each_row_to_its_own_scale():
    """Each row's integers times its scale are within half a step of the row, the row's largest
    |value| is ±127 steps, and a row of zeros stays zeros (scale 1, not a division by 0)."""
    from docs_build.explorers import int8_rows

    g = torch.Generator().manual_seed(0)
    weight = torch.randn(5, 7, generator=g) * torch.arange(5)[:, None]  # row 0: zeros
    q, scale = int8_rows(weight)
    assert q.dtype == torch.int8 and scale.dtype == torch.float32 and scale.shape == (5,)
    assert (q.float() * scale[:, None] - weight).abs().le(scale[:, None] / 2 + 1e-7).all()
    assert q[1:].abs().amax(dim=1).eq(127).all() and q[0].eq(0).all() and scale[0] == 1


def test_the_pretrained_file_refuses_other_weights(tmp_path):
    """bert_weights checks the checkpoint's sha256 against the pin and names both."""
    from docs_build.explorers import bert_weights
    from encoder.pretrained import MINILM_SHA256

    (tmp_path / "model.safetensors").write_bytes(b"not the weights")
    with pytest.raises(ValueError, match=f"not the pinned {MINILM_SHA256}"):
        bert_weights(tmp_path)


def test_a_file_is_the_same_bytes_every_time_its_metadata_sorted():
    """safetensors writes its metadata in an order of its own, another each time: the site's
    files have it sorted, so two builds write the same bytes, which read as the library's."""
    import json

    import safetensors.torch

    from docs_build.explorers import safetensors_file

    tensors = {"b": torch.arange(6.0).view(2, 3), "a": torch.tensor([1, -2], dtype=torch.int8)}
    metadata = {f"key {k}": f'value {k}: é\n"' for k in range(16)}  # escapes, UTF-8
    files = {safetensors_file(tensors, metadata) for _ in range(3)}
    assert len(files) == 1
    (blob,) = files
    size = int.from_bytes(blob[:8], "little")
    assert list(json.loads(blob[8 : 8 + size])["__metadata__"]) == sorted(metadata)
    loaded = safetensors.torch.load(blob)
    assert loaded.keys() == tensors.keys() and all(
        torch.equal(loaded[k], tensors[k]) for k in tensors
    )
    # The library's own order: the day it sorts the metadata too, safetensors_file can go.
    assert len({safetensors.torch.save(tensors, metadata) for _ in range(3)}) > 1
