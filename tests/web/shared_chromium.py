"""The worker's one chromium (with Playwright's driver), and the view of it one test has.

Launching Playwright's driver and chromium costs about a second of CPU; a worker does it once, not once a
test (tests/web/conftest.py). A test still gets browser contexts of its own, each closed on its own at its
end, and a chromium or driver that went away (a crash, a lost pipe) or whose context would not close is
started again, both, for the worker's next test.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

from deadlines import OUTER

FLAGS = ["--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-quic"]


def driver_process(manager) -> asyncio.subprocess.Process | None:
    """Playwright's driver process (node) under a started async_playwright() (its private transport)."""
    transport = getattr(getattr(manager, "_client", None), "_transport", None)
    return getattr(transport, "_proc", None)


class Chromium:
    """The worker's Playwright driver and chromium: started at its first browser test, and both started again
    before the next test when either went away or a context of the last test would not close."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._manager = None
        self._browser = None
        self._doubted = False

    @property
    def driver_pid(self) -> int | None:
        process = driver_process(self._manager)
        return None if process is None else process.pid

    def doubt(self) -> None:
        """Something of the last test's went wrong in chromium: the next test gets a new one."""
        self._doubted = True

    def _alive(self) -> bool:
        if self._browser is None or self._doubted or not self._browser.is_connected():
            return False
        # the driver's death fails every call in flight and to come, while the browser says it is connected
        connection = getattr(getattr(self._manager, "_client", None), "_connection", None)
        return getattr(connection, "_closed_error", None) is None

    async def browser(self):
        """The running chromium; a new driver and chromium (once: a failure is this test's) if they went away."""
        if not self._alive():
            await self.close()
            await self._start()
        return self._browser

    async def _start(self) -> None:
        from playwright.async_api import async_playwright

        self._manager = manager = async_playwright()
        playwright = await manager.start()
        args = FLAGS + (["--no-sandbox"] if os.geteuid() == 0 else [])  # root: chromium's sandbox refuses
        self._browser = await playwright.chromium.launch(executable_path=self._path, args=args, headless=True)
        self._doubted = False

    async def close(self) -> None:
        """Ends the driver and chromium, each step on its own whatever state the other is in; a driver that
        would not stop is killed (chromium ends with the pipe to it)."""
        manager, browser, alive = self._manager, self._browser, self._alive()
        self._manager = self._browser = None
        if browser is not None and alive:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(browser.close(), OUTER)
        if manager is None:
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(manager.__aexit__(), OUTER)
        process = driver_process(manager)
        if process is not None and process.returncode is None:
            process.kill()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(process.wait(), OUTER)
        lost = getattr(manager._client._transport, "on_error_future", None) if manager._client else None
        if lost is not None and lost.done() and not lost.cancelled():
            lost.exception()  # read, so that asyncio does not log the lost driver as never retrieved


class Browser:
    """The worker's chromium as one test sees it: every context and page it makes waits up to OUTER seconds by
    default (Playwright's own default, 30 s, is shorter than a step can take on a loaded machine:
    tests/deadlines.py), and is closed at the test's end."""

    def __init__(self, chromium: Chromium, browser) -> None:
        self._chromium = chromium
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
        """Closes this test's contexts (and their pages), each on its own: one that fails or hangs leaves the
        others closed, fails this test's end and has the worker's next test get a new chromium; else the
        browser stays for the next test."""
        failures: list[Exception] = []
        for context in self._contexts:
            try:
                await asyncio.wait_for(context.close(), OUTER)
            except Exception as error:
                failures.append(error)
        if failures:
            self._chromium.doubt()
            raise ExceptionGroup(f"{len(failures)} of this test's {len(self._contexts)} browser contexts would "
                                 "not close (the worker's next test gets a new chromium)", failures)
