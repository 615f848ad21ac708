"""Runs every python fence of the site and of README.md under pytest-markdown-docs.

pytest-markdown-docs 0.9.2 parses pages with a plain CommonMark parser and runs each fence on
its own. This site needs three things more, which this file adds through the plugin's
``pytest_markdown_docs_markdown_it`` hook (the parser it returns is ``DocsMarkdownIt``):

1. Includes. A fence whose body is ``--8<-- "encoder/positional.py:pe"`` is expanded with
   pymdownx.snippets' own preprocessor, configured from mkdocs.yml, and the included section
   runs in (a copy of) its module's namespace, with tracebacks pointing into the module. Every
   global name the section's code reads must exist there, so a typo fails even in a method
   that no fence calls.
2. Nested fences. Fences inside ``!!!``/``???`` admonitions and ``=== "Tab"`` content tabs are
   collected (the default parser sees them as indented code and skips them).
3. Nothing skipped silently. A line that opens a python fence but was not parsed as one fails
   the collection of the page.
4. Sections of other pages. A line ``--8<-- "docs/positional-encoding.md:table"`` outside a
   fence (how a Chinese page under docs/zh/ shows the English page's code) is replaced by that
   section before the page is parsed, as pymdownx.snippets does in the build, and its fences run
   as the page's own. They keep the page's line numbers (the include's line; a section may hold
   one python fence), and a traceback points at the line of the page the code is written in.

Fences of one markdown-exec ``session`` share a namespace, as they do when the site is built
(earlier fences of the session are run first if a test selection skipped them).
"""

from __future__ import annotations

import builtins
import dataclasses
import dis
import functools
import importlib
import re
import shlex
import textwrap
import types
from pathlib import Path

import markdown
import pytest
import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.admon import admon_plugin
from pytest_markdown_docs._runners import DefaultRunner, register_runner

ROOT = Path(__file__).resolve().parent
PYTHON = {"py", "python", "python3"}
INCLUDE = re.compile(r'^\s*(?:;\s*)?--8<--\s+"(?P<path>[^"]+?)(?::(?P<section>[\w-]+))?"\s*$')
# A tab header: === "Title", with pymdownx.tabbed's flags + (selected) and ! (new tab set).
TAB = re.compile(r'^(?P<indent>[ \t]*)===(?P<plus>\+?)!?\+?(?P<rest>[ \t]+".*)$')
FENCE_OPEN = re.compile(r"^[ \t>]*(`{3,}|~{3,})[ \t]*\{?[ \t]*\.?(?P<lang>py|python|python3)\b")


# --- reading mkdocs.yml ------------------------------------------------------------------------
class _Loader(yaml.SafeLoader):
    """Reads mkdocs.yml's tags: !ENV and !relative become plain values, python tags None."""


_Loader.add_constructor("!ENV", lambda loader, node: None)
_Loader.add_constructor("!relative", lambda loader, node: str(ROOT))
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


@functools.cache
def snippets_config() -> dict:
    """The pymdownx.snippets options of mkdocs.yml, with base paths made absolute."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=_Loader)
    for ext in config["markdown_extensions"]:
        if isinstance(ext, dict) and "pymdownx.snippets" in ext:
            options = dict(ext["pymdownx.snippets"])
            break
    else:
        raise RuntimeError("mkdocs.yml does not configure pymdownx.snippets")
    options["base_path"] = [str(ROOT / p) for p in options.get("base_path", ["."])]
    return options


def expand_includes(text: str) -> str:
    """Expand --8<-- lines exactly as the site build does (same extension, same options)."""
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": snippets_config()}
    )
    return "\n".join(md.preprocessors["snippet"].run(text.split("\n")))


# --- what a fence is -----------------------------------------------------------------------------
def fence_options(info: str) -> tuple[str | None, dict[str, str], list[str]]:
    """(language, key="value" options, bare words) of a fence info string, either syntax."""
    info = info.strip()
    if info.startswith("{"):
        info = info.strip("{}")
    try:
        words = shlex.split(info)
    except ValueError:
        words = info.split()
    lang = None
    opts: dict[str, str] = {}
    bare: list[str] = []
    for word in words:
        if "=" in word:
            key, _, value = word.partition("=")
            opts[key] = value
        elif lang is None:
            lang = word.lstrip(".")
        else:
            bare.append(word)
    return lang, opts, bare


def include_target(content: str) -> tuple[Path, str | None] | None:
    """(file, section) when a fence's whole body is one --8<-- include of a .py file."""
    lines = [line for line in content.strip().splitlines() if line.strip()]
    if len(lines) != 1:
        return None
    match = INCLUDE.match(lines[0])
    if not match or not match["path"].endswith(".py"):
        return None
    for base in snippets_config()["base_path"]:
        path = Path(base) / match["path"]
        if path.exists():
            return path, match["section"]
    return Path(snippets_config()["base_path"][0]) / match["path"], match["section"]


