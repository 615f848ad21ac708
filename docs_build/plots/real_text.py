"""Drawings of the Read real text page, from the page's own runs.

Like the Train page's (plots/train.py), they draw what the page's fences trained, so they are
not in ``FIGURES``: the fences call them through ``docs_build.figures.save``.
"""

from __future__ import annotations

from docs_build import figures
from docs_build.plots import text


def first_position(theme, tokens: list[str], weights):
    """What the first position reads: one row per head, grouped by layer, of ``weights``
    (L, H, T), the attention weights of query 0 (``<cls>``) on each of the T ``tokens``.

    The tokens are a review's Chinese characters in both languages, so their tick labels are
    drawn with a CJK font in the English figure too (only the Chinese one has it as default).
    """
    import matplotlib.pyplot as plt
    import numpy as np

    L, H, T = weights.shape
    step = H + 1  # one empty row between layers
    mosaic = np.full((L * step - 1, T), np.nan)
    for layer in range(L):
        mosaic[layer * step : layer * step + H] = weights[layer]
    # 4.8 inches: a phone's column shows it at about three quarters, its words still >= 9 px.
    fig, ax = plt.subplots(figsize=(4.8, 0.28 * len(mosaic) + 1.3), layout="constrained")
    cmap = plt.get_cmap(theme["weights"])
    cmap = cmap.with_extremes(bad=(0, 0, 0, 0))  # the gap between layers: transparent
    im = ax.imshow(mosaic, cmap=cmap, vmin=0, vmax=1, interpolation="nearest", aspect="auto")
    rows = [layer * step + h for layer in range(L) for h in range(H)]
    ax.set_yticks(rows, [text(theme, f"head {h}", f"头 {h}") for _ in range(L) for h in range(H)])
    ax.set_xticks(range(T), tokens)
    cjk = [*figures.cjk_fonts(), "DejaVu Sans"]  # DejaVu Sans for what the CJK font lacks
    for tick in ax.get_xticklabels():
        tick.set_fontfamily(cjk)
    ax.get_xticklabels()[0].set_ha("right")  # "<cls>", wider than a cell: into the margin
    ax.tick_params(length=0, pad=2)
    for layer in range(L):  # each layer's name above its heads
        name = text(theme, f"layer {layer}", f"第 {layer} 层")
        ax.text(-0.5, layer * step - 0.7, name, ha="left", va="bottom")
    for side in ax.spines.values():
        side.set_visible(False)
    cbar = fig.colorbar(
        im,
        ax=ax,
        orientation="horizontal",
        fraction=0.06,
        pad=0.04,
        aspect=40,
        label=text(theme, "attention weight of <cls>", "<cls> 的注意力权重"),
    )
    cbar.outline.set_visible(False)
    return fig


FIGURES: dict = {}  # the page's figures come from its fences (see above)
