"""A turn's cards placed one by one on a timer (TableModel.step_placing), so people can follow: one piece used
by the terminal's table (ui.app) and the browser's page (web.table)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from ..envnumber import env_number
from ..i18n import _
from ..neutral import shown
from .model import TableModel

DELAY_ENV = "P2PNIMMT_PLACE_DELAY"
MAX_DELAY = 60.0  # seconds between two cards at most: more is a typo, not a pace


def delay_problem() -> str | None:
    """Why $P2PNIMMT_PLACE_DELAY cannot be the seconds between the cards of a turn; None when it can (or is unset).
    The command line says it before anything starts (cli.environment_problem), never a traceback mid-game."""
    given = env_number(DELAY_ENV)
    if given is None:
        return None
    value, seconds = given
    if 0 <= seconds <= MAX_DELAY:
        return None
    return _("{variable}={value} is not a number of seconds from 0 to {most:g} (the pause between the cards of a "
             "turn); unset it for the default").format(variable=DELAY_ENV, value=shown(value, 40), most=MAX_DELAY)


def place_delay(default: float) -> float:
    """Seconds between the cards of a turn: `default`, unless P2PNIMMT_PLACE_DELAY says otherwise."""
    problem = delay_problem()
    if problem:
        raise ValueError(problem)
    return float(os.environ.get(DELAY_ENV) or default)


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
