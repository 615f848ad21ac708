"""Figures of the Feed-Forward page, drawn from ``encoder.PositionwiseFeedForward``."""

import torch

from docs_build.plots import narrow, text
from encoder import PositionwiseFeedForward


def ffn_shapes(theme):
    import matplotlib.pyplot as plt
    import numpy as np

    T, d_model, d_ff = 10, 8, 32
    torch.manual_seed(0)
    ffn = PositionwiseFeedForward(d_model, d_ff).eval()
    x = torch.randn(T, d_model)  # one sequence: (T, d_model)
    with torch.no_grad():
        h = torch.relu(ffn.linear1(x))  # (T, d_ff): the hidden layer the module computes
        y = ffn(x)  # (T, d_model)
    # Wide: x -> hidden -> FFN(x) left to right. Narrow: top to bottom.
    tall = narrow(theme)
    if tall:
        fig, axes = plt.subplots(3, 1, figsize=(4.6, 6.6))
    else:
        fig, axes = plt.subplots(
            1, 3, figsize=(8.6, 3.2), gridspec_kw={"width_ratios": [d_model, d_ff, d_model]}
        )
    cmap = plt.get_cmap(theme["cmap"]).with_extremes(bad=theme["grid"])  # the ReLU's zeros
    panels = [
        (x, f"x\n(T, d_model) = ({T}, {d_model})"),
        (
            np.ma.masked_equal(h.numpy(), 0.0),
            text(theme, "hidden", "隐藏层") + f": ReLU(x W₁ + b₁)\n(T, d_ff) = ({T}, {d_ff})",
        ),
        (
            y,
            ("FFN(x) = " + text(theme, "hidden", "隐藏层") + " W₂ + b₂" if tall else "FFN(x)")
            + f"\n(T, d_model) = ({T}, {d_model})",
        ),
    ]
    for ax, (data, title) in zip(axes, panels, strict=True):
        data = data.numpy() if isinstance(data, torch.Tensor) else data
        scale = float(abs(data).max())  # each panel on its own symmetric scale
        ax.imshow(data, cmap=cmap, vmin=-scale, vmax=scale, interpolation="nearest")
        ax.set_title(title, fontsize=9.5)
        ax.set_xticks([])
        ax.set_yticks([0, T - 1])
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
    for ax in axes if tall else axes[:1]:
        ax.set_ylabel(text(theme, "position", "位置"))
    if not tall:
        axes[1].set_yticks([])
        axes[2].set_yticks([])
    fig.subplots_adjust(**({"hspace": 0.6} if tall else {"wspace": 0.32}))
    zeros = (h == 0).float().mean().item()
    axes[1].set_xlabel(
        text(
            theme,
            f"grey: exactly zero after the ReLU ({zeros:.0%} of the cells)",
            f"灰色：ReLU 之后恰好为零（占 {zeros:.0%} 的格子）",
        )
    )
    if tall:  # the steps are in the titles (below)
        for ax, step in zip(axes, ("", "↓ ", "↓ "), strict=True):
            ax.set_title(step + ax.get_title().replace("\n", "   "), fontsize=10)
        return fig
    for a, b, label in ((axes[0], axes[1], "W₁, b₁\nReLU"), (axes[1], axes[2], "W₂, b₂")):
        a, b = a.get_position(), b.get_position()
        mid_y = (a.y0 + a.y1) / 2
        fig.patches.append(
            plt.matplotlib.patches.FancyArrowPatch(
                (a.x1 + 0.006, mid_y),
                (b.x0 - 0.006, mid_y),
                transform=fig.transFigure,
                arrowstyle="-|>",
                mutation_scale=12,
                color=theme["muted"],
            )
        )
        fig.text(
            (a.x1 + b.x0) / 2, mid_y + 0.03, label, ha="center", va="bottom", color=theme["fg"]
        )
    return fig


FIGURES = {"ffn-shapes": ffn_shapes}
