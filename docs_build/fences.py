"""MkDocs hook: the pages' python fences run once, their outputs cached, every fence recorded.

markdown-exec runs each ```` ```python exec="on" ```` fence while the page is built; a fence
that raises makes it log a warning with the code and the traceback, which fails
``mkdocs build --strict``. This hook wraps markdown-exec's formatter (the custom fence it
registers with pymdownx.superfences) and adds:

- A cache. What a fence printed is kept in ``.cache/fences/``, keyed by ``package_hash`` of
  the fence's code and the code of every earlier fence of its session on the page (not the
  prose). A hit is rendered by markdown-exec's own ``base_format``, as a fresh output is; the
  first miss of a session on a page replays the session's earlier fences first, so that the
  names they define exist. So a Chinese page, which includes the English page's fences, shows
  their results without running them again, and ``mkdocs serve`` runs only the fences it has
  not seen.
- A record. Every page's fences (ran, cached or failed, with markdown-exec's log of the
  failure) and its problems go to ``fences/record.json`` in the cache folder when the build
  ends; the tests report them page by page (tests/site/test_strict_build.py).
- Two cores. A cold build of several pages with code shares them with a second process,
  ``docs_build/fence_worker.py``, which runs their fences into the same cache from the last page
  backwards while the build goes on from the first: the Train page's half minute of training
  runs beside the rest of the build.
- Nothing skipped silently. A python fence that neither runs nor includes a package section,
  and a fence that Markdown shows as text (indented wrongly under a list, tab or admonition)
  are warnings, so the strict build fails.
"""

from __future__ import annotations

import dataclasses
import hashlib
import html
import json
import logging
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import markdown_exec
import torch
from mkdocs.plugins import event_priority

from docs_build import fence_worker
from docs_build.cache import cache_dir, package_hash, write_atomic

log = logging.getLogger("mkdocs.hooks.fences")

PYTHON = r"(?:`{3,}|~{3,})[ \t]*\{?[ \t]*\.?(?:py|python|python3)\b"
# An opening line and the line after it, in the page's Markdown.
FENCE = re.compile(rf"^[ \t]*{PYTHON}(?P<info>.*)\n(?P<first>.*)", re.MULTILINE)
RUNS = re.compile(r'\bexec="(?:on|yes|true|1)"')
INCLUDE = re.compile(r'^[ \t]*--8<--[ \t]+"[^"]+\.py(?::[\w-]+)?"[ \t]*$')
SHOWN = re.compile(PYTHON)  # an opening line left in a page's text


@dataclasses.dataclass
class Session:
    """The fences of one session met so far on the page being built."""

    key: str  # hash of the package and of the code of those fences
    code: list[str] = dataclasses.field(default_factory=list)
    ran: int = 0  # how many of them ran in markdown-exec's namespace while building the page


class State:
    package = ""  # package_hash() of this build
    page = ""  # src_uri of the page being built
    sessions: dict[str, Session] = {}  # noqa: RUF012 (reset per page)
    record: dict[str, dict] = {}  # noqa: RUF012 (reset per command: both languages' builds)
    dirty = False  # `--dirty`: only pages older than their source are rebuilt
    worker: subprocess.Popen | None = None  # docs_build/fence_worker.py, while it is needed
    claims: Path | None = None  # the folder where the build and the worker claim pages
    shared: set[str] = set()  # noqa: RUF012 (the pages offered to the worker)
    by_worker: dict[str, dict] = {}  # noqa: RUF012 (the worker's record of the pages it ran)


def on_startup(command: str, dirty: bool) -> None:
    State.dirty = dirty
    State.record = {}  # here, not per build: mkdocs-static-i18n builds /zh/ in a second build


@event_priority(-100)  # after markdown-exec registered its formatter
def on_config(config):
    fences = config.mdx_configs.get("pymdownx.superfences", {}).get("custom_fences", [])
    for fence in fences:
        if fence.get("format") is markdown_exec.formatter and fence["name"] == "python":
            fence["format"] = formatter
    State.package = package_hash()
    # One torch thread, in the build as in the worker (which runs this too): the two share two
    # cores, and where a process's second thread has no core, the first waits for it at every
    # parallel step (the Encoder Layer page's 48-layer fence took 20 s instead of 0.2 s).
    torch.set_num_threads(1)
    return config


@event_priority(100)  # first: the worker starts while the other hooks draw figures
def on_files(files, config):
    # The pages with code of their own that this build renders (`--dirty`: those edited).
    pages = [
        f.src_uri
        for f in files.documentation_pages()
        if f.src_uri.endswith(".md")
        and (not State.dirty or f.is_modified())
        and any(RUNS.search(m["info"]) for m in FENCE.finditer(f.content_string))
    ]
    _stop_worker()  # one left by a build that failed
    State.by_worker = {}
    # On a warm cache (the last build's record is of this package) few fences run, if any: a
    # worker would only convert pages the build converts anyway (12.9 s vs 12.2 s, 17 s of CPU
    # vs 12 s, for this site).
    last = cache_dir("fences") / "record.json"
    warm = last.exists() and json.loads(last.read_text()).get("package") == State.package
    if len(pages) > 1 and not warm:
        State.claims = Path(tempfile.mkdtemp(prefix="fence-claims-"))
        State.worker = fence_worker.start(config.config_file_path, State.claims, pages)
        State.shared = set(pages)
    return files


