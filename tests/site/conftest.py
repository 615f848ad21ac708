"""The site, built once per test run and served on 127.0.0.1: the ``site`` fixture.

Every test under ``tests/site/`` reads this one build: ``mkdocs build --strict`` of the
repository with an empty cache (every fence, figure and notebook is computed, as on a fresh
clone), for ``SITE_URL`` = the address it is then served at, so that Material's instant
navigation works in the browser tests. The build starts in a subprocess as soon as collection
ends, and these tests run last: the package tests run while it builds, at a lower priority than
the build. ProperDocs' build of the site (tests/site/test_properdocs.py) starts when it is done,
on its cache, and runs while the browser tests do.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from docs_build.run import Build

HERE = Path(__file__).parent
DOCS = HERE.parent.parent / "docs"
ZH = "zh/"
SITE = pytest.StashKey["Site"]()


def url_path(src: str) -> str:
    """The folder a docs source is served at, from the site's root ('' is the home page)."""
    stem = src.rsplit(".", 1)[0]
    return stem.removesuffix("index") if stem.split("/")[-1] == "index" else stem + "/"


# Every page of the site: the English sources, and each under /zh/ (tests/site/test_i18n.py
# checks that the build makes exactly these).
ENGLISH = sorted(
    url_path(p.relative_to(DOCS).as_posix())
    for p in [*DOCS.rglob("*.md"), *DOCS.rglob("*.ipynb")]
    if not p.relative_to(DOCS).as_posix().startswith(ZH)
)
PAGES = ENGLISH + [ZH + page for page in ENGLISH]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


class Site:
    """The build, served on 127.0.0.1 at the address it was built for."""

    url_path = staticmethod(url_path)

    def __init__(self, properdocs: bool = False) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="encoder-site-"))
        self.dir = self.tmp / "site"
        self.cache = self.tmp / "cache"
        # Bind first (port 0: a free port, no race), build for that address, serve once built.
        handler = functools.partial(_Quiet, directory=str(self.dir))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        self.base = self.origin + "/"
        self.env = {"SITE_URL": self.base, "DOCS_CACHE": str(self.cache)}
        self.build = Build(self.dir, env=self.env)
        self.pages, self.english = PAGES, ENGLISH
        self.fences: dict[str, dict] = {}  # the build's record of each page's fences
        self.properdocs: Build | None = None
        self._want_properdocs = properdocs
        self._ready = False

    def ready(self) -> Site:
        if not self._ready:
            self._ready = True
            self.build.wait()
            record = self.cache / "fences" / "record.json"
            if record.exists():  # read now: a later build on this cache rewrites it
                self.fences = json.loads(record.read_text())["pages"]
            if self._want_properdocs:
                self.start_properdocs()
            threading.Thread(target=self.server.serve_forever, daemon=True).start()
        if not (self.dir / "index.html").is_file():
            pytest.fail(f"mkdocs wrote no site (exit {self.build.returncode}):\n{self.build.log}")
        return self

    def start_properdocs(self) -> Build:
        """``properdocs build --strict`` with this build's environment (address, cache)."""
        if self.properdocs is None:
            self.properdocs = Build(self.tmp / "properdocs", env=self.env, tool="properdocs")
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


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for name, pages in (("page_path", PAGES), ("english_page", ENGLISH)):
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, pages, ids=[p.strip("/") or "home" for p in pages])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The site's tests last: the rest of the run goes on while the site builds. Among them, the
    # tests that read the page visits (which start with the first browser test, in threads of
    # their own) come after every other, and ProperDocs' (which builds meanwhile) at the end.
    def waits(item: pytest.Item) -> int:
        names = set(getattr(item, "fixturenames", ()))
        return 2 if "properdocs" in names else 1 if names & {"visit", "visits"} else 0

    ours = sorted((item for item in items if HERE in item.path.parents), key=waits)
    items[:] = [item for item in items if HERE not in item.path.parents] + ours


def pytest_collection_finish(session: pytest.Session) -> None:
    def wanted(fixture: str) -> bool:
        return any(fixture in getattr(item, "fixturenames", ()) for item in session.items)

    if wanted("site") and not session.config.option.collectonly:
        session.config.stash[SITE] = Site(properdocs=wanted("properdocs"))
        # The build is the longest path while it lasts: its second process trains the Train
        # page's models for half a minute. The tests that run meanwhile yield the cores to it;
        # what this process starts later (Chromium, ProperDocs) competes only with itself.
        os.nice(10)


def pytest_unconfigure(config: pytest.Config) -> None:
    site = config.stash.get(SITE, None)
    if site is not None:
        site.close()


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    site = config.stash.get(SITE, None)
    if site is None or site.build.returncode is None:
        return
    fences = [f for page in site.fences.values() for f in page["fences"]]
    ran = [f for f in fences if f["status"] != "cached"]
    terminalreporter.write_sep("=", "site")
    terminalreporter.write_line(
        f"mkdocs build --strict: exit {site.build.returncode} in {site.build.seconds:.1f} s "
        f"(empty cache); {len(ran)} fences ran in {sum(f['seconds'] for f in ran):.1f} s "
        f"({sum(f.get('by') == 'worker' for f in ran)} of them in the second process), "
        f"{len(fences) - len(ran)} reused"
    )


@pytest.fixture(scope="session")
def site(request: pytest.FixtureRequest) -> Site:
    """The one build of the run, served (its build waited for)."""
    if SITE not in request.config.stash:  # e.g. a test selected by its id
        request.config.stash[SITE] = Site()
    return request.config.stash[SITE].ready()
