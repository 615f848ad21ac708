"""Figures of the Performance page, drawn from the saved benchmarks: docs/data/benchmarks.json
(CPU) and, when it exists, docs/data/benchmarks-cuda.json (GPU)."""

import json
from pathlib import Path

from docs_build.plots import narrow, text

DATA = Path(__file__).resolve().parents[2] / "docs" / "data" / "benchmarks.json"
CUDA_DATA = DATA.with_name("benchmarks-cuda.json")
LABELS = {  # (English, Chinese)
    "torch": ("nn.TransformerEncoderLayer", "nn.TransformerEncoderLayer"),
    "ours": ("encoder.EncoderLayer", "encoder.EncoderLayer"),
    "ours_explicit": ("EncoderLayer, explicit attention", "EncoderLayer，显式注意力"),
    "floor": ("floor: products, attention, norms only", "下限：只含矩阵乘、注意力与归一化"),
}
MODES = {"inference": "推理", "training": "训练"}


def _load() -> dict:
    return json.loads(DATA.read_text())


def bench_time(theme):
    import matplotlib.pyplot as plt

    data = _load()
    tall = narrow(theme)  # the two panels one above the other
    shape, size = ((2, 1), (4.6, 7.2)) if tall else ((1, 2), (8.5, 3.3))
    fig, axes = plt.subplots(*shape, figsize=size, layout="constrained")
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
    for ax in axes if tall else axes[:1]:
        ax.set_ylabel(text(theme, "median time per call (ms)", "每次调用时间的中位数（ms）"))
    if tall:  # below the panels, not over their lines
        fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center")
    else:
        axes[0].legend(fontsize=9)
    return fig


def bench_memory(theme):
    import matplotlib.pyplot as plt

    rows = _load()["memory"]
    impls = [i for i in ("torch", "ours", "ours_explicit") if f"{i}_mib" in rows[0]]
    seq = [r["seq_len"] for r in rows]
    width = 0.8 / len(impls)
    fig, ax = plt.subplots(figsize=(5.0, 3.2))  # one width for a phone and a desktop
    for n, impl in enumerate(impls):
        xs = [i + (n - (len(impls) - 1) / 2) * width for i in range(len(seq))]
        ax.bar(xs, [r[f"{impl}_mib"] for r in rows], width, label=text(theme, *LABELS[impl]))
    ax.set_xticks(range(len(seq)), [str(s) for s in seq])
    ax.set_xlabel(text(theme, "sequence length S", "序列长度 S"))
    ax.set_ylabel(text(theme, "peak memory of one call (MiB)", "一次调用的峰值内存（MiB）"))
    ax.legend(fontsize=9)
    ax.grid(True, axis="y", linewidth=0.5)
    return fig


def bench_cuda(theme):
    """Ours / torch against S on the GPU, one panel per dtype, four lines: inference and
    training, each without and with 25 % padding."""
    import matplotlib.pyplot as plt

    if not CUDA_DATA.exists():
        fig, ax = plt.subplots(figsize=(8.5, 1.2))
        ax.axis("off")
        none = text(theme, "no GPU measurement in this checkout", "此检出中没有 GPU 测量")
        ax.text(0.5, 0.5, none, ha="center", va="center")
        return fig
    data = json.loads(CUDA_DATA.read_text())
    dtypes = data["config"]["dtypes"]
    tall = narrow(theme)  # a panel per dtype, one above the other
    shape, size = ((len(dtypes), 1), (4.6, 7.6)) if tall else ((1, len(dtypes)), (8.5, 3.4))
    fig, axes = plt.subplots(*shape, figsize=size, sharey=True, layout="constrained")
    styles = {
        ("inference", 0.0): "-o",
        ("inference", 0.25): "--o",
        ("training", 0.0): "-s",
        ("training", 0.25): "--s",
    }
    for ax, dtype in zip(axes, dtypes, strict=True):
        for (mode, pad), style in styles.items():
            rows = [
                r
                for r in data["modes"][mode]
                if r["dtype"] == dtype and r["padding"] == pad and "ours" in r["ratio"]
            ]
            label = text(theme, mode, MODES[mode])
            if pad:
                label += text(theme, ", 25% padding", "，25% 填充")
            ax.plot(
                [r["seq_len"] for r in rows],
                [r["ratio"]["ours"] for r in rows],
                style,
                label=label,
                markersize=4,
                linewidth=1.5,
            )
        ax.axhline(1.0, color=theme["muted"], linewidth=1, linestyle=":")
        ax.set_xscale("log", base=2)
        seq = data["config"]["seq_lens"]
        ax.set_xticks(seq, [str(s) for s in seq])
        if not tall or ax is axes[-1]:
            ax.set_xlabel(text(theme, "sequence length S", "序列长度 S"))
        ax.set_title(dtype)
        ax.grid(True, which="major", linewidth=0.5)
    for ax in axes if tall else axes[:1]:
        ax.set_ylabel(text(theme, "time, ours / torch", "时间：ours / torch"))
    # Below the panels, not over their lines.
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2)
    return fig


FIGURES = {"bench-time": bench_time, "bench-memory": bench_memory, "bench-cuda": bench_cuda}
