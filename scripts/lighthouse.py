"""Lighthouse (mobile profile) on every page of the built site, served gzipped like GitHub Pages.

    .venv/bin/python scripts/lighthouse.py                    # build the site, then every page x 3
    .venv/bin/python scripts/lighthouse.py --site site        # a site already built
    .venv/bin/python scripts/lighthouse.py --pages "" attention/ --runs 5 --out /tmp/lh.json
    SITE_URL=http://127.0.0.1:8765/ .venv/bin/mkdocs build --strict -d /tmp/s
    .venv/bin/python scripts/lighthouse.py --site /tmp/s --port 8765  # at the URL it was built for

The site is copied into a temporary folder, its text files are gzipped beside themselves
(``gzip -k -9``) and ``http-server -g`` serves the ``.gz`` files with ``Content-Encoding: gzip``,
on 127.0.0.1. Lighthouse 12 drives Debian's Chromium (``/usr/bin/chromium``) with its default
mobile profile (simulated 4x CPU slowdown and a slow 4G network); each page is measured
``--runs`` times, one run at a time, and the table gives the median of each column: performance
score, total blocking time, bytes transferred (all of them, and without images), then the lowest
accessibility, best-practices and SEO scores over the runs. The load average before and after
is printed too: scores move on a busy machine. Every run's numbers are saved as JSON (``--out``).

Lighthouse and http-server come from npm (``scripts/lighthouse/package.json`` and its lock
file), installed into ``scripts/lighthouse/node_modules`` on first use; nothing else needs them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from docs_build.run import Build

ROOT = Path(__file__).resolve().parent.parent
NPM_DIR = ROOT / "scripts" / "lighthouse"
BIN = NPM_DIR / "node_modules" / ".bin"
CHROMIUM = "/usr/bin/chromium"
GZIP = {".html", ".css", ".js", ".json", ".svg", ".xml", ".txt", ".map", ".ipynb", ".woff"}
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def npm_install() -> None:
    if not (BIN / "lighthouse").exists() or not (BIN / "http-server").exists():
        print("installing lighthouse and http-server from npm (scripts/lighthouse/) ...")
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NPM_DIR, check=True)


def build(dest: Path, site_url: str) -> None:
    Build(dest, env={"SITE_URL": site_url}).check()


def pages_of(site: Path) -> list[str]:
    found = []
    for index in site.rglob("index.html"):
        rel = index.parent.relative_to(site)
        if rel.parts and rel.parts[0] in {"assets", "search"}:
            continue
        found.append("" if rel == Path(".") else rel.as_posix() + "/")
    return sorted(found)


def gzip_copy(site: Path, dest: Path) -> None:
    shutil.copytree(site, dest)
    for path in dest.rglob("*"):
        if path.is_file() and path.suffix in GZIP:
            path.with_name(path.name + ".gz").write_bytes(gzip.compress(path.read_bytes(), 9))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(folder: Path, port: int) -> subprocess.Popen:
    cmd = [str(BIN / "http-server"), str(folder), "-g", "-s", "-c-1"]
    proc = subprocess.Popen([*cmd, "-p", str(port), "-a", "127.0.0.1"], start_new_session=True)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("http-server did not start")


def lighthouse(url: str, out: Path) -> dict:
    cmd = [
        str(BIN / "lighthouse"),
        url,
        "--quiet",
        "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
        "--output=json",
        f"--output-path={out}",
    ]
    subprocess.run(cmd, env={**os.environ, "CHROME_PATH": CHROMIUM}, check=True)
    report = json.loads(out.read_text())
    items = report["audits"]["network-requests"]["details"]["items"]
    images = sum(i.get("transferSize", 0) for i in items if i.get("resourceType") == "Image")
    total = report["audits"]["total-byte-weight"]["numericValue"]
    return {
        **{c: round(100 * (report["categories"][c]["score"] or 0)) for c in CATEGORIES},
        "tbt_ms": report["audits"]["total-blocking-time"]["numericValue"],
        "bytes": total,
        "bytes_no_images": total - images,
        "requests": len(items),
        "resources": sorted(
            ((i["url"].split("/", 3)[-1], i.get("transferSize", 0)) for i in items),
            key=lambda r: -r[1],
        ),
        "failed": [a for a in CATEGORIES if report["categories"][a]["score"] is None],
        "audits_below_1": {  # why a category is not 100
            c: [
                ref["id"]
                for ref in report["categories"][c]["auditRefs"]
                if ref["weight"] and (report["audits"][ref["id"]]["score"] or 0) < 1
            ]
            for c in CATEGORIES
            if c != "performance"
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    parser.add_argument("--pages", nargs="*", help="paths from the site root ('' is home)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--port",
        type=int,
        help="serve on this port (default: a free one); a --site built with SITE_URL"
        " http://127.0.0.1:PORT/ is then served at the address it was built for, as instant"
        " navigation expects",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "test-artifacts" / "lighthouse.json")
    args = parser.parse_args()

    # Stopped with SIGTERM: leave through the finally blocks, which stop the server.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    npm_install()
    port = args.port or free_port()
    tmp = Path(tempfile.mkdtemp(prefix="lighthouse-"))
    try:
        site = args.site
        if site is None:
            site = tmp / "built"
            print("building the site ...")
            build(site, f"http://127.0.0.1:{port}/")
        served = tmp / "served"
        gzip_copy(site, served)
        pages = pages_of(served) if args.pages is None else args.pages
        proc = serve(served, port)
        load_before = os.getloadavg()
        results: dict[str, list[dict]] = {}
        try:
            for page in pages:
                results[page] = []
                for run in range(args.runs):
                    out = tmp / f"run-{len(results)}-{run}.json"
                    results[page].append(lighthouse(f"http://127.0.0.1:{port}/{page}", out))
                print(row(page, results[page]), flush=True)
        finally:
            os.killpg(proc.pid, 15)
            proc.wait()
        load_after = os.getloadavg()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(
        f"load average (1, 5, 15 min): before {fmt_load(load_before)}, after {fmt_load(load_after)}"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    summary = {p: summarise(r) for p, r in results.items()}
    args.out.write_text(
        json.dumps(
            {
                "runs": args.runs,
                "load_before": load_before,
                "load_after": load_after,
                "summary": summary,
                "results": results,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"saved {args.out}")
    return 0


HEADER = (
    f"{'page':<44} {'perf':>4} {'TBT ms':>7} {'KB':>6} {'KB -img':>7} {'req':>4} "
    f"{'a11y':>4} {'BP':>4} {'SEO':>4}"
)


def summarise(runs: list[dict]) -> dict:
    med = lambda key: statistics.median(r[key] for r in runs)  # noqa: E731
    return {
        "performance": med("performance"),
        "tbt_ms": round(med("tbt_ms")),
        "kb": round(med("bytes") / 1024),
        "kb_no_images": round(med("bytes_no_images") / 1024),
        "requests": round(med("requests")),
        "accessibility": min(r["accessibility"] for r in runs),
        "best-practices": min(r["best-practices"] for r in runs),
        "seo": min(r["seo"] for r in runs),
        "performance_runs": [r["performance"] for r in runs],
    }


def row(page: str, runs: list[dict]) -> str:
    s = summarise(runs)
    head = HEADER + "\n" if row.first else ""
    row.first = False
    return head + (
        f"{page or '/':<44} {s['performance']:>4.0f} {s['tbt_ms']:>7} {s['kb']:>6} "
        f"{s['kb_no_images']:>7} {s['requests']:>4} {s['accessibility']:>4} "
        f"{s['best-practices']:>4} {s['seo']:>4}"
    )


row.first = True


def fmt_load(load: tuple[float, float, float]) -> str:
    return " ".join(f"{x:.2f}" for x in load)


if __name__ == "__main__":
    sys.exit(main())
