"""Timing and memory: how a call is timed on each device, and the statistics of the samples.

A sample is the time of one call (CPU: ``time.perf_counter``; CUDA: two CUDA events around
``inner`` back-to-back calls, divided by ``inner``, so launches overlap as in real use). The
implementations are timed in turn, A B, B A, ..., after a warm-up, so a slow moment of the
machine hits all of them; rounds go on until a time budget is spent.
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

Call = tuple[Callable[[], object] | None, Callable[[], object]]  # (untimed setup, timed call)


def time_calls(setup, fn, device: str, inner: int = 1) -> float:
    """Milliseconds per call of ``fn``: ``inner`` calls in a row, each after ``setup``."""
    if device == "cuda":
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            if setup is not None:
                setup()
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / inner
    if setup is not None:
        setup()
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def time_interleaved(
    fns: dict[str, Call], args, grad: bool
) -> tuple[dict[str, list[float]], int, list[str]]:
    """Warm up, then time every fn in turn for the same number of rounds, rotating the order.

    On CUDA, the warm-up also sets each fn's ``inner`` so that one sample lasts about 2 ms, and
    drops a fn that runs out of GPU memory (returned in the list of failures).
    """
    names, failed = list(fns), []
    inner = dict.fromkeys(names, 1)
    with torch.enable_grad() if grad else torch.inference_mode():
        for n in list(names):  # args.warmup calls each, fewer once they have taken 2 s
            try:
                spent = 0.0
                for _ in range(args.warmup):
                    spent += time_calls(*fns[n], args.device)
                    if spent > 2e3:
                        break
                if args.device == "cuda":
                    once = time_calls(*fns[n], args.device)
                    inner[n] = max(1, min(50, round(2.0 / once)))
            except torch.cuda.OutOfMemoryError:
                names.remove(n)
                failed.append(n)
                torch.cuda.empty_cache()
        samples: dict[str, list[float]] = {n: [] for n in names}
        t0, repeats = time.perf_counter(), 0
        while repeats < args.max_repeats and (
            repeats < args.min_repeats or time.perf_counter() - t0 < args.budget
        ):
            k = repeats % len(names)
            for n in names[k:] + names[:k]:  # A B, B A, ... (three: A B C, B C A, C A B)
                samples[n].append(time_calls(*fns[n], args.device, inner[n]))
            repeats += 1
    return samples, repeats, failed


def summarise(samples: list[float], flops: float) -> dict:
    q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    med = statistics.median(samples)
    return {
        "median_ms": round(med, 4),
        "q1_ms": round(q1, 4),
        "q3_ms": round(q3, 4),
        "gflops": round(flops / (med / 1e3) / 1e9, 1),
        "samples_ms": [round(s, 4) for s in samples],
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


def cuda_profile(fn: Callable[[], object], calls: int = 20) -> dict:
    """Per call of ``fn`` (inference mode): the kernels launched and their time on the GPU
    (torch.profiler), the CPU time to launch them (no profiler, no sync), and the costliest
    kernels. Launch-bound when the CPU time exceeds the GPU time."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    with torch.inference_mode():
        fn()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        cpu_ms = (time.perf_counter() - t0) * 1e3 / calls
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                fn()
            torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == DeviceType.CUDA]
    by_name: dict[str, float] = {}
    for e in kernels:
        by_name[e.name] = by_name.get(e.name, 0.0) + e.device_time / 1e3 / calls
    top = sorted(by_name.items(), key=lambda kv: -kv[1])[:10]
    ops = [e for e in prof.key_averages() if e.device_type == DeviceType.CPU]
    ops = sorted(ops, key=lambda e: -e.self_cpu_time_total)[:15]
    return {
        "kernels": round(len(kernels) / calls, 1),
        "kernel_ms": round(sum(by_name.values()), 4),
        "cpu_ms": round(cpu_ms, 4),
        "top_kernels_ms": {name[:90]: round(ms, 4) for name, ms in top},
        "top_cpu_ops_us": {  # self CPU time per call, under the profiler (which inflates it)
            e.key[:60]: [round(e.self_cpu_time_total / calls, 1), e.count // calls] for e in ops
        },
    }


# ---------------------------------------------------------------------------- peak memory


def cuda_peak_mib(fn: Callable[[], object]) -> float | None:
    """GPU memory allocated at the peak of one call above what was allocated before it;
    None when the call runs out of memory."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    try:
        with torch.inference_mode():
            out = fn()
        torch.cuda.synchronize()
    except torch.cuda.OutOfMemoryError:
        return None
    peak = torch.cuda.max_memory_allocated()
    del out
    return round((peak - before) / 2**20, 1)


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def rss_peak_mib(fn: Callable[[], object]) -> dict:
    """In this (fresh) process: peak RSS increase, in MiB, of one call of ``fn``.

    Resets the kernel's peak-RSS counter first (``/proc/self/clear_refs``); falls back to
    ``ru_maxrss`` deltas where that file cannot be written.
    """
    with torch.inference_mode():
        try:
            Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
            method = "VmHWM - VmRSS after clear_refs"
            before = _status_kib("VmRSS")
            out = fn()
            peak = _status_kib("VmHWM")
        except OSError:
            method = "ru_maxrss delta"
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
            out = fn()
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        del out
    return {"mib": (peak - before) / 1024, "method": method}


def in_fresh_process(module: str, argv: list[str]) -> dict:
    """Run ``python -m module argv`` in a new process, from the checkout's root, and parse the
    JSON line it prints."""
    root = Path(__file__).resolve().parent.parent
    cmd = [sys.executable, "-m", module, *argv]
    result = subprocess.run(cmd, cwd=root, check=True, capture_output=True)
    return json.loads(result.stdout)
