"""Every python fence of the pages (docs/; docs/zh/ shows the English pages' fences), README.md and
CONTRIBUTING.md is a test item of pytest-markdown-docs: ``pytest docs/attention.md`` runs one
page's. The runner below runs each as ``docs_build/fences.py`` describes and caches what a
markdown-exec fence printed and wrote, which the site's build then shows."""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import torch
from mdit_py_plugins.admon import admon_plugin
from pytest_markdown_docs._runners import DefaultRunner, register_runner

from docs_build import cache
from docs_build.fences import INCLUDE, OPTION, execute, fence_key, include, normalize

collect_ignore = ["docs/zh", "site"]
# One torch thread per process: pytest-xdist runs a process per core, where a second thread only
# waits for a core (beside another process, it stalled a 48-layer fence from 0.2 s to 20 s).
torch.set_num_threads(1)
TAB = re.compile(r'^(?P<indent>[ \t]*)=== (?=")', re.MULTILINE)


def pytest_markdown_docs_markdown_it():
    """The parser pytest-markdown-docs collects fences with: CommonMark, with Material's
    admonitions (``!!!``, ``???``) and content tabs (``=== "Tab"``, read as admonitions, on the
    same lines) as blocks, so that the fences inside them are collected."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").use(admon_plugin)

    def material_blocks(state) -> None:
        state.src = _indent_blank_lines(TAB.sub(r"\g<indent>!!! tab ", state.src))

    md.core.ruler.before("block", "material_blocks", material_blocks)
    return md


def _indent_blank_lines(text: str) -> str:
    """Blank lines get the indentation of the block around them (the lesser of the lines
    before and after): the admonition plugin ends a block at two empty lines, Material not."""
    lines = text.split("\n")
    depth = [len(line) - len(line.lstrip()) if line.strip() else None for line in lines]
    after = 0
    for i in reversed(range(len(lines))):
        if depth[i] is None:
            depth[i] = after
        else:
            after = depth[i]
    before = 0
    for i, line in enumerate(lines):
        if line.strip():
            before = depth[i]
        else:
            lines[i] = " " * min(before, depth[i])
    return "\n".join(lines)


@functools.cache
def fences(path: Path) -> list[tuple[int, dict, str]]:
    """(line of the info string, options, code) of every python fence of a page."""
    found = []
    for token in pytest_markdown_docs_markdown_it().parse(path.read_text(encoding="utf-8")):
        if token.type == "fence" and token.info.split()[:1] in (["python"], ["py"]):
            found.append((token.map[0] + 1, dict(OPTION.findall(token.info)), token.content))
    return found


class FenceTypeError(Exception):
    """A fence's TypeError: pytest-markdown-docs 0.9.2 retries a runner that raises TypeError."""


class _Tested:
    package = ""
    sessions: dict[tuple[Path, str], tuple[dict, set[int]]] = {}  # noqa: RUF012


@register_runner(default=True)
class FenceRunner(DefaultRunner):
    """pytest-markdown-docs' runner for every python fence (see the module's docstring)."""

    def runtest(self, test, args, **kwargs) -> None:
        try:
            self.run(test, args)
        except TypeError as error:  # pytest-markdown-docs would run the fence again
            raise FenceTypeError(str(error)).with_traceback(error.__traceback__) from None

    def run(self, test, args) -> None:
        path, line = test.source_path, test.start_line
        page = fences(path)
        options, code = next((opts, code) for at, opts, code in page if at == line)
        if INCLUDE.match(code.strip()):
            shown, namespace = include(code)
            exec(compile(shown, f"{path}:{line}", "exec"), namespace)
            return
        if options.get("exec") != "on":
            super().runtest(test, args)
            return
        _Tested.package = _Tested.package or cache.package_hash()
        session = options.get("session", "")
        earlier = [
            (at, normalize(c))
            for at, o, c in page
            if session and at < line and o.get("exec") == "on" and o.get("session") == session
        ]
        namespace, ran = {**args}, set()
        if session:
            namespace, ran = _Tested.sessions.setdefault((path, session), (namespace, ran))
        key = fence_key(_Tested.package, session, [c for _, c in earlier] + [normalize(code)])
        if os.environ.get("FENCES_CACHED") and cache.get(key) is not None:
            return  # `make serve`: only what the build would not find in the cache runs
        for at, c in earlier:
            if at not in ran:  # selected alone (or after cached ones): its session's earlier
                execute(c, namespace, f"{path}:{at}")  # fences run first
                ran.add(at)
        ran.add(line)
        printed, files = execute(test.source, namespace, str(path))
        cache.put(key, {"printed": printed, "files": files})