FENCE_CLOSE = re.compile(r"^[ \t>]*(`{3,}|~{3,})[ \t]*$")
FENCE_ANY = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})")


def _indent_blank_lines_in_fences(lines: list[str]) -> list[str]:
    """Give the empty lines of an indented fence its indentation.

    Inside an admonition or a tab, CommonMark ends the indented block at two empty lines in
    a row, cutting a fence in two (the site build, Python-Markdown, does not). Whitespace
    keeps the block open and changes neither the code nor the line numbers.
    """
    out, fence = [], None  # fence: (indent, marker) of the open fence
    for line in lines:
        match = FENCE_ANY.match(line)
        if fence is None and match:
            fence = (match["indent"], match["marker"])
        elif (
            fence is not None
            and match
            and match["marker"][0] == fence[1][0]
            and len(match["marker"]) >= len(fence[1])
            and not line[match.end() :].strip()
        ):
            fence = None
        elif fence is not None and not line.strip():
            line = fence[0]
        out.append(line)
    return out


SECTION_MARK = re.compile(
    r"-{1,}8<-{1,}[ \t]+\[[ \t]*(?P<type>start|end)[ \t]*:[ \t]*(?P<name>[\w-]+)"
)


@dataclasses.dataclass(frozen=True)
class Origin:
    """Where a line of an expanded page is written."""

    path: Path | None  # the file it comes from; None: the page itself
    line: int  # 0-based line in that file
    page_line: int  # 0-based line of the page: its own, or the include's that brought it in


def _md_section(path: Path, section: str | None) -> list[tuple[str, int]]:
    """(line, 0-based line number) of a section of a Markdown file, markers dropped."""
    if not path.exists():
        raise FileNotFoundError(f"Snippet at path '{path.relative_to(ROOT)}' could not be found")
    lines = path.read_text().split("\n")
    if section is None:
        start, end = -1, len(lines)
    else:
        marks = [
            (m["type"], n)
            for n, line in enumerate(lines)
            if (m := SECTION_MARK.search(line)) and m["name"] == section
        ]
        starts = [n for kind, n in marks if kind == "start"]
        ends = [n for kind, n in marks if kind == "end" and starts and n > starts[0]]
        if not starts or not ends:
            raise LookupError(f"{path.relative_to(ROOT)} has no section {section!r}")
        start, end = starts[0], ends[0]
    kept = [(lines[n], n) for n in range(start + 1, end) if not SECTION_MARK.search(lines[n])]
    common = textwrap.dedent("\n".join(text for text, _ in kept))  # dedent_subsections
    return list(zip(common.split("\n"), (n for _, n in kept), strict=True))


