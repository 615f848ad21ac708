"""MkDocs hooks: figures drawn from the package at build time, the footer's build stamp, and
what `mkdocs serve --dirty` rebuilds.

Figures. A page writes one Markdown image on a line of its own, with the caption as title:

    ![Alt text for screen readers.](figures/pe-heatmap.svg "Caption under the figure.")

``figures/NAME.svg`` is produced at build by the drawing ``NAME`` of ``docs_build/plots/`` (a
matplotlib figure of the package) or from the SVG source ``docs_build/diagrams/NAME.svg``, in a
light and a dark variant; the hook turns the line into a <figure> that shows the variant of the
current colour scheme. Nothing drawn is committed, so nothing drawn can go stale.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

from docs_build import cache, figures, i18n

ROOT = Path(__file__).resolve().parent.parent

FIGURE_LINE = re.compile(
    r"^(?P<indent>[ \t]*)!\[(?P<alt>(?:[^][\n]|\[[^][\n]*\])+)\]"  # alt may hold "E[ids]"
    r"\((?P<path>(?:\.\./)*figures/(?P<name>[\w-]+))\.svg"
    r'\s+"(?P<caption>[^"]+)"\)\s*$',
    re.MULTILINE,
)


# A figure that FIGURE_LINE did not turn into the light, dark and phone variants (their links
# carry #only-light / #only-dark): the strict build fails rather than show it in one variant.
UNSHOWN_FIGURE = re.compile(r"\]\((?:\.\./)*figures/[\w-]+\.svg[\s)]")
log = logging.getLogger("mkdocs.hooks")


class State:
    package = ""  # cache.package_hash() of the previous build of this process (`mkdocs serve`)
    package_changed = False  # since then


# The log keeps what an author acts on. Quieted: jieba's four lines as it loads the dictionary of
# the Chinese search index; the plugins' per-file notes (i18n's overrides, the notebooks' cache
# hits and copies); and, for `serve --dirty` (the Makefile's choice, see the README), MkDocs'
# notice that a dirty build is inaccurate and its advice to clean the folder it serves from.
QUIET = ("jieba", "mkdocs.plugins.mkdocs_static_i18n", "mkdocs.plugins.mkdocs_jupyter")
DIRTY_NOTICES = ("A 'dirty' build is being performed", "The directory contains stale files")


def on_startup(command: str, dirty: bool) -> None:
    for name in QUIET:
        logging.getLogger(name).setLevel(logging.WARNING)
    if dirty:
        logging.getLogger("mkdocs.commands.build").addFilter(
            lambda record: not record.getMessage().startswith(DIRTY_NOTICES)
        )


@event_priority(-110)  # after mkdocs-static-i18n (-100), which sets each edition's language
def on_config(config):
    # mkdocstrings adds its stylesheet at each on_config: once more per language built.
    config.extra_css[:] = dict.fromkeys(config.extra_css)
    package = cache.package_hash()
    State.package_changed = State.package not in ("", package)
    State.package = package
    if State.package_changed:  # `mkdocs serve`: the pages' code imports the edited package
        for name in [m for m in sys.modules if m.partition(".")[0] == "encoder"]:
            del sys.modules[name]
    import torch

    import encoder

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    # mkdocs-jupyter caches executed notebooks by the notebook's bytes only, and each build
    # deletes the entries it did not use: a folder per package (a change to encoder/ re-executes
    # them, and serve stays fast) and per language (one edition's build keeps the other's).
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:
        folder = cache.folder() / "mkdocs-jupyter" / package / config.theme["language"]
        jupyter.config["cache_dir"] = str(folder)
    # mkdocs-jupyter's kernels would each log ipykernel's notice that they talk over local TCP
    # unencrypted, which a reader of the build's log can do nothing about: their IPython profile
    # (a folder of the cache) logs errors only.
    profile = cache.folder() / "ipython" / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "ipython_kernel_config.py").write_text("c.IPKernelApp.log_level = 'ERROR'\n")
    os.environ.setdefault("IPYTHONDIR", str(profile.parent))
    config.extra["build_stamp"] = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "encoder": encoder.__version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "commit": commit,
    }
    return config


@event_priority(-110)  # after mkdocs-static-i18n (-100): it takes no generated file
def on_files(files: Files, config) -> Files:
    _expire_pages(files)
    for name, variants in figures.render_all().items():
        for suffix, svg in variants.items():
            uri = f"figures/{name}{suffix}.svg"
            files.append(File.generated(config, uri, content=svg))
    return files


API_DIRECTIVE = re.compile(r"^::: ", re.MULTILINE)  # mkdocstrings renders an object here


def _expire_pages(files: Files) -> None:
    """Pages `mkdocs serve --dirty` must rebuild besides the edited one.

    A dirty build rebuilds only the pages whose output is older than their source (or missing).
    Every page runs or includes the package: when it changed, every page is rebuilt. The pages
    of the API reference are rebuilt each time: they define the targets of the cross-references
    (`[X][encoder.X]`) that an edited page resolves.
    """
    for file in files.documentation_pages():
        if State.package_changed or API_DIRECTIVE.search(file.content_string):
            Path(file.abs_dest_path).unlink(missing_ok=True)


def _figure_html(match: re.Match, page, eager: bool = False) -> str:
    indent, alt, path, caption = match.group("indent", "alt", "path", "caption")
    images = [
        f"![{alt}]({path}.svg#only-light)" + ("" if eager else "{ loading=lazy }"),
        f"![{alt}]({path}-dark.svg#only-dark){{ loading=lazy }}",
    ]
    links = _box_links(match["name"], page)
    if links:  # the boxes of the drawing that open a page: links laid over the image
        images = ['<span class="figure-map">', *images, *links, "</span>"]
    lines = [
        '<figure markdown="span" class="figure">',
        *images,
        f"<figcaption>{caption}</figcaption>",
        "</figure>",
    ]
    return "\n".join(indent + line for line in lines)


def _box_links(name: str, page) -> list[str]:
    """A transparent link over each box of the diagram that opens a page (figures.box_links),
    named as the box is, in the page's language. A box that opens the page itself links nowhere."""
    within = page.file.src_uri.removeprefix(i18n.LANG + "/")  # the page, from its language's root
    up = "../" * within.count("/")
    links = []
    for target, label, (left, top, width, height) in figures.box_links(name):
        if target == within:
            continue
        where = f"left:{left}%;top:{top}%;width:{width}%;height:{height}%"
        label = label.replace('"', "&quot;")
        links.append(f'[]({up}{target}){{ .figure-link aria-label="{label}" style="{where}" }}')
    return links


