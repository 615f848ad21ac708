"""'Run this page' in the run's build: every page whose code runs at build has its notebook
(docs_build/notebooks.py), holding the page's fences in order, its figures embedded and nothing
that only the site understands; and a notebook runs from top to bottom in Jupyter."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOWNLOAD = re.compile(r'<a href="(?P<href>[^"]+\.ipynb)" download\b[^>]*data-run-notebook')
RESIDUE = re.compile(r"data-run-figure|\(run:|\{:|<div|<!--|--8<--|^(?:!!!|\?\?\?|===) ", re.M)
RUNS = re.compile(r'^[ \t]*```python exec="on"', re.MULTILINE)
WITH_CODE = sorted(p.name for p in DOCS.glob("*.md") if RUNS.search(p.read_text()))


def notebook_of(site, page: str) -> tuple[dict, Path]:
    match = DOWNLOAD.search(site.html(page))
    assert match, f"{page}: no download button"
    path = site.dir / page / match["href"]
    return json.loads(path.read_text(encoding="utf-8")), path


@pytest.mark.parametrize("source", WITH_CODE)
@pytest.mark.parametrize("lang", ["", "zh/"])
def test_the_page_notebook_is_the_page_without_the_site(site, source: str, lang: str):
    page = lang + site.url_path(source)
    notebook, _ = notebook_of(site, page)
    code = [c["source"] for c in notebook["cells"] if c["cell_type"] == "code"][1:]
    fences = RUNS.findall((DOCS / source).read_text())
    assert len(code) == len(fences), page  # the set-up cell, then one cell per fence
    prose = "\n".join(c["source"] for c in notebook["cells"] if c["cell_type"] == "markdown")
    assert not RESIDUE.findall(prose), page
    figures = re.findall(r"figures/[\w-]+\.svg", (DOCS / source).read_text())
    attached = [name for c in notebook["cells"] for name in c.get("attachments", {})]
    assert len(attached) == len(set(figures)), page
    if 'data-explorer="' in (DOCS / source).read_text():
        assert re.search(rf"(on the page|在页面上打开)\]\([^)]*/{page}\)", prose), page


def _fresh_venv(tmp_path: Path) -> tuple[Path, Path]:
    """A new venv holding what a reader brings (torch's CPU build, Jupyter), not the package;
    and a bare clone of this repository's HEAD, where the notebook's set-up cell installs the
    package from (the published notebooks install it from GitHub the same way)."""
    venv, repo = tmp_path / "venv", tmp_path / "encoder.git"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-qq"]
    subprocess.run([*pip, os.environ.get("TORCH", "torch==2.13.0"), "nbconvert", "ipykernel"],
                   check=True)  # fmt: skip
    subprocess.run(["git", "clone", "-q", "--bare", DOCS.parent, repo], check=True)
    return venv / "bin", repo


def test_a_page_notebook_runs_from_top_to_bottom(site, tmp_path):
    """In the project's venv; with NOTEBOOK_VENV=1 (CI), in a fresh venv where the notebook
    installs the package itself, as a reader's Jupyter or Colab does."""
    notebook, _ = notebook_of(site, "layer-norm/")
    python = Path(sys.executable).parent
    if os.environ.get("NOTEBOOK_VENV"):
        python, repo = _fresh_venv(tmp_path)
        setup = notebook["cells"][1]["source"]
        assert "pip" in setup and re.search(r"'git\+https://github\.com/[^']+\.git'", setup)
        notebook["cells"][1]["source"] = re.sub(r"'git\+[^']+'", repr(f"git+file://{repo}"), setup)
    path, out = tmp_path / "page.ipynb", tmp_path / "run.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    cmd = [python / "jupyter", "nbconvert", "--to", "notebook", "--execute"]
    done = subprocess.run([*cmd, path, "--output", out], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    outputs = [o for c in json.loads(out.read_text())["cells"] for o in c.get("outputs", [])]
    assert not [o for o in outputs if o["output_type"] == "error"]
    assert len(outputs) >= 5
