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
RUNS = re.compile(r'^[ \t]*```python exec="on"(?![^\n]*html="true")', re.MULTILINE)
WITH_CODE = sorted(
    p.name
    for p in DOCS.glob("*.md")
    if RUNS.search(p.read_text()) and "\nnotebook: false" not in p.read_text()
)


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
    assert not [c for c in code if "docs_build" in c], page  # the site's build code
    fences = RUNS.findall((DOCS / source).read_text())
    assert len(code) == len(fences), page  # the set-up cell, then one cell per fence
    prose = "\n".join(c["source"] for c in notebook["cells"] if c["cell_type"] == "markdown")
    assert not RESIDUE.findall(prose), page
    figures = re.findall(r"figures/[\w-]+\.svg", (DOCS / source).read_text())
    attached = [name for c in notebook["cells"] for name in c.get("attachments", {})]
    assert len(attached) == len(set(figures)), page
    if 'data-explorer="' in (DOCS / source).read_text():
        assert re.search(rf"(on the page|在页面上打开)\]\([^)]*/{page}\)", prose), page


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory) -> tuple[Path, Path | None]:
    """The folder of the ``jupyter`` to run notebooks with, and the repository their set-up
    cell installs the package from (None: it is installed already).

    With NOTEBOOK_VENV=1 (CI), a new venv holding what a reader brings (torch's CPU build,
    Jupyter) and not the package, and a bare clone of this repository's HEAD, from which the
    set-up cell installs it (the published notebooks install it from GitHub the same way).
    Otherwise the project's venv."""
    if not os.environ.get("NOTEBOOK_VENV"):
        return Path(sys.executable).parent, None
    tmp = tmp_path_factory.mktemp("fresh")
    venv, repo = tmp / "venv", tmp / "encoder.git"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-qq"]
    subprocess.run([*pip, os.environ.get("TORCH", "torch==2.13.0"), "nbconvert", "ipykernel"],
                   check=True)  # fmt: skip
    subprocess.run(["git", "clone", "-q", "--bare", DOCS.parent, repo], check=True)
    return venv / "bin", repo


# Every page's notebook in CI; one locally, where the pages' code ran as tests just before.
RUN = WITH_CODE if os.environ.get("NOTEBOOK_VENV") else ["layer-norm.md"]


@pytest.mark.parametrize("source", RUN)
def test_a_page_notebook_runs_from_top_to_bottom(site, jupyter, tmp_path, source: str):
    notebook, _ = notebook_of(site, site.url_path(source))
    folder, repo = jupyter
    if repo is not None:  # install from the clone, as the notebook does from GitHub
        setup = notebook["cells"][1]["source"]
        assert "pip" in setup and re.search(r"'git\+https://github\.com/[^']+\.git'", setup)
        notebook["cells"][1]["source"] = re.sub(r"'git\+[^']+'", repr(f"git+file://{repo}"), setup)
    path, out = tmp_path / "page.ipynb", tmp_path / "run.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    cmd = [folder / "jupyter", "nbconvert", "--to", "notebook", "--execute"]
    cmd += ["--ExecutePreprocessor.timeout=900", path, "--output", out]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    outputs = [o for c in json.loads(out.read_text())["cells"] for o in c.get("outputs", [])]
    assert not [o for o in outputs if o["output_type"] == "error"]
    assert len(outputs) >= 1
