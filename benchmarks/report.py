"""What a run prints and saves: the machine, one table per (mode, dtype, padding), the targets
of issues 2 and 11, and the JSON file the Performance page reads (schema in README.md)."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent


def _git(*args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
        return done.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def machine_info(device: str) -> dict:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        # BENCH_GIT_COMMIT names the commit of a copy run outside its checkout (a GPU machine)
        "git_commit": os.environ.get("BENCH_GIT_COMMIT") or _git("rev-parse", "HEAD"),
        "loadavg": [round(v, 2) for v in os.getloadavg()],  # 1, 5, 15 min, at the start
        "git_dirty": "BENCH_GIT_COMMIT" not in os.environ
        and bool(_git("status", "--porcelain", "--", "encoder", "benchmarks")),
    }
    if device == "cuda":
        props = torch.cuda.get_device_properties(0)
        info |= {
            "gpu": props.name,
            "gpu_memory_gib": round(props.total_memory / 2**30, 1),
            "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(),
        }
    return info


def _cell(stats: dict) -> str:
    return f"{stats['median_ms']:.3g} [{stats['q1_ms']:.3g}-{stats['q3_ms']:.3g}]"


def _mib(value: float | None) -> str:
    return "OOM" if value is None else f"{value:.0f}"


def print_table(title: str, rows: list[dict]) -> None:
    """One table: a row per S, torch and ours side by side, then the other implementations."""
    others = [n for n in rows[0]["ratio"] if n != "ours"]
    print(f"\n{title}: median ms [25th-75th percentile]; ours/torch = ratio of the medians;")
    print("paired = median over rounds of ours/torch within a round [95% bootstrap interval]")
    head = f"{'S':>5} {'rounds':>6} {'torch ms':>22} {'ours ms':>22} {'ours/torch':>10}"
    head += f" {'paired [95% CI]':>22} {'GFLOP/s ours':>12} {'MiB torch':>9} {'MiB ours':>8}"
    print(head + "".join(f"  {n + '/torch':>14}" for n in others))
    for row in rows:
        if not {"torch", "ours"} <= set(row["impls"]):
            print(f"{row['seq_len']:>5} out of memory: {', '.join(row['out_of_memory'])}")
            continue
        t, o = row["impls"]["torch"], row["impls"]["ours"]
        lo, hi = row["paired_ci"]["ours"]
        paired = f"{row['paired_ratio']['ours']:.3f} [{lo:.3f}-{hi:.3f}]"
        mem = row.get("memory_mib", {})
        line = f"{row['seq_len']:>5} {row['repeats']:>6} {_cell(t):>22} {_cell(o):>22}"
        line += f" {row['ratio']['ours']:>9.3f}x {paired:>22} {o['gflops']:>12.0f}"
        if mem:
            line += f" {_mib(mem.get('torch')):>9} {_mib(mem.get('ours')):>8}"
        else:
            line += " " * 19
        extra = (row["ratio"].get(n) for n in others)
        print(line + "".join(f"  {'OOM' if r is None else f'{r:.3f}x':>14}" for r in extra))


def _target(name: str, limit: float, row: dict) -> dict:
    ci = row["paired_ci"]["ours"]
    return {
        "name": name,
        "limit": limit,
        "measured": row["ratio"]["ours"],
        "paired": row["paired_ratio"]["ours"],
        "ci": ci,
        "within_noise": ci[0] <= limit <= ci[1],
    }


def check_targets(modes: dict, memory: list[dict], device: str) -> list[dict]:
    """The targets, for the rows that were measured.

    CPU (float32): inference within 3 % of torch up to S = 256 and at most 0.9x from S = 1024;
    a training step at most 1.0x; peak memory at S = 2048 at most 0.3x.
    CUDA (bfloat16): a training step at most 0.9x at every S; padded inference at most 1.0x at
    every S; unpadded inference at most 1.0x from S = 512 (S = 128 is measured, not targeted).
    """
    targets = []
    for mode, rows in modes.items():
        for row in rows:
            S, pad = row["seq_len"], row["padding"]
            if device == "cpu":
                inference_limit = 1.03 if S <= 256 else 0.9 if S >= 1024 else None
                limit = inference_limit if mode == "inference" else 1.0
            elif row["dtype"] != "bfloat16":
                limit = None
            elif mode == "training":
                limit = 0.9 if not pad else None
            else:
                limit = 1.0 if pad or S >= 512 else None
            if limit is None:
                continue
            what = f"{row['dtype']}, {pad:.0%} padding, " if device == "cuda" else ""
            name = f"{mode} time ratio, {what}S={S}"
            if "ours" in row["ratio"]:
                targets.append(_target(name, limit, row))
            elif "torch" in row.get("out_of_memory", []) and "ours" in row["impls"]:
                targets.append(
                    {
                        "name": name,
                        "limit": limit,
                        "measured": None,
                        "note": "torch ran out of memory; ours ran",
                    }
                )
    for row in memory:
        if row["seq_len"] == 2048 and row["ratio"]["ours"] is not None:
            name = "peak-memory ratio at S=2048"
            targets.append({"name": name, "limit": 0.3, "measured": row["ratio"]["ours"]})
    for t in targets:
        t["met"] = t["measured"] is None or t["measured"] <= t["limit"]
    return targets


def print_targets(targets: list[dict]) -> None:
    print("\ntargets")
    for t in targets:
        ok = "met" if t["met"] else "NOT met"
        paired = ""
        if "paired" in t:
            lo, hi = t["ci"]
            paired = f", paired {t['paired']:.3f}x [95% CI {lo:.3f}-{hi:.3f}]"
            ok += " (within noise)" if t["within_noise"] else ""
        measured = t.get("note") or f"{t['measured']:.3f}x"
        print(f"  {t['name']}: {measured}{paired} (limit {t['limit']}x) {ok}")
