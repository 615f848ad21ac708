"""The site also builds with ProperDocs, and yields the same pages as with MkDocs.

MkDocs 1.x has had no release since 2024-08 and Material for MkDocs reaches end of life on
2027-05-05. ProperDocs is a drop-in fork of MkDocs 1.x: it reads this ``mkdocs.yml`` and runs the
same theme, plugins and hooks (``properdocs build`` / ``properdocs serve`` in place of
``mkdocs build`` / ``mkdocs serve``). These tests keep that way out open: both tools build the
site strictly from the same tree, and the pages must match, apart from the generator tag and the
build stamp's time.

ProperDocs builds on the cache of the run's MkDocs build, so these tests also show that a warm
build, which shows every fence's output from the cache, makes the same pages as a cold one.
"""

from __future__ import annotations

import difflib
import html
import json
import re
from pathlib import Path

import pytest

from docs_build.run import Build

GENERATOR = re.compile(r'<meta name="generator" content="[^"]*">')
STAMP_TIME = re.compile(r"Built \d{4}-\d\d-\d\d \d\d:\d\d UTC")
ARTICLE = re.compile(r'<article class="md-content__inner[^"]*">(.*?)</article>', re.DOTALL)
TAG = re.compile(r"<[^>]+>")


@pytest.fixture(scope="module")
def properdocs(site) -> Build:
    """``properdocs build --strict`` with the environment (SITE_URL, cache) of the run's build."""
    return site.start_properdocs().wait()


@pytest.fixture(scope="module")
def sites(site, properdocs: Build) -> dict[str, Path]:
    """The site built by each tool; fails with the log of a build that did not pass."""
    for tool, build in (("mkdocs", site.build), ("properdocs", properdocs)):
        if build.returncode != 0:
            pytest.fail(f"{tool} build --strict exited {build.returncode}:\n{build.log}")
    return {"mkdocs": site.dir, "properdocs": properdocs.site}


def test_properdocs_ran_no_fence_again(site, sites):
    record = json.loads((site.cache / "fences" / "record.json").read_text())["pages"]
    fences = [fence for page in record.values() for fence in page["fences"]]
    assert fences and {fence["status"] for fence in fences} == {"cached"}


def _pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def _normalised(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    return STAMP_TIME.sub("Built <time>", GENERATOR.sub("<generator>", text))


def _article_text(page: Path) -> str:
    match = ARTICLE.search(page.read_text(encoding="utf-8"))
    return " ".join(html.unescape(TAG.sub(" ", match.group(1))).split()) if match else ""


def test_properdocs_builds_the_same_pages(sites):
    mkdocs, properdocs = _pages(sites["mkdocs"]), _pages(sites["properdocs"])
    assert "index.html" in mkdocs
    assert properdocs == mkdocs


def test_properdocs_pages_have_the_same_article_text(sites):
    differ = []
    for name in _pages(sites["mkdocs"]):
        ours = _article_text(sites["mkdocs"] / name)
        theirs = _article_text(sites["properdocs"] / name)
        if ours != theirs:
            differ.append(name)
    assert not differ, f"article text differs on: {differ}"


def test_properdocs_html_differs_only_in_generator_and_build_time(sites):
    for name in _pages(sites["mkdocs"]):
        ours = _normalised(sites["mkdocs"] / name)
        theirs = _normalised(sites["properdocs"] / name)
        if ours != theirs:
            diff = difflib.unified_diff(
                ours.splitlines(), theirs.splitlines(), "mkdocs", "properdocs", lineterm="", n=1
            )
            pytest.fail(f"{name} differs:\n" + "\n".join(list(diff)[:40]))
