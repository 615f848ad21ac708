"""Run this page: every page that runs code can be downloaded as a notebook.

For each Markdown page with markdown-exec fences, the build writes ``<page>/<page>.ipynb`` beside
the page: a cell that installs the package when it is missing, then the page in order, its
executed fences as code cells and its prose as markdown cells. The page is read after
pymdownx.snippets expanded it, so a Chinese page's notebook holds the English page's code under
Chinese prose. Site-only markup goes (HTML comments and elements, ``{: #id }`` attributes,
admonition markers, which become bold titles); a figure is embedded as an attachment (its light
variant, as built); an explorer becomes a link to it on the page. The page shows a download button
beside its title (``overrides/partials/notebook.html``, from ``page.meta["notebook"]``) and, when
``repo_url`` is a GitHub repository, an "Open in Colab" button: Colab opens notebooks from GitHub,
and the Pages workflow pushes the built notebooks to the repository's ``notebooks`` branch.
A notebook page (mkdocs-jupyter) offers its own notebook the same way, its links to the site made
whole (``site_links``); ``notebook_for`` decides.
What a page's code needs beyond the package (its data), its front matter names, and the set-up
cell installs it as the site's build has it (``installs``).
"""

from __future__ import annotations

import base64
import json
import posixpath
import re
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urljoin

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from docs_build import fences, html, page_figures

RUNS = re.compile(r'\bexec="on"')
# A fence that prints HTML draws one of the site's figures or exports an explorer, with the
# site's build code (docs_build): the notebook embeds the figure and links the explorer instead.
SITE_ONLY = re.compile(r'\bhtml="true"')
BLOCK = re.compile(
    r'^(?P<indent>[ \t]*)(?:!!!|\?\?\?\+?|===)\s*(?:[\w-]+\s*)?(?:"(?P<title>[^"]*)")?\s*$',
    re.MULTILINE,
)
# What only the site reads: attribute lists ({: .class}, {#id}) and front matter.
RESIDUE = re.compile(r"\{:?\s*[#.][^}]*\}|^---\n.*?\n---\n", re.DOTALL | re.MULTILINE)
# A link to a page (another, or this one's section: "#anchor"), which the notebook needs whole.
LINK = re.compile(r"\]\((?!\))(?P<target>[^)\s:#]+\.(?:md|ipynb))?(?P<anchor>#[^)\s]*)?\)")
AUTOREF = re.compile(r"\[(?P<text>[^\]]+)\]\[(?P<id>encoder(?:\.\w+)*)\]")
SETUP = """\
# The code below needs the `encoder` package, PyTorch and NumPy. Install what is missing.
import importlib.util
import subprocess
import sys

needs = {{"encoder": {source!r}, "numpy": "numpy"}}{pypi}
missing = [package for module, package in needs.items() if not importlib.util.find_spec(module)]
if missing:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *missing], check=True)
{no_deps}{npm}"""
PYPI = "\nneeds |= {pins}  # what this page reads: its data, its libraries"
# A package whose declared dependencies the page does not need (a CUDA build of torch, say).
NO_DEPS = """
# Without its dependencies, which the code below does not need.
bare = {pins}
absent = [package for module, package in bare.items() if not importlib.util.find_spec(module)]
if absent:
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps"]
    subprocess.run([*pip, *absent], check=True)
"""
# A notebook's reader has Python, not necessarily npm: the cell fetches npm's packages itself.
NPM = """
# This page's data from npm, without npm: the tarball that the site's package-lock.json pins,
# unpacked where npm puts it. It is checked against the lock's sha512, as npm checks it, so the
# code reads the very text the page was built from, whichever server or proxy sent it.
import base64
import hashlib
import io
import tarfile
import urllib.request
from pathlib import Path
"""
PACKAGE = """
folder = Path({folder})
if not folder.is_dir():
    url = {url}
    tarball = urllib.request.urlopen(url).read()
    pinned = {integrity}
    if "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode() != pinned:
        raise ValueError(f"{{url}} is not the tarball package-lock.json pins ({{pinned}})")
    with tarfile.open(fileobj=io.BytesIO(tarball)) as tar:
        files = [member for member in tar if member.name.startswith("package/")]
        for member in files:  # npm's tarballs hold the package in package/
            member.name = member.name.removeprefix("package/")
        safe = {{"filter": "data"}} if hasattr(tarfile, "data_filter") else {{}}  # 3.10.12+
        tar.extractall(folder, files, **safe)
"""
INTRO = {
    "en": "The code of [{title}]({url}), in the order of the page, as the site ran it to build the "
    "page: run the cells from top to bottom.",
    "zh": "本笔记本收录[{title}]({url})页面上的全部代码，顺序与页面一致，正是构建网站时运行的代码："
    "请从上到下依次运行。",
}
EXPLORER_TEXT = {
    "en": "Interactive explorer: [open it on the page]({url}).",
    "zh": "交互式探索器：[在页面上打开]({url})。",
}


