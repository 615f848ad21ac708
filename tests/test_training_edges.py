"""The training layer under hostile use (issue 22): splits that are empty, a model shared by
threads, int32 targets, the mode left behind, numpy numbers, seeds out of range, the scaling
hook in every dtype, on every device, pickled, applied twice; and train and evaluate on the
model's device (CPU and, where present, CUDA)."""

from __future__ import annotations

import copy
import pickle
import threading

import numpy as np
import pytest
import torch
from support import finishes_within

from encoder import Encoder
from encoder.experiments import attention_maps, remove_score_scaling
from encoder.tasks import IGNORE, Task
from encoder.training import TokenClassifier, evaluate, token_accuracy, token_loss, train

pytestmark = pytest.mark.usefixtures("device")

SMALL = dict(vocab_size=6, d_model=16, n_head=2, d_ff=32, n_layers=2, max_len=8)
TINY = Task("sort", vocab_size=4, min_len=1, max_len=2)  # 12 sequences, none held out


def model_for(task: Task, **changes) -> TokenClassifier:
    torch.manual_seed(0)
    return TokenClassifier(Encoder(**(SMALL | changes)), task.n_classes)


# --- 1. an empty split raises instead of drawing forever ------------------------------------------
def test_an_empty_held_out_split_raises_at_once():
    g = torch.Generator().manual_seed(0)
    with pytest.raises(ValueError, match="no sequence in its 'test' split"):
        finishes_within(10, TINY.batch, 1, g, split="test")
    ids, _ = finishes_within(10, TINY.batch, 4, g)  # the training split is all 12
    assert ids.shape[0] == 4


def test_evaluate_and_train_on_an_empty_split_raise_at_once():
    model = model_for(TINY)
    with pytest.raises(ValueError, match="no sequence in its 'test' split"):
        finishes_within(10, evaluate, model, TINY, n=4)
    with pytest.raises(ValueError, match="no sequence in its 'test' split"):
        finishes_within(10, train, model, TINY, steps=2, eval_every=1)
    history = finishes_within(30, train, model, TINY, steps=2, eval_every=0)
    assert len(history.loss) == 2


