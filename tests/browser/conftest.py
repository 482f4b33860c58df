"""One JupyterLab and one Chromium for the whole session; a page per notebook opened.

Debian's Chromium drives the tests through Playwright (``executable_path``: no browser
is downloaded). Without it the tests are skipped with the reason; ``.ci/run`` installs
it, so CI runs them all. A failed test leaves a screenshot of each of its pages in
``tests/browser/screenshots/`` (git-ignored).
"""

from __future__ import annotations

import shutil
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, ViewportSize, sync_playwright

from .lab import Lab, running_lab
from .notebook_ui import NotebookOpener, NotebookRuns, NotebookUI

CHROMIUM = "chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",  # the tests may run as root, where Chromium's sandbox refuses to start
    "--disable-gpu",
    # No background calls home: on a closed network they stall the browser's connections.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SCREENSHOTS = Path(__file__).parent / "screenshots"
VIEWPORT: ViewportSize = {"width": 1400, "height": 1000}


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which(CHROMIUM)
    if path is None:
        pytest.skip("no `chromium` on PATH (apt-get install chromium; .ci/run does it)")
    return path


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def lab(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    with running_lab(tmp_path_factory.mktemp("jupyterlab")) as served:
        yield served


@pytest.fixture(scope="session")
def context(browser: Browser) -> Iterator[BrowserContext]:
    """One browser context for every tab, so JupyterLab's code is cached after the first."""
    shared = browser.new_context(viewport=VIEWPORT)
    yield shared
    shared.close()


@pytest.fixture
def open_notebook(context: BrowserContext, lab: Lab) -> Iterator[NotebookOpener]:
    opener = NotebookOpener(context, lab)
    yield opener
    opener.close()


@pytest.fixture(scope="session")
def notebook_runs(context: BrowserContext, lab: Lab) -> Iterator[NotebookRuns]:
    """Each notebook run whole at most once per session: the run a test checks is the
    one the widget tests then drive (nbval runs every notebook too)."""
    opener = NotebookOpener(context, lab)
    yield NotebookRuns(opener)
    opener.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.failed and call.when in ("setup", "call"):
        _screenshot(item, report)
    return report


def _screenshot(item: pytest.Item, report: pytest.TestReport) -> None:
    """Keep a picture of each notebook page the failed test used."""
    funcargs = getattr(item, "funcargs", {}).values()
    pages = [v.page for v in funcargs if isinstance(v, NotebookUI)]
    pages += [ui.page for v in funcargs if isinstance(v, NotebookOpener) for _, ui in v.opened]
    pages += [r.ui.page for v in funcargs if isinstance(v, NotebookRuns) for r in v.runs.values()]
    SCREENSHOTS.mkdir(exist_ok=True)
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in item.nodeid.split("::", 1)[1])
    for number, page in enumerate(pages):
        path = SCREENSHOTS / f"{stem}-{number}.png"
        try:
            page.screenshot(path=str(path), full_page=True)
        except Exception as exc:  # the page may be gone; the failure itself matters more
            report.sections.append(("screenshot", f"none taken: {exc}"))
        else:
            report.sections.append(("screenshot", str(path)))
