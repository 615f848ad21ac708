"""Tests of encoder/tasks.py, encoder/training.py and encoder/experiments.py: the toy tasks, the
classifier, the loss, the schedule, the training loop (deterministic, logged, learning). The
errors that name bad configuration are in tests/test_boundary.py; the Train page's own runs
and their assertions run once, as the tests of docs/train.md's fences (conftest.py)."""

from __future__ import annotations

import io
import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from encoder import Encoder
from encoder.experiments import attention_maps, remove_score_scaling
from encoder.positional import LearnedPositionalEncoding
from encoder.tasks import IGNORE, PAD, Task, held_out
from encoder.training import (
    TokenClassifier,
    evaluate,
    fit,
    lr_factor,
    num_threads,
    token_accuracy,
    token_loss,
    train,
)

SMALL = dict(vocab_size=6, d_model=16, n_head=2, d_ff=32, n_layers=2, max_len=8, dropout=0.0)


def model_for(task: Task, **changes) -> TokenClassifier:
    torch.manual_seed(0)
    return TokenClassifier(Encoder(**(SMALL | changes)), task.n_classes)


# --- tasks ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["reverse", "sort", "count"])
def test_batches_are_padded_with_targets_ignored_at_padding(name):
    task = Task(name, vocab_size=7, min_len=2, max_len=9)
    ids, targets = task.batch(256, torch.Generator().manual_seed(0))
    lengths = (ids != PAD).sum(1)
    assert ids.shape == targets.shape and ids.size(1) == lengths.max() <= 9
    assert lengths.min() >= 2 and len(set(lengths.tolist())) > 3  # variable lengths
    assert ((ids == PAD) == (targets == IGNORE)).all()
    assert ids.min() >= 0 and ids.max() < 7
    for row, target, n in zip(ids, targets, lengths, strict=True):
        real, want = row[:n].tolist(), target[:n].tolist()
        assert (row[n:] == PAD).all()  # padded at the end
        expected = {
            "reverse": real[::-1],
            "sort": sorted(real),
            "count": [real.count(t) for t in real],
        }[name]
        assert want == expected


def test_batches_are_seeded():
    task = Task("sort")
    a = task.batch(32, torch.Generator().manual_seed(3))
    b = task.batch(32, torch.Generator().manual_seed(3))
    c = task.batch(32, torch.Generator().manual_seed(4))
    assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
    assert not torch.equal(a[0], c[0])


def test_held_out_split_is_disjoint_and_about_a_tenth():
    task, g = Task("reverse"), torch.Generator().manual_seed(0)
    train_ids, _ = task.batch(5000, g)
    test_ids, _ = task.batch(500, g, split="test")
    assert not held_out(train_ids).any() and held_out(test_ids).all()
    drawn = task._draw(20_000, g)
    assert 0.08 < held_out(drawn).float().mean() < 0.12
    seen = {tuple(r.tolist()) for r in train_ids}
    assert not seen & {tuple(r.tolist()) for r in test_ids}


# --- model, loss, schedule -----------------------------------------------------------------------
def test_classifier_shapes_and_tied_weights():
    task = Task("reverse", vocab_size=6, max_len=8)
    ids, _ = task.batch(4, torch.Generator().manual_seed(0))
    untied = model_for(task)
    tied = TokenClassifier(Encoder(**SMALL), task.n_classes, tie_weights=True)
    assert untied(ids).shape == (*ids.shape, task.n_classes)
    assert tied.head.weight is tied.encoder.embedding.token.weight
    n = sum(p.numel() for p in untied.parameters()) - sum(p.numel() for p in tied.parameters())
    assert n == 6 * 16 + 6  # the output matrix and its bias


def test_loss_ignores_padded_positions():
    torch.manual_seed(0)
    targets = torch.tensor([[3, 1, 2, IGNORE, IGNORE], [1, 4, 2, 5, 3]])
    logits = torch.randn(2, 5, 6)
    changed = logits.clone()
    changed[0, 3:] = torch.randn(2, 6) * 100  # anything at the padding
    real = targets != IGNORE
    by_hand = F.cross_entropy(logits[real], targets[real])
    assert torch.equal(token_loss(logits, targets), token_loss(changed, targets))
    assert torch.allclose(token_loss(logits, targets), by_hand)
    assert token_accuracy(logits, targets) == token_accuracy(changed, targets)


