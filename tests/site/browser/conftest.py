"""The browser tests: pytest-playwright's ``page`` in Debian's Chromium (Playwright never
downloads a browser), on the run's build (``site``). ``problems`` lists what goes wrong on the
test's page: a request to another host (refused), a failed request, an HTTP error, a console
error; every test checks that ``problems == []``. ``phone``: a second page, 390 px wide
with touch, watched the same way."""

from __future__ import annotations

import pytest

# Without the networking flags Chromium calls home on a closed network (refused connections).
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    chromium = {"executable_path": "/usr/bin/chromium", "args": CHROMIUM_ARGS}
    return {**browser_type_launch_args, **chromium}


# Not pytest-playwright's, which asks for a fixture named ``device``: tests/conftest.py's is
# the torch device, parametrised.
@pytest.fixture(scope="session")
def browser_context_args():
    return {"viewport": {"width": 1280, "height": 900}}


# What a reader of 390 px sees, with touch (the pages' narrow layout and touch rules).
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def watch(page, site, found: list[str]) -> None:
    """Record on ``found`` what goes wrong on ``page`` (see the module's docstring)."""

    def away(route) -> None:
        found.append(f"asked another host: {route.request.url}")
        route.abort()

    page.route(lambda url: not url.startswith(site.base), away)
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
    """A second page, in the run's one phone context (quicker to open than a context)."""
    page = phone_context.new_page()
    watch(page, site, problems)
    yield page
    page.close()
