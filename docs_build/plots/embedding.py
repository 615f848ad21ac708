"""Figures of the Token Embedding and Transformer Embedding pages, drawn from the package."""

import torch

from docs_build.plots import narrow, text
from encoder import TokenEmbedding, TransformerEmbedding

# A toy vocabulary: id 0 is the padding token, as in the package's Encoder.
VOCAB = ["<pad>", "the", "cat", "sat", "on", "mat", "dog", "ran"]
SENTENCE = ["the", "cat", "sat", "on", "the", "mat"]


def _ids(words):
    return torch.tensor([[VOCAB.index(w) for w in words]])  # (1, T)


def _grid(ax, theme, rows, cols):
    """Thin cell borders, no ticks: the cells are the data."""
    ax.set_xticks([c - 0.5 for c in range(1, cols)], minor=True)
    ax.set_yticks([r - 0.5 for r in range(1, rows)], minor=True)
    ax.grid(which="minor", color=theme["grid"], linewidth=0.6)
    ax.tick_params(which="both", length=0)
    for spine in ax.spines.values():
        spine.set_color(theme["muted"])


def _symbol(ax, symbol, theme):
    ax.axis("off")
    ax.text(0.5, 0.5, symbol, ha="center", va="center", fontsize=20, color=theme["fg"])


def token_lookup(theme):
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Rectangle

    torch.manual_seed(0)
    V, d = len(VOCAB), 6
    tok = TokenEmbedding(V, d, padding_idx=0, scale=False)  # unscaled: rows of E as they are
    ids = _ids(SENTENCE)
    T = ids.shape[1]
    with torch.no_grad():
        E = tok.weight.numpy()  # (V, d)
        X = tok(ids)[0].numpy()  # (T, d)
    onehot = torch.nn.functional.one_hot(ids[0], V).numpy()  # (T, V)
    lim = float(abs(E).max())

    # Wide: one_hot @ E = E[ids] in a row. Narrow: one_hot @ E, and E[ids] under E.
    tall = narrow(theme)
    if tall:
        fig = plt.figure(figsize=(4.6, 5.0))
        gs = fig.add_gridspec(
            2, 3, width_ratios=[V, 1.6, d], height_ratios=[V, T], wspace=0.05, hspace=0.3
        )
        ax_oh, ax_x1, ax_e = (fig.add_subplot(gs[0, i]) for i in range(3))
        ax_eq, ax_out = fig.add_subplot(gs[1, 1]), fig.add_subplot(gs[1, 2])
    else:
        fig = plt.figure(figsize=(9.6, 3.3))
        gs = fig.add_gridspec(1, 5, width_ratios=[V, 3.2, d, 2.2, d], wspace=0.05)
        ax_oh, ax_x1, ax_e, ax_eq, ax_out = (fig.add_subplot(gs[0, i]) for i in range(5))

    ax_oh.imshow(onehot, cmap=ListedColormap([(0, 0, 0, 0), theme["accent"]]), vmin=0, vmax=1)
    ax_oh.set_xticks(range(V), [str(i) for i in range(V)], fontsize=9)
    ax_oh.xaxis.tick_top()
    ax_oh.set_yticks(range(T), SENTENCE, fontsize=10)
    _grid(ax_oh, theme, T, V)

    _symbol(ax_x1, "@", theme)

    ax_e.imshow(E, cmap=theme["cmap"], vmin=-lim, vmax=lim)
    ax_e.set_xticks([])
    ax_e.set_yticks(range(V), [f"{i} {w}" for i, w in enumerate(VOCAB)], fontsize=9.5)
    for row in sorted(set(ids[0].tolist())):  # the rows the sentence picks
        ax_e.add_patch(
            Rectangle((-0.5, row - 0.5), d, 1, fill=False, ec=theme["accent2"], lw=2.2, zorder=3)
        )
    _grid(ax_e, theme, V, d)

    _symbol(ax_eq, "=", theme)

    ax_out.imshow(X, cmap=theme["cmap"], vmin=-lim, vmax=lim)
    ax_out.set_xticks([])
    ax_out.set_yticks(range(T), SENTENCE, fontsize=10)
    _grid(ax_out, theme, T, d)

    titles = ["one_hot(ids)   (T, V)", "E   (V, d_model)", "E[ids]   (T, d_model)"]
    if tall:  # row names right of E and E[ids], clear of the symbols
        for ax in (ax_e, ax_out):
            ax.yaxis.tick_right()
        for ax, title in zip([ax_oh, ax_e, ax_out], titles, strict=True):
            ax.set_title(title.replace("   ", "\n"), fontsize=10, pad=18 if ax is ax_oh else 6)
        return fig
    # One row of titles above the tallest panel (E), whatever each panel's height.
    fig.canvas.draw()
    top = ax_e.get_position().y1 + 0.03
    for ax, title in zip([ax_oh, ax_e, ax_out], titles, strict=True):
        box = ax.get_position()
        fig.text((box.x0 + box.x1) / 2, top, title, ha="center", va="bottom", fontsize=10)
    return fig


def embedding_sum(theme):
    import matplotlib.pyplot as plt

    torch.manual_seed(0)
    words = [*SENTENCE, "<pad>", "<pad>"]
    ids = _ids(words)  # (1, 8)
    T = ids.shape[1]
    emb = TransformerEmbedding(len(VOCAB), d_model=32, max_len=16, padding_idx=0).eval()
    with torch.no_grad():
        panels = [
            (text(theme, "token", "词") + ": √d · E[ids]", emb.token(ids)[0]),
            (text(theme, "position", "位置") + ": PE[:T]", emb.position.pe[:T]),
            (text(theme, "sum (eval mode)", "和（评估模式）"), emb(ids)[0]),
        ]
    lim = max(float(p.abs().max()) for _, p in panels)

    # Wide: the three side by side. Narrow: one above the other.
    tall = narrow(theme)
    shape, size = ((3, 1), (4.6, 6.4)) if tall else ((1, 3), (9.0, 2.9))
    fig, axes = plt.subplots(*shape, figsize=size, sharey=True, sharex=tall)
    for i, (ax, (title, data)) in enumerate(zip(axes, panels, strict=True)):
        im = ax.imshow(
            data.numpy(),
            cmap=theme["cmap"],
            vmin=-lim,
            vmax=lim,
            aspect="auto",
            interpolation="nearest",
        )
        ax.set_title(("", "+ ", "= ")[i] + title if tall else title, fontsize=10)
        if not tall or i == 2:
            ax.set_xlabel(text(theme, "dimension", "维度"))
        ax.tick_params(length=0, labelleft=tall or i == 0)
    axes[0].set_yticks(range(T), words)  # the axes share y: label the first one only
    if not tall:
        for ax, sym in zip(axes[:2], ["+", "="], strict=True):
            ax.text(1.06, 0.5, sym, transform=ax.transAxes, ha="center", va="center", fontsize=16)
    else:
        fig.subplots_adjust(hspace=0.45)
    cbar = fig.colorbar(im, ax=axes, fraction=0.025, pad=0.02)
    cbar.outline.set_visible(False)
    return fig


FIGURES = {"token-lookup": token_lookup, "embedding-sum": embedding_sum}