def without_markup(part: str, explorer: str) -> str:
    """Markdown ``part`` with each explorer's placeholder (an empty ``<div class="explorer"
    data-explorer="NAME">``) replaced by ``explorer``, and its other <div> tags (not their
    content) and its comments dropped: edits through the build's HTML parser."""
    edits = []
    for node in html.parse(part):
        if node.tag == "div" and "explorer" in node.classes() and node.attrs.get("data-explorer"):
            if node.inner == node.close:  # empty: a placeholder
                edits.append((node.start, node.end, explorer))
                continue
        if node.tag == "div":
            edits += [(node.start, node.inner, ""), (node.close, node.end, "")]
        elif node.tag == "#comment":
            edits.append((node.start, node.end, ""))
    return html.edit(part, edits)


def cells(text: str, link, figures: dict[str, bytes], lang: str) -> list:
    """The notebook cells of a page's Markdown (snippets expanded)."""
    out, at = [], 0
    explorer = EXPLORER_TEXT[lang].format(url=link("", ""))

    def prose(part: str) -> None:
        part = RESIDUE.sub("", without_markup(part, explorer))
        part = BLOCK.sub(lambda m: f"{m['indent']}**{m['title']}**" if m["title"] else "", part)
        part = AUTOREF.sub(lambda m: f"[{m['text']}]({link('api.md', '#' + m['id'])})", part)
        part = LINK.sub(lambda m: f"]({link(m['target'] or '', m['anchor'] or '')})", part)
        attachments = {}

        def embed(m: re.Match) -> str:
            svg = figures.get(m["name"])
            if svg is None:
                return f"*{m['alt']}*"
            attachments[f"{m['name']}.svg"] = {"image/svg+xml": base64.b64encode(svg).decode()}
            return f"![{m['alt']}](attachment:{m['name']}.svg)\n\n*{m['caption'] or ''}*"

        rows = page_figures.LINE.sub(embed, part).splitlines()
        part = re.sub(r"\n{3,}", "\n\n", "\n".join(row.strip() for row in rows)).strip()
        if part:
            out.append(new_markdown_cell(part))
            if attachments:
                out[-1].attachments = attachments

    lines = text.split("\n")
    for fence in fences.parse(text):
        prose("\n".join(lines[at : fence.start - 1]))
        at = fence.end
        if SITE_ONLY.search(fence.info):  # draws a figure (embedded below) or exports an
            if "_explorer" in fence.code:  # explorer, linked here
                prose(explorer)
            continue
        if RUNS.search(fence.info):
            out.append(new_code_cell(fence.code.strip("\n")))
        else:  # shown, not run: its lines as they are (prose() strips a block's indentation)
            lang_name = (fence.info.split() or [""])[0]
            out.append(new_markdown_cell(f"{fence.mark}{lang_name}\n{fence.code}\n{fence.mark}"))
    prose("\n".join(lines[at:]))
    return out


def notebook(page, config, site_dir: Path) -> nbformat.NotebookNode:
    src = page.file.src_uri
    lang = "zh" if src.startswith("zh/") else "en"
    site = config.site_url or "/"
    here = posixpath.dirname(src)

    def link(target: str, anchor: str) -> str:
        path = posixpath.normpath(posixpath.join(here, target)) if target else src
        url = re.sub(r"(index)?\.(md|ipynb)$", "", path).rstrip("/") + "/"
        return urljoin(site, url.removeprefix("./")) + anchor

    light = [p for p in (site_dir / "figures").glob("*.svg") if not p.stem.endswith("-dark")]
    figures = {p.stem: p.read_bytes() for p in light}
    if lang == "zh":
        figures |= {k.removesuffix("-zh"): v for k, v in figures.items() if k.endswith("-zh")}
    source = f"git+{config.repo_url.rstrip('/')}.git" if config.repo_url else "encoder"
    body = cells(_source(page, config), link, figures, lang)
    title = page.title  # the navigation's name, unless the page has a heading of its own
    if body and body[0].cell_type == "markdown" and body[0].source.startswith("# "):
        heading, _, rest = body[0].source.partition("\n")
        title, body[0].source = heading.removeprefix("# ").strip(), rest.strip() or "&nbsp;"
    intro = f"# {title}\n\n" + INTRO[lang].format(title=title, url=link("", ""))
    setup = SETUP.format(source=source, **installs(page, Path(config.config_file_path).parent))
    head = [new_markdown_cell(intro), new_code_cell(setup)]
    for n, cell in enumerate(head + body):
        cell.id = f"cell-{n}"
    kernel = {"display_name": "Python 3", "language": "python", "name": "python3"}
    meta = {"kernelspec": kernel, "language_info": {"name": "python"}}
    return new_notebook(cells=head + body, metadata=meta)