# --- 2. evaluate(padding_mask=False) leaves the shared model alone --------------------------------
def test_evaluate_without_padding_mask_does_not_unmask_other_threads():
    task = Task("reverse", vocab_size=6, max_len=8)
    model = model_for(task).eval()
    ids = torch.tensor([[1, 2, 3, 0, 0, 0, 0, 0]] * 4)
    expected = model(ids)
    stop, seen = threading.Event(), []

    def evaluate_unmasked():
        while not stop.is_set():
            evaluate(model, task, n=16, padding_mask=False)

    thread = threading.Thread(target=evaluate_unmasked, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            seen.append(torch.equal(model(ids), expected))
    finally:
        stop.set()
        thread.join(30)
    assert all(seen), f"{seen.count(False)} of {len(seen)} forwards came back unmasked"
    assert model.encoder.padding_idx == 0


# --- 3. int32 targets -----------------------------------------------------------------------------
def test_int32_targets_give_the_int64_loss():
    logits = torch.randn(2, 3, 5)
    targets = torch.tensor([[1, 2, -100], [4, 0, 3]])
    torch.testing.assert_close(
        token_loss(logits, targets.int()), token_loss(logits, targets), rtol=0, atol=0
    )


def test_token_accuracy_of_a_batch_with_no_real_position_raises():
    """The mean over no position would be NaN: an error that names the cause instead."""
    logits = torch.randn(2, 3, 4)
    with pytest.raises(ValueError, match="no real position: all 6 are IGNORE"):
        token_accuracy(logits, torch.full((2, 3), IGNORE))
    one_real = torch.full((2, 3), IGNORE)
    one_real[1, 2] = int(logits[1, 2].argmax())
    assert token_accuracy(logits, one_real) == 1.0  # one real position is enough


# --- 4. attention maps without dropout ------------------------------------------------------------
def test_attention_maps_in_train_mode_have_no_dropout_and_keep_the_mode():
    encoder = Encoder(**(SMALL | {"dropout": 0.5})).train()
    ids = torch.tensor([[1, 2, 3, 4, 0], [5, 4, 3, 2, 1]])
    first, second = attention_maps(encoder, ids), attention_maps(encoder, ids)
    assert torch.equal(first, second)
    torch.testing.assert_close(first.sum(-1), torch.ones(2, 2, 2, 5))
    assert encoder.training and all(m.training for m in encoder.modules())
    assert torch.equal(first, attention_maps(encoder.eval(), ids))
    assert not encoder.training


# --- 5. the scaling hook --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_removing_the_scaling_works_in_every_dtype(dtype):
    encoder = Encoder(**(SMALL | {"dropout": 0.0})).eval()
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    reference = attention_maps(encoder, ids)
    remove_score_scaling(encoder)
    expected = attention_maps(encoder, ids)
    assert not torch.allclose(reference, expected, atol=1e-3)
    low = attention_maps(encoder.to(dtype), ids)
    assert low.dtype == dtype
    torch.testing.assert_close(low.float(), expected, atol=3e-2, rtol=3e-2)


def test_removing_the_scaling_on_meta_keeps_shapes():
    encoder = Encoder(**SMALL).to("meta").eval()
    remove_score_scaling(encoder)
    assert encoder(torch.ones(1, 5, dtype=torch.long, device="meta")).shape == (1, 5, 16)


def test_a_model_without_scaling_pickles_and_scales_once_when_asked_twice():
    encoder = Encoder(**(SMALL | {"dropout": 0.0})).eval()
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    first = remove_score_scaling(encoder)
    once = encoder(ids)
    second = remove_score_scaling(encoder)
    assert torch.equal(encoder(ids), once)
    copy = pickle.loads(pickle.dumps(encoder))
    assert torch.equal(copy(ids), once)
    for handle in first + second:
        handle.remove()
    assert not torch.equal(encoder(ids), once)


# --- 7. the mode train and evaluate leave behind --------------------------------------------------
@pytest.mark.parametrize("steps", [2, 3])
def test_train_leaves_the_model_in_train_mode_whatever_the_step_count(steps):
    task = Task("reverse", vocab_size=6, max_len=8)
    model = model_for(task)
    train(model, task, steps=steps, batch_size=8, eval_every=2)
    assert model.training


@pytest.mark.parametrize("mode", [True, False])
def test_evaluate_restores_the_mode_it_found(mode):
    task = Task("reverse", vocab_size=6, max_len=8)
    model = model_for(task).train(mode)
    evaluate(model, task, n=8)
    assert model.training is mode
    assert all(m.training is mode for m in model.modules())


# --- 10. numbers ----------------------------------------------------------------------------------
def test_numpy_floats_are_accepted_for_lr_and_weight_decay():
    task = Task("reverse", vocab_size=6, max_len=8)
    model = model_for(task)
    history = train(
        model, task, steps=1, batch_size=4, eval_every=0,
        lr=np.float32(1e-3), weight_decay=np.float32(0.01),
    )  # fmt: skip
    assert len(history.loss) == 1


@pytest.mark.parametrize("seed", [2**64, -1])
def test_a_seed_out_of_range_is_named(seed):
    task = Task("reverse", vocab_size=6, max_len=8)
    model = model_for(task)
    with pytest.raises(ValueError, match=r"seed must be in \[0, 2\*\*64\)"):
        train(model, task, steps=1, seed=seed)
    with pytest.raises(ValueError, match=r"seed must be in \[0, 2\*\*64\)"):
        evaluate(model, task, seed=seed)


# --- 15. the model's device -----------------------------------------------------------------------
def test_train_and_evaluate_run_on_the_models_device(device):
    task = Task("reverse", vocab_size=6, max_len=8)
    model = model_for(task)
    assert next(model.parameters()).device.type == device
    history = train(model, task, steps=3, batch_size=8, eval_every=3)
    assert len(history.eval_accuracy) == 1 and 0.0 <= history.eval_accuracy[0] <= 1.0
    assert 0.0 <= evaluate(model, task, n=32, padding_mask=False) <= 1.0
    assert next(model.parameters()).device.type == device


def test_train_is_the_same_on_every_device(device):
    """The batches come from a CPU generator: the same data wherever the model is."""
    task = Task("reverse", vocab_size=6, max_len=8)
    with torch.device("cpu"):
        on_cpu = model_for(task, dropout=0.0)
        elsewhere = copy.deepcopy(on_cpu).to(device)
        cpu = train(on_cpu, task, steps=3, batch_size=8, eval_every=0)
    here = train(elsewhere, task, steps=3, batch_size=8, eval_every=0)
    assert abs(here.loss[0] - cpu.loss[0]) < 1e-5  # the same weights on the same batch
    np.testing.assert_allclose(here.loss, cpu.loss, rtol=1e-2)
