"""Fixtures and hooks of the browser tests; the machinery is in ``browsing.py``.

The pages are parametrised from the build (``browsing.Site``), built at collection, once, and
only when a browser test is collected. A failing test leaves its page's console log and a
screenshot in ``test-artifacts/browser/failures/``; the run ends with a summary of page weights
and typeset times (also in ``test-artifacts/browser/report.json``).
"""

from __future__ import annotations

import re
import shutil

import pytest
from browsing import (
    ARTIFACTS,
    BUILD_FAILED,
    SCHEMES,
    Browser,
    LivePage,
    Recorder,
    Site,
    Visit,
    Visits,
    close_site,
    get_site,
    page_id,
    raw_tex,
    write_report,
)

_SUMMARY: list[str] = []


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # A failed build yields one failing case per test, with the build's log.
    if "page_path" in metafunc.fixturenames:
        pages = get_site().pages or [BUILD_FAILED]
        metafunc.parametrize("page_path", pages, ids=[page_id(p) for p in pages])
    if "scheme" in metafunc.fixturenames:
        metafunc.parametrize("scheme", list(SCHEMES))


def pytest_unconfigure(config: pytest.Config) -> None:
    close_site()


# --- fixtures -------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def find_raw_tex():
    return raw_tex


@pytest.fixture(scope="session")
def site() -> Site:
    s = get_site()
    if s.build_error:
        pytest.fail(f"mkdocs build --strict failed:\n{s.build_error[-4000:]}", pytrace=False)
    return s


@pytest.fixture(scope="session")
def browser(site: Site):
    for sub in ("screenshots", "failures"):
        shutil.rmtree(ARTIFACTS / sub, ignore_errors=True)
        (ARTIFACTS / sub).mkdir(parents=True)
    b = Browser(site)
    yield b
    b.close()


@pytest.fixture(scope="session")
def visits(site: Site, browser: Browser):
    v = Visits(site, browser)
    yield v
    _SUMMARY[:] = write_report(site, v)


@pytest.fixture
def visit(visits: Visits, page_path: str, scheme: str) -> Visit:
    return visits.get(page_path, scheme)


@pytest.fixture
def live_page(browser: Browser):
    """A fresh page in a fresh light-scheme context (no stored palette), with a recorder."""
    ctx = browser.new_context("light")
    page = ctx.new_page()
    yield LivePage(page, Recorder(page))
    ctx.close()


# --- failure artifacts ----------------------------------------------------------------------------
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
    stem = re.sub(r"[^\w.-]+", "_", item.nodeid.split("::", 1)[-1])
    out = ARTIFACTS / "failures"
    out.mkdir(parents=True, exist_ok=True)
    visit = funcargs.get("visit")
    if isinstance(visit, Visit):
        (out / f"{stem}.log").write_text(f"{visit.url}\n\n{visit.recorder.log()}")
        if visit.screenshot.exists():
            shutil.copy(visit.screenshot, out / f"{stem}.png")
    live = funcargs.get("live_page")
    if isinstance(live, LivePage) and not live.page.is_closed():
        (out / f"{stem}.log").write_text(f"{live.page.url}\n\n{live.recorder.log()}")
        live.page.screenshot(path=str(out / f"{stem}.png"), full_page=True)


def pytest_terminal_summary(terminalreporter) -> None:
    if _SUMMARY:
        terminalreporter.write_sep("=", "browser: pages, weights, typeset times")
        for line in _SUMMARY:
            terminalreporter.write_line(line)
