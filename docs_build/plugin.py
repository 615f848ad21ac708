"""The site's build: one MkDocs plugin, ``encoder-site`` in ``mkdocs.yml``.

A page's way through the build, in the order MkDocs calls the handlers below. The English
edition is one build; mkdocs-static-i18n then builds the Chinese one (``docs/zh/``, at ``/zh/``)
with the same handlers, so each build starts from fresh state in ``on_config``.

1. ``on_config``: the ``python`` fences go to ``fences.Fences`` (run, or read from the cache);
   figures become ``<figure>``s inside Markdown (``page_figures``).
2. ``on_files``: the figures drawn from the package join the site; notebooks become pages.
3. ``on_page_markdown``: a Chinese page's lines are joined and flagged when its English
   original changed (``i18n``); the page offers its code as a notebook (``notebooks``).
4. Markdown to HTML: each fence runs or comes from the cache, each figure is laid out.
5. ``on_page_content``: the HTML is parsed once (``html``), tidied and every formula typeset by
   MathJax (``mathjax``), with a text form for the search index, in one pass of edits.
6. ``on_page_context``: once search has indexed the page, the text forms leave it.
7. ``on_post_page``: the head's language links and stylesheets; the page's notebook is written.
8. ``on_post_build``: the Chinese edition's sitemap and search index.
"""

from __future__ import annotations

import base64
import datetime as dt
import logging
import os
import platform
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import markdown_exec
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import File

from docs_build import cache, fences, figures, html, i18n, mathjax, notebooks, page_figures

ROOT = Path(__file__).resolve().parent.parent
log = logging.getLogger("mkdocs.plugins.encoder_site")
# mkdocstrings renders an object where a line starts so: such a page defines the targets of the
# cross-references other pages resolve, so `serve --dirty` rebuilds it with any edited page.
API_DIRECTIVE = re.compile(r"^::: ", re.MULTILINE)


class SiteConfig(Config):
    # Loggers kept to warnings: what they say per file is nothing an author acts on.
    quiet = config_options.ListOfItems(config_options.Type(str), default=[])
    # Whether a python fence the cache lacks runs in the build ("run") or shows nothing
    # ("skip": the Makefile's quiet build, which only fills the formula and notebook caches
    # while pytest runs the fences beside it).
    uncached_fences = config_options.Choice(("run", "skip"), default="run")


