"""The browser tests: Debian's chromium driven by Playwright (never Playwright's own download).

Chromium runs headless with no background networking of its own, and every page it opens is on
127.0.0.1. Without chromium or playwright the tests skip, but fail instead when
P2PNIMMT_REQUIRE_NETNS=1 (CI sets it: there the browser tests are mandatory).
"""

from __future__ import annotations

import os
import shutil

import pytest
from deadlines import OUTER

FLAGS = ["--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-quic"]


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


class Browser:
    """A Playwright browser whose every context and page waits up to OUTER seconds by default (Playwright's own
    default, 30 s, is shorter than a step can take on a loaded machine: tests/deadlines.py)."""

    def __init__(self, browser) -> None:
        self._browser = browser

    def __getattr__(self, name: str):
        return getattr(self._browser, name)

    async def new_context(self, **options):
        context = await self._browser.new_context(**options)
        context.set_default_timeout(OUTER * 1000)
        return context

    async def new_page(self, **options):
        page = await self._browser.new_page(**options)
        page.context.set_default_timeout(OUTER * 1000)
        page.set_default_timeout(OUTER * 1000)
        return page


@pytest.fixture
async def browser():
    """A headless chromium, closed at the end of the test; waits default to OUTER seconds."""
    path = chromium_or_skip()
    from playwright.async_api import async_playwright

    args = FLAGS + (["--no-sandbox"] if os.geteuid() == 0 else [])  # root: chromium's sandbox refuses to start
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=path, args=args, headless=True)
        try:
            yield Browser(browser)
        finally:
            await browser.close()


@pytest.fixture
def no_delay(monkeypatch):
    """Each turn's cards placed at once (the placing itself is tested with a delay elsewhere)."""
    monkeypatch.setenv("P2PNIMMT_PLACE_DELAY", "0")
