"""Drawings of the page A pretrained encoder, from what its fences measured (so not in
``FIGURES``: the fences call them through ``docs_build.figures.save``)."""

from __future__ import annotations

from docs_build.plots import narrow, text


def _cmap(theme):
    import matplotlib.pyplot as plt

    return plt.get_cmap("Blues" if theme["fg"].startswith("#1") else "magma")


def head_scores(theme, scores: dict[tuple[str, str], object]):
    """One map per pattern of ``scores`` ({(English, Chinese) name: (L, H) array}): its
    score in each layer (rows) and head (columns), with the strongest head circled."""
    import matplotlib.pyplot as plt
    import numpy as np

    tall = narrow(theme)
    n = len(scores)
    cols = 2 if tall else n
    rows = -(-n // cols)
    size = (4.6, 1.6 * rows + 1.0) if tall else (8.0, 2.5)
    fig, axes = plt.subplots(rows, cols, figsize=size, layout="constrained", squeeze=False)
    for ax, (name, score) in zip(axes.flat, scores.items(), strict=False):
        score = np.asarray(score)
        L, H = score.shape
        im = ax.imshow(score, cmap=_cmap(theme), vmin=0, vmax=1, interpolation="nearest")
        layer, head = divmod(int(score.argmax()), H)
        ax.add_patch(plt.Circle((head, layer), 0.45, fill=False, ec=theme["accent"], lw=1.6))
        ax.set_title(f"{text(theme, *name)}\nL{layer} H{head}: {score.max():.2f}", fontsize=9)
        ax.set_xticks(range(0, H, 3 if tall else 2))
        ax.set_yticks(range(L))
        ax.tick_params(length=0, labelsize=9.5 if tall else 8.5)
        ax.set_xlabel(text(theme, "head", "头"), fontsize=9)
        ax.set_ylabel(text(theme, "layer", "层"), fontsize=9)
        for side in ax.spines.values():
            side.set_visible(False)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    cbar = fig.colorbar(im, ax=axes, orientation="horizontal", fraction=0.05, aspect=40)
    cbar.set_label(text(theme, "score (mean attention weight)", "得分（平均注意力权重）"))
    cbar.outline.set_visible(False)
    return fig


def attention_map(theme, tokens: list[str], weights, title: tuple[str, str]):
    """One head's (T, T) ``weights`` on ``tokens``: rows are queries, columns keys."""
    import matplotlib.pyplot as plt

    T = len(tokens)
    side = 4.6 if narrow(theme) else 5.6
    fig, ax = plt.subplots(figsize=(side, side * 0.95), layout="constrained")
    im = ax.imshow(weights, cmap=_cmap(theme), vmin=0, vmax=1, interpolation="nearest")
    ax.set_xticks(range(T), tokens, rotation=90, fontsize=9)
    ax.set_yticks(range(T), tokens, fontsize=9)
    ax.tick_params(length=0, pad=2)
    ax.set_xlabel(text(theme, "key (attended to)", "键（被关注的词元）"))
    ax.set_ylabel(text(theme, "query", "查询"))
    ax.set_title(text(theme, *title), fontsize=10)
    for spine in ax.spines.values():
        spine.set_visible(False)
    cbar = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
    cbar.outline.set_visible(False)
    return fig


FIGURES: dict = {}  # the page's figures come from its fences (see above)