def on_nav(nav, config, files):
    """With a worker, the notebooks are built first (MkDocs builds pages in the order of
    ``files``; the navigation stays as it is): mkdocs-jupyter runs each in a kernel of its own,
    needing nothing from the other pages, so they run while the worker trains, and the build
    waits for the worker's pages, if at all, near its end."""
    if State.worker is not None:
        for file in files.documentation_pages():
            if not file.src_uri.endswith(".ipynb"):
                files.remove(file)
                files.append(file)
    return nav


def on_pre_page(page, config, files):
    src_uri = page.file.src_uri
    if State.worker is not None and src_uri in State.shared:
        if not fence_worker.claim(State.claims, src_uri):  # the worker's: wait for its outputs
            worked = fence_worker.wait_for(State.worker, State.claims, src_uri)
            if worked is not None:
                State.by_worker[src_uri] = worked
    begin_page(src_uri)
    return page


def begin_page(src_uri: str) -> None:
    """Start recording the fences of a page (the build's or the worker's)."""
    State.page = src_uri
    State.sessions = {}
    State.record[State.page] = {"fences": [], "problems": []}


@event_priority(100)  # the page as written, before other hooks change its Markdown
def on_page_markdown(markdown: str, page, config, files) -> str:
    for match in FENCE.finditer(markdown):
        if not RUNS.search(match["info"]) and not INCLUDE.match(match["first"]):
            problem(
                f'the python fence {match[0].strip()!r} neither runs (exec="on") nor includes '
                'a package section (--8<-- "encoder/x.py:name"): its code is shown, never run'
            )
    return markdown


def on_page_content(content: str, page, config, files) -> str:
    text = html.unescape(re.sub(r"<[^>]+>", "", content))
    for match in SHOWN.finditer(text):
        shown = text[match.start() : text.find("\n", match.start())]
        problem(
            f"shows the fence line {shown!r} as text: Markdown read the fence as indented code "
            "(check its indentation under its list, tab or admonition); its output is not shown"
        )
    return content


def _stop_worker() -> None:
    if State.worker is not None:
        State.worker.kill()  # done by now, unless the build failed before meeting it
        State.worker.wait()
        shutil.rmtree(State.claims, ignore_errors=True)
        State.worker, State.shared = None, set()


def on_build_error(error) -> None:
    _stop_worker()


def on_post_build(config) -> None:
    _stop_worker()
    for src_uri, worked in State.by_worker.items():  # outputs it ran and the build reused
        for mine, theirs in zip(State.record[src_uri]["fences"], worked["fences"], strict=False):
            if mine["status"] == "cached" and theirs["status"] == "ran":
                mine.update(status="ran", seconds=theirs["seconds"], by="worker")
    path = cache_dir("fences") / "record.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"package": State.package, "pages": State.record}, indent=1))


def page_record() -> dict:
    return State.record.setdefault(State.page, {"fences": [], "problems": []})


def problem(message: str) -> None:
    page_record()["problems"].append(message)
    log.warning("%s: %s", State.page, message)


# --- the formatter ------------------------------------------------------------------------------
def formatter(source: str, language: str, css_class: str, options: dict, md, **kwargs):
    """markdown-exec's formatter, with the outputs cached (see the module's docstring)."""
    name = options.get("session") or ""
    session = State.sessions.get(name) if name else None
    if session is None:
        settings = f"{language}\0{name}\0{options.get('workdir')}\0{options.get('width')}"
        session = Session(_chain(State.package, settings))
        if name:
            State.sessions[name] = session
    key = _chain(session.key, source)
    entry = {"session": name, "n": len(session.code) + 1, "code": source.strip().split("\n")[0]}
    page_record()["fences"].append(entry)
    session.key = key
    session.code.append(source)

    path = cache_dir("fences") / f"{key}.txt"
    start = time.perf_counter()
    if path.exists():
        entry["status"] = "cached"
        output = path.read_text()
    else:
        for n, earlier in enumerate(session.code[session.ran : -1], session.ran + 1):
            if _run(earlier, language, css_class, options, md)[1] is not None:  # a replay
                problem(f"fence {n} of session {name!r} failed, replayed before fence {entry['n']}")
        output, failure = _run(source, language, css_class, options, md)
        session.ran = len(session.code)
        entry["seconds"] = round(time.perf_counter() - start, 3)
        if failure is not None:
            entry.update(status="failed", log=failure)
            return output
        entry["status"] = "ran"
        write_atomic(path, output)

    def printed(*args, **kwargs) -> str:
        return output

    return markdown_exec.base_format(language=language, run=printed, code=source, md=md, **options)


def _chain(key: str, text: str) -> str:
    return hashlib.sha256(f"{key}\0{text}".encode()).hexdigest()[:32]


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _run(source: str, language: str, css_class: str, options: dict, md) -> tuple[str, str | None]:
    """Run one fence in its session with markdown-exec: (what it printed, None), or, when it
    raised, (markdown-exec's HTML of the traceback, the warning it logged)."""
    raw = {**options, "html": True, "source": "", "result": ""}  # the output, as printed
    warnings = _Warnings()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(warnings)
    try:
        output = markdown_exec.formatter(source, language, css_class, raw, md)
    finally:
        logger.removeHandler(warnings)
    return str(output), ("\n".join(warnings.messages) if warnings.messages else None)
