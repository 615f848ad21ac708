"""The pages' fences: one parser, one snippet expander, and one cache, so that each python fence
runs once, for the tests or for the build.

``parse`` finds every fence of a page's Markdown, for the tests, the notebooks and the Chinese
pages' joined lines; ``expand`` puts a page's ``--8<--`` snippets in place, as the build does.

Under pytest, every python fence of a page is a test item of pytest-markdown-docs, which the
runner of ``conftest.py`` runs: a markdown-exec fence (```` ```python exec="on" session="pe" ````)
in its session's namespace on its page, after the session's earlier fences, as markdown-exec
would; an include fence (``--8<-- "encoder/positional.py:pe"``, or a class's line and its core
indented under it) as the code it shows, in a copy of its module's namespace; any other python
fence (README.md's) on its own.

Both run a markdown-exec fence with ``Session.output``: what it printed, and the site files it
wrote (``figures.save``, ``figures.write``), go to the cache (``docs_build.cache``), keyed by the
package, the session and the code of the session's fences up to this one. In the build,
``Fences.formatter`` shows a fence found there without running it; one not found (``mkdocs serve``
after an edit, a cold ``make build``) runs, after its session's earlier fences, and is cached.
Either way markdown-exec renders the fence, and a fence that raises fails the strict build.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import io
import re
import sys
import textwrap
import traceback
import types
from collections.abc import Callable
from pathlib import Path

import markdown
import markdown_exec
from markdown_it import MarkdownIt
from mdit_py_plugins.admon import admon_plugin

from docs_build import cache, figures

ROOT = Path(__file__).resolve().parent.parent
OPTION = re.compile(r'(\w+)="([^"]*)"')
INCLUDE = re.compile(r'^--8<--\s+"(?P<path>encoder/[\w/]+\.py):[\w-]+"$')
TAB = re.compile(r'^(?P<indent>[ \t]*)=== (?=")', re.MULTILINE)
# A line, the blank lines after it and the indentation of the line after them. The blank lines
# get the lesser indentation of the two: the admonition plugin ends a block at two empty lines,
# Material does not.
BLANKS = re.compile(
    r"^(?P<line>(?P<before>[ \t]*)\S.*\n)(?P<blank>(?:[ \t]*\n)+)(?=(?P<after>[ \t]*)\S)",
    re.MULTILINE,
)
# pymdownx.snippets as mkdocs.yml sets it up
SNIPPETS = {"base_path": [str(ROOT)], "check_paths": True, "dedent_subsections": True}


@dataclasses.dataclass(frozen=True)
class Fence:
    """A fence of a page: ``text.split("\\n")[start - 1 : end]`` are its lines, markers included."""

    start: int  # the line of the opening marker and info string, from 1
    end: int  # the line of the closing marker
    mark: str  # the opening marker: ``` or ~~~, or longer
    info: str
    options: dict[str, str]  # the info string's key="value" pairs
    code: str  # the lines between the markers, less the fence's indentation


def markdown_it() -> MarkdownIt:
    """CommonMark, with Material's admonitions (``!!!``, ``???``) and content tabs (``=== "Tab"``,
    read as admonitions, on the same lines) as blocks, so that the fences inside them are found."""
    md = MarkdownIt("commonmark").use(admon_plugin)

    def material_blocks(state) -> None:
        state.src = BLANKS.sub(_indent_blanks, TAB.sub(r"\g<indent>!!! tab ", state.src))

    md.core.ruler.before("block", "material_blocks", material_blocks)
    return md


def _indent_blanks(m: re.Match) -> str:
    depth = min(len(m["before"]), len(m["after"]))
    return m["line"] + (" " * depth + "\n") * m["blank"].count("\n")


def parse(text: str) -> list[Fence]:
    """Every fence of a page's Markdown, in order."""
    lines, found = text.split("\n"), []
    for token in markdown_it().parse(text):
        if token.type == "fence":
            start, end = token.map
            indent = re.match(r"[ \t]*", lines[start])[0]
            # From the page's lines: the parser saw blank lines indented (BLANKS).
            code = "\n".join(line.removeprefix(indent) for line in lines[start + 1 : end - 1])
            options = dict(OPTION.findall(token.info))
            found.append(Fence(start + 1, end, token.markup, token.info, options, code))
    return found


def expand(text: str, settings: dict = SNIPPETS) -> str:
    """``text`` with its ``--8<--`` snippets in place, as pymdownx.snippets puts them with
    ``settings`` (a site's own, from its mkdocs.yml; by default this repository's)."""
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": settings}
    )
    return "\n".join(md.preprocessors["snippet"].run(text.splitlines()))


