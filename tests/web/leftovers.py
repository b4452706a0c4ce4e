"""What one test leaves on the worker's shared event loop, and its sweep at the test's end.

The browser tests of a worker share one event loop with the worker's chromium (tests/web/conftest.py), so
the end of a test no longer ends a loop of its own, which took everything the test started with it. A
Ledger takes that place: while a test runs it notes each task and each timer (`call_later`, `call_at`)
made on the loop by code other than Playwright's (the code that asked for it, not asyncio's own frames in
between: an `asyncio.sleep` in a test is the test's, an `asyncio.wait_for` inside Playwright is
Playwright's), and the loop's sockets (servers and connections) as they were before; `sweep()` then cancels
the noted tasks still running, closes every server and socket the loop did not have before (Playwright
has none: its driver speaks through pipes) and cancels the noted timers still pending. Playwright's own
tasks and timers, those of the test's time included (a driver started again after a crash), run on.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
from asyncio.selector_events import BaseSelectorEventLoop, _SelectorTransport  # type: ignore[attr-defined]
from types import FrameType

ASYNCIO = os.path.dirname(asyncio.__file__) + os.sep
HERE = __file__
_spec = importlib.util.find_spec("playwright")  # None without playwright: the browser tests skip then
PLAYWRIGHT = os.path.dirname(_spec.origin) + os.sep if _spec is not None and _spec.origin else "\0"


def playwrights(frame: FrameType | None) -> bool:
    """Whether the code that asked asyncio for a task or a timer is Playwright's (asyncio's frames skipped, and
    a Ledger's own: one Ledger inside another's time)."""
    while frame is not None and (frame.f_code.co_filename.startswith(ASYNCIO) or frame.f_code.co_filename == HERE):
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename.startswith(PLAYWRIGHT)


def sockets(loop: asyncio.AbstractEventLoop) -> set:
    """The servers (asyncio.Server) and socket transports reading or writing on the loop now."""
    selector = getattr(loop, "_selector", None)
    if selector is None:  # not a selector loop: nothing to read here
        return set()
    found = set()
    for key in selector.get_map().values():
        for handle in key.data:
            if handle is None or handle.cancelled():
                continue
            callback = handle._callback
            if getattr(callback, "__func__", None) is BaseSelectorEventLoop._accept_connection:
                if handle._args[3] is not None:  # the Server listening (create_server passes its own)
                    found.add(handle._args[3])
            elif isinstance(getattr(callback, "__self__", None), _SelectorTransport):
                found.add(callback.__self__)
    return found


class Ledger:
    """The tasks and timers one test made on the loop, and the loop's sockets from before it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._tasks: list[asyncio.Task] = []
        self._timers: list[asyncio.TimerHandle] = []
        self._sockets = sockets(loop)
        self._factory = loop.get_task_factory()
        self._call_at = loop.call_at
        self._own_call_at = loop.__dict__.get("call_at")  # an outer Ledger's, or None
        loop.set_task_factory(self._task)
        loop.call_at = self._timer  # type: ignore[method-assign]  # call_later calls it too

    def _task(self, loop, coro, **options):
        if self._factory is not None:
            task = self._factory(loop, coro, **options)
        else:
            task = asyncio.Task(coro, loop=loop, **options)
        if not playwrights(sys._getframe(1)):
            self._tasks.append(task)
        return task

    def _timer(self, when, callback, *args, **options):
        timer = self._call_at(when, callback, *args, **options)
        if not playwrights(sys._getframe(1)):
            self._timers.append(timer)
        return timer

    def stop(self) -> None:
        """Stops noting (the loop's own task factory and call_at back)."""
        self._loop.set_task_factory(self._factory)
        if self._own_call_at is not None:
            self._loop.call_at = self._own_call_at  # type: ignore[method-assign]
        else:
            self._loop.__dict__.pop("call_at", None)

    async def sweep(self, deadline: float) -> list[str]:
        """Stops noting, ends what the test left and says what would not end within deadline seconds."""
        self.stop()
        me = asyncio.current_task()
        tasks = [task for task in self._tasks if not task.done() and task is not me]
        for task in tasks:
            task.cancel()
        stuck: list[str] = []
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=deadline)
            stuck += [f"task {task.get_name()} ({task.get_coro()!r}) ignored its cancel" for task in pending]
            for task in tasks:  # read, so that asyncio does not log them as never retrieved
                if task.done() and not task.cancelled():
                    task.exception()
        for thing in sockets(self._loop) - self._sockets:
            if isinstance(thing, asyncio.AbstractServer):
                thing.close()
            else:
                thing.abort()
        for timer in self._timers:
            timer.cancel()
        await asyncio.sleep(0)  # the closed transports' connection_lost, called soon, runs now
        return stuck
