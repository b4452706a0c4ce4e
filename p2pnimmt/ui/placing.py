"""A turn's cards placed one by one on a timer (TableModel.step_placing), so people can follow: one piece used
by the terminal's table (ui.app) and the browser's page (web.table)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from .model import TableModel


def place_delay(default: float) -> float:
    """Seconds between the cards of a turn: `default`, unless P2PNIMMT_PLACE_DELAY says otherwise."""
    return float(os.environ.get("P2PNIMMT_PLACE_DELAY", default))


class Placer:
    """Places each turn's cards one by one on `model`, `delay` seconds apart (0, or while `running()` is false:
    all at once). It listens to the model first (`first`: before the views, so they see the placement shown)
    or after the listeners already there."""

    def __init__(self, model: TableModel, delay: float, *, running: Callable[[], bool] | None = None,
                 first: bool = True) -> None:
        self.model = model
        self.delay = delay
        self.running = running
        self.task: asyncio.Task | None = None
        if first:
            model.listeners.insert(0, self._changed)
        else:
            model.listeners.append(self._changed)

    def _changed(self) -> None:
        model = self.model
        if model.placed >= len(model.placing) or self.task is not None:
            return
        if self.delay <= 0 or (self.running is not None and not self.running()):
            model.placed = len(model.placing)
            return
        self.task = asyncio.ensure_future(self._step())

    async def _step(self) -> None:
        try:
            while True:
                await asyncio.sleep(self.delay)
                if not self.model.step_placing():
                    return
        finally:
            self.task = None

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
