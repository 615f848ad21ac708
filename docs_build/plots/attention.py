"""Figures of the Multi-Head Attention page, drawn from ``encoder.MultiHeadAttention``."""

import functools
import math

import torch

from docs_build.plots import narrow, text
from encoder import MultiHeadAttention, TransformerEmbedding, causal_mask, padding_mask

# The example of the page's heat-map section: one sentence of 4 words padded to 6 tokens.
WORDS = ["<pad>", "a", "cat", "dog", "sat", "ran", "on", "the", "mat", "down"]
IDS = [[7, 2, 4, 9, 0, 0]]  # "the cat sat down <pad> <pad>"


@functools.cache  # one run for the figure's four drawings (light, dark, English, Chinese)
def example_weights() -> tuple[list[str], torch.Tensor, torch.Tensor]:
    """(tokens, weights with the padding mask, weights with padding & causal), each (H, T, T)."""
    torch.manual_seed(0)
    embed = TransformerEmbedding(len(WORDS), 16, max_len=8, dropout=0.0, padding_idx=0).eval()
    mha = MultiHeadAttention(d_model=16, n_head=4).eval()
    ids = torch.tensor(IDS)
    x = embed(ids)  # (1, 6, 16)
    pad = padding_mask(ids, pad_id=0)  # (1, 1, 1, 6)
    both = pad & causal_mask(ids.size(1))  # (1, 1, 6, 6)
    with torch.no_grad():
        _, w_pad = mha(x, x, x, pad, need_weights=True)  # (1, 4, 6, 6)
        _, w_both = mha(x, x, x, both, need_weights=True)
    return [WORDS[i] for i in IDS[0]], w_pad[0], w_both[0]


def attn_weights(theme):
    import matplotlib.pyplot as plt

    tokens, w_pad, w_both = example_weights()
    H, T, _ = w_pad.shape
    vmax = float(max(w_pad.max(), w_both.max()))
    masks = (
        (w_pad, text(theme, "padding mask", "填充掩码")),
        (w_both, text(theme, "padding & causal mask", "填充掩码 + 因果掩码")),
    )
    # Wide: a row per mask, a column per head. Narrow: a row per head, a column per mask.
    tall = narrow(theme)
    shape, size = ((H, 2), (4.6, 8.4)) if tall else ((2, H), (9.0, 5.2))
    fig, axes = plt.subplots(*shape, figsize=size, layout="constrained")
    for row, (weights, label) in enumerate(masks):
        for h in range(H):
            ax = axes[h, row] if tall else axes[row, h]
            im = ax.imshow(
                weights[h].numpy(),
                cmap=theme["weights"],
                vmin=0,
                vmax=vmax,
                interpolation="nearest",
            )
            first, last = (row == 0, h == H - 1) if tall else (h == 0, True)
            size = 10 if tall else 9  # the page shows it in a note, narrower than its column
            ax.set_xticks(range(T), tokens if last else [], rotation=90, fontsize=size)
            ax.set_yticks(range(T), tokens if first else [], fontsize=size)
            ax.tick_params(length=0)
            for side in ax.spines.values():  # a frame, so empty padding columns still show
                side.set_color(theme["grid"])
            if tall:
                if h == 0:
                    ax.set_title(label, fontsize=10.5)
                if row == 0:
                    ax.set_ylabel(text(theme, f"head {h}", f"头 {h}"), fontsize=10.5)
            elif row == 0:
                ax.set_title(text(theme, f"head {h}", f"头 {h}"))
        if not tall:
            axes[row, 0].set_ylabel(f"{label}\n{text(theme, 'query', '查询')}", fontsize=9.5)
    if tall:  # below the last maps, above the colour bar
        for ax in axes[-1]:
            ax.set_xlabel(text(theme, "key", "键"), fontsize=10.5)
        fig.supylabel(text(theme, "query", "查询"), fontsize=10.5)
    else:
        fig.supxlabel(text(theme, "key", "键"), fontsize=10)
    cbar = fig.colorbar(
        im,
        ax=axes,
        fraction=0.025,
        pad=0.02,
        label=text(theme, "attention weight", "注意力权重"),
        **({"orientation": "horizontal", "aspect": 30} if tall else {}),
    )
    cbar.outline.set_visible(False)
    return fig


@functools.cache
def scaling_statistics() -> tuple:
    """(d_k values, variance of q.k, variance of q.k/sqrt(d_k), d_k of the softmax panel, mean
    sorted softmax weights over 10 keys without and with the scale) from random q and k."""
    g = torch.Generator().manual_seed(0)
    dims = [4, 16, 64, 256, 1024]
    raw, scaled = [], []
    for d_k in dims:
        q, k = torch.randn(20000, d_k, generator=g), torch.randn(20000, d_k, generator=g)
        dot = (q * k).sum(-1)  # one dot product per pair
        raw.append(dot.var().item())
        scaled.append((dot / math.sqrt(d_k)).var().item())

    d_k, n_keys = 512, 10
    q = torch.randn(2000, 1, d_k, generator=g)
    k = torch.randn(2000, n_keys, d_k, generator=g)
    scores = (q @ k.transpose(-2, -1)).squeeze(1)  # (queries, keys)
    top_raw = scores.softmax(-1).sort(-1, descending=True).values.mean(0)
    top_scaled = (scores / math.sqrt(d_k)).softmax(-1).sort(-1, descending=True).values.mean(0)
    return dims, raw, scaled, d_k, top_raw, top_scaled


def attn_scaling(theme):
    import matplotlib.pyplot as plt

    dims, raw, scaled, d_k, top_raw, top_scaled = scaling_statistics()
    shape, size = ((2, 1), (4.6, 6.2)) if narrow(theme) else ((1, 2), (9.0, 3.4))
    fig, (left, right) = plt.subplots(*shape, figsize=size, layout="constrained")
    left.loglog(dims, raw, "o-", label=r"$q\cdot k$", linewidth=1.8)
    left.loglog(dims, scaled, "s-", label=r"$q\cdot k/\sqrt{d_k}$", linewidth=1.8)
    left.set_xticks(dims, [str(d) for d in dims])
    left.minorticks_off()
    # Titled panels: a caption names them by title, side by side or stacked on a phone.
    left.set_title(text(theme, "score variance", "分数的方差"))
    left.set_xlabel("$d_k$")
    left.set_ylabel(text(theme, "variance over 20 000 pairs", "20 000 对向量上的方差"))
    left.grid(True, linewidth=0.5)
    left.legend(loc="upper left")

    ranks = torch.arange(1, len(top_raw) + 1).numpy()
    width = 0.4
    right.bar(
        ranks - width / 2,
        top_raw.numpy(),
        width,
        label=text(theme, "without", "不乘") + " $1/\\sqrt{d_k}$",
    )
    right.bar(
        ranks + width / 2,
        top_scaled.numpy(),
        width,
        label=text(theme, "with", "乘以") + " $1/\\sqrt{d_k}$",
    )
    right.set_title(text(theme, "softmax weights", "softmax 权重"))
    right.set_xticks(ranks)
    right.set_xlabel(
        text(theme, "rank of the key (largest weight first)", "键的名次（权重从大到小）")
        + f", $d_k$ = {d_k}"
    )
    right.set_ylabel(text(theme, "mean softmax weight", "softmax 权重的平均值"))
    right.set_ylim(0, 1)
    right.legend(loc="upper right")
    for ax in (left, right):
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    return fig


FIGURES = {"attn-weights": attn_weights, "attn-scaling": attn_scaling}
