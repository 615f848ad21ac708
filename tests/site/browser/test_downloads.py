"""The download button, clicked as a reader clicks it: what arrives is a valid notebook, and the
page's own. A notebook page gives its source notebook, byte for byte (not a notebook built
around it); a concept page gives the notebook of its code. On a phone too (where the button is
on screen and a tap target: test_pages.py)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

PAGES = [
    "notebooks/positional-encoding-walkthrough/",
    "zh/notebooks/positional-encoding-walkthrough/",
    "zh/notebooks/embedding-zh/",
    "layer-norm/",
]


@pytest.mark.parametrize("path, screen", [(p, "page") for p in PAGES] + [(PAGES[1], "phone")])
def test_the_download_button_gives_the_page_notebook(request, site, problems, path, screen):
    page, source = request.getfixturevalue(screen), site.source[path]
    page.goto(site.url(path))
    with page.expect_download() as download:
        page.locator("a[data-run-notebook]").click()
    arrived = Path(download.value.path()).read_bytes()
    nbformat.validate(nbformat.reads(arrived.decode("utf-8"), as_version=4))
    if source.suffix == ".ipynb":
        assert download.value.suggested_filename == source.name
        assert arrived == source.read_bytes()
    else:
        cells = json.loads(arrived)["cells"]
        assert cells[0]["source"].startswith("# Layer Norm")
        assert len(cells) > 3 and [c["cell_type"] for c in cells[:2]] == ["markdown", "code"]
    assert problems == []
