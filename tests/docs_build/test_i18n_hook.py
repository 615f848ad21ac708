"""docs_build/i18n.py's staleness banner, on a toy site and a toy notebook; the stamp script.

(The Chinese edition of the real site is tested in tests/site/test_i18n.py.)
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

from docs_build.run import Build

from docs_build import i18n

ROOT = Path(__file__).resolve().parents[2]

CONFIG = f"""\
site_name: toy
site_url: http://127.0.0.1:8000/
theme:
  name: material
  language: en
nav: [index.md, page.md]
extra:
  alternate:
    - {{name: English, link: /, lang: en}}
    - {{name: 中文, link: /zh/, lang: zh}}
markdown_extensions: [admonition, attr_list]
plugins: []
hooks: [{ROOT / "docs_build" / "i18n.py"}]
"""
ENGLISH = "# Page\n\nThe English page.\n"


def has_stale_banner(page_html: str) -> bool:
    return f'<p class="admonition-title">{i18n.STALE_TITLE}</p>' in page_html


def test_stale_banner_appears_only_when_the_hash_is_wrong(tmp_path: Path):
    docs = tmp_path / "docs"
    (docs / "zh").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    right = hashlib.sha256(ENGLISH.encode()).hexdigest()[:12]
    for name, recorded in (("index", right), ("page", "0123456789ab")):
        (docs / f"{name}.md").write_text(ENGLISH)
        (docs / "zh" / f"{name}.md").write_text(
            f"---\nsource_hash: {recorded}\n---\n\n# 页面\n\n中文。\n"
        )
    Build(tmp_path / "site", config=tmp_path / "mkdocs.yml").check()

    fresh = (tmp_path / "site" / "zh" / "index.html").read_text()
    assert not has_stale_banner(fresh)
    assert "中文" in fresh and '<html lang="zh"' in fresh

    stale = (tmp_path / "site" / "zh" / "page" / "index.html").read_text()
    banner = re.search(r'<div class="admonition warning">.*?</div>', stale, re.DOTALL)
    assert banner and i18n.STALE_TITLE in banner[0]
    assert 'href="../../page/"' in banner[0], "the banner links to the English page"
    # Under the title: the page keeps its own title.
    assert stale.index("<h1") < stale.index(i18n.STALE_TITLE)


def test_stale_banner_of_a_translated_notebook(tmp_path: Path):
    docs = tmp_path / "docs"
    (docs / "notebooks").mkdir(parents=True)
    (docs / "zh" / "notebooks").mkdir(parents=True)
    english = docs / "notebooks" / "nb.ipynb"
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
        {"cell_type": "code", "metadata": {}, "source": ["x = 1"], "outputs": []},
        {"cell_type": "markdown", "metadata": {}, "source": ["More."]},
    ]
    english.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}))
    translation = docs / "zh" / "notebooks" / "nb.md"
    for recorded, stale in ((i18n.source_hash(english), False), ("0" * 12, True)):
        translation.write_text(
            f"---\nsource_hash: {recorded}\n---\n# 标题\n<!-- cell -->\n更多。\n"
        )
        notebook = i18n.translated_notebook(english, translation, docs)
        sources = ["".join(c["source"]) for c in notebook["cells"]]
        assert sources[-3:] == ["# 标题", "x = 1", "更多。"]
        assert (i18n.STALE_TITLE in sources[0]) == stale


def test_stamp_script_checks_every_chinese_page():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "i18n_stamp.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    pages = len(list((ROOT / "docs" / "zh").rglob("*.md")))
    assert f"of {pages} Chinese pages are stale" in proc.stdout, proc.stdout + proc.stderr
