"""Figures of the Layer Norm page, drawn from ``encoder.LayerNorm`` and ``torch.nn.BatchNorm1d``."""

import torch
from torch import nn

from docs_build.plots import narrow, text
from encoder import LayerNorm

B, T, D = 3, 5, 6  # a small (batch, sequence, features) block: every cell stays visible
PROBE = (0, 2, 3)  # the input cell (b, t, j) that the figure nudges


def shares_statistics(norm, x: torch.Tensor, cell: tuple[int, int, int]) -> torch.Tensor:
    """Bool (B, T, d): the outputs that move when the input ``cell`` alone is nudged.

    A normalisation couples exactly the cells that share its mean and variance, so this
    mask is the set it averages over, found by running it rather than by reading its code.
    """
    nudged = x.clone()
    nudged[cell] += 1.0
    with torch.no_grad():
        return (norm(nudged) - norm(x)).abs() > 1e-6


def batch_norm_btd(d: int):
    """BatchNorm1d on a (B, T, d) tensor: it wants channels second, (B, d, T)."""
    bn = nn.BatchNorm1d(d)  # training mode: statistics of the batch at hand
    return lambda x: bn(x.transpose(1, 2)).transpose(1, 2)


def norm_axes(theme):
    import matplotlib.pyplot as plt
    import numpy as np

    torch.manual_seed(0)
    x = torch.randn(B, T, D)
    panels = [
        (
            text(
                theme,
                "Batch norm: one feature,\nover batch and sequence",
                "批归一化：一个特征，\n跨批次和序列",
            ),
            batch_norm_btd(D),
        ),
        (
            text(
                theme,
                "Layer norm: one token,\nover its features",
                "层归一化：一个 token，\n跨它的各个特征",
            ),
            LayerNorm(D),
        ),
    ]
    tall = narrow(theme)  # the two blocks one above the other
    fig = plt.figure(figsize=(4.6, 7.4) if tall else (8.4, 3.9))
    for k, (title, norm) in enumerate(panels):
        mask = shares_statistics(norm, x, PROBE)  # (B, T, d)
        where = (2, 1, k + 1) if tall else (1, 2, k + 1)
        ax = fig.add_subplot(*where, projection="3d", computed_zorder=False)
        # Voxel axes: x = features (right), y = batch (into the page), z = sequence (down).
        shared = mask.permute(2, 0, 1).flip(-1).numpy()  # (d, B, T), position 0 at the top
        colors = np.full(shared.shape, theme["muted"] + "38", dtype=object)
        colors[shared] = theme["accent"]
        b, t, j = PROBE
        colors[j, b, T - 1 - t] = theme["accent2"]
        ax.voxels(
            np.ones(shared.shape, bool), facecolors=colors, edgecolor=theme["muted"], linewidth=0.4
        )
        ax.set_box_aspect((D, B, T))
        ax.view_init(elev=20, azim=-62)
        ax.set_axis_off()
        ax.set_title(title, y=0.98)
        label = {"color": theme["fg"], "fontsize": 9.5}
        for xyz, words, zdir, va in (
            ((D / 2, -0.3, -0.55), ("features  d", "特征  d"), "x", "top"),
            ((-0.4, -0.2, T / 2), ("sequence  T", "序列  T"), "z", "bottom"),
            ((D + 0.35, B / 2, -0.35), ("batch  B", "批次  B"), "y", "top"),
        ):
            ax.text(*xyz, text(theme, *words), zdir=zdir, ha="center", va=va, **label)
    from matplotlib.patches import Patch

    fig.legend(
        handles=[
            Patch(
                color=theme["accent2"],
                label=text(theme, "the input cell nudged", "被扰动的输入格子"),
            ),
            Patch(
                color=theme["accent"],
                label=text(theme, "outputs that moved with it", "随之变化的输出"),
            ),
        ],
        loc="lower center",
        ncols=1 if tall else 2,
        bbox_to_anchor=(0.5, -0.02),
    )
    if tall:
        fig.subplots_adjust(left=0, right=1, bottom=0.08, top=0.96, hspace=0.08)
    else:
        fig.subplots_adjust(left=0, right=1, bottom=0.06, top=0.95, wspace=0.02)
    return fig


def norm_sigmoid(theme):
    import matplotlib.pyplot as plt

    x = torch.linspace(-12, 12, 481, requires_grad=True)
    y = torch.sigmoid(x)
    (grad,) = torch.autograd.grad(y.sum(), x)
    x, y = x.detach().numpy(), y.detach().numpy()
    fig, ax = plt.subplots(figsize=(5.0, 2.8))  # one width for a phone and a desktop
    ax.plot(x, y, label="sigmoid(x)", linewidth=2)
    ax.plot(x, grad.numpy(), label=text(theme, "its gradient", "它的梯度"), linewidth=2)
    for lo, hi in ((-12, -5), (5, 12)):
        ax.axvspan(lo, hi, color=theme["grid"], alpha=0.45, linewidth=0)
    saturated = text(theme, "saturated:\ngradient\n< 0.007", "饱和区：\n梯度\n< 0.007")
    ax.text(-8.5, 0.55, saturated, ha="center", color=theme["muted"])
    ax.text(8.5, 0.55, saturated, ha="center", color=theme["muted"])
    ax.set_xlim(-12, 12)
    ax.set_xlabel(text(theme, "pre-activation x", "激活前的输入 x"))
    ax.legend(loc="upper left")
    ax.grid(True, linewidth=0.5)
    return fig


FIGURES = {"norm-axes": norm_axes, "norm-sigmoid": norm_sigmoid}
