"""Lighthouse (mobile profile) on pages of a built site, beside bare Material measured in the
same run: prints each page's median performance score and total blocking time (TBT).

    SITE_URL=http://127.0.0.1:8765/ .venv/bin/mkdocs build --strict -d /tmp/site
    .venv/bin/python scripts/lighthouse.py /tmp/site "" attention/ pitfalls/ --runs 3

The site is served gzipped, as GitHub Pages serves it; "bare/" is a one-page Material site built
here: scores move with the machine's load, so compare with bare/ of the same run. Lighthouse and
http-server come from npm (scripts/lighthouse/package.json), installed on first use."""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NPM = Path(__file__).resolve().parent / "lighthouse"
BIN = NPM / "node_modules" / ".bin"
TEXT = "## Section\n\nThe encoder reads a sequence of tokens and returns one vector per token. " * 8
BARE = "site_name: Bare Material\ntheme: {name: material, font: false}\n"


def lighthouse(url: str, out: Path) -> tuple[float, float]:
    flags = "--chrome-flags=--headless=new --no-sandbox --disable-gpu"
    cmd = [BIN / "lighthouse", url, "--quiet", flags, "--output=json", f"--output-path={out}"]
    subprocess.run(cmd, env={**os.environ, "CHROME_PATH": "/usr/bin/chromium"}, check=True)
    report = json.loads(out.read_text())
    tbt = report["audits"]["total-blocking-time"]["numericValue"]
    return 100 * report["categories"]["performance"]["score"], tbt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a site built for http://127.0.0.1:8765/")
    parser.add_argument("pages", nargs="*", default=["", "attention/", "pitfalls/"])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not (BIN / "lighthouse").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NPM, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        served, bare = Path(tmp) / "site", Path(tmp) / "bare"
        shutil.copytree(args.site, served)
        (bare / "docs").mkdir(parents=True)
        (bare / "docs" / "index.md").write_text("# Bare Material\n\n" + TEXT)
        (bare / "mkdocs.yml").write_text(BARE)
        mkdocs = Path(sys.executable).parent / "mkdocs"
        build = [mkdocs, "build", "-q", "-f", bare / "mkdocs.yml", "-d", served / "bare"]
        subprocess.run(build, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, check=True)
        for file in served.rglob("*"):
            if file.suffix in {".html", ".css", ".js", ".json", ".svg", ".xml", ".ipynb"}:
                file.with_name(file.name + ".gz").write_bytes(gzip.compress(file.read_bytes(), 9))
        serve = [BIN / "http-server", served, "-g", "-s", "-c-1", "-a", "127.0.0.1", "-p", "8765"]
        server = subprocess.Popen(serve)
        try:
            time.sleep(2)
            print(f"{'page':<24} {'score':>5} {'TBT ms':>6}  runs (score/TBT)", flush=True)
            for page in ["bare/", *args.pages]:
                runs = [lighthouse(f"http://127.0.0.1:8765/{page}", Path(tmp) / "lh.json")
                        for _ in range(args.runs)]  # fmt: skip
                score, tbt = (statistics.median(r[i] for r in runs) for i in (0, 1))
                each = " ".join(f"{s:.0f}/{t:.0f}" for s, t in runs)
                print(f"{page or '/':<24} {score:>5.0f} {tbt:>6.0f}  {each}", flush=True)
        finally:
            server.terminate()


if __name__ == "__main__":
    main()
