"""A second process for the pages' code: the build's other core runs fences too.

MkDocs renders pages one after another, and the pages' code (the Train page trains for half a
minute) runs while its page is rendered, on one core. So a build of several pages with code,
on a cold cache (``docs_build/fences.py``), starts this worker, which renders pages *from the
end* of the build's order while the build renders them from the start:

- Each side **claims** a page before rendering it (a file created with ``O_EXCL`` in a folder
  of the build's): the worker stops at the first page the build has claimed, so the two meet in
  the middle and no page runs twice.
- The worker converts a page's Markdown with the build's own extensions and formatter (it loads
  ``mkdocs.yml`` and runs the plugins' ``on_config``), so its fences run in the same sessions,
  under the same cache keys, and land in the same cache as the build's would.
- When the build reaches a page the worker claimed, it waits until the worker is done with it
  (or has died), then finds the output of every fence in the cache. The worker leaves its record
  of the page (what ran, how long) beside its claim, for the build's record.

Only pages whose own Markdown runs code are shared out: a Chinese page shows the fences of its
English page, from the cache.

    python -m docs_build.fence_worker CONFIG CLAIMS PAGE...   # PAGE: a src_uri, last page first
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import markdown
from mkdocs.config import load_config

FENCES = Path(__file__).resolve().with_name("fences.py")


def claim(claims: Path, src_uri: str) -> bool:
    """Claim ``src_uri`` for this process; False if the other side has."""
    try:
        os.close(os.open(claims / _name(src_uri), os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True


def start(config_file: str, claims: Path, pages: list[str]) -> subprocess.Popen:
    """Start the worker on ``pages`` (in the build's order; it takes them from the end)."""
    return subprocess.Popen(
        [sys.executable, "-m", __spec__.name, config_file, str(claims), *reversed(pages)],
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,  # a fence that fails here runs again in the build, which logs it
    )


def wait_for(worker: subprocess.Popen, claims: Path, src_uri: str) -> dict | None:
    """Wait until the worker is done with the page it claimed; its record of the page, or None
    if it died first (the build then runs what is not in the cache itself)."""
    done = _done(claims, src_uri)
    while not done.exists():
        if worker.poll() is not None and not done.exists():
            return None
        time.sleep(0.05)
    return json.loads(done.read_text())


def _name(src_uri: str) -> str:
    return src_uri.replace("/", "__")


def _done(claims: Path, src_uri: str) -> Path:
    """Where the worker leaves its record of a page it has finished."""
    return claims / f"{_name(src_uri)}.json"


def main(config_file: str, claims: Path, pages: list[str]) -> None:
    config = load_config(config_file)
    config = config.plugins.on_config(config)  # markdown-exec's fences, with fences.py's cache
    # The instance of docs_build/fences.py that MkDocs loaded as a hook holds the formatter.
    hook = next(
        p for p in config.plugins.values() if Path(getattr(p, "__file__", "")).resolve() == FENCES
    )
    for src_uri in pages:
        if not claim(claims, src_uri):
            return
        hook.begin_page(src_uri)
        md = markdown.Markdown(
            extensions=config.markdown_extensions, extension_configs=config.mdx_configs
        )
        md.convert((Path(config.docs_dir) / src_uri).read_text(encoding="utf-8"))
        done = _done(claims, src_uri)
        done.with_suffix(".tmp").write_text(json.dumps(hook.page_record()))
        done.with_suffix(".tmp").rename(done)  # whole, or not there


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), sys.argv[3:])
