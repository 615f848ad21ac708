"""Token embedding: a learned lookup table from token ids to vectors."""

from __future__ import annotations

import math

import torch
from torch import nn

from encoder import _checks


def _check_args(
    vocab_size: int, d_model: int, padding_idx: int | None, scale: bool
) -> None:
    _checks.positive_ints(vocab_size=vocab_size, d_model=d_model)
    _checks.bools(scale=scale)
    if padding_idx is not None:
        _checks.integer("padding_idx", padding_idx)
        if not 0 <= padding_idx < vocab_size:
            raise ValueError(
                f"padding_idx ({padding_idx}) must be in [0, {vocab_size})"
            )


def check_range(self: nn.Embedding, ids: torch.Tensor, name: str = "token ids") -> None:
    """Each id in [0, num_embeddings), checked on the CPU only.

    Reading the ids' values costs nothing on the CPU in eager mode, while on a GPU it
    would wait for the device on every call (a host sync), and torch.compile,
    torch.export and torch.func.vmap cannot branch on values. There, the lookup's own
    bounds check stands in (an IndexError on the CPU, a device-side assert on CUDA).
    """
    if ids.device.type != "cpu" or ids.numel() == 0:
        return
    lo, hi = torch.aminmax(ids)
    try:
        bad = bool(lo < 0) or bool(hi >= self.num_embeddings)
    except RuntimeError:  # under vmap: values cannot decide a Python branch
        return
    if bad:
        raise ValueError(
            f"{name} must be in [0, {self.num_embeddings}), "
            f"got min {lo.item()} and max {hi.item()}"
        )


def _check_ids(self: TokenEmbedding, ids: torch.Tensor) -> None:
    _checks.tensor("ids", ids, ids=True)
    check_range(self, ids)


def _check_pretrained(embeddings: torch.Tensor, freeze: bool) -> None:
    _checks.tensor("embeddings", embeddings, ("vocab_size", "d_model"))
    _checks.bools(freeze=freeze)


# --8<-- [start:token]
# --8<-- [start:token_class]
class TokenEmbedding(nn.Embedding):
    # --8<-- [end:token_class]
    """Looks up one d_model-wide row of a (vocab_size, d_model) matrix per token id.

    Args:
        vocab_size: number of rows (ids run from 0 to vocab_size - 1).
        d_model: width of each vector.
        padding_idx: id in [0, vocab_size) whose row stays zero and gets no gradient;
            ``None`` for no padding token. Pick the id your tokenizer uses for padding.
        scale: multiply the output by sqrt(d_model), as in the paper (section 3.4). The
            weights start at std 1/sqrt(d_model), so scaled outputs have unit variance,
            the same scale as the positional encoding that is added next.

    Shape:
        ids: (B, T) integer tensor  ->  (B, T, d_model)
    """

    # --8<-- [start:token_core]
    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        padding_idx: int | None = None,
        scale: bool = True,
    ) -> None:
        _check_args(vocab_size, d_model, padding_idx, scale)
        self.scale = math.sqrt(d_model) if scale else 1.0
        super().__init__(vocab_size, d_model, padding_idx=padding_idx)

    def reset_parameters(self) -> None:
        nn.init.normal_(self.weight, std=self.embedding_dim**-0.5)
        self._fill_padding_idx_with_zero()

    @_checks.checked_by(_check_ids)
    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return super().forward(ids) * self.scale  # (B, T, d_model)

    # --8<-- [end:token_core]

    @classmethod
    def from_pretrained(
        cls,
        embeddings: torch.Tensor,
        freeze: bool = True,
        padding_idx: int | None = None,
        scale: bool = True,
    ) -> TokenEmbedding:
        """A TokenEmbedding whose table is a copy of ``embeddings``,
        (vocab_size, d_model).

        As in ``nn.Embedding.from_pretrained``, ``freeze`` turns off the table's
        gradient and the padding row keeps its pretrained values. Mind ``scale``:
        vectors trained without the sqrt(d_model) factor want ``scale=False``.
        """
        _check_pretrained(embeddings, freeze)
        module = cls(*embeddings.shape, padding_idx=padding_idx, scale=scale)
        module.weight = nn.Parameter(
            embeddings.detach().clone(), requires_grad=not freeze
        )
        return module


# --8<-- [end:token]
