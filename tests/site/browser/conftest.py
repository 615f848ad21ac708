"""The browser tests: pytest-playwright's ``page`` in Debian's Chromium (Playwright never
downloads a browser), on the run's build (``site``).

``problems`` watches the test's page: a request to another host (refused, and recorded), a
failed request, an HTTP error and a console error each add a line; every test ends with
``assert problems == []``. ``phone`` is a second page, as a phone shows it (390 px, touch),
watched the same way. Run them two at a time with pytest-xdist (``-n 2``).
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


# A phone: what a reader of 390 px sees, with touch (the pages' narrow layout and touch rules).
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def watch(page, site, found: list[str]) -> None:
    """Record on ``found`` what goes wrong on ``page`` (see the module's docstring)."""
    local = site.base

    def away(route) -> None:
        found.append(f"asked another host: {route.request.url}")
        route.abort()

    page.route(lambda url: not url.startswith(local), away)
    page.on("requestfailed", lambda r: found.append(f"failed: {r.url} {r.failure}"))
    page.on("response", lambda r: r.status >= 400 and found.append(f"HTTP {r.status}: {r.url}"))
    page.on("console", lambda m: m.type == "error" and found.append(f"console: {m.text}"))
    page.on("pageerror", lambda err: found.append(f"page error: {err}"))


@pytest.fixture
def problems(page, site) -> list[str]:
    found: list[str] = []
    watch(page, site, found)
    return found


@pytest.fixture(scope="session")
def phone_context(browser):
    context = browser.new_context(**PHONE)
    yield context
    context.close()


@pytest.fixture
def phone(phone_context, site, problems):
    """A second page, 390 px wide with touch (one context for the run: a context takes longer
    to open than a page); what goes wrong on it goes to the test's ``problems`` too."""
    page = phone_context.new_page()
    watch(page, site, problems)
    yield page
    page.close()
