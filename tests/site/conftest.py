"""The site, built once per test run and served on 127.0.0.1: the ``site`` fixture.

Every test under ``tests/site/`` reads this one build: ``mkdocs build --strict`` of the
repository for ``SITE_URL`` = the address it is then served at. The first pytest-xdist worker to
ask starts the server and builds for its address; the others wait for the build. The server is
a process of its own that lives until the pytest run ends, so no worker that finishes early
takes away a socket another worker's page is still loading from.
In ``make test`` the pages' fences ran just before, as tests (``conftest.py`` at the root), so
the build shows their outputs from the cache and runs none (``test_build.py`` checks that).
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
ZH = "zh/"


def url_path(src: str) -> str:
    """The folder a docs source is served at, from the site's root ('' is the home page)."""
    stem = src.rsplit(".", 1)[0]
    return stem.removesuffix("index") if stem.split("/")[-1] == "index" else stem + "/"


SOURCES = {p.relative_to(DOCS).as_posix() for p in [*DOCS.rglob("*.md"), *DOCS.rglob("*.ipynb")]}
ENGLISH = sorted(url_path(s) for s in SOURCES if not s.startswith(ZH))
ZH_ONLY = sorted(  # the Chinese notebook: no English twin
    url_path(s) for s in SOURCES if s.startswith(ZH) and s.removeprefix(ZH) not in SOURCES
)
PAGES = ENGLISH + [ZH + page for page in ENGLISH] + ZH_ONLY
CONCEPTS = (
    "token-embedding/", "positional-encoding/", "transformer-embedding/", "layer-norm/",
    "feed-forward/", "attention/", "encoder-layer/", "encoder/",
)  # fmt: skip
# The file each page is built from: a Chinese page with no translation shows the English one.
SOURCE = {ZH + url_path(s): DOCS / s for s in SOURCES if not s.startswith(ZH)}
SOURCE |= {url_path(s): DOCS / s for s in SOURCES}


def build(dest: Path, url: str, tool: str = "mkdocs") -> tuple[int, str]:
    """``TOOL build --strict`` of the repository into ``dest`` for the address ``url``: its exit
    status and its log."""
    command = [sys.executable, "-m", tool, "build", "--strict", "-d", str(dest)]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": url}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    return done.returncode, done.stdout + done.stderr


# Python's own file server (`python -m http.server`) for the folder $1, stopped when the process
# $2 (the pytest run) has ended; its first line names the port it took.
SERVE = (
    '"$3" -u -m http.server 0 --bind 127.0.0.1 --directory "$1" 2>/dev/null & server=$!; '
    'while kill -0 "$2" 2>/dev/null; do sleep 0.5; done; kill "$server"'
)


def serve(folder: Path, owner: int) -> str:
    """Serve ``folder`` on 127.0.0.1 until the process ``owner`` ends; return its address."""
    folder.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen(
        ["sh", "-c", SERVE, "sh", folder, str(owner), sys.executable],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    port = re.search(r" port (\d+)", server.stdout.readline())[1]
    return f"http://127.0.0.1:{port}/"


@dataclasses.dataclass
class Site:
    """The build (its exit status and log), served at ``base``, the address it was built for."""

    dir: Path
    base: str
    returncode: int
    log: str
    url_path, build = staticmethod(url_path), staticmethod(build)  # build: ProperDocs too
    pages, english, zh_only, source, concepts = PAGES, ENGLISH, ZH_ONLY, SOURCE, CONCEPTS

    def url(self, path: str) -> str:
        return self.base + path

    def html(self, path: str) -> str:
        return (self.dir / path / "index.html").read_text(encoding="utf-8")

    @staticmethod
    def article(page: str) -> str:
        """The article of a page's HTML: what it says, without the theme around it."""
        return page[page.index("<article") : page.index("</article>")]

    @staticmethod
    def text(fragment: str) -> str:
        """The text a reader reads in an HTML fragment, its spaces collapsed."""
        return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for name, pages in (("page_path", PAGES), ("english_page", ENGLISH)):
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, pages, ids=[p.strip("/") or "home" for p in pages])


@pytest.fixture(scope="session")
def site(tmp_path_factory, worker_id) -> Site:
    """The one build of the run, served: the first pytest-xdist worker to get here starts the
    server and builds; the others wait for the build and use it."""
    base = tmp_path_factory.getbasetemp()
    shared = base if worker_id == "master" else base.parent
    folder, record = shared / "site", shared / "site.json"
    with FileLock(shared / "site.lock"):
        if not record.exists():  # the run's process: this one, or pytest-xdist's controller
            url = serve(folder, os.getpid() if worker_id == "master" else os.getppid())
            record.write_text(json.dumps([url, *build(folder, url)]))
    site = Site(folder, *json.loads(record.read_text()))
    if not (folder / "index.html").is_file():
        pytest.fail(f"mkdocs wrote no site (exit {site.returncode}):\n{site.log}")
    return site
