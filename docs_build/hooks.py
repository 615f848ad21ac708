"""MkDocs hooks: figures drawn from the package at build time, and the footer's build stamp.

Figures. A page writes one Markdown image on a line of its own, with the caption as title:

    ![Alt text for screen readers.](figures/pe-heatmap.svg "Caption under the figure.")

``figures/NAME.svg`` is produced at build by ``docs_build.figures.FIGURES[NAME]`` (a matplotlib
drawing from the package) or from the SVG source ``docs_build/diagrams/NAME.svg``, in a light
and a dark variant; the hook turns the line into a <figure> that shows the variant of the
current colour scheme. Nothing drawn is committed, so nothing drawn can go stale.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import platform
import re
import subprocess
import sys
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the hook runs before `encoder` and `docs_build` are importable

from docs_build import figures  # noqa: E402

FIGURE_LINE = re.compile(
    r"^(?P<indent>[ \t]*)!\[(?P<alt>[^\]]+)\]\((?P<path>(?:\.\./)*figures/(?P<name>[\w-]+))\.svg"
    r'\s+"(?P<caption>[^"]+)"\)\s*$',
    re.MULTILINE,
)


def on_config(config):
    import torch

    import encoder

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    # mkdocs-jupyter caches executed notebooks by the notebook's bytes only: key its cache on
    # the package too, so a change to encoder/ re-executes them (and serve stays fast).
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:
        jupyter.config["cache_dir"] = str(ROOT / ".cache" / "mkdocs-jupyter" / _package_hash())
    config.extra["build_stamp"] = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "encoder": encoder.__version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "commit": commit,
    }
    return config


def _package_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted((ROOT / "encoder").glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def on_files(files: Files, config) -> Files:
    _expire_pages_older_than_the_code(files)
    for name, variants in figures.render_all().items():
        for suffix, svg in variants.items():
            uri = f"figures/{name}{suffix}.svg"
            files.append(File.generated(config, uri, content=svg))
    return files


def _expire_pages_older_than_the_code(files: Files) -> None:
    """Under `mkdocs serve --dirty`, rebuild every page when the package or the build changed.

    Dirty builds rebuild only pages whose source is newer than their output, but every page
    runs or includes `encoder/`: deleting outputs older than the code makes them rebuild.
    """
    code = [*(ROOT / "encoder").glob("*.py"), *(ROOT / "docs_build").rglob("*.py")]
    newest = max(path.stat().st_mtime for path in code)
    for file in files.documentation_pages():
        out = Path(file.abs_dest_path)
        if out.exists() and out.stat().st_mtime < newest:
            out.unlink()


def _figure_html(match: re.Match) -> str:
    indent, alt, path, name, caption = match.group("indent", "alt", "path", "name", "caption")
    if name not in figures.names():
        raise ValueError(f"figure {name!r} is neither in FIGURES nor in docs_build/diagrams/")
    lines = [
        '<figure markdown="span" class="figure">',
        f"![{alt}]({path}.svg#only-light){{ loading=lazy }}",
        f"![{alt}]({path}-dark.svg#only-dark){{ loading=lazy }}",
        f"<figcaption>{caption}</figcaption>",
        "</figure>",
    ]
    return "\n".join(indent + line for line in lines)


def on_page_markdown(markdown: str, page, config, files) -> str:
    return FIGURE_LINE.sub(_figure_html, markdown)


# markdown-exec renders `result="text"` as a text block even when the code printed nothing.
EMPTY_RESULT = re.compile(
    r'<div class="language-text highlight"><pre><span></span><code>'
    r'<span id="__span-\d+-1"><a id="__codelineno-\d+-1" name="__codelineno-\d+-1" '
    r'href="#__codelineno-\d+-1"></a>\n</span></code></pre></div>'
)


def on_page_content(html: str, page, config, files) -> str:
    return EMPTY_RESULT.sub("", html)


# nbconvert's template (used by mkdocs-jupyter) writes a MathJax 2 loader into every notebook
# page: an empty <script src=""> (no CDN here) and a script calling MathJax.Hub.Config. Notebook
# math is typeset at build (docs_build/typeset.py); no MathJax runs in the browser. Inert on a
# full load, the snippet runs when instant navigation swaps a notebook page in: "Cannot read
# properties of undefined (reading 'Config')" (found by tests/browser). Drop it.
NBCONVERT_MATHJAX2 = re.compile(
    r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.DOTALL
)


def on_post_page(output: str, page, config) -> str:
    if page.file.src_uri.endswith(".ipynb"):
        output = NBCONVERT_MATHJAX2.sub("", output)
    return output
