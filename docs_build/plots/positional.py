"""Figures of the Positional Encoding page, drawn from ``encoder.sinusoidal_table``."""

import torch

from docs_build.plots import text
from encoder import sinusoidal_table


def pe_heatmap(theme):
    import matplotlib.pyplot as plt

    pe = sinusoidal_table(64, 128)  # (positions, dimensions)
    fig, ax = plt.subplots(figsize=(5.0, 3.4))  # one width for a phone and a desktop
    im = ax.imshow(
        pe.numpy(), cmap=theme["cmap"], vmin=-1, vmax=1, aspect="auto", interpolation="nearest"
    )
    ax.set_xlabel(text(theme, "dimension i", "维度 i"))
    ax.set_ylabel(text(theme, "position pos", "位置 pos"))
    cbar = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
    cbar.outline.set_visible(False)
    return fig


def pe_curves(theme):
    import matplotlib.pyplot as plt

    d_model = 128
    pe = sinusoidal_table(61, d_model)
    fig, ax = plt.subplots(figsize=(5.0, 3.4))  # one width for a phone and a desktop
    for dim in (4, 5, 24, 64):
        kind = "sin" if dim % 2 == 0 else "cos"
        ax.plot(
            pe[:, dim].numpy(),
            label=text(theme, f"dimension {dim} ({kind})", f"第 {dim} 维（{kind}）"),
            linewidth=1.6,
            marker="o" if dim < 6 else None,
            markersize=2.5,
        )
    ax.set_xlabel(text(theme, "position pos", "位置 pos"))
    ax.set_ylabel("PE[pos, i]")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, fontsize=9.5)
    ax.set_ylim(-1.1, 1.1)
    ax.grid(True, linewidth=0.5)
    return fig


def pe_frequencies(theme):
    import matplotlib.pyplot as plt

    d_model = 512
    two_k = torch.arange(0, d_model, 2, dtype=torch.float64)
    right = 10000.0 ** (-two_k / d_model)  # the paper: w_k = 1 / 10000^(2k/d)
    doubled = 10000.0 ** (-2 * two_k / d_model)  # the notebook's 2 * i, i already stepping by 2
    fig, ax = plt.subplots(figsize=(5.0, 3.2))  # one width for a phone and a desktop
    ax.semilogy(
        two_k.numpy(),
        right.numpy(),
        label=text(theme, "paper", "论文") + ": $10000^{-2k/d}$",
        linewidth=2,
    )
    ax.semilogy(
        two_k.numpy(),
        doubled.numpy(),
        "--",
        label=text(theme, "positional-encoding notebook", "位置编码笔记本") + ": $10000^{-4k/d}$",
        linewidth=2,
    )
    ax.set_xlabel(text(theme, "dimension 2k", "维度 2k"))
    ax.set_ylabel(text(theme, "angular frequency", "角频率") + " $\\omega_k$")
    ax.legend(loc="lower left")
    ax.grid(True, which="major", linewidth=0.5)
    return fig


def pe_similarity(theme):
    import matplotlib.pyplot as plt

    pe = sinusoidal_table(128, 128, dtype=torch.float64)
    sim = (pe @ pe.T) / pe.shape[1] * 2  # dot products, scaled to [-1, 1]
    fig, ax = plt.subplots(figsize=(4.2, 3.6))
    im = ax.imshow(sim.numpy(), cmap=theme["cmap"], vmin=-1, vmax=1, interpolation="nearest")
    ax.set_xlabel(text(theme, "position q", "位置 q"))
    ax.set_ylabel(text(theme, "position p", "位置 p"))
    cbar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.03)
    cbar.outline.set_visible(False)
    return fig


FIGURES = {
    "pe-heatmap": pe_heatmap,
    "pe-curves": pe_curves,
    "pe-frequencies": pe_frequencies,
    "pe-similarity": pe_similarity,
}
