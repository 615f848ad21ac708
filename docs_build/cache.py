"""Where the build keeps what it computed, and the one hash that says when to compute it again.

Drawn figures, executed notebooks and the outputs of the pages' code fences are kept under
``.cache/`` (``DOCS_CACHE`` names another folder: the test run builds with an empty one, so it
computes everything, as a fresh clone does). Every entry is keyed by ``package_hash`` of its own
inputs, so a change to the package, to the build's code, to the data the pages read or to torch
makes a new key.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cache_dir(name: str) -> Path:
    """The folder of one cache (``figures``, ``fences``, ...); not created."""
    return Path(os.environ.get("DOCS_CACHE") or ROOT / ".cache") / name


def package_hash(*inputs: str | bytes | Path) -> str:
    """16 hex digits of the SHA-256 of what the pages compute from, and of ``inputs``.

    That is ``encoder/``, ``docs_build/`` (the pages' code imports its plots and exporters),
    ``docs/data/`` (results the pages read, e.g. the benchmark's) and the version of torch;
    ``inputs`` add what one cache entry depends on besides (a file's bytes, a fence's code).
    """
    digest = hashlib.sha256(importlib.metadata.version("torch").encode())
    files = [
        *(ROOT / "encoder").rglob("*.py"),
        *(ROOT / "docs_build").rglob("*.py"),
        *(ROOT / "docs" / "data").glob("*"),
    ]
    for path in sorted(files):
        digest.update(f"\0{path.relative_to(ROOT).as_posix()}\0".encode())
        digest.update(path.read_bytes())
    for item in inputs:
        data = item.read_bytes() if isinstance(item, Path) else item
        data = data.encode() if isinstance(data, str) else data
        digest.update(f"\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()[:16]


_seen: list[str] = []  # the package hash of the previous build in this process


def package_changed() -> bool:
    """Whether the package changed since the previous build of this process.

    ``mkdocs serve`` rebuilds in one process, where the package stays imported: when it changed,
    its modules are forgotten, so that the pages' code imports the edited package, not the one
    imported at the first build.
    """
    now = package_hash()
    changed = bool(_seen) and _seen[-1] != now
    _seen[:] = [now]
    if changed:
        for name in [m for m in sys.modules if m.partition(".")[0] == "encoder"]:
            del sys.modules[name]
    return changed


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder (created when
    missing), so that a concurrent build never reads half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data.encode() if isinstance(data, str) else data)
    tmp.replace(path)
