"""The build's one cache: what a fence printed and wrote, drawn figures, typeset formulas.

Entries are JSON files under ``.cache/``, named by a key
that hashes everything the entry was computed from, ``inputs_hash()`` among it: the package,
the build code that the pages' fences import (figures and their drawings, the explorers' export),
the data the pages read and torch's version. An edit to any of them makes new keys, so nothing
stale is ever read.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def folder() -> Path:
    return ROOT / ".cache"


def inputs_hash() -> str:
    """Hash of what the pages compute from (see the module's docstring)."""
    digest = hashlib.sha256(importlib.metadata.version("torch").encode())
    sources = [*ROOT.glob("encoder/**/*.py"), *ROOT.glob("docs_build/plots/*.py")]
    sources += [ROOT / "docs_build" / name for name in ("figures.py", "explorers.py")]
    sources.append(ROOT / "docs_build" / "diagrams" / "zh.json")  # a legend's Chinese
    for path in sorted([*sources, *ROOT.glob("docs/data/*")]):
        digest.update(f"\0{path.relative_to(ROOT).as_posix()}\0".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def key(*parts: str) -> str:
    """A cache key: the hash of ``parts``, each one after the other."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(f"\0{len(part)}\0{part}".encode())
    return digest.hexdigest()[:32]


def get(name: str) -> Any | None:
    path = folder() / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def put(name: str, value: Any) -> Any:
    """Store ``value`` under ``name``, atomically: a build running beside never reads half."""
    path = folder() / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(value), encoding="utf-8")
    tmp.replace(path)
    return value


def cached(name: str, compute: Callable[[], Any]) -> Any:
    value = get(name)
    return put(name, compute()) if value is None else value
