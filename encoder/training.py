"""Training the encoder: a per-token classifier, its loss, the paper's learning-rate
schedule and a plain AdamW loop.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import math
import sys
import time
from collections.abc import Iterator, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from encoder import _checks
from encoder.encoder import Encoder
from encoder.masks import causal_mask
from encoder.tasks import IGNORE, PAD, Task, check_split


def _check_classifier_args(encoder: Encoder, n_classes: int, tie_weights: bool) -> None:
    _checks.instance("encoder", encoder, Encoder)
    _checks.positive_ints(n_classes=n_classes)
    _checks.bools(tie_weights=tie_weights)
    vocab_size = encoder.embedding.token.num_embeddings
    if tie_weights and n_classes != vocab_size:
        raise ValueError(
            f"tie_weights needs n_classes ({n_classes}) == the encoder's "
            f"vocab_size ({vocab_size})"
        )


# --8<-- [start:classifier]
class TokenClassifier(nn.Module):
    """An Encoder and one linear layer: a score for each of n_classes at every position.

    Args:
        encoder: the encoder; its padding tokens are masked as usual.
        n_classes: number of output classes.
        tie_weights: use the token embedding as the output layer (as on the Token
            Embedding page); needs n_classes == the encoder's vocabulary size.

    Shape:
        ids: (B, T) integer tensor  ->  logits (B, T, n_classes)
    """

    def __init__(
        self, encoder: Encoder, n_classes: int, tie_weights: bool = False
    ) -> None:
        super().__init__()
        _check_classifier_args(encoder, n_classes, tie_weights)
        token = encoder.embedding.token
        self.encoder = encoder
        self.head = nn.Linear(token.embedding_dim, n_classes, bias=not tie_weights)
        if tie_weights:
            self.head.weight = token.weight  # one Parameter, two uses

    def forward(
        self, ids: torch.Tensor, mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        h = self.encoder(ids, mask)  # (B, T, d_model)
        return self.head(h)  # (B, T, n_classes)


# --8<-- [end:classifier]


# --8<-- [start:loss]
def token_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy over the positions whose target is not IGNORE (padding).

    Shape:
        logits: (B, T, C), targets: (B, T)  ->  scalar
    """
    _check_scores(logits, targets)
    targets = targets.flatten().long()  # cross_entropy wants int64 class indices
    return F.cross_entropy(logits.flatten(0, 1), targets, ignore_index=IGNORE)


def token_accuracy(logits: torch.Tensor, targets: torch.Tensor) -> float:
    """Fraction of the real (not IGNORE) positions whose highest score is the target.
    A batch with no real position has no accuracy: ValueError.

    Shape:
        logits: (B, T, C), targets: (B, T)  ->  float
    """
    _check_accuracy_args(logits, targets)
    real = targets != IGNORE
    return (logits.argmax(-1) == targets)[real].float().mean().item()


# --8<-- [end:loss]


def _check_scores(logits: torch.Tensor, targets: torch.Tensor) -> None:
    _checks.tensor("logits", logits, ("B", "T", "C"))
    _checks.tensor("targets", targets, ("B", "T"), ids=True)
    if logits.shape[:2] != targets.shape:
        raise ValueError(
            f"logits (B, T, C) and targets (B, T) must share B and T, got "
            f"{tuple(logits.shape)} and {tuple(targets.shape)}"
        )


def _check_accuracy_args(logits: torch.Tensor, targets: torch.Tensor) -> None:
    _check_scores(logits, targets)
    if not (targets != IGNORE).any():  # the mean over no position would be NaN
        raise ValueError(
            f"targets has no real position: all {targets.numel()} are IGNORE"
        )


def _check_schedule_args(step: int, warmup: int) -> None:
    _checks.positive_ints(step=step)
    _checks.non_negative_ints(warmup=warmup)


# --8<-- [start:schedule]
@_checks.checked_by(_check_schedule_args)
def lr_factor(step: int, warmup: int) -> float:
    """The paper's learning-rate schedule (section 5.3) divided by its peak: a linear
    ramp over ``warmup`` steps, then decay as 1/sqrt(step). 1.0 when warmup == 0.

    Times a peak of d_model ** -0.5 * warmup ** -0.5, it is the paper's
    d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5). Steps count from 1.
    """
    if warmup == 0:
        return 1.0
    return min(step / warmup, math.sqrt(warmup / step))


