"""Fixtures and hooks of the browser tests; the machinery is in ``browsing.py``.

``visit``: one page (``page_path``, every page of the site) in one colour scheme (``scheme``),
visited once: the visits start with the first browser test, in two threads that share the
list, while the tests that drive a page of their own (``live_page``) and the site's other tests
run.
``browser`` and ``live_page``: a Chromium for tests that drive a page themselves. A failing test
leaves its page's console log and a screenshot in ``test-artifacts/browser/failures/``; with
``SCREENSHOTS=1`` in the environment, every visit leaves a full-page screenshot in
``test-artifacts/browser/screenshots/``. The run ends with a summary of page weights and typeset
times (also in ``report.json``).
"""

from __future__ import annotations

import os
import queue
import re
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
from browsing import (
    ARTIFACTS,
    SCHEMES,
    Chromium,
    LivePage,
    Recorder,
    Visit,
    raw_tex,
    visit_all,
    write_report,
)

_SUMMARY: list[str] = []


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "scheme" in metafunc.fixturenames:
        metafunc.parametrize("scheme", list(SCHEMES))


# --- fixtures -------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def find_raw_tex():
    return raw_tex


@pytest.fixture(scope="session")
def browser(site):
    """A Chromium of the test process (for ``live_page``; ``new_context(scheme)``)."""
    shutil.rmtree(ARTIFACTS / "failures", ignore_errors=True)
    chromium = Chromium(site.origin)
    yield chromium
    chromium.close()


VISITORS = 2  # threads, each with a Chromium: one per core


@pytest.fixture(scope="session", autouse=True)
def _sweep(request: pytest.FixtureRequest, site):
    """Every page in both schemes, visited in threads of their own from the first browser test
    on, when a test of the run reads a visit: the tests that drive a page themselves, and the
    site's other tests, run meanwhile."""
    if not any(
        {"visit", "visits"} & set(getattr(item, "fixturenames", ()))
        for item in request.session.items
    ):
        yield []
        return
    shots = ARTIFACTS / "screenshots" if os.environ.get("SCREENSHOTS") else None
    if shots:
        shutil.rmtree(shots, ignore_errors=True)
        shots.mkdir(parents=True)
    jobs = queue.SimpleQueue()
    for path in site.pages:
        for scheme in SCHEMES:
            jobs.put((path, scheme))
    with ThreadPoolExecutor(VISITORS) as pool:
        yield [pool.submit(visit_all, site, jobs, shots) for _ in range(VISITORS)]


@pytest.fixture(scope="session")
def visits(site, _sweep) -> dict[tuple[str, str], Visit | str]:
    """{(page, scheme): its Visit, or why it failed}: every page in both schemes."""
    out = {key: v for job in _sweep for key, v in job.result().items()}
    _SUMMARY[:] = write_report(site, [v for v in out.values() if isinstance(v, Visit)])
    return out


@pytest.fixture
def visit(visits, browser, page_path: str, scheme: str) -> Visit:
    # (`browser`: for the screenshot of a failure, made after the visit's page is closed)
    found = visits[page_path, scheme]
    if isinstance(found, str):
        pytest.fail(found, pytrace=False)
    return found


@pytest.fixture
def live_page(browser: Chromium):
    """A fresh page in a fresh light-scheme context (no stored palette), with a recorder."""
    ctx = browser.new_context("light")
    page = ctx.new_page()
    yield LivePage(page, Recorder(page))
    ctx.close()


# --- failure artifacts, screenshots ---------------------------------------------------------------
@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    report = yield
    if report.when == "call" and report.failed:
        try:
            _save_failure(item)
        except Exception as err:  # an artifact must never hide the failure itself
            report.sections.append(("browser artifacts", f"could not save: {err!r}"))
    return report


def _save_failure(item: pytest.Item) -> None:
    funcargs = getattr(item, "funcargs", {})
    out = ARTIFACTS / "failures"
    stem = out / re.sub(r"[^\w.-]+", "_", item.nodeid.split("::", 1)[-1])
    out.mkdir(parents=True, exist_ok=True)
    visit, live = funcargs.get("visit"), funcargs.get("live_page")
    if isinstance(visit, Visit):  # its page is closed: load it again for the screenshot
        stem.with_suffix(".log").write_text(f"{visit.url}\n\n{visit.recorder.log()}")
        ctx = funcargs["browser"].new_context(visit.scheme)
        page = ctx.new_page()
        page.goto(visit.url, wait_until="networkidle")
        page.screenshot(path=f"{stem}.png", full_page=True)
        ctx.close()
    if isinstance(live, LivePage) and not live.page.is_closed():
        stem.with_suffix(".log").write_text(f"{live.page.url}\n\n{live.recorder.log()}")
        live.page.screenshot(path=f"{stem}.png", full_page=True)


def pytest_terminal_summary(terminalreporter) -> None:
    if _SUMMARY:
        terminalreporter.write_sep("=", "browser: pages, weights, typeset times")
        for line in _SUMMARY:
            terminalreporter.write_line(line)
