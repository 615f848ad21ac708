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


class Build:
    """``TOOL build --strict`` of the repository into ``dest``, started at once."""

    def __init__(self, dest: Path, env: dict, tool: str = "mkdocs"):
        self.log, self.returncode, self.site = "", None, dest
        self._proc = subprocess.Popen(
            [sys.executable, "-m", tool, "build", "--strict", "-d", str(dest)],
            cwd=ROOT,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    @classmethod
    def done(cls, record: dict) -> Build:
        """The build another worker made, from its record."""
        build = cls.__new__(cls)
        build.log, build.returncode = record["log"], record["returncode"]
        build._proc = None
        return build

    def wait(self) -> Build:
        if self.returncode is None:
            self.log, _ = self._proc.communicate(timeout=900)
            self.returncode = self._proc.returncode
        return self

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.communicate()

    @property
    def warnings(self) -> list[str]:
        return [line for line in self.log.splitlines() if "WARNING" in line]


# Python's own file server (`python -m http.server`) for the folder $1, stopped when the process
# $2 (the pytest run) has ended; its first line names the port it took.
SERVE = (
    '"$3" -u -m http.server 0 --bind 127.0.0.1 --directory "$1" 2>/dev/null & server=$!; '
    'while kill -0 "$2" 2>/dev/null; do sleep 0.5; done; kill "$server"'
)


def serve(folder: Path, owner: int) -> int:
    """Serve ``folder`` on 127.0.0.1 until the process ``owner`` ends; return the port."""
    folder.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen(
        ["sh", "-c", SERVE, "sh", folder, str(owner), sys.executable],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    return int(re.search(r" port (\d+)", server.stdout.readline())[1])


class Site:
    """The build, served on 127.0.0.1 at the address it was built for."""

    url_path = staticmethod(url_path)
    pages, english, zh_only = PAGES, ENGLISH, ZH_ONLY

    def __init__(self, folder: Path, port: int) -> None:
        self.tmp, self.dir = folder, folder / "site"
        self.base = f"http://127.0.0.1:{port}/"
        self.env = {"SITE_URL": self.base}
        self.build: Build | None = None
        self.properdocs: Build | None = None

    def start_properdocs(self) -> Build:
        if self.properdocs is None:
            self.properdocs = Build(self.tmp / "properdocs", self.env, tool="properdocs")
        return self.properdocs

    def url(self, path: str) -> str:
        return self.base + path

    def html(self, path: str) -> str:
        return (self.dir / path / "index.html").read_text(encoding="utf-8")

    def close(self) -> None:
        if self.properdocs is not None:
            self.properdocs.stop()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for name, pages in (("page_path", PAGES), ("english_page", ENGLISH)):
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, pages, ids=[p.strip("/") or "home" for p in pages])


@pytest.fixture(scope="session")
def site(tmp_path_factory, worker_id):
    """The one build of the run, served: the first pytest-xdist worker to get here starts the
    server and builds; the others wait for the build and use it."""
    base = tmp_path_factory.getbasetemp()
    shared = base if worker_id == "master" else base.parent
    with FileLock(shared / "site.lock"):
        record = shared / "site.json"
        if record.exists():
            done = json.loads(record.read_text())
            site = Site(shared, done["port"])
            site.build = Build.done(done)
        else:  # the run's process: this one, or pytest-xdist's controller of this worker
            port = serve(shared / "site", os.getpid() if worker_id == "master" else os.getppid())
            site = Site(shared, port)
            site.build = b = Build(site.dir, site.env).wait()
            done = {"port": port, "log": b.log, "returncode": b.returncode}
            record.write_text(json.dumps(done))
    if not (site.dir / "index.html").is_file():
        pytest.fail(f"mkdocs wrote no site (exit {site.build.returncode}):\n{site.build.log}")
    yield site
    site.close()
