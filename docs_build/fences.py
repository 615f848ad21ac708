"""The pages' python fences: run once, by the tests or by the build, and shown from one cache.

Under pytest, pytest-markdown-docs makes every python fence of a page a test item, which the
runner of ``conftest.py`` runs:

- a markdown-exec fence (```` ```python exec="on" session="pe" ````) in the namespace of its
  session on its page, after the session's earlier fences, as markdown-exec would;
- an include fence (``--8<-- "encoder/positional.py:pe"``) as the section of the module it shows,
  in a copy of that module's namespace;
- any other python fence (README.md's) on its own.

What a markdown-exec fence printed, and the site files it wrote (``figures.save``,
``figures.write``), go to the cache (``docs_build.cache``), keyed by the package, the session
and the code of the session's fences up to this one. The build (this module is a MkDocs hook)
wraps markdown-exec's formatter: a fence found in the cache is rendered from it, so after the
tests the build runs no fence; a fence not found (``mkdocs serve`` after an edit, a cold
``make build``) runs in the build, after its session's earlier fences, and is cached. Either
way markdown-exec renders the fence, and a fence that raises fails the strict build.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import io
import logging
import os
import re
import sys
import textwrap
import traceback
import types
from pathlib import Path

import markdown
import markdown_exec
from mkdocs.plugins import event_priority

from docs_build import cache, figures

ROOT = Path(__file__).resolve().parent.parent
OPTION = re.compile(r'(\w+)="([^"]*)"')
INCLUDE = re.compile(r'^--8<--\s+"(?P<path>encoder/[\w/]+\.py):[\w-]+"$')


def normalize(code: str) -> str:
    return textwrap.dedent(code).strip("\n")


def fence_key(package: str, session: str, codes: list[str]) -> str:
    return "fences/" + cache.key(package, session, *codes)


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
    figures.FILES.clear()
    failure = None
    for statement in ast.parse(code, filename).body:
        try:
            exec(compile(ast.Module([statement], []), filename, "exec"), namespace)
        except Exception as error:
            failure = failure or error
    if failure is not None:
        raise failure
    return printed.getvalue(), dict(figures.FILES)


@functools.cache
def _snippets():
    extension = {"base_path": [str(ROOT)], "check_paths": True, "dedent_subsections": True}
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": extension}
    )
    return md.preprocessors["snippet"]


def include(line: str) -> tuple[str, dict]:
    """The code an include fence shows, and a copy of its module's namespace to run it in."""
    match = INCLUDE.match(line.strip())
    module = importlib.import_module(match["path"].removesuffix(".py").replace("/", "."))
    return "\n".join(_snippets().run([line.strip()])), dict(vars(module))


@dataclasses.dataclass
class _Session:
    codes: list[str] = dataclasses.field(default_factory=list)
    namespace: dict = dataclasses.field(default_factory=dict)
    ran: int = 0  # how many of its fences ran in this build, in order


class State:
    package = ""
    files = None  # the build's Files: a fence's site files join them
    config = None
    sessions: dict[str, _Session] = {}  # noqa: RUF012 (per page)
    ran = 0  # fences run by this build (the rest came from the cache)


def on_config(config):
    State.package, State.config, State.ran = cache.package_hash(), config, 0
    for fence in config.mdx_configs.get("pymdownx.superfences", {}).get("custom_fences", []):
        if fence.get("format") is markdown_exec.formatter and fence["name"] == "python":
            fence["format"] = formatter
    return config


@event_priority(-110)  # the Files of the build: mkdocs-static-i18n (-100) makes new ones
def on_files(files, config):
    State.files = files
    return files


def on_pre_page(page, config, files):
    State.sessions = {}
    return page


def on_post_build(config) -> None:
    logging.getLogger("mkdocs").info(  # once per language: mkdocs-static-i18n builds each
        "fences: %d ran in this build (%s), the others were cached",
        State.ran,
        config.theme.get("language", "en"),
    )


def _publish(files: dict[str, str]) -> None:
    from mkdocs.structure.files import File

    for uri, text in files.items():
        if State.files.get_file_from_path(uri) is None:
            State.files.append(File.generated(State.config, uri, content=text))


def formatter(source: str, language: str, css_class: str, options: dict, md, **kwargs):
    """markdown-exec's formatter, running a fence only when the cache does not have it."""
    name = options.get("session") or ""
    session = State.sessions.setdefault(name, _Session()) if name else _Session()
    session.codes.append(normalize(source))
    key = fence_key(State.package, name, session.codes)

    def run(code: str, **_) -> str:
        entry = cache.get(key)
        if entry is None and os.environ.get("FENCES_SKIP"):  # a build that only warms caches
            return ""
        if entry is None:
            try:
                for n, earlier in enumerate(session.codes[session.ran : -1], session.ran + 1):
                    execute(earlier, session.namespace, f"<session {name}: fence {n}>")
                n = len(session.codes)
                printed, files = execute(code, session.namespace, f"<session {name}: fence {n}>")
            except Exception as error:
                raise markdown_exec.ExecutionError(
                    markdown_exec.code_block("python", traceback.format_exc())
                ) from error
            State.ran += 1
            session.ran = len(session.codes)
            entry = {"printed": printed, "files": files}
            cache.put(key, entry)
        _publish(entry["files"])
        return entry["printed"]

    return markdown_exec.base_format(language=language, run=run, code=source, md=md, **options)
