"""The download button, clicked as a reader clicks it: what arrives is a valid notebook, and the
page's own. A notebook page gives its source notebook, byte for byte (not a notebook built
around it); a concept page gives the notebook of its code. On a phone too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[3] / "docs"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def _download(page):
    with page.expect_download() as download:
        page.locator("a[data-run-notebook]").click()
    return download.value


@pytest.mark.parametrize(
    "source",
    [
        "notebooks/positional-encoding-walkthrough.ipynb",
        "zh/notebooks/positional-encoding-walkthrough.ipynb",
        "zh/notebooks/embedding-zh.ipynb",
        "layer-norm.md",
    ],
)
def test_the_download_button_gives_the_page_notebook(page, site, problems, source):
    import nbformat

    page.goto(site.url(site.url_path(source)))
    download = _download(page)
    arrived = Path(download.path()).read_bytes()
    nbformat.validate(nbformat.reads(arrived.decode("utf-8"), as_version=4))
    if source.endswith(".ipynb"):
        assert download.suggested_filename == Path(source).name
        assert arrived == (DOCS / source).read_bytes()
    else:
        cells = json.loads(arrived)["cells"]
        assert cells[0]["source"].startswith("# Layer Norm")
        assert len(cells) > 3 and [c["cell_type"] for c in cells[:2]] == ["markdown", "code"]
    assert problems == []


def test_the_download_button_on_a_phone(browser, site):
    """At 390 px the button is on screen and gives the notebook page's notebook."""
    import nbformat

    context = browser.new_context(**PHONE, accept_downloads=True)
    try:
        page = context.new_page()
        source = "zh/notebooks/positional-encoding-walkthrough.ipynb"
        page.goto(site.url(site.url_path(source)))
        button = page.locator("a[data-run-notebook]")
        box = button.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert box["width"] >= 24 and box["height"] >= 24  # a tap target
        download = _download(page)
        arrived = Path(download.path()).read_bytes()
        nbformat.validate(nbformat.reads(arrived.decode("utf-8"), as_version=4))
        assert arrived == (DOCS / source).read_bytes()
    finally:
        context.close()
