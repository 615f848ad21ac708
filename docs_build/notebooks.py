"""MkDocs hook: "run this page", every page that runs code can be downloaded as a notebook.

For each Markdown page with markdown-exec fences (```` ```python exec="on" ````), the build
writes ``<page>/<page>.ipynb`` beside the page (``attention/attention.ipynb``,
``zh/attention/attention.ipynb``): the page's executed fences, in order, as code cells, with
its headings and prose between them as markdown cells, after a cell that installs the
``encoder`` package when it is missing. The fences are read after pymdownx.snippets has
expanded the page (with the site's own snippet settings), so a Chinese page's notebook holds
the English page's code under Chinese prose, exactly the code the build ran for the page.
Nothing is committed: the notebooks are generated files of the build.

The page shows a download button beside its title (``overrides/partials/actions.html``), and
so do notebook pages (mkdocs-jupyter's ``include_source`` copies the notebook beside them).
"Open in Colab" (Colab opens notebooks that are in a GitHub repository) is offered for those
notebooks that are in the repository, when ``repo_url`` names a GitHub repository.
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

from docs_build.fences import RUNS

FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*?)\s*$")
LANGUAGE = re.compile(r"^\{?\s*\.?(?P<lang>[\w+-]+)")
CONTAINER = re.compile(
    r'^(?:!!!|\?\?\?\+?|===)\s*(?:(?P<kind>[\w-]+)\s*)?(?:"(?P<title>[^"]*)")?\s*$'
)
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
HEADING_ATTRS = re.compile(r"^(#{1,6} .*?)\s*\{[^}]*\}\s*$")
IMAGE = re.compile(r'!\[(?P<alt>[^\]]*)\]\((?P<path>[^)\s]+)(?:\s+"(?P<title>[^"]*)")?\)')
LINK = re.compile(r"\]\((?P<target>[^)\s:#]+\.md)(?P<anchor>#[^)\s]*)?\)")
AUTOREF = re.compile(r"\[(?P<text>[^\]]+)\]\[(?P<id>encoder(?:\.\w+)*)\]")

SETUP = """\
# The code below needs the `encoder` package (and PyTorch). Install it when it is missing.
import importlib.util
import subprocess
import sys

