"""The browser tests: Debian's chromium driven by Playwright (never Playwright's own download).

Chromium runs headless with no background networking of its own, and every page it opens is on
127.0.0.1. Without chromium or playwright the tests skip, but fail instead when
P2PNIMMT_REQUIRE_NETNS=1 (CI sets it: there the browser tests are mandatory).

One chromium a test process (each xdist worker): launching one (Playwright's driver and the browser) costs
about a second of CPU, once a worker instead of once a test. Each test still has browser contexts of its
own (`browser.new_page()` makes one; every context a test made is closed when it ends), so no cookie,
storage, cache or connection passes from one test to the next. To share the browser, every async test of
this directory runs on the worker's one event loop (pytest-asyncio's session loop scope), so its async
fixtures must say `@pytest_asyncio.fixture(loop_scope="session")` (collection fails otherwise), and what a
test leaves running on the loop (tasks it started and never ended) is cancelled when it ends, as the end of
a loop of its own did.
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
from pytest_asyncio import is_async_test

FLAGS = ["--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-quic"]
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


class Chromium:
    """The worker's chromium, launched at its first test and again if it ever went away (a crash)."""

    def __init__(self, playwright, path: str) -> None:
        self._playwright = playwright
        self._path = path
        self._browser = None

    async def browser(self):
        if self._browser is None or not self._browser.is_connected():
            args = FLAGS + (["--no-sandbox"] if os.geteuid() == 0 else [])  # root: chromium's sandbox refuses
            self._browser = await self._playwright.chromium.launch(executable_path=self._path, args=args,
                                                                   headless=True)
        return self._browser

    async def close(self) -> None:
        if self._browser is not None:
            await self._browser.close()


class Browser:
    """The worker's chromium as one test sees it: every context and page it makes waits up to OUTER seconds by
    default (Playwright's own default, 30 s, is shorter than a step can take on a loaded machine:
    tests/deadlines.py), and is closed at the test's end."""

    def __init__(self, browser) -> None:
        self._browser = browser
        self._contexts: list = []

    def __getattr__(self, name: str):
        return getattr(self._browser, name)

    async def new_context(self, **options):
        context = await self._browser.new_context(**options)
        self._contexts.append(context)
        context.set_default_timeout(OUTER * 1000)
        return context

    async def new_page(self, **options):
        page = await self._browser.new_page(**options)
        self._contexts.append(page.context)
        page.context.set_default_timeout(OUTER * 1000)
        page.set_default_timeout(OUTER * 1000)
        return page

    async def close(self) -> None:
        """Ends this test's contexts (and their pages); the browser stays for the next test."""
        for context in self._contexts:
            await context.close()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium():
    """The worker's headless chromium (Playwright's driver with it), closed when the worker ends."""
    path = chromium_or_skip()
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        shared = Chromium(p, path)
        await shared.browser()  # here, so nothing of Playwright's is a test's loose task
        try:
            yield shared
        finally:
            await shared.close()


@pytest_asyncio.fixture(loop_scope="session")
async def browser(chromium):
    """The headless chromium for one test; the contexts and pages the test makes are closed at its end; waits
    default to OUTER seconds."""
    mine = Browser(await chromium.browser())
    try:
        yield mine
    finally:
        await mine.close()


@pytest_asyncio.fixture(autouse=True, loop_scope="session")
async def loose_tasks(request):
    """What an async test leaves running on the shared loop is cancelled at its end (its own loop's end did
    that before); set up first and ended last, so every other fixture has closed what it opened."""
    if not is_async_test(request.node):
        yield
        return
    before = asyncio.all_tasks()
    yield
    loose = [task for task in asyncio.all_tasks() if task not in before and task is not asyncio.current_task()]
    for task in loose:
        task.cancel()
    await asyncio.gather(*loose, return_exceptions=True)


@pytest.fixture
def no_delay(monkeypatch):
    """Each turn's cards placed at once (the placing itself is tested with a delay elsewhere)."""
    monkeypatch.setenv("P2PNIMMT_PLACE_DELAY", "0")
