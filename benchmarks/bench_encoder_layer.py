"""Speed and peak memory of ``encoder.EncoderLayer`` against ``torch.nn.TransformerEncoderLayer``.

    python -m benchmarks.bench_encoder_layer                  # CPU, float32: prints the tables
    python -m benchmarks.bench_encoder_layer --save           # and writes docs/data/benchmarks.json
    python -m benchmarks.bench_encoder_layer --device cuda --save   # docs/data/benchmarks-cuda.json
    python -m benchmarks.bench_encoder_layer --quick          # small sizes: a smoke test

What is compared: layers.py. How it is timed: harness.py. What is printed and saved: report.py.
The method, the FLOP count and the JSON schema: README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

from benchmarks import harness, layers, report

HERE = Path(__file__).resolve().parent

DATA = HERE.parent / "docs" / "data"
FLOPS_FORWARD = "2 * B * S * (4 d^2 + 2 S d + 2 d ff)"
FLOPS_TRAINING = "3 * forward"
DEFAULTS = {  # per device: sizes, sequence lengths, dtypes, padding fractions, extra paths
    "cpu": {
        "batch": 8,
        "d_model": 512,
        "n_head": 8,
        "d_ff": 2048,
        "seq_lens": [64, 256, 1024, 2048],
        "dtypes": ["float32"],
        "padding": [0.0],
        "explicit": True,
        "floor": True,
    },
    "cuda": {
        "batch": 32,
        "d_model": 768,
        "n_head": 12,
        "d_ff": 3072,
        "seq_lens": [128, 512, 2048, 8192],
        "dtypes": ["bfloat16", "float16", "float32"],
        "padding": [0.0, 0.25],
        "explicit": False,
        "floor": True,
    },
}


def layer_flops(batch: int, seq: int, d: int, ff: int) -> float:
    """FLOPs of one forward of the layer: 2 per multiply-add, matrix products only."""
    return 2.0 * batch * seq * (4 * d * d + 2 * seq * d + 2 * d * ff)


def ratios(samples: dict[str, list[float]], impls: dict[str, dict]) -> dict:
    """Each implementation against torch: ratio of the medians, paired ratio, its interval."""
    if "torch" not in impls:  # torch ran out of memory: nothing to compare with
        return {"ratio": {}, "paired_ratio": {}, "paired_ci": {}}
    others = [n for n in impls if n != "torch"]
    base = impls["torch"]["median_ms"]
    return {
        "ratio": {n: round(impls[n]["median_ms"] / base, 3) for n in others},
        "paired_ratio": {n: harness.paired_ratio(samples[n], samples["torch"]) for n in others},
        "paired_ci": {n: harness.paired_ci(samples[n], samples["torch"]) for n in others},
    }


def bench_mode(mode: str, args) -> list[dict]:
    rows = []
    for dtype_name in args.dtypes:
        dtype = getattr(torch, dtype_name)
        for padding in args.padding:
            for S in args.seq_lens:
                ref, ours = layers.build_layers(args, dtype)
                x, kpm = layers.batch(args, S, padding, dtype)
                if mode == "inference":
                    fns = layers.inference_fns(
                        ref, ours, x, kpm, args.explicit, args.floor, args.fused_relu
                    )
                else:
                    fns = layers.training_fns(ref, ours, x, kpm)
                samples, repeats, failed = harness.time_interleaved(
                    fns, args, grad=mode == "training"
                )
                flops = layer_flops(args.batch, S, args.d_model, args.d_ff)
                flops *= 3 if mode == "training" else 1
                impls = {n: harness.summarise(s, flops) for n, s in samples.items()}
                row = {
                    "seq_len": S,
                    "dtype": dtype_name,
                    "padding": padding,
                    "repeats": repeats,
                    "gflop": round(flops / 1e9, 3),
                    "impls": impls,
                    "out_of_memory": failed,
                } | ratios(samples, impls)
                if args.device == "cuda" and mode == "inference":
                    row["memory_mib"] = {
                        n: harness.cuda_peak_mib(fns[n][1]) if n in impls else None
                        for n in ("torch", "ours")
                    }
                rows.append(row)
                print(
                    f"  {mode} {dtype_name} padding {padding:.0%} S={S}: {repeats} rounds",
                    file=sys.stderr,
                    flush=True,
                )
                del ref, ours, fns, x
                if args.device == "cuda":
                    torch.cuda.empty_cache()
    return rows


def memory_child(impl: str, S: int, args) -> None:
    """Runs in a fresh process (CPU): peak RSS increase of one inference forward at S."""
    ref, ours = layers.build_layers(args, torch.float32)  # both, for equal baselines
    fns = layers.inference_fns(
        ref, ours, torch.randn(args.batch, 8, args.d_model), None, explicit=True, floor=False
    )
    fns[impl][1]()  # load kernels, start the thread pool
    x, _ = layers.batch(args, S, 0.0, torch.float32)
    fns = layers.inference_fns(ref, ours, x, None, explicit=True, floor=False)
    print(json.dumps(harness.rss_peak_mib(fns[impl][1])))


def measure_memory(args) -> list[dict]:
    """CPU: peak RSS of one inference call per implementation and S, each in a fresh process."""
    impls = ["torch", "ours"] + (["ours_explicit"] if args.explicit else [])
    sizes = ["--batch", args.batch, "--d-model", args.d_model, "--n-head", args.n_head]
    sizes += ["--d-ff", args.d_ff, "--threads", torch.get_num_threads()]
    rows = []
    for S in args.seq_lens:
        row: dict = {"seq_len": S}
        for impl in impls:
            argv = ["--memory-child", impl, str(S), *map(str, sizes)]
            res = harness.in_fresh_process(__spec__.name, argv)
            row[f"{impl}_mib"], row["method"] = round(res["mib"], 1), res["method"]
        row["ratio"] = {
            i: round(row[f"{i}_mib"] / row["torch_mib"], 3) if row["torch_mib"] else None
            for i in impls[1:]
        }
        rows.append(row)
        print(f"  memory S={S}", file=sys.stderr, flush=True)
    return rows


def launch_overhead(args) -> dict:
    """CUDA, inference at the shortest S without padding, in the first dtype: both layers eager,
    as CUDA graphs and compiled; and a profile of the eager calls (kernels, CPU time)."""
    S, dtype = args.seq_lens[0], getattr(torch, args.dtypes[0])
    ref, ours = layers.build_layers(args, dtype)
    x, _ = layers.batch(args, S, 0.0, dtype)
    fns = layers.inference_fns(ref, ours, x, None, explicit=False, floor=False)
    fns |= layers.launch_overhead_fns(ref, ours, x)
    samples, repeats, _ = harness.time_interleaved(fns, args, grad=False)
    result = {
        "seq_len": S,
        "dtype": args.dtypes[0],
        "repeats": repeats,
        "median_ms": {
            n: round(harness.summarise(s, 1.0)["median_ms"], 4) for n, s in samples.items()
        },
    }
    result["profile"] = {n: harness.cuda_profile(fns[n][1]) for n in ("torch", "ours")}
    x, kpm = layers.batch(args, S, 0.25, dtype)  # where a padded batch spends its time
    padded = layers.inference_fns(ref, ours, x, kpm, explicit=False, floor=False)
    for n in ("torch", "ours"):
        result["profile"][f"{n}, 25% padding"] = harness.cuda_profile(padded[n][1])
    print(f"\nlaunch overhead at S={S}, {args.dtypes[0]}, no padding, inference ({repeats} rounds)")
    for n, ms in result["median_ms"].items():
        print(f"  {n:<22} {ms:.4f} ms  {ms / result['median_ms']['torch']:.3f}x torch eager")
    for n, prof in result["profile"].items():
        print(
            f"  {n}: {prof['kernels']} kernels, {prof['kernel_ms']:.4f} ms on the GPU, "
            f"{prof['cpu_ms']:.4f} ms of CPU per call"
        )
    return result


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    for flag in ("--batch", "--d-model", "--n-head", "--d-ff"):
        p.add_argument(flag, type=int, help="default: per device (see DEFAULTS)")
    p.add_argument("--seq-lens", type=int, nargs="+")
    p.add_argument("--dtypes", nargs="+", choices=["float32", "float16", "bfloat16"])
    p.add_argument("--padding", type=float, nargs="+", help="fractions of padded tokens")
    p.add_argument(
        "--modes", nargs="*", default=["inference", "training"], choices=["inference", "training"]
    )
    p.add_argument(
        "--budget",
        type=float,
        default=15.0,
        help="seconds of timed rounds per row; sets the number of rounds",
    )
    p.add_argument("--min-repeats", type=int, default=5)
    p.add_argument("--max-repeats", type=int, default=200)
    p.add_argument("--warmup", type=int, default=2, help="untimed calls per implementation")
    p.add_argument("--threads", type=int, help="torch.set_num_threads (default: torch's own)")
    p.add_argument("--no-memory", action="store_true", help="skip the CPU peak-memory processes")
    p.add_argument(
        "--explicit",
        action=argparse.BooleanOptionalAction,
        help="time the explicit-attention path (default: on the CPU only)",
    )
    p.add_argument(
        "--floor", action=argparse.BooleanOptionalAction, help="time the lower-bound reference"
    )
    p.add_argument(
        "--fused-relu",
        action="store_true",
        help="also time our layer with the FFN's bias and ReLU fused into its first product",
    )
    p.add_argument(
        "--overhead",
        action="store_true",
        help="CUDA: CUDA graphs, torch.compile and a profile at the shortest S",
    )
    p.add_argument("--quick", action="store_true", help="smoke test: tiny sizes and budget")
    p.add_argument("--save", action="store_true", help="write the JSON the Performance page reads")
    p.add_argument("--output", type=Path, help="where --save writes (default: docs/data/...)")
    p.add_argument("--memory-child", nargs=2, metavar=("IMPL", "S"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    for key, value in DEFAULTS[args.device].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if args.quick:
        args.batch, args.d_model, args.n_head, args.d_ff = 2, 64, 4, 256
        args.seq_lens, args.budget, args.min_repeats, args.max_repeats = [16, 64], 0.2, 3, 20
        args.warmup = 1
    name = "benchmarks.json" if args.device == "cpu" else "benchmarks-cuda.json"
    args.output = args.output or DATA / name
    return args


def main(argv=None) -> None:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.memory_child:
        memory_child(args.memory_child[0], int(args.memory_child[1]), args)
        return
    t0 = time.perf_counter()
    machine = report.machine_info(args.device)
    where = machine.get("gpu", f"{machine['cpu']}, {machine['cores']} cores")
    print(
        f"{where}, torch {machine['torch']}, load average {machine['loadavg'][0]:.1f}", flush=True
    )
    print(
        f"B={args.batch}, d={args.d_model}, h={args.n_head}, ff={args.d_ff}, S={args.seq_lens}, "
        f"{args.dtypes}, padding {args.padding}; training: dropout 0, forward + "
        "sum().backward()",
        flush=True,
    )
    memory = measure_memory(args) if args.device == "cpu" and not args.no_memory else []
    modes = {mode: bench_mode(mode, args) for mode in args.modes}
    for m in memory:  # the CPU's inference rows show their peak RSS too
        for row in modes.get("inference", []):
            if row["seq_len"] == m["seq_len"]:
                row["memory_mib"] = {"torch": m["torch_mib"], "ours": m["ours_mib"]}
    for mode, rows in modes.items():
        for dtype in args.dtypes:
            for padding in args.padding:
                group = [r for r in rows if r["dtype"] == dtype and r["padding"] == padding]
                report.print_table(f"{mode}, {dtype}, {padding:.0%} padding", group)
    extras = {"overhead": launch_overhead(args)} if args.overhead else {}
    targets = [] if args.quick else report.check_targets(modes, memory, args.device)
    if targets:
        report.print_targets(targets)
    machine["loadavg_end"] = [round(v, 2) for v in os.getloadavg()]
    machine["duration_s"] = round(time.perf_counter() - t0, 1)
    print(
        f"\ntotal {machine['duration_s']:.0f} s, load average at the end "
        f"{machine['loadavg_end'][0]:.1f}"
    )
    if args.save:
        config = {
            k: getattr(args, k)
            for k in (
                "device",
                "batch",
                "d_model",
                "n_head",
                "d_ff",
                "seq_lens",
                "dtypes",
                "padding",
                "quick",
                "budget",
                "min_repeats",
                "max_repeats",
                "warmup",
            )
        }
        config["dtype"] = args.dtypes[0]  # schema 1 readers
        data = {
            "schema": 1,
            "machine": machine,
            "config": config,
            "flops": {"forward": FLOPS_FORWARD, "training": FLOPS_TRAINING},
            "modes": modes,
            "memory": memory,
            "targets": targets,
        } | extras
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
