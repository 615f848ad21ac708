"""Speed and peak memory of ``encoder.EncoderLayer`` against ``torch.nn.TransformerEncoderLayer``.

Usage::

    python benchmarks/bench_encoder_layer.py            # default sizes, prints the tables
    python benchmarks/bench_encoder_layer.py --save     # also writes docs/data/benchmarks.json
    python benchmarks/bench_encoder_layer.py --quick    # small sizes: a smoke test in seconds

What is compared
----------------
``torch``  ``nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, batch_first=True)``: post-norm,
           ReLU, the defaults.
``ours``   ``EncoderLayer.from_torch(torch_layer)``: the same weights, so the same numbers.
``ours_explicit`` (inference only, secondary) our layer with the attention written out
           (``self_attn(x, x, x, need_weights=True)``: softmax(QK^T/sqrt(d_k))V, building the
           (B, H, S, S) weight matrix), then the same residual, LayerNorm and FFN. It shows why
           ``forward`` calls the fused ``F.scaled_dot_product_attention`` instead.
``floor``  (inference only, a reference, not a layer) the work no implementation built from
           PyTorch operators can skip: the four matrix products without their biases (weights
           stored (in, out), the layout the BLAS multiplies fastest), the fused attention
           kernel, the ReLU in place and the two layer norms. It leaves out the bias and
           residual additions, so its output is wrong; its time is a lower bound for the
           other three, and ``torch / floor`` says how much room a faster layer could have.

Modes
-----
``inference``  both layers in ``eval()`` under ``torch.inference_mode()``; torch's layer then takes
               its "fast path" (one fused C++ kernel for the whole layer).
``training``   both layers in ``train()`` with dropout 0.0 (so both compute the same function and
               no random masks are drawn): forward, ``out.sum().backward()``; gradients are reset
               to None between steps, outside the timed region.

Method
------
fp32, CPU, torch's default number of threads (one per core; ``--threads`` to change). For every
S the implementations are timed in turn (A, B, A, B, ...; the order alternates every round, so A
is not always first) after a warm-up, so slow phases of a noisy machine hit both alike. Rounds
go on until ``--budget`` seconds have passed for that (mode, S), with at least ``--min-repeats``
and at most ``--max-repeats`` rounds: many at short S, few at S=2048. Reported: the median and the
interquartile range (25th-75th percentile) of the per-call times; ratio = median(ours) /
median(torch), and as a check the paired ratio: the median over rounds of ours / torch within
one round (noise that lasts a round cancels), with a 95 % bootstrap confidence interval (the
2.5th and 97.5th percentiles of the paired ratio's median over 2000 resamples of the rounds,
seeded). A target is met when the ratio is at most its limit; when the interval contains the
limit, the run cannot tell the two sides of the limit apart ("within noise").

Peak memory: for each implementation and S, a fresh Python process (this script with the hidden
``--memory-child`` flag) builds the layers and the input, runs one small warm-up forward, resets
the kernel's peak-RSS counter (``/proc/self/clear_refs``), runs one inference forward at S and
reports peak RSS minus RSS before the forward (``VmHWM - VmRSS`` from ``/proc/self/status``;
falls back to ``resource.getrusage().ru_maxrss`` deltas where ``clear_refs`` is unavailable). A
fresh process per measurement keeps one run's freed-but-cached allocations from hiding another's.

FLOPs (per layer, per token; one multiply-add = 2 FLOPs)
--------------------------------------------------------
    projections   Q, K, V, O:          4 d^2        multiply-adds
    attention     Q K^T and (weights) V: 2 S d      multiply-adds  (S keys, d = H * d_head)
    feed-forward  W1 and W2:           2 d ff       multiply-adds
    forward FLOPs = 2 * B * S * (4 d^2 + 2 S d + 2 d ff)
    training FLOPs = 3 * forward FLOPs  (backward: one product for the input gradient and one
                                         for the weight gradient per forward product)
Softmax, LayerNorm, bias, ReLU and residual adds are O(B S d) or O(B H S^2) element-wise work
and are not counted. GFLOP/s = FLOPs / median time.

JSON written by ``--save`` (``docs/data/benchmarks.json``; times in ms, memory in MiB)
-------------------------------------------------------------------------------------
{
  "schema": 1,
  "machine": {"cpu": str, "cores": int, "torch_threads": int, "torch": str, "python": str,
              "platform": str, "date": ISO-8601 str, "git_commit": str, "git_dirty": bool,
              "loadavg": [float, float, float],        # os.getloadavg() at the start
              "loadavg_end": [float, float, float],    # and at the end of the run
              "duration_s": float},                    # of the whole run
  "config": {"batch": int, "d_model": int, "n_head": int, "d_ff": int, "dtype": "float32",
             "seq_lens": [int], "quick": bool, "budget_s": float,
             "min_repeats": int, "max_repeats": int, "warmup": int},
  "flops": {"forward": str, "training": str},           # the formulas above, as text
  "modes": {
    "inference": [                                       # one row per S, in seq_lens order
      {"seq_len": int, "repeats": int, "gflop": float,   # FLOPs of one call, in 1e9
       "impls": {"torch" | "ours" | "ours_explicit": {
                   "median_ms": float, "q1_ms": float, "q3_ms": float,
                   "gflops": float,                      # GFLOP/s at the median
                   "samples_ms": [float]}},              # every timed call, in order
       "ratio": {"ours": float, "ours_explicit": float, "floor": float},
                                                         # median(impl) / median(torch)
       "paired_ratio": {"ours": float, ...},            # median over rounds of impl / torch
       "paired_ci": {"ours": [float, float], ...}}      # its 95 % bootstrap interval
    ],
    "training": [ same, with impls torch and ours only ]
  },
  "memory": [                                            # peak RSS increase of one inference call
    {"seq_len": int, "torch_mib": float, "ours_mib": float, "ours_explicit_mib": float,
     "ratio": {"ours": float, "ours_explicit": float}, "method": str}
  ],
  "targets": [{"name": str, "limit": float, "measured": float,  # measured = "ratio"
               "paired": float, "ci": [float, float],       # time targets only
               "met": bool,                                 # measured <= limit
               "within_noise": bool}]                       # ci[0] <= limit <= ci[1]
}
``ours_explicit`` keys are absent with ``--no-explicit``, ``floor`` keys with ``--no-floor``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing the package

from encoder import EncoderLayer  # noqa: E402

JSON_PATH = ROOT / "docs" / "data" / "benchmarks.json"
FLOPS_FORWARD = "2 * B * S * (4 d^2 + 2 S d + 2 d ff)"
FLOPS_TRAINING = "3 * forward"


def layer_flops(batch: int, seq: int, d: int, ff: int) -> float:
    """FLOPs of one forward of the layer: 2 per multiply-add, matrix products only."""
    macs_per_token = 4 * d * d + 2 * seq * d + 2 * d * ff
    return 2.0 * batch * seq * macs_per_token


# ---------------------------------------------------------------------------- the layers


def build_layers(d: int, h: int, ff: int) -> tuple[nn.TransformerEncoderLayer, EncoderLayer]:
    torch.manual_seed(0)
    ref = nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, batch_first=True)
    return ref, EncoderLayer.from_torch(ref)


def explicit_forward(layer: EncoderLayer, x: torch.Tensor) -> torch.Tensor:
    """``layer(x)`` in eval mode (post-norm), with the attention written out (need_weights)."""
    a, _ = layer.self_attn(x, x, x, need_weights=True)
    x = layer.norm1(x + a)
    return layer.norm2(x + layer.ff(x))


def floor_forward(layer: nn.TransformerEncoderLayer):
    """The unavoidable work of ``layer`` as a function of x: see ``floor`` above.

    Not a layer: biases and residual connections are left out. Weights are copied once,
    transposed to (in, out), outside the timed call.
    """
    attn = layer.self_attn
    d, h = attn.embed_dim, attn.num_heads
    w_qkv, w_o, w_1, w_2 = (
        w.detach().t().contiguous()
        for w in (
            attn.in_proj_weight,
            attn.out_proj.weight,
            layer.linear1.weight,
            layer.linear2.weight,
        )
    )
    n1, n2 = layer.norm1, layer.norm2

    def run(x: torch.Tensor) -> torch.Tensor:
        B, S, _ = x.shape
        qkv = (x.reshape(B * S, d) @ w_qkv).view(B, S, 3, h, d // h).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2])  # (B, h, S, d/h)
        a = a.transpose(1, 2).reshape(B * S, d) @ w_o
        y = F.layer_norm(a, (d,), n1.weight, n1.bias, n1.eps)
        z = (y @ w_1).relu_() @ w_2
        return F.layer_norm(z, (d,), n2.weight, n2.bias, n2.eps).view(B, S, d)

    return run


def inference_fns(ref, ours, x, explicit: bool, floor: bool) -> dict:
    """name -> (untimed setup, timed call); the setups are no-ops in inference."""
    ref.eval()
    ours.eval()
    fns = {"torch": (None, lambda: ref(x)), "ours": (None, lambda: ours(x))}
    if explicit:
        fns["ours_explicit"] = (None, lambda: explicit_forward(ours, x))
    if floor:
        run = floor_forward(ref)
        fns["floor"] = (None, lambda: run(x))
    return fns


def training_fns(ref, ours, x) -> dict:
    """name -> (reset the gradients, forward + backward of the sum of the output)."""
    ref.train()
    ours.train()
    return {
        name: (lambda m=m: m.zero_grad(set_to_none=True), lambda m=m: m(x).sum().backward())
        for name, m in (("torch", ref), ("ours", ours))
    }


# ---------------------------------------------------------------------------- timing


def time_once(setup, fn) -> float:
    if setup is not None:
        setup()
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def time_interleaved(fns: dict, args, grad: bool) -> tuple[dict[str, list[float]], int]:
    """Warm up, then time every fn in turn for the same number of rounds, rotating the order."""
    names = list(fns)
    with torch.enable_grad() if grad else torch.inference_mode():
        for n in names:  # args.warmup calls each, fewer once they have taken 2 s (large S)
            spent = 0.0
            for _ in range(args.warmup):
                spent += time_once(*fns[n])
                if spent > 2e3:
                    break
        samples: dict[str, list[float]] = {n: [] for n in names}
        t0, repeats = time.perf_counter(), 0
        while repeats < args.max_repeats and (
            repeats < args.min_repeats or time.perf_counter() - t0 < args.budget
        ):
            k = repeats % len(names)
            for n in names[k:] + names[:k]:  # A B, B A, ... (three: A B C, B C A, C A B)
                samples[n].append(time_once(*fns[n]))
            repeats += 1
    return samples, repeats


def summarise(samples: list[float], flops: float) -> dict:
    q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    med = statistics.median(samples)
    return {
        "median_ms": round(med, 3),
        "q1_ms": round(q1, 3),
        "q3_ms": round(q3, 3),
        "gflops": round(flops / (med / 1e3) / 1e9, 1),
        "samples_ms": [round(s, 3) for s in samples],
    }


def paired_ratio(a: list[float], b: list[float]) -> float:
    """Median over rounds of a / b within the round: noise lasting a round cancels."""
    return round(statistics.median(x / y for x, y in zip(a, b, strict=True)), 3)


def paired_ci(a: list[float], b: list[float], n_boot: int = 2000) -> list[float]:
    """95 % bootstrap interval of ``paired_ratio(a, b)``: resample the rounds, seeded."""
    ratios = [x / y for x, y in zip(a, b, strict=True)]
    rng = random.Random(0)
    meds = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(n_boot))
    return [round(meds[int(0.025 * n_boot)], 3), round(meds[int(0.975 * n_boot) - 1], 3)]


def bench_mode(mode: str, args) -> list[dict]:
    rows = []
    for S in args.seq_lens:
        ref, ours = build_layers(args.d_model, args.n_head, args.d_ff)
        torch.manual_seed(1)
        x = torch.randn(args.batch, S, args.d_model)
        if mode == "inference":
            fns = inference_fns(
                ref, ours, x, explicit=not args.no_explicit, floor=not args.no_floor
            )
        else:
            fns = training_fns(ref, ours, x)
        samples, repeats = time_interleaved(fns, args, grad=mode == "training")
        flops = layer_flops(args.batch, S, args.d_model, args.d_ff)
        flops *= 3 if mode == "training" else 1
        impls = {n: summarise(s, flops) for n, s in samples.items()}
        base = impls["torch"]["median_ms"]
        others = [n for n in impls if n != "torch"]
        rows.append(
            {
                "seq_len": S,
                "repeats": repeats,
                "gflop": round(flops / 1e9, 3),
                "impls": impls,
                "ratio": {n: round(impls[n]["median_ms"] / base, 3) for n in others},
                "paired_ratio": {n: paired_ratio(samples[n], samples["torch"]) for n in others},
                "paired_ci": {n: paired_ci(samples[n], samples["torch"]) for n in others},
            }
        )
        print(f"  {mode} S={S}: {repeats} rounds", file=sys.stderr, flush=True)
    return rows


# ---------------------------------------------------------------------------- peak memory


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def memory_child(impl: str, S: int, args) -> None:
    """Runs in a fresh process: peak RSS increase (MiB) of one inference forward at S."""
    ref, ours = build_layers(args.d_model, args.n_head, args.d_ff)  # both, for equal baselines
    ref.eval()
    ours.eval()
    fn = {
        "torch": lambda x: ref(x),
        "ours": lambda x: ours(x),
        "ours_explicit": lambda x: explicit_forward(ours, x),
    }[impl]
    with torch.inference_mode():
        fn(torch.randn(args.batch, 8, args.d_model))  # load kernels, start the thread pool
        x = torch.randn(args.batch, S, args.d_model)
        try:
            Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
            method = "VmHWM - VmRSS after clear_refs"
            before = _status_kib("VmRSS")
            out = fn(x)
            peak = _status_kib("VmHWM")
        except OSError:
            method = "ru_maxrss delta"
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
            out = fn(x)
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        del out
    print(json.dumps({"mib": (peak - before) / 1024, "method": method}))


def measure_memory(args) -> list[dict]:
    impls = ["torch", "ours"] + ([] if args.no_explicit else ["ours_explicit"])
    sizes = ["--batch", args.batch, "--d-model", args.d_model, "--n-head", args.n_head]
    sizes += ["--d-ff", args.d_ff, "--threads", torch.get_num_threads()]
    rows = []
    for S in args.seq_lens:
        row: dict = {"seq_len": S}
        for impl in impls:
            cmd = [sys.executable, __file__, "--memory-child", impl, str(S)]
            cmd += [str(v) for v in sizes]
            res = json.loads(subprocess.run(cmd, check=True, capture_output=True).stdout)
            row[f"{impl}_mib"] = round(res["mib"], 1)
            row["method"] = res["method"]
        row["ratio"] = {
            i: round(row[f"{i}_mib"] / row["torch_mib"], 3) if row["torch_mib"] else None
            for i in impls
            if i != "torch"
        }
        rows.append(row)
        print(f"  memory S={S}", file=sys.stderr, flush=True)
    return rows


# ---------------------------------------------------------------------------- report


def machine_info() -> dict:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    def git(*a: str) -> str:
        try:
            return subprocess.run(
                ["git", *a], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git_commit": git("rev-parse", "HEAD"),
        "loadavg": [
            round(v, 2) for v in os.getloadavg()
        ],  # 1, 5, 15 min, at the start: other work on the machine
        "git_dirty": bool(git("status", "--porcelain", "--", "encoder", "benchmarks")),
    }


def fmt_ratio(m: dict) -> str:
    r = m["ratio"]["ours"]
    return "n/a" if r is None else f"{r:.2f}x"


def print_table(mode: str, rows: list[dict], memory: dict[int, dict]) -> None:
    names = list(rows[0]["impls"])
    print(f"\n{mode}: median ms [25th-75th percentile]; ours/torch = ratio of the medians,")
    print("paired = median over rounds of ours/torch within a round [95% bootstrap interval]")
    head = f"{'S':>5} {'rounds':>6} {'torch ms':>22} {'ours ms':>22} {'ours/torch':>10}"
    head += f" {'paired [95% CI]':>22}"
    head += f" {'GFLOP/s torch':>13} {'GFLOP/s ours':>12}"
    if mode == "inference":
        head += f" {'MiB torch':>9} {'MiB ours':>8} {'mem ratio':>9}"
    print(head)
    for row in rows:
        t, o = row["impls"]["torch"], row["impls"]["ours"]

        def cell(v):
            return f"{v['median_ms']:.1f} [{v['q1_ms']:.1f}-{v['q3_ms']:.1f}]"

        line = f"{row['seq_len']:>5} {row['repeats']:>6} {cell(t):>22} {cell(o):>22}"
        lo, hi = row["paired_ci"]["ours"]
        paired = f"{row['paired_ratio']['ours']:.3f} [{lo:.3f}-{hi:.3f}]"
        line += f" {row['ratio']['ours']:>9.3f}x {paired:>22}"
        line += f" {t['gflops']:>13.0f} {o['gflops']:>12.0f}"
        m = memory.get(row["seq_len"])
        if mode == "inference" and m:
            line += f" {m['torch_mib']:>9.0f} {m['ours_mib']:>8.0f} {fmt_ratio(m):>9}"
        print(line)
    if "ours_explicit" in names:
        print("\nsecondary: our layer with the explicit attention formula (need_weights=True)")
        print(f"{'S':>5} {'explicit ms':>22} {'explicit/torch':>14} {'explicit/ours':>13}", end="")
        print(f" {'MiB explicit':>12}" if memory else "")
        for row in rows:
            e = row["impls"]["ours_explicit"]
            cell = f"{e['median_ms']:.1f} [{e['q1_ms']:.1f}-{e['q3_ms']:.1f}]"
            vs_ours = e["median_ms"] / row["impls"]["ours"]["median_ms"]
            line = f"{row['seq_len']:>5} {cell:>22} {row['ratio']['ours_explicit']:>13.2f}x"
            line += f" {vs_ours:>12.2f}x"
            m = memory.get(row["seq_len"])
            print(line + (f" {m['ours_explicit_mib']:>12.0f}" if m else ""))
    if "floor" in names:
        print("\nreference: the floor (four bias-free products, attention kernel, ReLU, norms)")
        print(f"{'S':>5} {'floor ms':>22} {'torch/floor':>11} {'ours/floor':>10}")
        for row in rows:
            f = row["impls"]["floor"]
            cell = f"{f['median_ms']:.1f} [{f['q1_ms']:.1f}-{f['q3_ms']:.1f}]"
            t, o = row["impls"]["torch"]["median_ms"], row["impls"]["ours"]["median_ms"]
            line = f"{row['seq_len']:>5} {cell:>22} {t / f['median_ms']:>10.3f}x"
            print(line + f" {o / f['median_ms']:>9.3f}x")


def target(name: str, limit: float, row: dict) -> dict:
    measured, paired = row["ratio"]["ours"], row["paired_ratio"]["ours"]
    ci = row["paired_ci"]["ours"]
    return {
        "name": name,
        "limit": limit,
        "measured": measured,
        "paired": paired,
        "ci": ci,
        "within_noise": ci[0] <= limit <= ci[1],
    }


def check_targets(modes: dict, memory: list[dict]) -> list[dict]:
    """The targets of the issue, for the S that were measured."""
    targets = []
    for row in modes.get("inference", []):
        S = row["seq_len"]
        limit = 1.0 if S <= 256 else 0.9 if S >= 1024 else None  # none in between
        if limit is not None:
            name = f"inference time ratio at S={S}"
            targets.append(target(name, limit, row))
    for row in modes.get("training", []):
        targets.append(target(f"training-step time ratio at S={row['seq_len']}", 1.0, row))
    for row in memory:
        if row["seq_len"] == 2048 and row["ratio"]["ours"] is not None:
            name = "peak-memory ratio at S=2048"
            targets.append({"name": name, "limit": 0.3, "measured": row["ratio"]["ours"]})
    for t in targets:
        t["met"] = t["measured"] <= t["limit"]
    return targets


# ---------------------------------------------------------------------------- main


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--d-model", type=int, default=512)
    p.add_argument("--n-head", type=int, default=8)
    p.add_argument("--d-ff", type=int, default=2048)
    p.add_argument("--seq-lens", type=int, nargs="+", default=[64, 256, 1024, 2048])
    p.add_argument(
        "--modes", nargs="+", default=["inference", "training"], choices=["inference", "training"]
    )
    p.add_argument(
        "--budget",
        type=float,
        default=15.0,
        help="seconds of timed rounds per (mode, S); sets the number of rounds",
    )
    p.add_argument("--min-repeats", type=int, default=5)
    p.add_argument("--max-repeats", type=int, default=200)
    p.add_argument("--warmup", type=int, default=2, help="untimed calls per implementation")
    p.add_argument("--threads", type=int, help="torch.set_num_threads (default: torch's own)")
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory subprocesses")
    p.add_argument("--no-explicit", action="store_true", help="skip the explicit-attention path")
    p.add_argument("--no-floor", action="store_true", help="skip the lower-bound reference")
    p.add_argument(
        "--quick",
        action="store_true",
        help="smoke test: B=2, d=64, h=4, ff=256, S=16 64, tiny budget",
    )
    p.add_argument("--save", action="store_true", help=f"write {JSON_PATH.relative_to(ROOT)}")
    p.add_argument("--output", type=Path, default=JSON_PATH, help="where --save writes")
    p.add_argument("--memory-child", nargs=2, metavar=("IMPL", "S"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.quick:
        args.batch, args.d_model, args.n_head, args.d_ff = 2, 64, 4, 256
        args.seq_lens, args.budget, args.min_repeats, args.max_repeats = [16, 64], 0.2, 3, 20
        args.warmup = 1
    return args


def main(argv=None) -> None:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.memory_child:
        memory_child(args.memory_child[0], int(args.memory_child[1]), args)
        return

    t0 = time.perf_counter()
    machine = machine_info()
    print(
        f"{machine['cpu']}, {machine['cores']} cores, {machine['torch_threads']} torch threads, "
        f"torch {machine['torch']}, python {machine['python']}, "
        f"load average {machine['loadavg'][0]:.1f}",
        flush=True,
    )
    print(
        f"fp32, B={args.batch}, d={args.d_model}, h={args.n_head}, ff={args.d_ff}, "
        f"S={args.seq_lens}; training: dropout 0.0 in both layers, forward + sum().backward()",
        flush=True,
    )
    memory = [] if args.no_memory else measure_memory(args)
    by_s = {m["seq_len"]: m for m in memory}
    modes = {mode: bench_mode(mode, args) for mode in args.modes}
    for mode, rows in modes.items():
        print_table(mode, rows, by_s)
    if memory:
        print("\npeak memory of one inference forward (MiB above the RSS before the call)")
        for m in memory:
            extra = f", explicit {m['ours_explicit_mib']:.0f}" if "ours_explicit_mib" in m else ""
            print(
                f"  S={m['seq_len']:>5}: torch {m['torch_mib']:.0f}, ours {m['ours_mib']:.0f} "
                f"({fmt_ratio(m)}){extra}"
            )
    targets = check_targets(modes, memory) if not args.quick else []
    if targets:
        print("\ntargets (issue 2)")
        for t in targets:
            ok = "met" if t["met"] else "NOT met"
            paired = ""
            if "paired" in t:
                lo, hi = t["ci"]
                paired = f", paired {t['paired']:.3f}x [95% CI {lo:.3f}-{hi:.3f}]"
                ok += " (within noise)" if t["within_noise"] else ""
            print(f"  {t['name']}: {t['measured']:.3f}x{paired} (limit {t['limit']}x) {ok}")
    total, load = time.perf_counter() - t0, os.getloadavg()[0]
    print(f"\ntotal {total:.0f} s, load average at the end {load:.1f}")

    machine["loadavg_end"] = [round(v, 2) for v in os.getloadavg()]
    machine["duration_s"] = round(time.perf_counter() - t0, 1)
    if args.save:
        config = {
            "batch": args.batch,
            "d_model": args.d_model,
            "n_head": args.n_head,
            "d_ff": args.d_ff,
            "dtype": "float32",
            "seq_lens": args.seq_lens,
            "quick": args.quick,
            "budget_s": args.budget,
            "min_repeats": args.min_repeats,
            "max_repeats": args.max_repeats,
            "warmup": args.warmup,
        }
        data = {
            "schema": 1,
            "machine": machine,
            "config": config,
            "flops": {"forward": FLOPS_FORWARD, "training": FLOPS_TRAINING},
            "modes": modes,
            "memory": memory,
            "targets": targets,
        }
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
