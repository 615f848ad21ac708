"""Drawings of the Train page, from the page's own runs.

They draw what the page's fences trained, so they are not in ``FIGURES`` (drawn from the
package alone): the fences call them through ``docs_build.figures.save``, e.g.
``save("train-curves", lambda theme: curves(theme, histories))``.
"""

from __future__ import annotations

from docs_build.plots import label, narrow, text

LOSS = ("training loss (mean of 10 steps)", "训练损失（10 步平均）")


def _smooth(values: list[float], window: int = 10) -> list[float]:
    """Running mean over the last ``window`` values (the first ones over fewer)."""
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v - (values[i - window] if i >= window else 0.0)
        out.append(total / min(i + 1, window))
    return out


def _tidy(ax, theme) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.grid(True, linewidth=0.5, color=theme["grid"])


def curves(theme, histories: dict):
    """Two panels, titled so that a caption can name them on a phone (stacked) and on a
    desktop (side by side): training loss (log scale) and held-out accuracy of named runs."""
    import matplotlib.pyplot as plt

    tall = narrow(theme)  # the two panels one above the other
    shape, size = ((2, 1), (4.6, 6.0)) if tall else ((1, 2), (9.0, 3.3))
    fig, (left, right) = plt.subplots(*shape, figsize=size, layout="constrained")
    colours = [theme["accent"], theme["accent2"], theme["accent3"], theme["muted"]]
    for (name, run), colour in zip(histories.items(), colours, strict=False):
        steps, name = range(1, len(run.loss) + 1), label(theme, name)
        left.plot(steps, _smooth(run.loss), color=colour, label=name, lw=1.6)
        right.plot(
            run.eval_steps, run.eval_accuracy, marker="o", ms=3, color=colour, label=name, lw=1.6
        )
    left.set_yscale("log")
    left.set_title(text(theme, "training loss", "训练损失"))
    left.set_xlabel(text(theme, "step", "步"))
    left.set_ylabel(text(theme, *LOSS))
    right.set_title(text(theme, "held-out accuracy", "留出准确率"))
    right.set_xlabel(text(theme, "step", "步"))
    right.set_ylabel(text(theme, "held-out token accuracy", "留出 token 准确率"))
    right.set_ylim(0, 1.02)
    right.legend(loc="lower right", fontsize=9.5)
    for ax in (left, right):
        _tidy(ax, theme)
    return fig


def heads(theme, panels: list[tuple[str | tuple[str, str], list[str], object]]):
    """Attention maps, one row of heads per (label, tokens, weights (H, T, T)) panel; a label
    is a string or an (English, Chinese) pair, drawn in the figure's language.

    All maps are tiles of a single image (one axes, one imshow): a grid of small axes
    takes matplotlib seconds to draw.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    H, T = panels[0][2].shape[0], len(panels[0][1])
    step = T + 1  # one empty cell between maps
    mosaic = np.full((len(panels) * step - 1, H * step - 1), np.nan)
    for row, (_, _, weights) in enumerate(panels):
        for h in range(H):
            mosaic[row * step : row * step + T, h * step : h * step + T] = weights[h]
    # A phone's column holds the same mosaic, smaller; its words keep their size.
    tall = narrow(theme)
    rows, cols = mosaic.shape
    size = (4.6, 4.1 * rows / cols + 1.1) if tall else (8.0, 1.9 * len(panels) + 0.4)
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    cmap = plt.get_cmap(theme["weights"])
    cmap = cmap.with_extremes(bad=(0, 0, 0, 0))  # the gaps between maps: transparent
    im = ax.imshow(mosaic, cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
    for row, (title, _, _) in enumerate(panels):
        if isinstance(title, tuple):
            title = text(theme, *title)
        for h in range(H):
            x0, y0 = h * step - 0.5, row * step - 0.5
            ax.add_patch(plt.Rectangle((x0, y0), T, T, fill=False, ec=theme["grid"], lw=0.6))
        if tall:
            title = title.replace(", ", ",\n").replace("，", "，\n")
        ax.text(-2.2, row * step + T / 2 - 0.5, title, rotation=90, ha="center", va="center")
    ticks = [r * step + i for r in range(len(panels)) for i in range(T)]
    tick_size = 9.5 if tall else 8.5
    # The queries are the keys (below): on a phone's smaller maps, named once, below.
    queries = [] if tall else [tok for _, tokens, _ in panels for tok in tokens]
    ax.set_yticks(ticks, queries, fontsize=tick_size)
    bottom = (len(panels) - 1) * step
    ax.set_xticks(
        [h * step + i for h in range(H) for i in range(T)],
        [tok for _ in range(H) for tok in panels[-1][1]],
        fontsize=tick_size,
    )
    ax.tick_params(length=0, pad=2)
    for h in range(H):
        ax.text(
            h * step + T / 2 - 0.5,
            -1.2,
            text(theme, f"head {h}", f"头 {h}"),
            ha="center",
            va="bottom",
        )
    ax.set_xlim(-0.5, H * step - 1.5)
    ax.set_ylim(bottom + T - 0.5, -0.5)
    for side in ax.spines.values():
        side.set_visible(False)
    cbar = fig.colorbar(
        im,
        ax=ax,
        fraction=0.02 if not tall else 0.04,
        pad=0.02,
        label=text(theme, "attention weight", "注意力权重"),
        orientation="horizontal" if tall else "vertical",
    )
    cbar.outline.set_visible(False)
    return fig


def losses(theme, runs: dict):
    """Training-loss curves of named runs, on one axis (log scale)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.8, 3.2), layout="constrained")  # a phone's and a desktop's
    styles = ["-", "--", "-", "--"]
    colours = [theme["accent2"], theme["accent2"], theme["accent"], theme["accent"]]
    for (name, h), style, colour in zip(runs.items(), styles, colours, strict=False):
        steps = range(1, len(h.loss) + 1)
        ax.plot(steps, _smooth(h.loss), style, color=colour, label=label(theme, name), lw=1.6)
    ax.set_yscale("log")
    ax.set_xlabel(text(theme, "step", "步"))
    ax.set_ylabel(text(theme, *LOSS))
    ax.legend(loc="lower left", fontsize=9.5)
    _tidy(ax, theme)
    return fig


FIGURES: dict = {}  # the Train page's figures come from its fences (see above)
