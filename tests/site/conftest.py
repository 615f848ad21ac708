"""The site, built once per test run and served on 127.0.0.1: the ``site`` fixture.

Every test under ``tests/site/`` reads this one build: ``mkdocs build --strict`` of the
repository for ``SITE_URL`` = the address it is then served at. In ``make test`` the pages'
fences ran just before, as tests (``conftest.py`` at the root), so the build shows their outputs
from the cache and runs none (``test_build.py`` checks that). ProperDocs' build of the same tree
(``test_properdocs.py``) starts when this one is done and runs while the browser tests do.
``BUILT_SITE=DIR`` tests a site built before instead (for the HTML tests; it was built for
another address, so instant navigation and ProperDocs' comparison do not apply).
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
ZH = "zh/"
# ipykernel logs this whenever mkdocs-jupyter starts a kernel over local TCP, as nbclient asks.
BENIGN = ("[IPKernelApp] WARNING | Kernel is running over TCP without encryption.",)


def url_path(src: str) -> str:
    """The folder a docs source is served at, from the site's root ('' is the home page)."""
    stem = src.rsplit(".", 1)[0]
    return stem.removesuffix("index") if stem.split("/")[-1] == "index" else stem + "/"


ENGLISH = sorted(
    url_path(p.relative_to(DOCS).as_posix())
    for p in [*DOCS.rglob("*.md"), *DOCS.rglob("*.ipynb")]
    if not p.relative_to(DOCS).as_posix().startswith(ZH)
)
PAGES = ENGLISH + [ZH + page for page in ENGLISH]


class Build:
    """``TOOL build --strict`` of the repository into ``dest``, started at once."""

    def __init__(self, dest: Path, env: dict, tool: str = "mkdocs", built: Path | None = None):
        self.site, self.log, self.returncode, self.seconds = dest, "", None, 0.0
        self._start = time.perf_counter()
        if built is not None:  # BUILT_SITE
            shutil.copytree(built, dest)
            self.returncode, self._proc = 0, None
            return
        self._proc = subprocess.Popen(
            [sys.executable, "-m", tool, "build", "--strict", "-d", str(dest)],
            cwd=ROOT,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def wait(self) -> Build:
        if self.returncode is None:
            self.log, _ = self._proc.communicate(timeout=900)
            self.returncode = self._proc.returncode
            self.seconds = time.perf_counter() - self._start
        return self

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.communicate()

    @property
    def warnings(self) -> list[str]:
        lines = self.log.splitlines()
        return [line for line in lines if "WARNING" in line and not line.startswith(BENIGN)]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


class Site:
    """The build, served on 127.0.0.1 at the address it was built for."""

    url_path = staticmethod(url_path)
    pages, english = PAGES, ENGLISH

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="encoder-site-"))
        self.dir = self.tmp / "site"
        # Bind first (port 0: a free port, no race), build for that address, serve once built.
        handler = functools.partial(_Quiet, directory=str(self.dir))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        self.base = self.origin + "/"
        self.env = {"SITE_URL": self.base}
        built = os.environ.get("BUILT_SITE")
        self.build = Build(self.dir, self.env, built=Path(built) if built else None)
        self.properdocs: Build | None = None
        self._ready = False

    def ready(self) -> Site:
        if not self._ready:
            self._ready = True
            self.build.wait()
            self.start_properdocs()  # test_properdocs.py's, while the other tests run
            threading.Thread(target=self.server.serve_forever, daemon=True).start()
        if not (self.dir / "index.html").is_file():
            pytest.fail(f"mkdocs wrote no site (exit {self.build.returncode}):\n{self.build.log}")
        return self

    def start_properdocs(self) -> Build:
        if self.properdocs is None:
            self.properdocs = Build(self.tmp / "properdocs", self.env, tool="properdocs")
        return self.properdocs

    def url(self, path: str) -> str:
        return self.base + path

    def html(self, path: str) -> str:
        return (self.dir / path / "index.html").read_text(encoding="utf-8")

    def close(self) -> None:
        for build in (self.build, self.properdocs):
            if build is not None:
                build.stop()
        if self._ready:
            self.server.shutdown()
        self.server.server_close()
        shutil.rmtree(self.tmp, ignore_errors=True)


_SITE: list[Site] = []


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for name, pages in (("page_path", PAGES), ("english_page", ENGLISH)):
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, pages, ids=[p.strip("/") or "home" for p in pages])


def pytest_unconfigure(config: pytest.Config) -> None:
    for site in _SITE:
        site.close()


def pytest_terminal_summary(terminalreporter) -> None:
    for site in _SITE:
        if site.build.returncode is not None:
            ran = [line for line in site.build.log.splitlines() if "fences:" in line]
            terminalreporter.write_sep("=", "site")
            terminalreporter.write_line(
                f"mkdocs build --strict: exit {site.build.returncode} in "
                f"{site.build.seconds:.1f} s; {' '.join(ran).partition('fences: ')[2]}"
            )


@pytest.fixture(scope="session")
def site() -> Site:
    """The one build of the run, served (its build waited for)."""
    if not _SITE:
        _SITE.append(Site())
    return _SITE[0].ready()
