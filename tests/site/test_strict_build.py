"""The run's strict build passed, and every python fence of every page ran in it.

The fences run once, in the build (markdown-exec, through docs_build/fences.py, which records
them): a fence that raised is reported here against its page, with its code and traceback, and so
is a fence the page shows without running (docs_build/fences.py's checks).
"""

from __future__ import annotations

from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
SOURCES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))  # Markdown pages


def test_strict_build_passes_without_warnings(site):
    assert site.build.returncode == 0, site.build.log
    assert site.build.warnings == [], site.build.log


@pytest.mark.parametrize("page", SOURCES)
def test_every_fence_of_the_page_ran(site, page: str):
    record = site.fences.get(page)
    assert record is not None, f"the build did not record docs/{page}:\n{site.build.log}"
    failed = [
        f"fence {f['n']} of session {f['session']!r}:\n{f['log']}"
        for f in record["fences"]
        if f["status"] == "failed"
    ]
    assert not failed, f"docs/{page}: " + "\n\n".join(failed)
    assert not record["problems"], f"docs/{page}: " + "\n".join(record["problems"])


def test_english_fences_ran_and_chinese_pages_reuse_their_results(site):
    # The build started from an empty cache: every English fence ran, for real.
    for page in SOURCES:
        if page.startswith("zh/"):
            english = site.fences[page.removeprefix("zh/")]["fences"]
            chinese = site.fences[page]["fences"]
            assert [f["code"] for f in chinese] == [f["code"] for f in english], page
            assert {f["status"] for f in english} <= {"ran"}, page
            assert {f["status"] for f in chinese} <= {"cached"}, page
    assert any(page["fences"] for page in site.fences.values())


def test_the_second_process_ran_pages_and_the_build_ran_them_not_again(site):
    # docs_build/fence_worker.py takes the pages with code from the end of the build's order (the
    # Train page trains for half a minute) while the build renders the pages before them.
    worked = [p for p, r in site.fences.items() if any(f.get("by") for f in r["fences"])]
    assert worked, "the fence worker ran no page: the cold build ran on one core"
    for page in worked:
        assert all(f.get("by") == "worker" for f in site.fences[page]["fences"]), page