def on_page_markdown(markdown: str, page, config, files) -> str:
    # The page's first figure is often its largest paint, near the top: its light variant (the
    # default scheme) loads at once; the others when they come near the viewport.
    first = iter([True])
    markdown = FIGURE_LINE.sub(lambda m: _figure_html(m, page, eager=next(first, False)), markdown)
    for left in UNSHOWN_FIGURE.finditer(markdown):  # a figure line the pattern above missed
        where = page.file.src_uri
        log.warning("%s: a figure not on a line of its own with a caption: %s", where, left[0])
    return markdown


# markdown-exec renders `result="text"` as a text block even when the code printed nothing.
EMPTY_RESULT = re.compile(
    r'<div class="language-text highlight"><pre><span></span><code>\n</code></pre></div>'
)


# Pygments wraps every name and every run of spaces of a code block in a span (class "n", "w");
# Material's theme gives them the code's own colour, so they draw exactly what their text alone
# draws. They are a sixth of the elements of a long page (1,500 on Multi-Head Attention), and
# each is one more node to parse, style and lay out: their text stays, the spans go. Not on
# notebook pages, whose stylesheet (Jupyter's) colours names.
PLAIN_TOKEN = re.compile(r'<span class="[nw]">([^<]*)</span>')


# What a fence printed (tensors, shapes, numbers) only adds noise to search results: Material's
# search skips a block marked data-search-exclude. The code stays searchable. The indexes,
# gzipped: English 106 -> 98 kB, Chinese 130 -> 121 kB.
RESULT = '<div class="language-text highlight">'