def expand_md_includes(lines: list[str], _depth: int = 0) -> tuple[list[str], list[Origin]]:
    """The page with its --8<-- lines of .md sections (outside fences) replaced by the sections.

    The section is indented like the include line, as pymdownx.snippets does; its own includes
    of .py sections, inside fences, are left for the fences' runner.
    """
    out: list[str] = []
    origins: list[Origin] = []
    fence = None  # (indent, marker) of the open fence
    for n, line in enumerate(lines):
        match = INCLUDE.match(line)
        if fence is None and match and match["path"].endswith(".md"):
            indent = line[: len(line) - len(line.lstrip())]
            section = _md_section(ROOT / match["path"], match["section"])
            if _depth > 8:
                raise RecursionError(f"--8<-- includes nested too deep at {match['path']}")
            texts, inner = expand_md_includes([text for text, _ in section], _depth + 1)
            for text, origin in zip(texts, inner, strict=True):
                out.append(indent + text if text else text)
                if origin.path is None:  # a line of the section itself
                    origin = Origin(ROOT / match["path"], section[origin.line][1], n)
                origins.append(dataclasses.replace(origin, page_line=n))
            continue
        opened = FENCE_ANY.match(line)
        if fence is None and opened:
            fence = (opened["indent"], opened["marker"])
        elif (
            fence is not None
            and opened
            and opened["marker"].startswith(fence[1])
            and not line[opened.end() :].strip()
        ):
            fence = None
        out.append(line)
        origins.append(Origin(None, n, n))
    return out, origins


def _where(origin: Origin) -> str:
    if origin.path is None:
        return f"line {origin.page_line + 1}"
    return (
        f"{origin.path.relative_to(ROOT)} line {origin.line + 1} "
        f"(included on line {origin.page_line + 1})"
    )


class DocsMarkdownIt(MarkdownIt):
    """CommonMark + admonitions + content tabs, with includes and sessions resolved."""

    def __init__(self) -> None:
        super().__init__("commonmark")
        self.use(admon_plugin)

    def parse(self, src: str, env=None):
        written, origins = expand_md_includes(src.split("\n"))
        # A content tab header becomes an admonition header: same lines, same indentation.
        lines = [TAB.sub(r"\g<indent>!!!\g<plus> tab\g<rest>", line) for line in written]
        src = "\n".join(_indent_blank_lines_in_fences(lines))
        tokens = super().parse(src, env)
        fences = [t for t in tokens if t.type == "fence" and t.map]
        parsed = {t.map[0] for t in fences if fence_options(t.info)[0] in PYTHON}
        in_fence_lines = {n for t in fences for n in range(t.map[0] + 1, t.map[1])}
        for lineno, line in enumerate(src.split("\n")):
            if FENCE_OPEN.match(line) and lineno not in parsed and lineno not in in_fence_lines:
                raise ValueError(
                    f"{_where(origins[lineno])} opens a python fence that was not parsed as one "
                    f"(check its indentation under a list, tab or admonition): {line.strip()!r}"
                )
        src_lines = src.split("\n")
        starts: dict[int, Origin] = {}
        for token in fences:
            lang, opts, bare = fence_options(token.info)
            first, end = token.map
            last = src_lines[end - 1] if end - 1 < len(src_lines) else ""
            if lang in PYTHON and end - first > 1 and not FENCE_CLOSE.match(last):
                raise ValueError(
                    f"the python fence opened on {_where(origins[first])} ends on "
                    f"{_where(origins[end - 1])} without a closing fence: part of it would not run"
                )
            # The plugin names and numbers a fence by its first line: the page's line.
            opening = origins[first]
            token.map = [opening.page_line, opening.page_line + end - first]
            if lang not in PYTHON or "notest" in bare:
                continue
            if opening.page_line in starts:
                raise ValueError(
                    f"{_where(opening)} and {_where(starts[opening.page_line])} are python fences "
                    "of one included section: give each its own section"
                )
            starts[opening.page_line] = opening
            body = "\n".join(written[first + 1 : end - 1])
            if include_target(token.content):
                token.content = expand_includes(token.content)
                token.info = "python runner:IncludeRunner"
            elif opts.get("session"):
                token.info = "python runner:SessionRunner"
            token.meta["fence"] = Fence(
                start=opening.page_line + 1,
                info=written[first].strip(),
                body=body,
                code=token.content,
                source=opening.path,
                source_start=opening.line + 1,
            )
        return tokens


@pytest.hookimpl
def pytest_markdown_docs_markdown_it():
    return DocsMarkdownIt()


@dataclasses.dataclass(frozen=True)
class Fence:
    start: int  # 0-based index of the fence's first body line (the plugin's start_line)
    info: str  # the opening line as written
    body: str  # the body as written
    code: str  # the code that runs (includes expanded)
    source: Path | None = None  # the page it is written in, if another page's section
    source_start: int = 0  # there, the 0-based index of its first body line


