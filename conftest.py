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


class DocsMarkdownIt(MarkdownIt):
    """CommonMark + admonitions + content tabs, with includes and sessions resolved."""

    def __init__(self) -> None:
        super().__init__("commonmark")
        self.use(admon_plugin)

    def parse(self, src: str, env=None):
        # A content tab header becomes an admonition header: same lines, same indentation.
        lines = [TAB.sub(r"\g<indent>!!!\g<plus> tab\g<rest>", line) for line in src.split("\n")]
        src = "\n".join(_indent_blank_lines_in_fences(lines))
        tokens = super().parse(src, env)
        fences = [t for t in tokens if t.type == "fence" and t.map]
        parsed = {t.map[0] for t in fences if fence_options(t.info)[0] in PYTHON}
        in_fence_lines = {n for t in fences for n in range(t.map[0] + 1, t.map[1])}
        for lineno, line in enumerate(src.split("\n")):
            if FENCE_OPEN.match(line) and lineno not in parsed and lineno not in in_fence_lines:
                raise ValueError(
                    f"line {lineno + 1} opens a python fence that was not parsed as one "
                    f"(check its indentation under a list, tab or admonition): {line.strip()!r}"
                )
        src_lines = src.split("\n")
        for token in fences:
            lang, opts, bare = fence_options(token.info)
            last = src_lines[token.map[1] - 1] if token.map[1] - 1 < len(src_lines) else ""
            if lang in PYTHON and token.map[1] - token.map[0] > 1 and not FENCE_CLOSE.match(last):
                raise ValueError(
                    f"the python fence opened on line {token.map[0] + 1} ends on line "
                    f"{token.map[1]} without a closing fence: part of it would not run"
                )
            if lang not in PYTHON or "notest" in bare:
                continue
            if include_target(token.content):
                token.content = expand_includes(token.content)
                token.info = "python runner:IncludeRunner"
            elif opts.get("session"):
                token.info = "python runner:SessionRunner"
        return tokens


@pytest.hookimpl
def pytest_markdown_docs_markdown_it():
    return DocsMarkdownIt()


@dataclasses.dataclass(frozen=True)
class Fence:
    start: int  # 0-based index of the fence's first body line (the plugin's start_line)
    info: str  # the opening line as written on the page
    body: str  # the body as written on the page
    code: str  # the code that runs (includes expanded)


@functools.cache
def page_fences(path: Path) -> dict[int, Fence]:
    """Every python fence this parser hands to the plugin, by start line, in page order."""
    src = path.read_text()
    lines = src.split("\n")
    return {
        t.map[0] + 1: Fence(
            t.map[0] + 1,
            lines[t.map[0]].strip(),
            "\n".join(lines[t.map[0] + 1 : t.map[1] - 1]),
            t.content,
        )
        for t in DocsMarkdownIt().parse(src)
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
        missing = sorted(_global_reads(compiled) - namespace.keys() - set(dir(builtins)))
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
        code = "\n" * fence.start + textwrap.dedent(fence.code)
        exec(compile(code, str(path), "exec", dont_inherit=True), namespace)
