"""Checks paid once (issue 22): a call of the package's outermost public module or function
checks its arguments once; the modules it calls do not check again. Called directly, each
still checks, and an error names the bad value whichever entry point it came through."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
import torch

import encoder._checks as checks
import encoder.attention as attention
import encoder.encoder as encoder_module
import encoder.encoder_layer as encoder_layer
import encoder.masks as masks
from encoder import (
    Encoder,
    EncoderLayer,
    LayerNorm,
    MultiHeadAttention,
    PositionwiseFeedForward,
    TransformerEmbedding,
    causal_mask,
)

pytestmark = pytest.mark.usefixtures("device")


@pytest.fixture
def tensor_checks(monkeypatch):
    """The names of the tensors checked, in order."""
    seen: list[str] = []
    original = checks.tensor

    def counting(name, *args, **kwargs):
        seen.append(name)
        return original(name, *args, **kwargs)

    monkeypatch.setattr(checks, "tensor", counting)
    return seen


@pytest.fixture
def mask_checks(monkeypatch):
    """The shapes masks were checked against, in order, wherever the check was imported."""
    seen: list[tuple] = []
    original = masks.check_mask

    def counting(mask, shape, *args, **kwargs):
        seen.append(shape)
        return original(mask, shape, *args, **kwargs)

    for module in (masks, attention, encoder_layer, encoder_module):
        monkeypatch.setattr(module, "check_mask", counting)
    return seen


@pytest.mark.parametrize("n_layers", [1, 3])
def test_an_encoder_call_checks_its_ids_and_its_mask_once(tensor_checks, mask_checks, n_layers):
    enc = Encoder(vocab_size=7, d_model=8, n_head=2, d_ff=16, n_layers=n_layers, max_len=6)
    enc(torch.tensor([[1, 2, 0]]), causal_mask(3))
    assert tensor_checks == ["ids"]
    assert mask_checks == [(1, 2, 3, 3)]


@pytest.mark.parametrize(
    "module, args, names",
    [
        (lambda: EncoderLayer(8, 2, 16), lambda: (torch.randn(2, 3, 8),), ["x"]),
        (lambda: MultiHeadAttention(8, 2), lambda: (torch.randn(2, 3, 8),) * 3, ["q", "k", "v"]),
        (lambda: LayerNorm(8), lambda: (torch.randn(2, 3, 8),), ["x"]),
        (lambda: PositionwiseFeedForward(8, 16), lambda: (torch.randn(2, 3, 8),), ["x"]),
        (lambda: TransformerEmbedding(7, 8, 6), lambda: (torch.tensor([[1, 2]]),), ["ids"]),
    ],
)
def test_every_public_module_checks_its_own_inputs_once(tensor_checks, module, args, names):
    module()(*args())
    assert tensor_checks == names


def test_a_bad_value_is_named_through_every_entry_point(device):
    enc = Encoder(vocab_size=7, d_model=8, n_head=2, d_ff=16, n_layers=1, max_len=6)
    layer = enc.layers[0]
    if device == "cpu":  # the id range is checked on the CPU only
        with pytest.raises(ValueError, match=r"token ids must be in \[0, 7\)"):
            enc(torch.tensor([[1, 9]]))
        with pytest.raises(ValueError, match=r"token ids must be in \[0, 7\)"):
            enc.embedding(torch.tensor([[1, 9]]))
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, 8\), got \(2, 3, 5\)"):
        layer(torch.randn(2, 3, 5))
    with pytest.raises(ValueError, match=r"mask of shape \(4, 4\) does not broadcast"):
        layer(torch.randn(2, 3, 8), torch.ones(4, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"x must have shape \(\.\.\., 8\), got \(3, 5\)"):
        layer.norm1(torch.randn(3, 5))
    with pytest.raises(TypeError, match="need_weights must be a bool"):
        x = torch.randn(1, 2, 8)
        layer.self_attn(x, x, x, need_weights=1)


def test_a_failed_call_leaves_the_next_calls_checked():
    """An error inside an outer call does not leave the inner modules unchecked."""
    enc = Encoder(vocab_size=7, d_model=8, n_head=2, d_ff=16, n_layers=1, max_len=6)
    with pytest.raises(ValueError, match="exceeds max_len=6"):
        enc(torch.ones(1, 7, dtype=torch.long))
    with pytest.raises(ValueError, match=r"x must have shape"):
        enc.layers[0](torch.randn(2, 3, 5))


def test_skipping_is_per_thread():
    """While one thread runs a checked call, another thread's calls are still checked."""
    layer = EncoderLayer(8, 2, 16).eval()
    inside, release, errors = threading.Event(), threading.Event(), []

    def hold(module, args):  # runs inside the main thread's checked call
        inside.set()
        release.wait(10)

    def other_thread():
        inside.wait(10)
        try:
            layer.norm2(torch.randn(3, 5))
        except ValueError as e:
            errors.append(e)
        finally:
            release.set()

    handle = layer.ff.register_forward_pre_hook(hold)
    thread = threading.Thread(target=other_thread)
    thread.start()
    try:
        layer(torch.randn(2, 3, 8))
    finally:
        handle.remove()
        release.set()
        thread.join(10)
    assert len(errors) == 1 and "x must have shape" in str(errors[0])


SECTION = re.compile(r"# --8<-- \[start:(\w+)\]\n(.*?)# --8<-- \[end:\1\]", re.S)
CHECK = re.compile(r"_check|checked_by|check_split|check_fits")


def test_the_code_the_pages_show_opens_with_the_idea():
    """Issue 30: in the sections the pages include, no argument check is spelled out; each
    function calls its checks (defined outside the section) in one line at most."""
    for path in sorted(Path(checks.__file__).parent.glob("*.py")):
        for name, body in SECTION.findall(path.read_text()):
            where = f"{path.name}:{name}"
            assert not re.search(r"^\s*raise ", body, re.M), f"{where} raises in the open"
            calls: list[int] = [0]  # per function: a decorator or a def starts one
            after_decorator = False
            for line in body.splitlines():
                head = line.lstrip()
                if head.startswith(("@", "def ")) and not after_decorator:
                    calls.append(0)
                after_decorator = head.startswith("@")
                calls[-1] += bool(CHECK.search(line))
            assert max(calls) <= 1, f"{where} has {max(calls)} check lines in one function"