@pytest.mark.parametrize("d_model, warmup", [(512, 4000), (64, 100), (32, 1)])
def test_schedule_is_the_papers_formula(d_model, warmup):
    peak = d_model**-0.5 * warmup**-0.5
    for step in [1, 2, warmup // 2 + 1, warmup, warmup + 1, 3 * warmup, 100_000]:
        paper = d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)
        assert math.isclose(peak * lr_factor(step, warmup), paper, rel_tol=1e-12)
    assert lr_factor(warmup, warmup) == 1.0  # the peak, at the end of the warm-up
    assert lr_factor(7, 0) == 1.0  # no warm-up: constant


# --- training -------------------------------------------------------------------------------------
def test_training_learns_to_reverse():
    task = Task("reverse", vocab_size=6, min_len=2, max_len=5)
    model = model_for(task, d_model=32, d_ff=64)
    before = evaluate(model, task, n=500)
    history = train(model, task, steps=300, lr=5e-3, warmup=20, eval_every=100)
    after = evaluate(model, task, n=500)
    assert before < 0.4 and after > 0.95, (before, after)
    assert sum(history.loss[-10:]) < 0.1 * sum(history.loss[:10])
    assert history.eval_steps == [100, 200, 300] and history.eval_accuracy[-1] == after
    assert len(history.loss) == len(history.accuracy) == len(history.lr) == 300
    assert model.training  # train leaves training mode; evaluate restores the mode it found


def test_training_is_deterministic_for_a_seed_and_thread_count():
    task = Task("count", vocab_size=6, max_len=6)

    def run(seed):
        model = model_for(task, dropout=0.1)  # the same initial weights for every run
        return train(model, task, steps=20, seed=seed, eval_every=10), model.state_dict()

    (h1, s1), (h2, s2), (h3, _) = run(0), run(0), run(1)
    assert h1.loss == h2.loss and h1.eval_accuracy == h2.eval_accuracy
    assert all(torch.equal(s1[k], s2[k]) for k in s1)
    assert h1.loss != h3.loss


def test_checkpoints_keep_the_weights_at_the_steps_asked_for():
    task = Task("reverse", vocab_size=6, max_len=6)
    model = model_for(task, dropout=0.1)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    history = train(model, task, steps=6, eval_every=3, checkpoints=[6, 0, 2])
    assert sorted(history.checkpoints) == [0, 2, 6]
    first, middle, last = (history.checkpoints[s] for s in (0, 2, 6))
    final = model.state_dict()
    assert first.keys() == start.keys() == final.keys()
    assert all(torch.equal(first[k], start[k]) for k in start)  # before the first update
    assert all(torch.equal(last[k], final[k]) for k in final)  # the trained model
    assert all(v.device.type == "cpu" for v in middle.values())
    changed = [k for k in final if not torch.equal(middle[k], final[k])]
    assert "encoder.embedding.token.weight" in changed  # a copy, not the live tensors
    # Two more steps from checkpoint 2 land on the weights a 4-step run ends with.
    again = model_for(task, dropout=0.1)
    train(again, task, steps=2, eval_every=0)
    assert all(torch.equal(again.state_dict()[k], middle[k]) for k in middle)


def test_recording_checkpoints_changes_nothing_in_the_run():
    task = Task("count", vocab_size=6, max_len=6)
    plain, recorded = model_for(task, dropout=0.1), model_for(task, dropout=0.1)
    h1 = train(plain, task, steps=8, eval_every=4)
    h2 = train(recorded, task, steps=8, eval_every=4, checkpoints=range(9))
    assert h1.loss == h2.loss and h1.eval_accuracy == h2.eval_accuracy and h1.lr == h2.lr
    assert all(torch.equal(plain.state_dict()[k], v) for k, v in recorded.state_dict().items())
    assert h1.checkpoints == {} and sorted(h2.checkpoints) == list(range(9))


