"""Every python fence of the pages (docs/; docs/zh/ shows the English pages' fences), README.md and
CONTRIBUTING.md is a test item of pytest-markdown-docs: ``pytest docs/attention.md`` runs one
page's. The runner below runs each as ``docs_build/fences.py`` describes and caches what a
markdown-exec fence printed and wrote, which the site's build then shows."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
import torch

# pytest-markdown-docs 0.9.2 offers no public way to register a runner: this module is private.
from pytest_markdown_docs._runners import DefaultRunner, register_runner

from docs_build import cache, fences

collect_ignore = ["docs/zh", "site"]
# One torch thread per process: pytest-xdist runs a process per core, where a second thread only
# waits for a core, and a deep model's fence beside another process stalls for many times its time.
torch.set_num_threads(1)


def pytest_addoption(parser) -> None:
    parser.addoption(
        "--fences-uncached-only",
        action="store_true",
        help="run only the fences whose outputs the cache lacks (make serve, make build)",
    )
    parser.addoption(
        "--fences-tested",
        action="store_true",
        help="every fence ran as a test before: the site's build must run none (make test)",
    )


def pytest_markdown_docs_markdown_it():
    """The parser pytest-markdown-docs collects fences with: the one of ``docs_build.fences``."""
    return fences.markdown_it()


@functools.cache
def python_fences(path: Path) -> list[fences.Fence]:
    """The python fences of the page at ``path``, in order."""
    found = fences.parse(path.read_text(encoding="utf-8"))
    return [f for f in found if f.info.split()[:1] in (["python"], ["py"], ["python3"])]


def fence_at(path: Path, line: int) -> fences.Fence | None:
    """The python fence of the page at ``path`` that opens on ``line``, if there is one."""
    return next((f for f in python_fences(path) if f.start == line), None)


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the groups
def pytest_collection_modifyitems(items) -> None:
    """pytest-xdist's groups, for ``--dist loadgroup``: the fences of one markdown-exec session
    on one worker, in order, so that a page's sessions (Read real text's three trainings) run
    on every core; the rest of a file together, as ``--dist loadfile`` would."""
    for item in items:
        group = item.nodeid.split("::")[0]  # the file
        if item.path.suffix == ".md" and hasattr(item, "test_definition"):  # a page's fence
            fence = fence_at(item.path, item.start_line)
            group += "::" + (fence.options.get("session", "") if fence else "")
        item.add_marker(pytest.mark.xdist_group(group))


@register_runner(default=True)
class FenceRunner(DefaultRunner):
    """pytest-markdown-docs' runner for every python fence (see ``docs_build/fences.py``)."""

    uncached_only = False  # --fences-uncached-only (pytest_configure)

    def __init__(self) -> None:
        self.inputs = ""  # cache.inputs_hash(), taken when a fence first needs it
        self.sessions: dict[tuple[Path, str], fences.Session] = {}

    # No ``asyncio_runner`` keyword: pytest-markdown-docs 0.9.2 retries a call that raises
    # TypeError without it, so it retries before a fence ran, never after a fence's TypeError.
    def runtest(self, test, args) -> None:
        path, line = test.source_path, test.start_line
        page, fence = python_fences(path), fence_at(path, line)
        included = fences.include(fence.code)
        if included:
            shown, namespace = included
            exec(compile(shown, f"{path}:{line}", "exec"), namespace)
            return
        if fence.options.get("exec") != "on":
            super().runtest(test, args)
            return
        self.inputs = self.inputs or cache.inputs_hash()
        session = fence.options.get("session", "")
        same = {"exec": "on", "session": session}.items()  # a fence of its session
        run = [f for f in page if session and f.start < line and same <= f.options.items()]
        run.append(fence)
        state = fences.Session(self.inputs, session, {**args})
        if session:
            state = self.sessions.setdefault((path, session), state)
        # Each fence at its lines of the page, for a traceback that names them; under
        # --fences-uncached-only, only what the build would not find in the cache runs.
        state.output([("\n" * f.start + f.code, str(path)) for f in run], self.uncached_only)


def pytest_configure(config) -> None:
    FenceRunner.uncached_only = config.getoption("fences_uncached_only")