def on_page_content(html: str, page, config, files) -> str:
    html = EMPTY_RESULT.sub("", html).replace(RESULT, RESULT[:-1] + " data-search-exclude>")
    if page.file.src_uri.endswith(".md"):
        html = PLAIN_TOKEN.sub(r"\1", html)
    return html


# nbconvert's template (used by mkdocs-jupyter) writes a MathJax 2 loader into every notebook
# page: an empty <script src=""> (no CDN here) and a script calling MathJax.Hub.Config. Notebook
# math is typeset at build (docs_build/typeset.py); no MathJax runs in the browser, and the
# snippet only asks for what the page does not have. Drop it.
NBCONVERT_MATHJAX2 = re.compile(
    r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.DOTALL
)


# A figure's <img> gets the drawing's size as width and height, so the browser reserves its box
# before the (lazy) image arrives: without them the text below jumps down when it does
# (Lighthouse's layout shift: 0.19 on the Encoder page). Extra.css scales it to the column.
# A figure drawn for a phone too (figures/NAME-narrow.svg, docs_build/figures.py) is shown in a
# <picture> that picks it on screens where Material drops to one column: the browser fetches
# only the variant it shows.
SVG_IMG = re.compile(r'<img (?P<attrs>[^>]*?)src="(?P<src>[^"#:]+\.svg)[#"][^>]*>')
SVG_SIZE = re.compile(
    r'<svg\b[^>]*?\swidth="(?P<w>[\d.]+)(?P<wu>pt|px)?"[^>]*?\sheight="(?P<h>[\d.]+)(?P<hu>pt|px)?"'
)
PX_PER = {"pt": 4 / 3, "px": 1.0, None: 1.0}
VARIANT = re.compile(r"(?P<rest>(?:-zh)?(?:-dark)?\.svg)$")  # what follows a figure's name
NARROW_SCREEN = "(max-width: 44.984375em)"  # Material's one-column layout (< 720 px)


def _svg_size(path: Path) -> tuple[int, int] | None:
    """The CSS pixel size of an SVG file (its root's width and height), None if unsized."""
    m = SVG_SIZE.search(path.read_text(encoding="utf-8")[:4000])
    if m is None:
        return None
    return round(float(m["w"]) * PX_PER[m["wu"]]), round(float(m["h"]) * PX_PER[m["hu"]])


def _size_images(output: str, page, config) -> str:
    here = (Path(config.site_dir) / page.file.dest_uri).parent

    def sized(m: re.Match) -> str:
        img, size = m[0], None
        path = (here / m["src"]).resolve()
        if " width=" not in m["attrs"] and path.exists():
            size = _svg_size(path)
        if size is not None:
            img = f'<img width="{size[0]}" height="{size[1]}" {img[len("<img ") :]}'
        narrow = VARIANT.sub(rf"{figures.NARROW}\g<rest>", m["src"])
        path = (here / narrow).resolve()  # resolved: the page's folder may not exist yet
        if "/figures/" not in f"/{m['src']}" or not path.exists():
            return img
        size = _svg_size(path)
        dims = f' width="{size[0]}" height="{size[1]}"' if size else ""
        source = f'<source media="{NARROW_SCREEN}" srcset="{narrow}"{dims}>'
        return f"<picture>{source}{img}</picture>"

    return SVG_IMG.sub(sized, output)


# mkdocstrings links its stylesheet from every page; it styles only the API reference's objects.
# Elsewhere it is one render-blocking request less: with it gone and the accessibility fixes in
# extra.css (one stylesheet, not two), Lighthouse's first paint on the home pages: 1.35 -> 1.2 s.
MKDOCSTRINGS_CSS = re.compile(r'<link rel="stylesheet" href="[^"]*assets/_mkdocstrings\.css">\n?')


def on_post_page(output: str, page, config) -> str:
    if page.file.src_uri.endswith(".ipynb"):
        output = NBCONVERT_MATHJAX2.sub("", output)
    if "doc-object" not in output:
        output = MKDOCSTRINGS_CSS.sub("", output)
    return _size_images(output, page, config)