# --8<-- [end:schedule]


# --8<-- [start:history]
@dataclasses.dataclass
class History:
    """What ``train`` measured: loss, accuracy and learning rate at every step, the
    held-out accuracy every ``eval_every`` steps, and the weights at the steps it was
    asked to keep (``checkpoints``: step -> a CPU copy of the state dict; step 0 is
    before the first update)."""

    loss: list[float] = dataclasses.field(default_factory=list, init=False)
    accuracy: list[float] = dataclasses.field(default_factory=list, init=False)
    lr: list[float] = dataclasses.field(default_factory=list, init=False)
    eval_steps: list[int] = dataclasses.field(default_factory=list, init=False)
    eval_accuracy: list[float] = dataclasses.field(default_factory=list, init=False)
    seconds: float = dataclasses.field(default=0.0, init=False)  # time of the loop
    checkpoints: dict[int, dict[str, torch.Tensor]] = dataclasses.field(
        default_factory=dict, init=False
    )


# --8<-- [end:history]


def _check_train_args(model: object, task: object, **numbers: object) -> None:
    """The arguments of ``train``, by name."""
    check_fits(model, task)
    _checks.positive_ints(steps=numbers["steps"], batch_size=numbers["batch_size"])
    _checks.positive_ints(threads=numbers["threads"])
    _checks.seed("seed", numbers["seed"])
    _checks.non_negative_ints(
        warmup=numbers["warmup"], eval_every=numbers["eval_every"]
    )
    if numbers["log_every"] is not None:
        _checks.non_negative_ints(log_every=numbers["log_every"])
    _checks.positive_float("lr", numbers["lr"])
    _checks.non_negative_float("weight_decay", numbers["weight_decay"])
    checkpoints, steps = numbers["checkpoints"], numbers["steps"]
    if isinstance(checkpoints, str | bytes) or not isinstance(checkpoints, Sequence):
        kind = f"{type(checkpoints).__name__} {checkpoints!r}"
        raise TypeError(f"checkpoints must be a sequence of steps, got {kind}")
    for step in checkpoints:
        _checks.integer("a checkpoint step", step)
        if not 0 <= step <= steps:
            raise ValueError(f"checkpoint step {step} is not in 0..steps ({steps})")
    eval_every = numbers["eval_every"]
    if eval_every and eval_every <= steps:  # train will evaluate: the split must exist
        check_split(task, "test")


def _snapshot(model: nn.Module) -> dict[str, torch.Tensor]:
    """A CPU copy of the model's state dict, which later steps leave as it is."""
    return {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}


def check_fits(model: TokenClassifier, task: Task) -> None:
    """Raise unless ``model`` reads every sequence of ``task`` and has every answer."""
    _checks.instance("model", model, TokenClassifier)
    _checks.instance("task", task, Task)
    vocab = model.encoder.embedding.token.num_embeddings
    if vocab < task.vocab_size:
        raise ValueError(
            f"the model's vocabulary ({vocab} ids) is too small for task "
            f"{task.name!r} with vocab_size={task.vocab_size}"
        )
    position = model.encoder.embedding.position
    max_len = getattr(position, "max_len", None)  # None: no table, no limit
    if max_len is not None and task.max_len > max_len:
        raise ValueError(
            f"task {task.name!r} has sequences of up to {task.max_len} tokens, "
            f"beyond the model's max_len={max_len}"
        )
    if model.head.out_features < task.n_classes:
        raise ValueError(
            f"task {task.name!r} has {task.n_classes} classes but the model's head "
            f"has {model.head.out_features}"
        )
    if model.encoder.padding_idx != PAD:
        raise ValueError(
            f"tasks pad with id {PAD}, but the encoder's padding_idx is "
            f"{model.encoder.padding_idx}"
        )


def device_of(model: nn.Module) -> torch.device:
    """Where the model's parameters are: where its batches go."""
    return next(model.parameters()).device


