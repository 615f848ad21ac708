""" "Run this page" in the run's build: every page whose code runs at build, and every notebook
page, has a download button for its notebook (docs_build/notebooks.py), and a page's notebook
holds the code the build ran for the page, fence by fence, in order."""

from __future__ import annotations

import json
import re

DOWNLOAD = re.compile(r'<a href="(?P<href>[^"]+\.ipynb)" download\b[^>]*data-run-notebook')


def notebook_of(site, page: str) -> dict | None:
    match = DOWNLOAD.search(site.html(page))
    if match is None:
        return None
    return json.loads((site.dir / page / match["href"]).read_text(encoding="utf-8"))


def test_each_page_that_runs_code_has_its_notebook(site):
    problems, checked = [], 0
    for src, record in sorted(site.fences.items()):
        if not record["fences"]:
            continue
        page = site.url_path(src)
        notebook = notebook_of(site, page)
        if notebook is None:
            problems.append(f"{page}: no download button")
            continue
        assert notebook["nbformat"] == 4
        # The first code cell installs the package; then one cell per fence of the page.
        cells = [c["source"] for c in notebook["cells"] if c["cell_type"] == "code"][1:]
        shown = [cell.strip().split("\n")[0] for cell in cells]
        ran = [fence["code"] for fence in record["fences"]]
        if shown != ran:
            problems.append(f"{page}: notebook cells {shown} are not the fences {ran}")
        checked += 1
    assert checked >= 20, f"only {checked} pages with code: this test would check little"
    assert problems == []


def test_notebook_pages_have_the_download_their_text_promises(site):
    pages = [p for p in site.pages if re.fullmatch(r"(zh/)?notebooks/[\w-]+/", p)]
    assert len(pages) >= 4
    for page in pages:
        notebook = notebook_of(site, page)
        assert notebook is not None, f"{page}: no download button"
        assert any(c["cell_type"] == "code" for c in notebook["cells"]), page
