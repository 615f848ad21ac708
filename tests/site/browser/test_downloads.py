"""The download button, clicked as a reader clicks it: what arrives is a valid notebook, and the
page's own. A notebook page gives its source notebook (not a notebook built around it), byte for
byte but for its links to the site, which lead to the site's address; a concept page gives the
notebook of its code. On a phone too (where the button is
on screen and a tap target: test_pages.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urljoin

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
        own = source.read_text(encoding="utf-8")
        links = re.findall(r"\]\(([^)\s]+)\)", own)
        assert links and all(not link.startswith(site.base) for link in links)  # relative there
        whole = {link: urljoin(site.url(path), link) for link in links}
        assert arrived.decode("utf-8") == re.sub(
            r"\]\(([^)\s]+)\)", lambda m: f"]({whole[m[1]]})", own
        )
        assert all(leads_into_the_site(site, url) for url in whole.values())
    else:
        cells = json.loads(arrived)["cells"]
        assert cells[0]["source"].startswith("# Layer Norm")
        assert len(cells) > 3 and [c["cell_type"] for c in cells[:2]] == ["markdown", "code"]
    assert problems == []


def leads_into_the_site(site, url: str) -> bool:
    """Whether ``url``, a page of the site with or without an anchor, is a page of the build."""
    path, _, anchor = url.removeprefix(site.base).partition("#")
    text = (site.dir / path / "index.html").read_text(encoding="utf-8")
    return not anchor or f'id="{anchor}"' in text
