"""How long `mkdocs serve` takes to rebuild after a page edit (issue 3: at most 2 s).

    .venv/bin/python scripts/measure_serve.py                 # 3 edits of docs/index.md
    .venv/bin/python scripts/measure_serve.py --dirty         # the same with `serve --dirty`
    .venv/bin/python scripts/measure_serve.py --page docs/positional-encoding.md --edits 5

The repository is cloned into a temporary folder (its committed state; `--worktree` copies the
working tree instead, uncommitted files included), so no shared page is touched and the clone's
`.cache/` starts empty: the first build of `serve` is a cold build. The script starts
`mkdocs serve` there, waits for it to serve, appends a line to the page, and reads serve's log
until it reloads. It prints, per edit, the time from the edit to "Reloading browsers" (what a
writer waits for) and mkdocs' own "Documentation built in" figure, then the median.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from docs_build.run import mkdocs

ROOT = Path(__file__).resolve().parent.parent
BUILT = re.compile(r"Documentation built in ([\d.]+) seconds")


def make_copy(dest: Path, worktree: bool) -> None:
    if worktree:
        ignore = shutil.ignore_patterns(
            ".venv", ".cache", "site", ".git", "test-artifacts", "node_modules"
        )
        shutil.copytree(ROOT, dest, ignore=ignore)
        subprocess.run(["git", "init", "-q"], cwd=dest, check=True)  # the build stamp reads git
    else:
        subprocess.run(["git", "clone", "-q", str(ROOT), str(dest)], check=True)
    if (ROOT / "node_modules").is_dir():  # MathJax for the build (make's `npm ci`), shared
        (dest / "node_modules").symlink_to(ROOT / "node_modules")


class Serve:
    """`mkdocs serve` in the background; its log lines, timestamped, in a queue."""

    def __init__(self, repo: Path, port: int, extra: list[str]) -> None:
        self.started = time.perf_counter()
        # The copy's own docs_build and encoder: `python -m` puts its folder first on sys.path.
        self.proc = mkdocs(
            "serve",
            *("-a", f"127.0.0.1:{port}", *extra),
            config=repo / "mkdocs.yml",
            start_new_session=True,  # its own process group: stopped as a whole, by its id
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((time.perf_counter(), line.rstrip("\n")))

    def wait_for(self, needle: str, timeout: float) -> tuple[float, list[str]]:
        """(time the line containing needle was printed, every line up to it)."""
        deadline = time.perf_counter() + timeout
        seen = []
        while True:
            left = deadline - time.perf_counter()
            if left <= 0 or (self.proc.poll() is not None and self.lines.empty()):
                tail = "\n".join(self.log[-30:])
                raise RuntimeError(f"no {needle!r} in serve's log after {timeout} s:\n{tail}")
            try:
                stamp, line = self.lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            self.log.append(line)
            seen.append(line)
            if needle in line:
                return stamp, seen

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def built_seconds(lines: list[str]) -> float | None:
    found = [float(m[1]) for line in lines if (m := BUILT.search(line))]
    return found[-1] if found else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", default="docs/index.md", help="page to edit, from the root")
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--dirty", action="store_true", help="serve --dirty")
    parser.add_argument("--worktree", action="store_true", help="copy the working tree")
    parser.add_argument("--keep", action="store_true", help="keep the copy and print its path")
    parser.add_argument("--show-log", action="store_true", help="print serve's log at the end")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="serve-probe-"))
    repo = tmp / "repo"
    make_copy(repo, args.worktree)
    page = repo / args.page
    serve = Serve(repo, args.port, ["--dirty"] if args.dirty else [])
    try:
        ready, lines = serve.wait_for("Serving on", timeout=900)
        first = built_seconds(lines)
        print(
            f"first build of serve (cold caches): {first} s built, "
            f"{ready - serve.started:.1f} s from start to serving"
        )
        rebuilds, builds = [], []
        for n in range(1, args.edits + 1):
            time.sleep(2.0)  # let the watcher settle
            edited = time.perf_counter()
            with page.open("a") as f:
                f.write(f"\nEdit {n} by measure_serve.py.\n")
            detected, _ = serve.wait_for("Detected file changes", timeout=120)
            reloaded, lines = serve.wait_for("Reloading browsers", timeout=600)
            built = built_seconds(lines)
            rebuilds.append(reloaded - edited)
            builds.append(built or float("nan"))
            print(
                f"edit {n}: change seen after {detected - edited:.2f} s, "
                f"browsers reloaded after {reloaded - edited:.2f} s (mkdocs: built in {built} s)"
            )
        print(
            f"median over {args.edits} edits of {args.page}"
            f"{' (serve --dirty)' if args.dirty else ''}: "
            f"{statistics.median(rebuilds):.2f} s from edit to reload, "
            f"{statistics.median(builds):.2f} s building"
        )
    finally:
        serve.stop()
        if args.show_log:
            print("\n".join(serve.log))
        if args.keep:
            print(f"copy kept in {repo}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
