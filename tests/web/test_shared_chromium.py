"""The worker's shared chromium and loop (tests/web/conftest.py): what a test leaves on the loop is ended at
its end while Playwright's own runs on, and a driver or chromium that went away is started again for the
next test. The processes killed here are the ones this worker started (its Playwright driver, its chromium).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal

import pytest
from deadlines import OUTER
from leftovers import Ledger
from screens import until
from shared_chromium import Browser, Chromium

PAGE = "<p id=here>here</p>"


def children(pid: int) -> list[int]:
    """The processes whose parent is pid (from /proc)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(name))
    return found


async def renders(browser) -> str:
    """What a new page of browser shows of PAGE (the page's context closed after)."""
    page = await browser.new_page()
    try:
        await page.set_content(PAGE)
        return await page.text_content("#here", timeout=OUTER * 1000)
    finally:
        await page.context.close()


async def kill_driver(chromium) -> None:
    os.kill(chromium.driver_pid, signal.SIGKILL)
    connection = chromium._manager._client._connection
    await until(lambda: connection._closed_error is not None, "Playwright to see its driver gone")


async def test_a_dead_driver_is_started_again_for_the_next_test(chromium):
    await chromium.browser()
    before = chromium.driver_pid
    await kill_driver(chromium)
    again = await chromium.browser()  # what the browser fixture asks at the next test's start
    assert chromium.driver_pid != before
    assert await renders(again) == "here"


async def test_a_crashed_chromium_is_launched_again_for_the_next_test(chromium):
    browser = await chromium.browser()
    [process] = [pid for pid in children(chromium.driver_pid) if "chromium" in open(f"/proc/{pid}/cmdline").read()]
    os.kill(process, signal.SIGKILL)
    await until(lambda: not browser.is_connected(), "Playwright to see its chromium gone")
    again = await chromium.browser()
    assert again is not browser and again.is_connected()
    assert await renders(again) == "here"


async def test_what_a_test_leaves_is_ended_and_playwrights_own_runs_on(chromium):
    loop = asyncio.get_running_loop()
    ledger = Ledger(loop)
    # what a test leaves: a task, a timer, a server and a connection to it (both its ends)
    task = asyncio.create_task(asyncio.Event().wait())
    fired: list[str] = []
    timer = loop.call_later(3600, fired.append, "timer")
    accepted: list[asyncio.StreamWriter] = []
    server = await asyncio.start_server(lambda reader, writer: accepted.append(writer), "127.0.0.1", 0)
    reader, writer = await asyncio.open_connection(*server.sockets[0].getsockname()[:2])
    await until(lambda: accepted, "the server to accept the connection")
    # Playwright's own made in the test's time: a new driver (its reader task), a page and its waits
    await chromium.browser()  # the worker's first browser test may be this one
    await kill_driver(chromium)
    browser = await chromium.browser()
    driver = chromium.driver_pid
    assert await renders(browser) == "here"

    assert await ledger.sweep(OUTER) == []

    assert task.cancelled() and timer.cancelled() and not server.is_serving()
    assert writer.transport.is_closing() and accepted[0].transport.is_closing()
    assert await reader.read() == b""  # the client's end is closed, not just told to close
    assert await renders(await chromium.browser()) == "here"  # the same driver, its tasks still running
    assert chromium.driver_pid == driver and fired == []


async def test_each_context_is_closed_on_its_own(chromium):
    # a context that cannot close: its driver (another one, started here) is gone
    other = Chromium(shutil.which("chromium") or "chromium")
    try:
        lost = await (await other.browser()).new_context()
        await kill_driver(other)
        browser = await chromium.browser()
        mine = Browser(chromium, browser)
        first = await mine.new_context()
        mine._contexts.append(lost)
        last = await mine.new_context()
        with pytest.raises(ExceptionGroup) as failed:
            await mine.close()
        assert len(failed.value.exceptions) == 1
        assert first not in browser.contexts and last not in browser.contexts  # closed, before and after it
        assert not chromium._alive()  # doubted: the next test's chromium is a new one
        assert await renders(await chromium.browser()) == "here"
    finally:
        await other.close()
