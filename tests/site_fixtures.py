"""Builds the site for the tests that need a built site (strict build checks, browser tests).

    from site_fixtures import shared_build

    build = shared_build()  # one strict build per test process, into a temporary folder
    build.check()           # raises with mkdocs' log unless the build passed
    build.site / "index.html"

``build_site(dest)`` builds into a folder of your choice. Both run ``mkdocs build --strict`` in a
subprocess from the repository root, exactly as ``make build`` does but into another folder
(never ``site/``, which ``make build`` and other builds write). The figure and notebook caches
under ``.cache/`` are keyed on the package sources (``docs_build/``), so sharing them is safe.
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Lines with "WARNING" that are not about the site: ipykernel 7 logs this to stderr whenever
# mkdocs-jupyter starts a kernel (a cold notebook cache), over local TCP as nbclient asks.
BENIGN_WARNINGS = ("[IPKernelApp] WARNING | Kernel is running over TCP without encryption.",)


@dataclasses.dataclass(frozen=True)
class Build:
    site: Path  # the built site
    log: str  # mkdocs' output, stdout and stderr
    returncode: int
    seconds: float

    @property
    def warnings(self) -> list[str]:
        """Lines of the log that warn, but for BENIGN_WARNINGS."""
        return [
            line
            for line in self.log.splitlines()
            if "WARNING" in line and not line.startswith(BENIGN_WARNINGS)
        ]

    def check(self) -> Build:
        """Raise, with mkdocs' log, unless the build exited 0 without a warning."""
        warnings = self.warnings
        if self.returncode != 0 or warnings:
            raise RuntimeError(
                f"mkdocs build --strict exited {self.returncode} "
                f"with {len(warnings)} warning(s):\n{self.log}"
            )
        return self


def build_site(
    dest: Path,
    *,
    env: dict[str, str] | None = None,
    timeout: float = 900,
    tool: str = "mkdocs",
) -> Build:
    """``mkdocs build --strict`` of the repository's site into ``dest``.

    ``env`` adds environment variables, e.g. ``{"SITE_URL": "http://127.0.0.1:8123/"}`` for a
    build served on another port (instant navigation needs ``site_url`` to match the origin).
    ``tool`` names another module with MkDocs' command line, e.g. ``"properdocs"``.
    """
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})}
    cmd = [
        *(sys.executable, "-m", tool, "build", "--strict"),
        *("-f", str(ROOT / "mkdocs.yml"), "-d", str(Path(dest).resolve())),
    ]
    start = time.perf_counter()
    proc = subprocess.run(
        cmd,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
    seconds = time.perf_counter() - start
    return Build(Path(dest).resolve(), proc.stdout, proc.returncode, seconds)


_shared: Build | None = None


SHARED_SITE_URL = "http://127.0.0.1:8000/"  # mkdocs.yml's default, whatever SITE_URL says


def shared_build() -> Build:
    """One build per test process, shared by every module that asks; removed at exit.

    Built for ``SHARED_SITE_URL`` so that it does not depend on the caller's environment.
    """
    global _shared
    if _shared is None:
        tmp = Path(tempfile.mkdtemp(prefix="encoder-site-"))
        atexit.register(shutil.rmtree, tmp, ignore_errors=True)
        _shared = build_site(tmp / "site", env={"SITE_URL": SHARED_SITE_URL})
    return _shared