def _log(step: int, steps: int, history: History, seconds: float) -> None:
    print(
        f"step {step:>5}/{steps}  loss {history.loss[-1]:.4f}  "
        f"accuracy {history.accuracy[-1]:6.1%}  ({seconds:.1f} s)",
        file=sys.stderr,
    )


@contextlib.contextmanager
def num_threads(n: int) -> Iterator[None]:
    """Run the block with torch using ``n`` threads, then restore the previous count."""
    _checks.positive_ints(threads=n)
    previous = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


# --8<-- [start:train]
def train(
    model: TokenClassifier,
    task: Task,
    steps: int,
    batch_size: int = 64,
    lr: float = 5e-3,
    warmup: int = 0,
    weight_decay: float = 0.01,
    seed: int = 0,
    eval_every: int = 50,
    threads: int = 1,
    log_every: int | None = None,
    checkpoints: Sequence[int] = (),
) -> History:
    """Train ``model`` on ``task`` with AdamW for ``steps`` batches; return the History.

    Deterministic for a given seed and thread count: the batches come from a CPU
    generator seeded with ``seed`` and go to the model's device, dropout comes from
    torch's global RNG, seeded here too, and the loop runs on ``threads`` threads (one
    is fastest for models this small). Every ``eval_every`` steps (0: never), the
    History records the held-out accuracy. Logs to stderr every ``log_every`` steps
    (by default every tenth of the run, and only when stderr is a terminal). After each
    step in ``checkpoints`` (0: before the first), the History keeps a CPU copy of the
    weights. The model is left in training mode.
    """
    _check_train_args(**locals())  # every argument above, before any is used
    if log_every is None:
        log_every = max(1, steps // 10) if sys.stderr.isatty() else 0

    device = device_of(model)
    torch.manual_seed(seed)  # dropout
    data = torch.Generator().manual_seed(seed)  # batches
    # foreach: each part of AdamW's update is one call over all the tensors, where the
    # CPU's default loops over them in Python; the numbers are the same (test_train.py).
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=lr, weight_decay=weight_decay, foreach=True
    )
    history, start = History(), time.perf_counter()
    keep = set(checkpoints)
    if 0 in keep:
        history.checkpoints[0] = _snapshot(model)
    with num_threads(threads):
        for step in range(1, steps + 1):
            for group in optimizer.param_groups:
                group["lr"] = lr * lr_factor(step, warmup)
            ids, targets = task.batch(batch_size, data)  # (B, T), (B, T)
            ids, targets = ids.to(device), targets.to(device)
            model.train()
            logits = model(ids)  # (B, T, n_classes)
            loss = token_loss(logits, targets)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

            history.loss.append(loss.item())
            history.accuracy.append(token_accuracy(logits.detach(), targets))
            history.lr.append(optimizer.param_groups[0]["lr"])
            if step in keep:
                history.checkpoints[step] = _snapshot(model)
            if eval_every and step % eval_every == 0:
                history.eval_steps.append(step)
                history.eval_accuracy.append(evaluate(model, task, n=500))
            if log_every and (step % log_every == 0 or step == steps):
                _log(step, steps, history, time.perf_counter() - start)
    history.seconds = time.perf_counter() - start
    return history


# --8<-- [end:train]


def _check_evaluate_args(
    model: object, task: object, n: int, seed: int, padding_mask: bool, threads: int
) -> None:
    check_fits(model, task)
    _checks.positive_ints(n=n, threads=threads)
    _checks.seed("seed", seed)
    _checks.bools(padding_mask=padding_mask)


# --8<-- [start:evaluate]
@torch.no_grad()
def evaluate(
    model: TokenClassifier,
    task: Task,
    n: int = 2000,
    seed: int = 1234,
    padding_mask: bool = True,
    threads: int = 1,
) -> float:
    """Token accuracy of ``model`` (in eval mode) on ``n`` held-out sequences of
    ``task``, on the model's device; the model is left in the mode it was in. With
    ``padding_mask=False``, tokens attend to the padding too."""
    _check_evaluate_args(model, task, n, seed, padding_mask, threads)
    ids, targets = task.batch(n, torch.Generator().manual_seed(seed), split="test")
    ids, targets = ids.to(device_of(model)), targets.to(device_of(model))
    if not padding_mask:  # a copy that masks no key; the model itself stays as it is
        model = copy.deepcopy(model)
        model.encoder.padding_idx = None
    training = model.training
    try:
        with num_threads(threads):
            logits = model.eval()(ids)
    finally:
        model.train(training)
    return token_accuracy(logits, targets)