def include(code: str) -> tuple[str, dict] | None:
    """The code an include fence shows, and a copy of its module's namespace to run it in; None
    for a fence that is not one. Its lines are ``--8<--`` lines of one module: a class's line,
    then a section of its body indented under it (its core, without the docstring)."""
    lines = textwrap.dedent(code).strip("\n").split("\n")
    matches = [INCLUDE.match(line.strip()) for line in lines]
    if not all(matches) or len({m["path"] for m in matches}) != 1:
        return None
    module = importlib.import_module(matches[0]["path"].removesuffix(".py").replace("/", "."))
    return expand("\n".join(lines)), dict(vars(module))


def normalize(code: str) -> str:
    return textwrap.dedent(code).strip("\n")


def execute(code: str, namespace: dict, filename: str) -> tuple[str, dict[str, str]]:
    """Run ``code`` in ``namespace`` as markdown-exec does (``print`` writes to the output);
    return what it printed and the site files it wrote.

    A statement that raises does not stop the ones after it: the first error is raised at the
    end, so a failing assert fails its own fence, not the later fences of its session.
    """
    name = re.sub(r"\W+", "_", filename)
    namespace["__name__"] = name  # dataclasses and pickling look their module up
    sys.modules.setdefault(name, types.ModuleType(name))
    printed = io.StringIO()
    namespace["print"] = lambda *texts, end="\n", **_: printed.write(
        " ".join(map(str, texts)) + end
    )
    failure = None
    with figures.collect() as files:
        for statement in ast.parse(code, filename).body:
            try:
                exec(compile(ast.Module([statement], []), filename, "exec"), namespace)
            except Exception as error:
                failure = failure or error
    if failure is not None:
        raise failure
    return printed.getvalue(), files


@dataclasses.dataclass
class Session:
    """A page's markdown-exec session (``name``; "" for a fence of none): its namespace and how
    many of its fences ran. The one fence runner, for the tests and the build; ``inputs`` is
    ``cache.inputs_hash()``, which keys the outputs with the session's code."""

    inputs: str
    name: str = ""
    namespace: dict = dataclasses.field(default_factory=dict)
    ran: int = 0

    def output(self, fences: list[tuple[str, str]], reuse: bool, run: bool = True) -> dict | None:
        """What the last of the session's ``fences`` so far (code and file name, in order)
        printed and the site files it wrote: from the cache if ``reuse``, else (if ``run``)
        run after those that have not run yet, and cached; None if neither."""
        codes = [normalize(code) for code, _ in fences]
        key = "fences/" + cache.key(self.inputs, self.name, *codes)
        entry = cache.get(key) if reuse else None
        if entry is None and run:
            start, self.ran = self.ran, len(fences)
            for code, filename in fences[start:]:
                printed, files = execute(code, self.namespace, filename)
            entry = cache.put(key, {"printed": printed, "files": files})
        return entry


class Fences:
    """The python fences of one build (one language): ``formatter`` is their superfences format.

    ``publish(files)`` adds the site files a fence wrote ({uri: text}) to the build; with
    ``run_uncached`` false a fence the cache lacks shows nothing, and runs not."""

    def __init__(self, publish: Callable[[dict[str, str]], None], run_uncached: bool) -> None:
        self.publish = publish
        self.run_uncached = run_uncached
        self.inputs = cache.inputs_hash()
        self.ran = 0  # fences run by this build (the rest came from the cache)
        self.new_page()

    def new_page(self) -> None:
        """A page's sessions start empty."""
        self.sessions: dict[str, tuple[Session, list[tuple[str, str]]]] = {}

    def formatter(self, source: str, language: str, css_class: str, options: dict, md, **kwargs):
        """markdown-exec's formatter, running a fence only when the cache does not have it."""
        name = options.get("session") or ""
        new = (Session(self.inputs, name), [])
        session, codes = self.sessions.setdefault(name, new) if name else new
        codes.append((normalize(source), f"<session {name}: fence {len(codes) + 1}>"))
        so_far = list(codes)

        def run(code: str, **_) -> str:
            ran = session.ran
            try:
                entry = session.output(so_far, reuse=True, run=self.run_uncached)
            except Exception as error:
                raise markdown_exec.ExecutionError(
                    markdown_exec.code_block("python", traceback.format_exc())
                ) from error
            self.ran += session.ran != ran
            if entry is None:
                return ""
            self.publish(entry["files"])
            return entry["printed"]

        return markdown_exec.base_format(language=language, run=run, code=source, md=md, **options)
