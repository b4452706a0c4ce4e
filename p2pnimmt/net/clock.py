"""This seat's turn clock (protocol.md 11.2): a thinking player is never dropped, and never holds the table up.

When the game asks our person for a move and the START's settings carry a clock of c seconds, the clock
runs: WARN_AT seconds before the end a `ClockWarning` goes to the node's event listeners (a front warns and
rings the bell); at the end, if the move is still owed, our node makes it by the stand-in's rule
(`Session.play_stand_in`, marked auto). While our seat is away (three stand-in cards in a row) the stand-in
plays at once, until the person is back at the keys (`present()`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from ..protocol.errors import LocalError
from ..protocol.events import ClockRan, ClockWarning, Event, PickNeeded, PlayNeeded, RowChoiceNeeded, SeatAway
from ..protocol.session import Session

log = logging.getLogger(__name__)

WARN_AT = 15  # seconds left when the person is warned


class MoveClock:
    """Runs the clock of the move our session owes; `on_event` is fed the node's events."""

    def __init__(self, session: Callable[[], Session | None], act: Callable[[list], None],
                 emit: Callable[[Event], None], spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task]) -> None:
        self.session = session
        self.act = act
        self.emit = emit
        self.spawn = spawn  # the node's: its tasks end with it
        self.here = True  # the person is at the keys (False while away, until a key is pressed)
        self._task: asyncio.Task | None = None

    def present(self) -> None:
        """The person pressed a key: the stand-in stops playing at once for an away seat."""
        self.here = True

    def on_event(self, event: Event) -> None:
        session = self.session()
        if session is None or session.seat is None:
            return
        if isinstance(event, SeatAway) and event.seat == session.seat:
            self.here = not event.away  # away: the stand-in plays on until a key is pressed
            return
        asked = isinstance(event, (PlayNeeded, PickNeeded)) or (
            isinstance(event, RowChoiceNeeded) and event.seat == session.seat)
        if not asked:
            return
        self.cancel()
        if not self.here:
            asyncio.get_running_loop().call_soon(self._stand_in)
            return
        clock = session.game.settings.clock if session.game is not None else None
        if clock is not None:
            self._task = self.spawn(self._run(clock, self._owed(session)))

    @staticmethod
    def _owed(session: Session) -> tuple[int, int, str]:
        return session.round, session.turn, str(session.phase)

    def cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = None

    async def _run(self, clock: int, owed: tuple[int, int, str]) -> None:
        if clock > WARN_AT:
            await asyncio.sleep(clock - WARN_AT)
            if not self._still_owed(owed):
                return
            self.emit(ClockWarning(WARN_AT))
            await asyncio.sleep(WARN_AT)
        else:
            await asyncio.sleep(clock)
        if self._still_owed(owed):
            self._stand_in()

    def _still_owed(self, owed: tuple[int, int, str]) -> bool:
        session = self.session()
        if session is None or session.seat is None or self._owed(session) != owed:
            return False
        return session.seat in session.waiting_for()

    def _stand_in(self) -> None:
        session = self.session()
        if session is None or session.seat is None:
            return
        try:
            outputs = session.play_stand_in()
        except LocalError:
            return  # the move was made meanwhile, or the game moved on
        r, t = session.round, session.turn
        log.info("the clock ran out: the stand-in's move was made for seat %d", session.seat)
        self.emit(ClockRan(r, t))  # first: a front drops its question before the next one comes
        self.act(outputs)