# --8<-- [end:evaluate]


def _check_sentence_args(encoder: Encoder, n_classes: int) -> None:
    _checks.instance("encoder", encoder, Encoder)
    _checks.positive_ints(n_classes=n_classes)


# --8<-- [start:sentence]
class SentenceClassifier(nn.Module):
    """An Encoder and one linear layer on the first position's vector: one set of
    n_classes scores per sequence. The first token is meant to be ``<cls>``
    (``Vocabulary.batch(..., add_cls=True)``): it belongs to no word, so its vector is
    free to become a summary of the whole sequence, which attention lets it read.

    Args:
        encoder: the encoder; its padding tokens are masked as usual.
        n_classes: number of output classes.

    Shape:
        ids: (B, T) integer tensor, ids[:, 0] = CLS  ->  logits (B, n_classes)
    """

    def __init__(self, encoder: Encoder, n_classes: int) -> None:
        super().__init__()
        _check_sentence_args(encoder, n_classes)
        self.encoder = encoder
        self.head = nn.Linear(encoder.embedding.token.embedding_dim, n_classes)

    def forward(
        self, ids: torch.Tensor, mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        h = self.encoder(ids, mask)  # (B, T, d_model)
        return self.head(h[:, 0])  # (B, n_classes): the first position only


# --8<-- [end:sentence]


def _check_fit_args(
    model: object, ids: object, targets: object, **numbers: object
) -> None:
    _checks.instance("model", model, nn.Module)
    _checks.tensor("ids", ids, ("B", "T"), ids=True)
    _checks.tensor("targets", targets, None, ids=True)
    assert isinstance(ids, torch.Tensor) and isinstance(targets, torch.Tensor)  # typing
    if targets.shape not in (ids.shape, ids.shape[:1]):
        raise ValueError(
            f"targets must have shape (B,) (a class per sequence) or (B, T) (one per "
            f"token) for ids of shape {tuple(ids.shape)}, got {tuple(targets.shape)}"
        )
    _checks.positive_ints(
        epochs=numbers["epochs"],
        batch_size=numbers["batch_size"],
        threads=numbers["threads"],
    )
    _checks.positive_float("lr", numbers["lr"])
    _checks.bools(causal=numbers["causal"])
    _checks.seed("seed", numbers["seed"])


def length_batches(
    ids: torch.Tensor, batch_size: int, generator: torch.Generator
) -> list[torch.Tensor]:
    """The row indices of ``ids`` in batches of ``batch_size``, in a random order, each
    batch of rows of similar length (drawn in a random order, then sorted by length in
    runs of 50 batches): a batch pads to its longest row, so mixing a short review with
    a long one would spend most of the work on padding.

    Shape:
        ids: (N, T), padded with PAD  ->  list of (batch_size,) int64 (the last shorter)
    """
    lengths = (ids != PAD).sum(dim=1)  # (N,)
    order = torch.randperm(ids.size(0), generator=generator)
    run = 50 * batch_size
    chunks = [c[lengths[c].argsort(stable=True)] for c in order.split(run)]
    batches = list(torch.cat(chunks).split(batch_size))
    shuffled = torch.randperm(len(batches), generator=generator).tolist()
    return [batches[i] for i in shuffled]


def _trim(ids: torch.Tensor, *rest: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Drop the columns that are padding in every row (from ids and per-token rest)."""
    T = int((ids != PAD).sum(dim=1).max())
    return (ids[:, :T], *(r[:, :T] if r.dim() == 2 else r for r in rest))


def _masked(model: nn.Module, ids: torch.Tensor, causal: bool) -> torch.Tensor:
    mask = causal_mask(ids.size(1), device=ids.device) if causal else None
    return model(ids, mask)


def _scored(
    model: nn.Module, ids: torch.Tensor, targets: torch.Tensor, causal: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """The scores and targets of the positions that have a label: a TokenClassifier's
    head runs there only (the rest would be ignored by the loss anyway).

    Shape:
        ids: (b, t), targets: (b,) or (b, t)  ->  (n, C), (n,)
    """
    if not (isinstance(model, TokenClassifier) and targets.dim() == 2):
        return _masked(model, ids, causal).flatten(0, -2), targets.flatten()
    mask = causal_mask(ids.size(1), device=ids.device) if causal else None
    labelled = targets != IGNORE  # (b, t)
    h = model.encoder(ids, mask)[labelled]  # (n, d_model)
    return model.head(h), targets[labelled]  # (n, C), (n,)


# --8<-- [start:fit]
def fit(
    model: nn.Module,
    ids: torch.Tensor,
    targets: torch.Tensor,
    epochs: int = 1,
    batch_size: int = 64,
    lr: float = 2e-3,
    causal: bool = False,
    seed: int = 0,
    threads: int = 1,
) -> list[float]:
    """Train ``model`` on fixed data with AdamW for ``epochs`` passes; return the loss
    of every step. ``targets`` holds a class per sequence (B,) for a
    SentenceClassifier or per token (B, T) for a TokenClassifier, IGNORE where there
    is nothing to predict; a TokenClassifier's head runs only where there is (a
    masked-word model's output over the whole vocabulary is most of its cost, and
    only the chosen positions have a label). ``causal=True`` gives every forward pass
    a causal mask: each position reads only itself and what lies to its left.

    A linear warm-up over the first tenth of the steps, then a linear decay to zero.
    Deterministic for a given seed and thread count; the model is left in training
    mode.

    Shape:
        ids: (N, T) int64, padded with PAD; targets: (N,) or (N, T) int64  ->  list
    """
    _check_fit_args(**locals())
    torch.manual_seed(seed)  # dropout
    data = torch.Generator().manual_seed(seed)  # batches
    # foreach: each part of AdamW's update is one call over all the tensors, where the
    # CPU's default loops over them in Python; the numbers are the same (test_train.py).
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, foreach=True)
    steps = epochs * math.ceil(ids.size(0) / batch_size)
    warmup = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, (steps - s) / (steps - warmup + 1))
    )
    losses: list[float] = []
    model.train()
    with num_threads(threads):
        for _ in range(epochs):
            for rows in length_batches(ids, batch_size, data):
                x, y = _trim(ids[rows], targets[rows])  # (b, t), (b,) or (b, t)
                logits, y = _scored(model, x, y, causal)  # (n, C), (n,)
                loss = F.cross_entropy(logits, y, ignore_index=IGNORE)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                schedule.step()
                losses.append(loss.item())
    return losses


# --8<-- [end:fit]


@torch.no_grad()
def predict(
    model: nn.Module,
    ids: torch.Tensor,
    causal: bool = False,
    batch_size: int = 256,
    threads: int = 1,
) -> torch.Tensor:
    """The model's highest-scoring class for every row of ``ids``, computed in eval
    mode in batches (the model is left in the mode it was in): one class per row for a
    SentenceClassifier, one per position for a TokenClassifier (PAD at the padding;
    compare where the targets are not IGNORE).

    Shape:
        ids: (N, T)  ->  (N,) or (N, T) int64
    """
    _checks.instance("model", model, nn.Module)
    _checks.tensor("ids", ids, ("B", "T"), ids=True)
    _checks.bools(causal=causal)
    _checks.positive_ints(batch_size=batch_size, threads=threads)
    training = model.training
    out = []
    try:
        model.eval()
        with num_threads(threads):
            for x in ids.split(batch_size):
                T = int((x != PAD).sum(dim=1).max())
                guess = _masked(model, x[:, :T], causal).argmax(-1)  # (b,) or (b, T')
                if guess.dim() == 2:  # back to the full width: padding predicts PAD
                    guess = F.pad(guess, (0, ids.size(1) - T), value=PAD)
                out.append(guess)
    finally:
        model.train(training)
    return torch.cat(out)