class EncoderSite(BasePlugin[SiteConfig]):
    """The site's build. Having ``on_startup``, it lives as long as ``mkdocs serve`` does."""

    def __init__(self) -> None:
        super().__init__()
        self.mathjax = mathjax.MathJax()

    def on_startup(self, *, command: str, dirty: bool) -> None:
        for name in self.config.quiet:
            logging.getLogger(name).setLevel(logging.WARNING)
        if dirty:  # `serve --dirty` is the Makefile's choice: its notices are expected
            notices = ("A 'dirty' build is being performed", "The directory contains stale files")
            logging.getLogger("mkdocs.commands.build").addFilter(
                lambda record: not record.getMessage().startswith(notices)
            )

    @event_priority(-110)  # after mkdocs-static-i18n (-100) has set this build's language
    def on_config(self, config):
        # Fresh for each build: under `mkdocs serve` an edited package is imported anew (with the
        # export of the explorers, which holds the package's classes).
        stale = [m for m in sys.modules if m.partition(".")[0] == "encoder"]
        for name in [*stale, "docs_build.explorers"]:
            sys.modules.pop(name, None)
        self.site_config, self.language = config, config.theme["language"]
        if self.language == i18n.CHINESE:  # each edition would write 404.html at the site's root,
            # the last one built winning (mkdocs-static-i18n#284): the site's is the English one
            config.theme.static_templates.discard("404.html")
        run_uncached = self.config.uncached_fences == "run"
        self.fences = fences.Fences(publish=self._publish, run_uncached=run_uncached)
        self.files = None
        self.page = None
        self.search_text: dict[str, list[str]] = {}
        superfences = config.mdx_configs.setdefault("pymdownx.superfences", {})
        python = {"name": "python", "class": "python", "validator": markdown_exec.validator}
        superfences.setdefault("custom_fences", []).append(
            python | {"format": self.fences.formatter}
        )
        config.markdown_extensions.append(page_figures.FigureExtension(self))
        # mkdocstrings adds its stylesheet at each on_config: once more per language built.
        config.extra_css[:] = dict.fromkeys(config.extra_css)
        self._set_up_notebooks(config)
        config.extra["build_stamp"] = build_stamp()
        return config

    def _set_up_notebooks(self, config) -> None:
        # mkdocs-jupyter caches executed notebooks by the notebook's bytes only: a folder per
        # package and language makes an edit to encoder/ execute them again.
        where = cache.folder() / "mkdocs-jupyter" / self.fences.inputs / self.language
        config.plugins["mkdocs-jupyter"].config["cache_dir"] = str(where)
        # Its kernels would each log that they talk over local TCP unencrypted, which the reader
        # of the build's log can do nothing about: their IPython profile logs errors only.
        profile = cache.folder() / "ipython" / "profile_default"
        profile.mkdir(parents=True, exist_ok=True)
        (profile / "ipython_kernel_config.py").write_text("c.IPKernelApp.log_level = 'ERROR'\n")
        os.environ.setdefault("IPYTHONDIR", str(profile.parent))

    @event_priority(-110)  # after mkdocs-static-i18n (-100), which makes this build's Files
    def on_files(self, files, config):
        files = i18n.notebook_pages(files, config)
        self.files = files
        _expire_pages(files)
        for name, variants in figures.render_all().items():
            for suffix, svg in variants.items():
                files.append(File.generated(config, f"figures/{name}{suffix}.svg", content=svg))
        return files

    def _publish(self, written: dict[str, str | dict]) -> None:
        """Site files a fence wrote (figures, explorers' weights) join the build's Files."""
        for uri, data in written.items():
            if isinstance(data, dict):  # bytes (figures.write)
                data = base64.b64decode(data["base64"])
            if self.files.get_file_from_path(uri) is None:
                self.files.append(File.generated(self.site_config, uri, content=data))

    def svg(self, uri: str) -> str | None:
        """The text of a site file (a figure), for FigureExtension; None if there is none."""
        file = self.files.get_file_from_path(uri)
        return None if file is None else file.content_string

    def on_page_markdown(self, markdown: str, *, page, config, files) -> str:
        self.page = page
        self.fences.new_page()
        markdown = i18n.page_markdown(markdown, page, config)
        page.meta["notebook"] = name = notebooks.notebook_for(page, config)
        page.meta["colab"] = notebooks.colab_url(page, name, config)
        return markdown

    @event_priority(-50)  # after the other plugins' rewrites, before search indexes the page
    def on_page_content(self, content: str, *, page, config, files) -> str:
        uri, notebook = page.file.src_uri, page.file.src_uri.endswith(".ipynb")
        nodes = html.parse(content)  # once, for the tidy edits and the formulas
        if notebook:
            edits = html.notebook_edits(content, nodes, page.toc)
            # A notebook walks through what a concept page teaches, in the same words:
            # search lists it below that page.
            page.meta["search"] = {"boost": 0.5}
        else:
            edits = html.page_edits(content, nodes)
        typeset, errors, self.search_text[uri] = mathjax.typeset_edits(
            content, nodes, self.mathjax, notebook=notebook
        )
        content = html.edit(content, edits + typeset)
        for error in errors:
            log.warning("%s: MathJax could not typeset %s", uri, error)
        return content

    @event_priority(-100)  # after search (0) and mkdocs-static-i18n (50)
    def on_page_context(self, context, *, page, config, nav):
        for text in set(self.search_text.pop(page.file.src_uri, [])):  # indexed: off the page
            page.content = page.content.replace(text, "")
        if "<mjx-container" in page.content:  # overrides/main.html puts it in the head
            context["mathjax_css"] = self.mathjax.stylesheet()
        i18n.notebook_switcher(page, config)
        return context

    def on_post_page(self, output: str, *, page, config) -> str:
        root = urlsplit(config.site_url or "/").path.rstrip("/") + "/"
        homes = {"en": root, i18n.CHINESE: f"{root}{i18n.CHINESE}/"}
        output = html.page_head(output, homes, drop_css="doc-object" not in page.content)
        notebooks.write(page, config)
        return output

    # Before mkdocs-static-i18n (-100), which builds the other edition from its on_post_build,
    # with these same handlers: what this instance holds is still this build's.
    @event_priority(-90)
    def _on_post_build_this_edition(self, *, config) -> None:
        if self.language == i18n.CHINESE:  # the sitemap the Chinese build wrote at the root
            i18n.write_sitemap(Path(config.site_dir))
        ran, language = self.fences.ran, self.language
        log.info("fences: %d ran in this build (%s), the others were cached", ran, language)

    # After mkdocs-static-i18n (-100), which writes the search index of both editions once it
    # has built the other one.
    @event_priority(-110)
    def _on_post_build_both_editions(self, *, config) -> None:
        i18n.write_search_indexes(Path(config.site_dir))

    on_post_build = CombinedEvent(_on_post_build_this_edition, _on_post_build_both_editions)


def build_stamp() -> dict:
    """Which code produced the outputs and figures: the footer says it on every page."""
    import torch

    import encoder

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "encoder": encoder.__version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "commit": commit,
    }


def _expire_pages(files) -> None:
    """The pages `mkdocs serve --dirty` must rebuild besides the edited one.

    A dirty build rebuilds only the pages whose output is older than their source. Every page
    runs or includes the package, so an edit to it (or to the build) rebuilds every page; the
    API reference is rebuilt each time (see API_DIRECTIVE)."""
    sources = [*ROOT.glob("encoder/**/*.py"), *ROOT.glob("docs_build/**/*.py")]
    newest = max(path.stat().st_mtime for path in sources)
    for file in files.documentation_pages():
        output = Path(file.abs_dest_path)
        if not output.exists():
            continue
        if output.stat().st_mtime < newest or API_DIRECTIVE.search(file.content_string):
            output.unlink()
