"""The browser tests: pytest-playwright's ``page`` in Debian's Chromium (Playwright never
downloads a browser), on the run's build (``site``). ``problems`` lists what goes wrong on the
test's page: a request to another host (refused), a failed request, an HTTP error, a console
error; every test checks that ``problems == []``. ``phone``: a second page, 390 px wide
with touch, watched the same way."""

from __future__ import annotations

import pytest


# Playwright's own switches keep Chromium from calling home (background networking, component
# updates, sync, first run) and drop its sandbox; QUIC and the GPU are ours to turn off.
@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    chromium = {"executable_path": "/usr/bin/chromium", "args": ["--disable-gpu", "--disable-quic"]}
    return {**browser_type_launch_args, **chromium}


# Not pytest-playwright's, which asks for ``device``: tests/conftest.py's, the torch device.
@pytest.fixture(scope="session")
def browser_context_args():
    return {"viewport": {"width": 1280, "height": 900}}


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def watch(context, site, found: list[str]) -> list[str]:
    """Record on ``found`` what goes wrong in ``context`` (see the module's docstring); a request
    to another host is refused, so it fails as blocked by the client."""
    context.route(lambda url: not url.startswith(site.base), lambda r: r.abort("blockedbyclient"))
    context.on("requestfailed", lambda r: found.append(f"failed: {r.url} {r.failure}"))
    context.on("response", lambda r: r.status >= 400 and found.append(f"HTTP {r.status}: {r.url}"))
    context.on("console", lambda m: m.type == "error" and found.append(f"console: {m.text}"))
    context.on("weberror", lambda err: found.append(f"page error: {err.error}"))
    return found


@pytest.fixture
def problems(context, site) -> list[str]:
    return watch(context, site, [])


@pytest.fixture
def phone(browser, site, problems):
    """A second page, in a context of its own: a phone's (see the module's docstring)."""
    context = browser.new_context(**PHONE)
    watch(context, site, problems)
    yield context.new_page()
    context.close()