def installs(page, root: Path) -> dict[str, str]:
    """The set-up cell's lines that install what the page's code needs beyond the package, as
    its front matter names it (``notebook_needs: {pypi: [name], pypi_no_deps: [name], npm:
    [name]}``), at the versions the site's build ran with: PyPI's as installed (pyproject.toml's
    groups pin them), those of ``pypi_no_deps`` without their dependencies (``pip install
    --no-deps``), npm's as package-lock.json pins them. A page that names nothing gets the common
    cell. A PyPI package is found by its module, its name with ``_`` for ``-``."""
    needs = page.meta.get("notebook_needs") or {}
    lines = {"pypi": "", "no_deps": "", "npm": ""}
    for key, template in (("pypi", PYPI), ("pypi_no_deps", NO_DEPS)):
        if needs.get(key):
            pins = {n.replace("-", "_"): f"{n}=={version(n)}" for n in needs[key]}
            lines[key.replace("pypi_", "")] = template.format(pins=json.dumps(pins))
    if needs.get("npm"):
        lock = json.loads((root / "package-lock.json").read_text())["packages"]
        lines["npm"] = NPM
        for name in needs["npm"]:
            pin = lock[f"node_modules/{name}"]  # the registry's address of its tarball:
            url = f"https://registry.npmjs.org/{name}/-/{name.split('/')[-1]}-{pin['version']}.tgz"
            where = {"folder": f"node_modules/{name}", "url": url, "integrity": pin["integrity"]}
            lines["npm"] += PACKAGE.format(**{k: json.dumps(v) for k, v in where.items()})
    return lines


def _source(page, config) -> str:
    """The page's Markdown with its snippets in place, as the site's build puts them."""
    text = Path(page.file.abs_src_path).read_text(encoding="utf-8")
    return fences.expand(text, config.mdx_configs.get("pymdownx.snippets", fences.SNIPPETS))


GITHUB = re.compile(r"^https://github\.com/(?P<repo>[^/]+/[^/]+?)/?$")


def notebook_for(page, config) -> str | None:
    """The notebook ``page`` offers, by its file name beside the page; None: it offers none.

    The one place that decides: the buttons (``page.meta``) and the notebook written for a
    Markdown page (``on_post_page``) follow it. A notebook page offers its own notebook, which
    mkdocs-jupyter copies beside the page (``include_source``); a Markdown page whose code runs
    at build offers the notebook built from it, unless its front matter says ``notebook: false``.
    """
    src = page.file.src_uri
    if src.endswith(".ipynb"):
        copied = config.plugins["mkdocs-jupyter"].config["include_source"]
        return posixpath.basename(src) if copied else None
    code = [f for f in fences.parse(_source(page, config)) if RUNS.search(f.info)]
    if page.meta.get("notebook") is False or all(SITE_ONLY.search(f.info) for f in code):
        return None  # (a page whose only fences export explorers or draw: nothing to run)
    stem = posixpath.basename(posixpath.splitext(src)[0])
    return f"{stem if stem != 'index' else 'home'}.ipynb"


def colab_url(page, name: str | None, config) -> str | None:
    """Where Colab opens the page's notebook: the copy the Pages workflow pushes to the
    ``notebooks`` branch of a GitHub repository; None without a notebook or a GitHub repo."""
    github = GITHUB.match(config.repo_url or "")
    if not (name and github):
        return None
    path = posixpath.join(posixpath.dirname(page.file.dest_uri), name)
    return f"https://colab.research.google.com/github/{github['repo']}/blob/notebooks/{path}"


def write(page, config) -> None:
    """Write a Markdown page's notebook beside the page. Every page's fences have run by now
    (MkDocs renders every page before it writes any), and their figures are in the site, to be
    embedded. mkdocs-jupyter copies a notebook page's own notebook (before this, in its own
    ``on_post_page``), whose links to the site this points at the site's address."""
    name = page.meta.get("notebook")
    site_dir = Path(config.site_dir)
    path = site_dir / posixpath.dirname(page.file.dest_uri) / (name or "")
    if name and page.file.src_uri.endswith(".ipynb") and path.is_file():
        path.write_text(site_links(path.read_text(encoding="utf-8"), page, config), "utf-8")
    elif name and not page.file.src_uri.endswith(".ipynb"):
        path.parent.mkdir(parents=True, exist_ok=True)  # MkDocs writes the page after this
        # Each cell's source one string, not nbformat's list of lines: tests/site/test_notebooks.py
        # compares it with the page's fences.
        nbformat.write(notebook(page, config, site_dir), path, split_lines=False)


RELATIVE = re.compile(r"\]\((?P<target>(?![a-z][a-z0-9+.-]*:)[^)\s]+)\)")  # no scheme


def site_links(text: str, page, config) -> str:
    """A notebook page's notebook (its JSON ``text``) with the links of its markdown cells that
    are relative to the page (``../../positional-encoding/``) made whole with the site's address,
    as a Markdown page's notebook has them: they lead somewhere in a download or in Colab."""
    notebook = nbformat.reads(text, as_version=4)
    here = urljoin(config.site_url or "/", page.url)
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = RELATIVE.sub(lambda m: f"]({urljoin(here, m['target'])})", cell.source)
    return nbformat.writes(notebook) + "\n"
