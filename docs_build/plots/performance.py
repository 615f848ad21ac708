"""Figures of the Performance page, drawn from the saved benchmark (docs/data/benchmarks.json)."""

import json
from pathlib import Path

from docs_build.figures import figure, text

DATA = Path(__file__).resolve().parents[2] / "docs" / "data" / "benchmarks.json"
LABELS = {  # (English, Chinese)
    "torch": ("nn.TransformerEncoderLayer", "nn.TransformerEncoderLayer"),
    "ours": ("encoder.EncoderLayer", "encoder.EncoderLayer"),
    "ours_explicit": ("EncoderLayer, explicit attention", "EncoderLayer，显式注意力"),
    "floor": ("floor: products, attention, norms only", "下限：只含矩阵乘、注意力与归一化"),
}
MODES = {"inference": "推理", "training": "训练"}


def _load() -> dict:
    return json.loads(DATA.read_text())


@figure("bench-time")
def bench_time(theme):
    import matplotlib.pyplot as plt

    data = _load()
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.3), sharey=False)
    for ax, mode in zip(axes, ("inference", "training"), strict=True):
        rows = data["modes"][mode]
        seq = [r["seq_len"] for r in rows]
        styles = (("torch", "-o"), ("ours", "-s"), ("ours_explicit", ":^"), ("floor", "--"))
        for impl, style in styles:
            if impl not in rows[0]["impls"]:
                continue
            med = [r["impls"][impl]["median_ms"] for r in rows]
            lo = [r["impls"][impl]["median_ms"] - r["impls"][impl]["q1_ms"] for r in rows]
            hi = [r["impls"][impl]["q3_ms"] - r["impls"][impl]["median_ms"] for r in rows]
            ax.errorbar(
                seq,
                med,
                yerr=[lo, hi],
                fmt=style,
                label=text(theme, *LABELS[impl]),
                markersize=4,
                linewidth=1.5,
                capsize=2,
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(seq, [str(s) for s in seq])
        ax.set_xlabel(text(theme, "sequence length S", "序列长度 S"))
        ax.set_title(text(theme, mode, MODES[mode]))
        ax.grid(True, which="major", linewidth=0.5)
    axes[0].set_ylabel(text(theme, "median time per call (ms)", "每次调用时间的中位数（ms）"))
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


@figure("bench-memory")
def bench_memory(theme):
    import matplotlib.pyplot as plt

    rows = _load()["memory"]
    impls = [i for i in ("torch", "ours", "ours_explicit") if f"{i}_mib" in rows[0]]
    seq = [r["seq_len"] for r in rows]
    width = 0.8 / len(impls)
    fig, ax = plt.subplots(figsize=(7.5, 3.0))
    for n, impl in enumerate(impls):
        xs = [i + (n - (len(impls) - 1) / 2) * width for i in range(len(seq))]
        ax.bar(xs, [r[f"{impl}_mib"] for r in rows], width, label=text(theme, *LABELS[impl]))
    ax.set_xticks(range(len(seq)), [str(s) for s in seq])
    ax.set_xlabel(text(theme, "sequence length S", "序列长度 S"))
    ax.set_ylabel(text(theme, "peak memory of one call (MiB)", "一次调用的峰值内存（MiB）"))
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", linewidth=0.5)
    return fig
