"""Toy tasks for the encoder: seeded batches of padded sequences, with their targets."""

from __future__ import annotations

import dataclasses
import functools

import torch

from encoder import _checks

PAD = 0  # the padding id of every task, and the Encoder's default padding_idx
IGNORE = -100  # the target at padded positions: F.cross_entropy's default ignore_index
TASKS = ("reverse", "sort", "count")


# --8<-- [start:targets]
def reverse_targets(ids: torch.Tensor) -> torch.Tensor:
    """The real tokens of each row in reverse order; IGNORE at padding.

    Shape:
        ids: (B, T), padded at the end with PAD  ->  (B, T)
    """
    T = ids.size(1)
    lengths = (ids != PAD).sum(dim=1, keepdim=True)  # (B, 1)
    position = torch.arange(T, device=ids.device)  # (T,)
    source = (lengths - 1 - position).clamp(min=0)  # (B, T): read position n - 1 - i
    return ids.gather(1, source).masked_fill(position >= lengths, IGNORE)


def sort_targets(ids: torch.Tensor) -> torch.Tensor:
    """The real tokens of each row in ascending order; IGNORE at padding."""
    big = torch.iinfo(ids.dtype).max  # sorts the padding after every real token
    ordered = ids.masked_fill(ids == PAD, big).sort(dim=1).values  # (B, T)
    return ordered.masked_fill(ordered == big, IGNORE)


def count_targets(ids: torch.Tensor) -> torch.Tensor:
    """At each real token, how many times it occurs in its row; IGNORE at padding."""
    same = ids[:, :, None] == ids[:, None, :]  # (B, T, T): token i == token j
    return same.sum(dim=-1).masked_fill(ids == PAD, IGNORE)  # (B, T)


# --8<-- [end:targets]


def held_out(ids: torch.Tensor) -> torch.Tensor:
    """True for the sequences of the held-out split: about one in ten, fixed by a hash
    of the tokens, so that no training batch contains a sequence the evaluation uses.

    Shape:
        ids: (B, T)  ->  (B,) bool
    """
    weights = [pow(1_000_003, i, 2**31 - 1) for i in range(ids.size(1))]
    weights = torch.tensor(weights, device=ids.device)
    h = (ids.long() * weights).sum(dim=1) % (2**31 - 1)  # (B,): padding adds nothing
    return (h * 2_654_435_761) % 2**32 % 10 == 0


@functools.lru_cache(maxsize=64)
def _held_out_count(vocab_size: int, min_len: int, max_len: int) -> tuple[int, int]:
    """(number of sequences, number held out) for a space small enough to list
    (at most 2**16 sequences); (0, 0) for a larger one, where both splits are large."""
    n_tokens = vocab_size - 1
    total = sum(n_tokens**n for n in range(min_len, max_len + 1))
    if total > 2**16:
        return 0, 0
    held = 0
    for n in range(min_len, max_len + 1):
        index = torch.arange(n_tokens**n, device="cpu")[:, None]  # every sequence of n
        digits = index // n_tokens ** torch.arange(n, device="cpu") % n_tokens + 1
        held += int(held_out(digits).sum())
    return total, held


def check_split(task: Task, split: str) -> None:
    """Raise unless ``split`` of ``task`` has a sequence: a tiny task may have none."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    total, held = _held_out_count(task.vocab_size, task.min_len, task.max_len)
    size = held if split == "test" else total - held
    if total and not size:
        raise ValueError(
            f"task {task.name!r} with vocab_size={task.vocab_size}, "
            f"min_len={task.min_len}, max_len={task.max_len} has {total} distinct "
            f"sequences and no sequence in its {split!r} split; "
            "raise vocab_size or max_len"
        )


def _check_task(task: Task) -> None:
    if task.name not in TASKS:
        raise ValueError(f"unknown task {task.name!r}; choose one of {TASKS}")
    _checks.positive_ints(
        vocab_size=task.vocab_size, min_len=task.min_len, max_len=task.max_len
    )
    if task.vocab_size < 3:
        raise ValueError(
            f"vocab_size ({task.vocab_size}) must be >= 3: the padding id 0 "
            "and at least two tokens to put in order"
        )
    if task.min_len > task.max_len:
        raise ValueError(
            f"need min_len <= max_len, got min_len={task.min_len}, "
            f"max_len={task.max_len}"
        )


def _check_batch_args(
    task: Task, batch_size: int, generator: torch.Generator, split: str
) -> None:
    _checks.positive_ints(batch_size=batch_size)
    _checks.instance("generator", generator, torch.Generator)
    check_split(task, split)  # an empty split would be drawn from forever


# --8<-- [start:task]
@dataclasses.dataclass(frozen=True)
class Task:
    """A toy task: sequences of ids 1 .. vocab_size - 1, of min_len to max_len tokens,
    padded with PAD = 0 to the longest of the batch; targets are IGNORE at padding.

    - ``reverse``: the sequence backwards;
    - ``sort``: the sequence in ascending order;
    - ``count``: at each token, how many times it occurs in the sequence.

    The held-out split (``split="test"``) is about one sequence in ten, chosen by a hash
    of the tokens; training batches (``split="train"``) never contain one of them.

    Shape:
        batch(B, ...) -> ids (B, T), targets (B, T), T = the longest length drawn
    """

    name: str
    vocab_size: int = 10
    min_len: int = 2
    max_len: int = 12

    def __post_init__(self) -> None:
        _check_task(self)

    @property
    def n_classes(self) -> int:
        """Size of the output: a token id, or a count from 0 to max_len."""
        return self.max_len + 1 if self.name == "count" else self.vocab_size

    def targets(self, ids: torch.Tensor) -> torch.Tensor:
        make = {"reverse": reverse_targets, "sort": sort_targets}
        return make.get(self.name, count_targets)(ids)

    def batch(
        self, batch_size: int, generator: torch.Generator, split: str = "train"
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(ids, targets), each (batch_size, T) with T the longest length drawn."""
        _check_batch_args(self, batch_size, generator, split)
        rows: list[torch.Tensor] = []
        while sum(len(r) for r in rows) < batch_size:  # draw, keep the split's rows
            ids = self._draw(batch_size, generator)
            rows.append(ids[held_out(ids) == (split == "test")])
        ids = torch.cat(rows)[:batch_size]
        ids = ids[:, : int((ids != PAD).sum(dim=1).max())]  # drop all-padding columns
        return ids, self.targets(ids)

    def _draw(self, n: int, generator: torch.Generator) -> torch.Tensor:
        T, g = self.max_len, generator
        on = g.device  # the generator's device, whatever the default device is
        ids = torch.randint(1, self.vocab_size, (n, T), generator=g, device=on)
        lengths = torch.randint(self.min_len, T + 1, (n, 1), generator=g, device=on)
        position = torch.arange(T, device=on)
        return ids.masked_fill(position >= lengths, PAD)  # (n, T): pad after the length


# --8<-- [end:task]