@pytest.mark.parametrize("run", ["train", "fit"])
def test_adamw_over_all_tensors_at_once_gives_its_loops_numbers(monkeypatch, run):
    """train and fit step AdamW with foreach=True: each part of the update is one call over all
    the tensors, where the CPU's default loops over them in Python. The weights and losses are
    those of that loop, to the bit."""
    task = Task("reverse", vocab_size=6, max_len=6)
    ids, targets = task.batch(96, torch.Generator().manual_seed(1))  # (96, T) each

    def trained():
        model = model_for(task, dropout=0.1)
        if run == "train":
            return train(model, task, steps=12, eval_every=0).loss, model.state_dict()
        return fit(model, ids, targets, epochs=2, batch_size=16), model.state_dict()

    foreach, kinds = trained(), []
    adamw = torch.optim.AdamW

    def loop(params, **options):  # the AdamW train and fit make, with foreach=False instead
        kinds.append(options["foreach"])
        return adamw(params, **{**options, "foreach": False})

    monkeypatch.setattr(torch.optim, "AdamW", loop)
    looped = trained()
    assert kinds == [True] and foreach[0] == looped[0]
    assert all(torch.equal(foreach[1][k], v) for k, v in looped[1].items())


def test_threads_are_restored():
    before = torch.get_num_threads()
    task = Task("sort", vocab_size=6, max_len=6)
    train(model_for(task), task, steps=2, threads=1, eval_every=0)
    assert torch.get_num_threads() == before
    with pytest.raises(RuntimeError), num_threads(1):
        raise RuntimeError("inside")
    assert torch.get_num_threads() == before


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_logs_to_a_terminal_and_is_quiet_elsewhere(monkeypatch):
    task = Task("reverse", vocab_size=6, max_len=6)
    terminal, pipe = _Terminal(), io.StringIO()
    monkeypatch.setattr("sys.stderr", terminal)
    train(model_for(task), task, steps=20, eval_every=0)
    monkeypatch.setattr("sys.stderr", pipe)
    train(model_for(task), task, steps=20, eval_every=0)
    lines = terminal.getvalue().splitlines()
    assert len(lines) == 10 and lines[-1].startswith("step    20/20  loss ")
    assert pipe.getvalue() == ""


# Bad arguments: tests/test_boundary.py.


# --- experiments ----------------------------------------------------------------------------------
def test_attention_maps_are_the_layers_weights():
    torch.manual_seed(0)
    for norm_first in (False, True):
        encoder = Encoder(**(SMALL | {"norm_first": norm_first})).eval()
        ids = torch.tensor([[1, 2, 3, 4, 0], [5, 4, 3, 2, 1]])
        maps = attention_maps(encoder, ids)
        assert maps.shape == (2, 2, 2, 5, 5)
        x, mask = encoder.embedding(ids), (ids != 0)[:, None, None, :]
        layer = encoder.layers[0]
        h = layer.norm1(x) if norm_first else x
        _, expected = layer.self_attn(h, h, h, mask, need_weights=True)
        assert torch.equal(maps[0], expected)
        assert (maps[:, 0, :, :, 4] == 0).all()  # the padding key


def test_removing_the_scale_multiplies_the_scores_by_sqrt_d_head():
    torch.manual_seed(0)
    encoder = Encoder(**(SMALL | {"n_layers": 1})).eval()
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    attn = encoder.layers[0].self_attn
    x = encoder.embedding(ids)
    q, k, _ = attn.in_proj(x).chunk(3, dim=-1)
    q = q.view(1, 5, 2, 8).transpose(1, 2)
    k = k.view(1, 5, 2, 8).transpose(1, 2)
    handles = remove_score_scaling(encoder)
    unscaled = attention_maps(encoder, ids)[0]
    assert torch.allclose(unscaled, (q @ k.transpose(-2, -1)).softmax(-1), atol=1e-6)
    for handle in handles:
        handle.remove()
    scaled = attention_maps(encoder, ids)[0]
    assert torch.allclose(scaled, (q @ k.transpose(-2, -1) / math.sqrt(8)).softmax(-1), atol=1e-6)


def test_learned_positions_replace_the_table():
    task = Task("reverse", vocab_size=6, max_len=8)
    model = model_for(task)
    model.encoder.embedding.position = LearnedPositionalEncoding(16, max_len=8)
    assert model(torch.tensor([[1, 2, 3]])).shape == (1, 3, task.n_classes)
    names = [n for n, _ in model.named_parameters()]
    assert "encoder.embedding.position.table" in names
    with pytest.raises(ValueError, match="sequence length 9 exceeds max_len=8"):
        model(torch.ones(1, 9, dtype=torch.long))
    model.encoder.embedding.position = nn.Identity()  # no positions: no length limit
    train(model, Task("reverse", vocab_size=6, max_len=8), steps=1, eval_every=0)
