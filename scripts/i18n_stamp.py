"""Record that a Chinese page is up to date with the English page it translates.

    python scripts/i18n_stamp.py docs/zh/positional-encoding.md [...]   # after updating them
    python scripts/i18n_stamp.py --check                               # which pages are stale

Each Chinese source under docs/zh/ has ``source_hash:`` in its front matter: the first 12 hex
digits of the SHA-256 of the English source it translates (``docs/<page>.md``, or for a
notebook's translation ``docs/notebooks/<name>.ipynb``). The build compares it with the English
source and, when they differ, opens the Chinese page with a warning (docs_build/i18n.py).
Stamp a page only once its translation says what the current English page says.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from docs_build.i18n import (
    DOCS,
    FRONT_MATTER,
    HASH_LINE,
    PREFIX,
    english_source,
    recorded_hash,
    source_hash,
)


def chinese_sources() -> list[Path]:
    return sorted((DOCS / PREFIX).rglob("*.md"))


def stamp(path: Path) -> str:
    """Write the current hash of the page's English source into its front matter."""
    zh_uri = path.resolve().relative_to(DOCS).as_posix()
    english = english_source(zh_uri)
    if not english.exists():
        raise SystemExit(f"{path}: no English source {english.relative_to(DOCS.parent)}")
    digest = source_hash(english)
    text = path.read_text()
    match = FRONT_MATTER.match(text)
    if match is None:
        text = f"---\nsource_hash: {digest}\n---\n\n{text}"
    elif HASH_LINE.search(match["yaml"]):
        yaml = HASH_LINE.sub(f"source_hash: {digest}", match["yaml"], count=1)
        text = f"---\n{yaml}---\n{text[match.end() :]}"
    else:
        text = f"---\n{match['yaml']}source_hash: {digest}\n---\n{text[match.end() :]}"
    path.write_text(text)
    return digest


def stale() -> list[tuple[Path, Path]]:
    """(Chinese source, English source) for every translation older than its English page."""
    out = []
    for path in chinese_sources():
        english = english_source(path.relative_to(DOCS).as_posix())
        if not english.exists() or recorded_hash(path.read_text()) != source_hash(english):
            out.append((path, english))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", type=Path, help="Chinese sources under docs/zh/")
    parser.add_argument("--check", action="store_true", help="list stale pages; exit 1 if any")
    args = parser.parse_args()
    if args.check:
        found = stale()
        for path, english in found:
            root = DOCS.parent
            print(f"stale: {path.relative_to(root)} (English: {english.relative_to(root)})")
        print(f"{len(found)} of {len(chinese_sources())} Chinese pages are stale")
        raise SystemExit(1 if found else 0)
    if not args.pages:
        parser.error("name the Chinese pages to stamp, or pass --check")
    for path in args.pages:
        print(f"{path}: source_hash {stamp(path)}")


if __name__ == "__main__":
    main()
