"""MkDocs in a subprocess: how the tests and the scripts build and serve a site.

    build = Build(tmp / "site", env={"SITE_URL": "http://127.0.0.1:8123/"})  # starts it
    build.wait().check()  # raises with MkDocs' log unless it passed without a warning

``Build`` runs ``mkdocs build --strict`` of a configuration (the repository's ``mkdocs.yml`` by
default) into a folder of the caller's, never ``site/``; ``mkdocs`` starts any other command
(``serve``). ``tool="properdocs"`` runs ProperDocs, MkDocs' drop-in successor, instead.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "mkdocs.yml"

# Lines with "WARNING" that are not about the site: ipykernel 7 logs this to stderr whenever
# mkdocs-jupyter starts a kernel (a cold notebook cache), over local TCP as nbclient asks.
BENIGN_WARNINGS = ("[IPKernelApp] WARNING | Kernel is running over TCP without encryption.",)


def mkdocs(
    command: str,
    *args: str,
    config: Path = CONFIG,
    env: dict[str, str] | None = None,
    tool: str = "mkdocs",
    **popen,
) -> subprocess.Popen:
    """Start ``python -m TOOL COMMAND -f CONFIG ARGS`` in the config's folder; output piped."""
    return subprocess.Popen(
        [sys.executable, "-m", tool, command, "-f", str(config), *args],
        cwd=Path(config).parent,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **popen,
    )


class Build:
    """``mkdocs build --strict`` into ``dest``, started at once; ``wait`` for its outcome."""

    def __init__(
        self,
        dest: Path,
        *,
        config: Path = CONFIG,
        env: dict[str, str] | None = None,
        tool: str = "mkdocs",
    ) -> None:
        self.site = Path(dest).resolve()
        self.log = ""
        self.returncode: int | None = None
        self.seconds = 0.0
        self._start = time.perf_counter()
        self._proc = mkdocs(
            "build", "--strict", "-d", str(self.site), config=config, env=env, tool=tool
        )

    def wait(self, timeout: float = 900) -> Build:
        if self.returncode is None:
            self.log, _ = self._proc.communicate(timeout=timeout)
            self.returncode = self._proc.returncode
            self.seconds = time.perf_counter() - self._start
        return self

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.communicate()

    @property
    def warnings(self) -> list[str]:
        """Lines of the log that warn, but for BENIGN_WARNINGS."""
        return [
            line
            for line in self.log.splitlines()
            if "WARNING" in line and not line.startswith(BENIGN_WARNINGS)
        ]

    def check(self) -> Build:
        """Raise, with MkDocs' log, unless the build exited 0 without a warning."""
        if self.wait().returncode != 0 or self.warnings:
            raise RuntimeError(
                f"mkdocs build --strict exited {self.returncode} "
                f"with {len(self.warnings)} warning(s):\n{self.log}"
            )
        return self
