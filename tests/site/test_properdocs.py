"""The site also builds with ProperDocs, MkDocs 1.x's drop-in fork, into the same pages (and
runs no fence: it builds on the run's cache). Material for MkDocs reaches end of life on
2027-05-05 and MkDocs 1.x has had no release since 2024-08: this keeps ProperDocs a way out."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

ARTICLE = re.compile(r'<article class="md-content__inner[^"]*">(.*?)</article>', re.DOTALL)
TAG = re.compile(r"<[^>]+>")


@pytest.fixture(scope="module")
def properdocs(site):
    build = site.start_properdocs().wait()
    assert build.returncode == 0 and not build.warnings, build.log
    return build


def _text(page: Path) -> str:
    match = ARTICLE.search(page.read_text(encoding="utf-8"))
    return " ".join(html.unescape(TAG.sub(" ", match[1])).split()) if match else ""


def test_properdocs_builds_the_same_pages_with_the_same_text(site, properdocs):
    ours = sorted(p.relative_to(site.dir) for p in site.dir.rglob("*.html"))
    theirs = sorted(p.relative_to(properdocs.site) for p in properdocs.site.rglob("*.html"))
    assert theirs == ours and len(ours) > 30
    differ = [p for p in ours if _text(site.dir / p) != _text(properdocs.site / p)]
    assert not differ, f"the article's text differs on {differ}"
    assert set(re.findall(r"fences: (\d+) ran", properdocs.log)) == {"0"}, properdocs.log
