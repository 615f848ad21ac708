"""'Run this page' in the run's build: every page whose code runs at build offers its notebook,
the page's fences in order, its figures embedded and nothing only the site understands; a
notebook page offers its own. Each is valid and runs in Jupyter (all of them in CI's fresh venv).
The download button itself is clicked in tests/site/browser/test_downloads.py."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from docs_build import fences

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
DOWNLOAD = re.compile(r'<a href="(?P<href>[^"]+\.ipynb)" download\b[^>]*data-run-notebook')
RESIDUE = re.compile(r"data-run-figure|\(run:|\{:|<div|<!--|--8<--|^(?:!!!|\?\?\?|===) ", re.M)
NOTEBOOK_FENCE = re.compile(r'python exec="on"(?!.*html="true")')  # none of the site's HTML


def runs(text: str) -> list[str]:
    """The code of the fences of ``text`` that its notebook runs."""
    return [f.code.strip("\n") for f in fences.parse(text) if NOTEBOOK_FENCE.match(f.info)]


MARKDOWN = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
WITH_CODE = sorted(n for n, md in MARKDOWN.items() if runs(md) and "\nnotebook: false" not in md)
NOTEBOOK_PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.ipynb"))


def url_path(src: str) -> str:  # as tests/site/conftest.py's
    stem = src.rsplit(".", 1)[0]
    return stem.removesuffix("index") if stem.split("/")[-1] == "index" else stem + "/"


# The source each page is built from: a Chinese page with no translation shows the English one.
SOURCE = {
    lang + url_path(s): DOCS / s
    for lang in ("zh/", "")
    for s in [p.relative_to(DOCS).as_posix() for p in [*DOCS.rglob("*.md"), *DOCS.rglob("*.ipynb")]]
    if not s.startswith("zh/") or not lang
}
# Every page that offers a notebook, in both languages: those with code, and the notebook pages.
OFFERED = sorted(
    {lang + url_path(s) for s in WITH_CODE for lang in ("", "zh/")}
    | {page for page, src in SOURCE.items() if src.suffix == ".ipynb"}
)


def notebook_of(site, page: str) -> tuple[dict, Path]:
    match = DOWNLOAD.search(site.html(page))
    assert match, f"{page}: no download button"
    path = site.dir / page / match["href"]
    return json.loads(path.read_text(encoding="utf-8")), path


def test_the_pages_that_offer_a_notebook(site):
    offering = [p for p in site.pages if DOWNLOAD.search(site.html(p))]
    assert offering == [p for p in site.pages if p in OFFERED]
    assert set(OFFERED) <= set(site.pages)


@pytest.mark.parametrize("offered", OFFERED)
def test_every_offered_notebook_is_valid_and_the_page_own(site, offered: str):
    """What the download button gives is a valid notebook, and it is this page's: a notebook
    page's own file, byte for byte; a Markdown page's fences in order, under its title. Never a
    notebook about another (one whose text holds a notebook's JSON)."""
    import nbformat

    notebook, path = notebook_of(site, offered)
    assert path.parent == site.dir / offered  # beside the page: the Colab button's path too
    nbformat.validate(nbformat.reads(path.read_text(encoding="utf-8"), as_version=4))
    text = "\n".join(c["source"] if isinstance(c["source"], str) else "".join(c["source"])
                     for c in notebook["cells"])  # fmt: skip
    assert '"cell_type"' not in text and '"nbformat"' not in text, offered
    source = SOURCE[offered]
    if source.suffix == ".ipynb":
        assert path.read_bytes() == source.read_bytes(), offered
        return
    title = re.search(r"<h1[^>]*>(.*?)</h1>", site.html(offered), re.DOTALL)[1]
    title = html.unescape(re.sub(r"<[^>]+>", "", title)).rstrip("¶").strip()
    assert notebook["cells"][0]["source"].startswith(f"# {title}\n"), offered
    code = [c["source"] for c in notebook["cells"] if c["cell_type"] == "code"]
    # After the set-up cell, the page's fences in order (a Chinese page includes the English's).
    assert code[1:] == runs(fences.expand(source.read_text(encoding="utf-8"))), offered


@pytest.mark.parametrize("source", WITH_CODE)
@pytest.mark.parametrize("lang", ["", "zh/"])
def test_the_page_notebook_is_the_page_without_the_site(site, source: str, lang: str):
    page = lang + site.url_path(source)
    notebook, _ = notebook_of(site, page)
    code = [c["source"] for c in notebook["cells"] if c["cell_type"] == "code"][1:]
    assert not [c for c in code if "docs_build" in c], page  # the site's build code
    prose = "\n".join(c["source"] for c in notebook["cells"] if c["cell_type"] == "markdown")
    assert not RESIDUE.findall(prose), page
    figures = re.findall(r"figures/[\w-]+\.svg", (DOCS / source).read_text())
    attached = [name for c in notebook["cells"] for name in c.get("attachments", {})]
    assert len(attached) == len(set(figures)), page
    if 'data-explorer="' in (DOCS / source).read_text():
        assert re.search(rf"(on the page|在页面上打开)\]\([^)]*/{page}\)", prose), page


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
