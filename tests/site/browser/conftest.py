"""The browser tests: pytest-playwright's ``page`` in Debian's Chromium (Playwright never
downloads a browser), on the run's build (``site``).

``problems`` watches the test's page: a request to another host (refused, and recorded), a
failed request, an HTTP error and a console error each add a line; every test ends with
``assert problems == []``. Run them two at a time with pytest-xdist (``-n 2``).
"""

from __future__ import annotations

import pytest

# Without the networking flags Chromium calls home on a closed network (refused connections).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": "/usr/bin/chromium",
        "args": CHROMIUM_ARGS,
    }


# Not pytest-playwright's, which asks for a fixture named ``device``: tests/conftest.py's is
# the torch device, parametrised.
@pytest.fixture(scope="session")
def browser_context_args():
    return {"viewport": {"width": 1280, "height": 900}}


@pytest.fixture
def problems(page, site) -> list[str]:
    found: list[str] = []
    local = site.base

    def away(route) -> None:
        found.append(f"asked another host: {route.request.url}")
        route.abort()

    page.route(lambda url: not url.startswith(local), away)
    page.on("requestfailed", lambda r: found.append(f"failed: {r.url} {r.failure}"))
    page.on("response", lambda r: r.status >= 400 and found.append(f"HTTP {r.status}: {r.url}"))
    page.on("console", lambda m: m.type == "error" and found.append(f"console: {m.text}"))
    page.on("pageerror", lambda err: found.append(f"page error: {err}"))
    return found