if importlib.util.find_spec("encoder") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", {source!r}], check=True)
"""
INTRO = {
    "en": (
        "The code of [{title}]({url}), in the order of the page: run the cells from top to "
        "bottom. It is the code the site ran to build the page."
    ),
    "zh": "本笔记本收录[{title}]({url})页面上的全部代码，顺序与页面一致：请从上到下依次运行。"
    "这正是构建网站时运行的代码。",
}


# --- reading a page --------------------------------------------------------------------------
def _cell(kind: str, source: str, n: int) -> dict:
    cell = {"cell_type": kind, "id": f"cell-{n}", "metadata": {}, "source": source}
    if kind == "code":
        cell |= {"execution_count": None, "outputs": []}
    return cell


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def page_cells(markdown: str, *, link) -> list[tuple[str, str]]:
    """("code" | "markdown", source) for a page's Markdown, snippets already expanded.

    ``link(target_md, anchor)`` turns a link to another page into a URL.
    """
    lines = FRONT_MATTER.sub("", COMMENT.sub("", markdown)).splitlines()
    cells: list[tuple[str, str]] = []
    prose: list[str] = []
    containers: list[int] = []  # indents of the bodies of the admonitions and tabs we are in

    def flush() -> None:
        text = "\n".join(prose).strip("\n")
        text = re.sub(r"\n{3,}", "\n\n", text)
        if text.strip():
            cells.append(("markdown", text))
        prose.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip():
            while containers and _indent(line) < containers[-1]:
                containers.pop()
        base = containers[-1] if containers else 0
        fence = FENCE_OPEN.match(line)
        if fence:
            indent, mark, info = fence["indent"], fence["fence"], fence["info"]
            close = re.compile(rf"^[ \t]*{re.escape(mark[0])}{{{len(mark)},}}[ \t]*$")
            j = i + 1
            while j < len(lines) and not close.match(lines[j]):
                j += 1
            body = "\n".join(
                ln[len(indent) :] if ln.startswith(indent) else ln.lstrip()
                for ln in lines[i + 1 : j]
            )
            lang = LANGUAGE.match(info)
            lang = lang["lang"] if lang else ""
            if lang in {"python", "py", "python3"} and RUNS.search(info):
                flush()
                cells.append(("code", body.strip("\n")))
            else:
                prose += ["", f"{mark}{lang}", body, mark, ""]
            i = j + 1
            continue
        stripped = line[base:] if _indent(line) >= base else line.lstrip()
        container = CONTAINER.match(stripped.strip())
        if container and stripped.strip()[:3] in {"!!!", "???", "==="}:
            title = container["title"] or (container["kind"] or "").capitalize()
            prose += ["", f"**{title}**" if title else "", ""]
            containers.append(_indent(line) + 4)
            i += 1
            continue
        heading = HEADING_ATTRS.match(stripped)
        if heading:
            stripped = heading[1]
        stripped = IMAGE.sub(lambda m: _image(m, link), stripped)
        stripped = AUTOREF.sub(
            lambda m: f"[{m['text']}]({link('api.md', '#' + m['id'])})", stripped
        )
        stripped = LINK.sub(lambda m: f"]({link(m['target'], m['anchor'] or '')})", stripped)
        prose.append(stripped)
        i += 1
    flush()
    return cells


def _image(match: re.Match, link) -> str:
    path = match["path"]
    if urlsplit(path).scheme:
        return match[0]
    return f"![{match['alt']}]({link(path, '')})"


# --- the notebook ----------------------------------------------------------------------------
def notebook(cells: list[tuple[str, str]], *, title: str, url: str, lang: str, source: str) -> dict:
    """An nbformat 4.5 notebook: an introduction, the set-up cell, then the page's cells."""
    head = [
        ("markdown", f"# {title}\n\n" + INTRO.get(lang, INTRO["en"]).format(title=title, url=url)),
        ("code", SETUP.format(source=source)),
    ]
    return {
        "cells": [_cell(kind, src, n) for n, (kind, src) in enumerate([*head, *cells])],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def expand_snippets(markdown: str, config) -> str:
    """The page as pymdownx.snippets hands it to the rest of Markdown, with the site's settings."""
    import markdown as md

    settings = config.mdx_configs.get("pymdownx.snippets", {})
    parser = md.Markdown(
        extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": settings}
    )
    return "\n".join(parser.preprocessors["snippet"].run(markdown.splitlines()))


def notebook_uri(src_uri: str) -> str:
    """Where a page's notebook goes: beside the page's index.html (use_directory_urls)."""
    stem = posixpath.splitext(src_uri)[0]
    if posixpath.basename(stem) == "index":
        return f"{stem}.ipynb"
    return f"{stem}/{posixpath.basename(stem)}.ipynb"


def package_source(repo_url: str | None) -> str:
    """What pip installs the package from: the repository, or PyPI's name when none is set."""
    if repo_url and urlsplit(repo_url).netloc:
        return f"git+{repo_url.rstrip('/')}.git"
    return "encoder"


GITHUB = re.compile(r"^https://github\.com/(?P<repo>[^/]+/[^/]+?)/?$")


def colab_url(repo_url: str | None, edit_uri: str | None, repo_path: str) -> str | None:
    """Colab's address of a notebook of the repository (Colab reads it from GitHub)."""
    github = GITHUB.match(repo_url or "")
    branch = re.match(r"(?:edit|blob)/(?P<branch>[^/]+)/", edit_uri or "")
    if not github or not branch:
        return None
    return (
        f"https://colab.research.google.com/github/{github['repo']}/blob/{branch['branch']}/"
        f"{repo_path}"
    )


_NOTEBOOKS: dict[str, str] = {}  # page src_uri -> its notebook's URI, for on_page_markdown


@event_priority(-110)  # after mkdocs-static-i18n (-100): it takes no generated file
def on_files(files: Files, config) -> Files:
    _NOTEBOOKS.clear()
    for file in list(files.documentation_pages()):
        if not file.src_uri.endswith(".md") or file.abs_src_path is None:
            continue
        text = Path(file.abs_src_path).read_text(encoding="utf-8")
        if not RUNS.search(text) and "--8<--" not in text:
            continue
        cells = page_cells(expand_snippets(text, config), link=_linker(file, files, config))
        if not any(kind == "code" for kind, _ in cells):
            continue
        title = file.src_uri
        if cells[0][0] == "markdown" and cells[0][1].startswith("# "):
            first, _, rest = cells[0][1].partition("\n")
            title = first[2:].strip()
            if rest.strip():
                cells[0] = ("markdown", rest.strip())
            else:
                cells.pop(0)
        uri = notebook_uri(file.src_uri)
        nb = notebook(
            cells,
            title=title,
            url=_linker(file, files, config)(posixpath.basename(file.src_uri), ""),
            lang="zh" if file.src_uri.startswith("zh/") else "en",
            source=package_source(config.repo_url),
        )
        text = json.dumps(nb, ensure_ascii=False, indent=1) + "\n"
        files.append(File.generated(config, uri, content=text))
        _NOTEBOOKS[file.src_uri] = uri
    return files


def _linker(file: File, files: Files, config):
    """Links of a page, made absolute (the notebook is read away from the site)."""
    site = config.site_url or "/"
    here = posixpath.dirname(file.src_uri)

    def link(target: str, anchor: str) -> str:
        path = posixpath.normpath(posixpath.join(here, target))
        found = files.get_file_from_path(path)
        return urljoin(site, found.url if found is not None else path) + anchor

    return link


def on_page_markdown(markdown: str, page, config, files) -> str:
    """What the page's download and Colab buttons link to (``partials/actions.html``)."""
    uri = _NOTEBOOKS.get(page.file.src_uri)
    if uri is not None:
        page.run_notebook = posixpath.basename(uri)  # beside the page
    elif page.file.src_uri.endswith(".ipynb"):
        page.run_notebook = posixpath.basename(page.file.abs_src_path or page.file.src_uri)
        repo_path = "docs/" + (page.file.edit_uri or page.file.src_uri)
        if (
            repo_path.endswith(".ipynb")
            and (Path(config.config_file_path).parent / repo_path).exists()
        ):
            page.colab = colab_url(config.repo_url, config.edit_uri, repo_path)
    return markdown


# --- notebook pages (mkdocs-jupyter) ---------------------------------------------------------
# Parts that are not the notebook's text: the copy button ("Copied!"), the prompts ("In [1]:")
# and the headings' anchor links ("¶"). Material's search plugin skips elements marked
# data-search-exclude, then strips the attribute.
NOT_TEXT = re.compile(
    r'<(?P<tag>div|a) class="(?P<cls>zeroclipboard-container|jp-InputPrompt[^"]*'
    r'|jp-OutputPrompt[^"]*|anchor-link)"'
)
# nbconvert's Mermaid loader: it imports Mermaid from a CDN when the notebook has a diagram
# (none does: tests/test_site_build.py), and is a module script the page does not need.
MERMAID = re.compile(
    r'<script type="module">\s*document\.addEventListener\("DOMContentLoaded", async \(\) => \{'
    r"\s*const diagrams = document\.querySelectorAll\(\"\.jp-Mermaid.*?</script>"
    r"\s*(?:<!-- End of mermaid configuration -->)?",
    re.DOTALL,
)
STYLE = re.compile(r"(<style[^>]*>)(.*?)(</style>)", re.DOTALL)
CLASS_ATTR = re.compile(r'\bclass="([^"]*)"')


def on_page_content(html: str, page, config, files) -> str:
    if not page.file.src_uri.endswith(".ipynb"):
        return html
    html = MERMAID.sub(
        "", NOT_TEXT.sub(r'<\g<tag> class="\g<cls>" data-search-exclude="chrome"', html)
    )
    # mkdocs-jupyter inlines JupyterLab's whole stylesheet (575 kB) into every notebook page;
    # keep the rules that can match an element of this page.
    classes = {c for attr in CLASS_ATTR.findall(html) for c in attr.split()}
    return STYLE.sub(
        lambda m: m[1] + prune_css(m[2], classes) + m[3] if len(m[2]) > 20_000 else m[0], html
    )


NOT = re.compile(r":not\((?:[^()]|\([^()]*\))*\)")
# The document's root or body below another element (".jupyter-wrapper :root"): matches nothing.
ROOT_BELOW = re.compile(r"\s(?::root|html|body)\b")
CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")


def prune_css(css: str, classes: set[str]) -> str:
    """The rules of ``css`` whose selectors can match, given the classes present in the page.

    A selector is kept when every class it requires (outside ``:not(...)``) is present; the
    rest can match no element of the page (nothing here adds classes at run time), so the
    page looks the same. @media and @supports blocks are pruned inside; other at-rules stay.
    """
    return "".join(_prune(_parse(css), frozenset(classes)))


def _prune(rules: tuple, classes: frozenset[str]) -> list[str]:
    out = []
    for kind, head, body in rules:
        if kind == "rule":
            keep = [
                s
                for s in head
                if set(CLASS.findall(NOT.sub("", s))) <= classes and not ROOT_BELOW.search(s)
            ]
            if keep:
                out.append(",".join(keep) + "{" + body + "}")
        elif kind == "block":
            inner = _prune(body, classes)
            if inner:
                out.append(head + "{" + "".join(inner) + "}")
        else:
            out.append(head)
    return out


@functools.lru_cache(maxsize=4)
def _parse(css: str) -> tuple:
    """("rule", selectors, declarations) | ("block", "@media ...", rules) | ("raw", text, None)."""
    import tinycss2

    out = []
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type == "qualified-rule":
            selectors = _split_selectors(tinycss2.serialize(rule.prelude))
            out.append(("rule", selectors, tinycss2.serialize(rule.content)))
        elif rule.type == "at-rule":
            head = f"@{rule.at_keyword}{tinycss2.serialize(rule.prelude)}"
            if rule.content is None:
                out.append(("raw", head + ";", None))
            elif rule.lower_at_keyword in {"media", "supports"}:
                out.append(("block", head, _parse(tinycss2.serialize(rule.content))))
            else:
                out.append(("raw", head + "{" + tinycss2.serialize(rule.content) + "}", None))
    return tuple(out)


def _split_selectors(prelude: str) -> list[str]:
    """A selector list split at its top-level commas."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(prelude):
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            parts.append(prelude[start:i].strip())
            start = i + 1
    parts.append(prelude[start:].strip())
    return [p for p in parts if p]