@functools.cache
def page_fences(path: Path) -> dict[int, Fence]:
    """Every python fence this parser hands to the plugin, by start line, in page order."""
    return {
        t.meta["fence"].start: t.meta["fence"]
        for t in DocsMarkdownIt().parse(path.read_text())
        if t.type == "fence" and t.map and t.info.startswith("python runner:")
    }


# --- runners ------------------------------------------------------------------------------------
@register_runner()
class IncludeRunner(DefaultRunner):
    """Runs an included section in a copy of its module's namespace, as the module would."""

    def runtest(self, test, args, *, asyncio_runner=None):
        fence = page_fences(Path(test.source_path))[test.start_line]
        path, section = include_target(fence.body)
        module = importlib.import_module(
            ".".join(path.resolve().relative_to(ROOT).with_suffix("").parts)
        )
        # Compile against the module file, so a traceback points at the module's own lines.
        # (fence.code, not test.source: the plugin pads test.source with the page's lines.)
        offset = "\n" * (_section_first_line(path, section) - 1)
        compiled = compile(
            offset + textwrap.dedent(fence.code), str(path), "exec", dont_inherit=True
        )
        namespace = dict(vars(module))
        exec(compiled, namespace)
        # (__annotations__: a class body with annotated fields reads it from its own namespace)
        missing = _global_reads(compiled) - namespace.keys() - set(dir(builtins))
        missing = sorted(missing - {"__annotations__"})
        if missing:
            raise NameError(
                f"{fence.body.strip()} reads undefined name(s) {missing}: a typo in "
                f"{path.name}, or a name the section uses but its module does not define"
            )

    def repr_failure(self, test, excinfo, style=None):
        # The plugin shows the frames of the page's file; an included section's are the module's.
        path, _ = include_target(page_fences(Path(test.source_path))[test.start_line].body)
        return super().repr_failure(dataclasses.replace(test, source_path=path), excinfo, style)


def _section_first_line(path: Path, section: str | None) -> int:
    if section is None:
        return 1
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        if f"--8<-- [start:{section}]" in line:
            return n + 1
    raise LookupError(f"{path} has no section {section!r}")


def _global_reads(code: types.CodeType) -> set[str]:
    """Names the code, and every function and class body inside it, reads as globals."""
    names = {
        ins.argval
        for ins in dis.get_instructions(code)
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME")
    }
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_reads(const)
    return names


_sessions: dict[tuple[Path, str], tuple[dict, set[int]]] = {}


@register_runner()
class SessionRunner(DefaultRunner):
    """Runs a markdown-exec fence in its page session's namespace, as the build does."""

    def runtest(self, test, args, *, asyncio_runner=None):
        path = Path(test.source_path)
        fences = page_fences(path)
        session = fence_options(fences[test.start_line].info.lstrip("`~"))[1]["session"]
        namespace, done = _sessions.setdefault((path, session), (dict(args), set()))
        for fence in fences.values():  # earlier fences of the session, if a selection skipped them
            if fence.start >= test.start_line:
                break
            same = fence_options(fence.info.lstrip("`~"))[1].get("session") == session
            if same and fence.start not in done:
                self._run(path, fence, namespace)
                done.add(fence.start)
        self._run(path, fences[test.start_line], namespace)
        done.add(test.start_line)

    @staticmethod
    def _run(path: Path, fence: Fence, namespace: dict) -> None:
        # A section of another page is compiled at its lines there, for its tracebacks.
        start = fence.source_start if fence.source else fence.start
        code = "\n" * start + textwrap.dedent(fence.code)
        exec(compile(code, str(fence.source or path), "exec", dont_inherit=True), namespace)

    def repr_failure(self, test, excinfo, style=None):
        fence = page_fences(Path(test.source_path))[test.start_line]
        if fence.source is not None:  # show the frames and lines of the page it is written in
            source = "\n" * fence.source_start + textwrap.dedent(fence.code)
            test = dataclasses.replace(
                test, source_path=fence.source, source=source, start_line=fence.source_start
            )
        return super().repr_failure(test, excinfo, style)
