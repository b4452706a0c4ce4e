"""The browser tests: Debian's chromium driven by Playwright (never Playwright's own download).

Chromium runs headless with no background networking of its own, and every page it opens is on
127.0.0.1. Without chromium or playwright the tests skip, but fail instead when
P2PNIMMT_REQUIRE_NETNS=1 (CI sets it: there the browser tests are mandatory).

One chromium a test process (each xdist worker): launching one (Playwright's driver and the browser) costs
about a second of CPU, once a worker instead of once a test (tests/web/shared_chromium.py; a driver or
chromium that went away is started again for the next test). Each test still has browser contexts of its
own (`browser.new_page()` makes one; every context a test made is closed when it ends, each on its own), so
no cookie, storage, cache or connection passes from one test to the next. To share the browser, every async
test of this directory runs on the worker's one event loop (pytest-asyncio's session loop scope), so its
async fixtures must say `@pytest_asyncio.fixture(loop_scope="session")` (collection fails otherwise), and
what a test leaves on the loop (tasks still running, timers still pending, servers and sockets still open)
is ended when it ends, as the end of a loop of its own did, while Playwright's own run on
(tests/web/leftovers.py).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import shutil
from pathlib import Path

import pytest
import pytest_asyncio
from deadlines import OUTER
from leftovers import Ledger
from pytest_asyncio import is_async_test
from shared_chromium import Browser, Chromium

HERE = Path(__file__).parent
SHARED = pytest.mark.asyncio(loop_scope="session")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every async test of this directory on the worker's one loop, where its chromium runs; an async fixture
    such a test uses on another loop would be a collection error, not a hang."""
    for item in items:
        if not (is_async_test(item) and item.path.is_relative_to(HERE)):
            continue
        item.add_marker(SHARED, append=False)
        for defs in item._fixtureinfo.name2fixturedefs.values():  # type: ignore[attr-defined]
            func = defs[-1].func
            if (inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func)) \
                    and getattr(func, "_loop_scope", None) != "session":
                raise pytest.UsageError(f"{item.nodeid}: its async fixture {defs[-1].argname} must be "
                                        "@pytest_asyncio.fixture(loop_scope=\"session\") (tests/web/conftest.py)")


def chromium_or_skip() -> str:
    problem = None
    path = shutil.which("chromium")
    if path is None:
        problem = "chromium is not installed (apt-get install chromium)"
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        problem = "playwright is not installed (pip install -e '.[test]')"
    if problem is not None:
        if os.environ.get("P2PNIMMT_REQUIRE_NETNS") == "1":
            pytest.fail(f"P2PNIMMT_REQUIRE_NETNS=1 but {problem}", pytrace=False)
        pytest.skip(problem)
    assert path is not None
    return path


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium():
    """The worker's headless chromium (Playwright's driver with it), closed when the worker ends."""
    shared = Chromium(chromium_or_skip())
    try:
        yield shared
    finally:
        await shared.close()


@pytest_asyncio.fixture(loop_scope="session")
async def browser(chromium):
    """The headless chromium for one test (started again first if it went away since the last); the contexts and
    pages the test makes are closed at its end, each on its own; waits default to OUTER seconds."""
    mine = Browser(chromium, await chromium.browser())
    yield mine
    await mine.close()


@pytest_asyncio.fixture(autouse=True, loop_scope="session")
async def leftovers(request):
    """What an async test leaves on the shared loop (its tasks still running, its timers still pending, the
    servers and sockets it opened) is ended at its end, as the end of a loop of its own did, and Playwright's
    own tasks and timers run on (tests/web/leftovers.py); set up first and ended last, so every other fixture
    has closed what it opened."""
    if not is_async_test(request.node):
        yield
        return
    ledger = Ledger(asyncio.get_running_loop())
    try:
        yield
    finally:
        stuck = await ledger.sweep(OUTER)
    if stuck:
        pytest.fail("what this test left on the loop would not end: " + "; ".join(stuck), pytrace=False)


@pytest.fixture
def no_delay(monkeypatch):
    """Each turn's cards placed at once (the placing itself is tested with a delay elsewhere)."""
    monkeypatch.setenv("P2PNIMMT_PLACE_DELAY", "0")
