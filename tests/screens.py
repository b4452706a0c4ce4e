"""For prompt_toolkit apps run without a terminal: an output of a given size, and a wait on a condition.

    with create_pipe_input() as keys:
        app = TableApp(..., input=keys, output=SizedOutput(100, 40))
        await until(lambda: "your turn" in screen_text(app), "the first turn")
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from deadlines import outer
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import DummyOutput


class SizedOutput(DummyOutput):
    """prompt_toolkit's output that draws nothing, at a size of our choosing (80x24 unless told)."""

    def __init__(self, columns: int = 80, rows: int = 24) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


async def until(check: Callable[[], object], what: str, timeout: float = 5.0) -> None:
    """Wait (polling every 10 ms on the running loop) until check() is true; fail naming `what` at the deadline."""
    timeout = outer(timeout)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)
