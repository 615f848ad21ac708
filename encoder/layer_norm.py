"""Layer normalisation (Ba et al., 2016): normalise each position over its features."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from encoder import _checks


def _check_layer_norm_args(
    x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor, eps: float = 1e-5
) -> None:
    _checks.tensor("x", x, ("...", "d"))
    for name, t in (("gamma", gamma), ("beta", beta)):
        _checks.tensor(name, t, (x.size(-1),))
    _checks.positive_float("eps", eps)


# --8<-- [start:formula]
@_checks.checked_by(_check_layer_norm_args)
def layer_norm(
    x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor, eps: float = 1e-5
) -> torch.Tensor:
    """gamma * (x - mean) / sqrt(var + eps) + beta, over the last dimension.

    Written out, operator by operator. The variance is the biased one (divide by d,
    not d - 1), as in Ba et al. (2016) and PyTorch.
    fp16/bf16 inputs are normalised in float32 and cast back.

    Shape:
        x: (..., d); gamma, beta: (d,)  ->  (..., d)
    """
    h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    mean = h.mean(dim=-1, keepdim=True)  # (..., 1): one mean per position
    var = h.var(dim=-1, unbiased=False, keepdim=True)  # (..., 1)
    h = (h - mean) / torch.sqrt(var + eps)  # zero mean, unit variance per position
    return (gamma * h + beta).to(x.dtype)  # (..., d)


# --8<-- [end:formula]


def _check_args(d_model: int, eps: float) -> None:
    _checks.positive_ints(d_model=d_model)
    _checks.positive_float("eps", eps)


def _check_input(self: LayerNorm, x: torch.Tensor) -> None:
    _checks.tensor("x", x, ("...", self.d_model))


# --8<-- [start:layernorm]
# --8<-- [start:layernorm_class]
class LayerNorm(nn.Module):
    # --8<-- [end:layernorm_class]
    """Learned gamma and beta around ``layer_norm``, over the last dimension.

    Every position is normalised over its own d_model features, whatever the batch or
    sequence length. ``forward`` calls PyTorch's fused kernel, which computes the same
    numbers as ``layer_norm`` in one kernel instead of eight.

    Args:
        d_model: size of the last dimension.
        eps: added to the variance; 1e-5 as in ``torch.nn.LayerNorm``.

    Shape:
        x: (..., d_model)  ->  (..., d_model)
    """

    # --8<-- [start:layernorm_core]
    def __init__(self, d_model: int, eps: float = 1e-5) -> None:
        super().__init__()
        _check_args(d_model, eps)
        self.d_model = d_model
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(d_model))  # learned scale
        self.beta = nn.Parameter(torch.zeros(d_model))  # learned shift

    @_checks.checked_by(_check_input)
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, (self.d_model,), self.gamma, self.beta, self.eps)

    # --8<-- [end:layernorm_core]

    # --8<-- [end:layernorm]

    @classmethod
    def from_torch(cls, norm: nn.LayerNorm) -> LayerNorm:
        """A LayerNorm with the weights of ``norm`` (a 1-D, affine ``nn.LayerNorm``), in
        ``norm``'s training or evaluation mode."""
        _checks.instance("norm", norm, nn.LayerNorm)
        if len(norm.normalized_shape) != 1 or norm.weight is None:
            raise ValueError(
                "from_torch supports a 1-D nn.LayerNorm with elementwise_affine=True, "
                f"got normalized_shape={tuple(norm.normalized_shape)}, "
                f"elementwise_affine={norm.elementwise_affine}"
            )
        ours = cls(norm.normalized_shape[0], eps=norm.eps)
        ours = ours.to(device=norm.weight.device, dtype=norm.weight.dtype)
        with torch.no_grad():
            ours.gamma.copy_(norm.weight)
            ours.beta.copy_(
                norm.bias if norm.bias is not None else torch.zeros_like(norm.weight)
            )
        return ours.train(norm.training)
