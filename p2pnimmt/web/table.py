"""One page's view of the game: the TableModel (and the lobby) as the page's state, and the page's intents.

The page reads the same TableModel the terminal reads. A turn's cards are placed one by one on
a timer here (model.step_placing), as the terminal does, so the page only draws what it is sent.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import Any

from ..ui.model import TableModel, heads
from .qr import qr_uri
from .state import lobby_state, table_state
from .view import View

PLACE_DELAY = 0.8  # seconds between the cards of a turn as they are placed (P2PNIMMT_PLACE_DELAY overrides)
Command = Callable[[list[str]], Awaitable[str]]


class Placer:
    """Places each turn's cards one by one on `model`, `delay` seconds apart (0: all at once)."""

    def __init__(self, model: TableModel, delay: float | None = None) -> None:
        self.model = model
        self.delay = float(os.environ.get("P2PNIMMT_PLACE_DELAY", PLACE_DELAY)) if delay is None else delay
        self.task: asyncio.Task | None = None
        model.listeners.insert(0, self._changed)  # before the views, so they see the placement shown

    def _changed(self) -> None:
        model = self.model
        if model.placed >= len(model.placing) or self.task is not None:
            return
        if self.delay <= 0:
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


class Page:
    """What one page shows: the table (as a seat or as the TV), the lobby while there is one, the game code and QR.

    `seat` (a ui Seat) makes the page act for that seat; None: read-only. `node` gives the lobby (duck-typed:
    members, players(), settings, lobby_state); `command` runs the host's lobby commands (app.lobby).
    """

    def __init__(self, model: TableModel, *, seat=None, tv: bool = False, title: str = "p2pnimmt",
                 node=None, code: str | None = None, command: Command | None = None,
                 on_leave: Callable[[], None] | None = None, join_text: Callable[[], str | None] | None = None,
                 extra: Callable[[], dict[str, Any]] | None = None,
                 offer_guest: Callable[[], Awaitable[str]] | None = None) -> None:
        self.model = model
        self.seat = None if tv else seat
        self.tv = tv
        self.title = title
        self.node = node
        self.code = code
        self.command = None if tv else command
        self.on_leave = on_leave
        self.join_text = join_text
        self.extra = extra
        self.offer_guest = None if tv else offer_guest
        self.lobby_message = ""
        self.left = asyncio.Event()
        acts = self.seat is not None or self.command is not None or self.offer_guest is not None
        self.view = View(self.state, self.act if acts else None)
        model.listeners.append(self.view.changed)
        if node is not None:
            node.watch_lobby(lambda _node: self.view.changed())

    def state(self) -> dict[str, Any]:
        state = table_state(self.model, tv=self.tv)
        state["title"] = self.title
        state["code"] = self.code
        join = self.join_text() if self.join_text is not None else None
        state["join"] = join
        state["qr"] = qr_uri(join) if join else None
        node = self.node
        if node is not None and node.lobby_state == "lobby" and not self.model.players:
            state["kind"] = "lobby"
            state["lobby"] = lobby_state(node, self.code or "", self.command is not None)
            state["lobby"]["message"] = self.lobby_message
        state["view"] = "tv" if self.seat is None else "seat"  # in the lobby too, before the game gives a seat
        state["left"] = self.left.is_set()
        if self.extra is not None:
            state.update(self.extra())
        return state

    async def act(self, intent: dict[str, Any]) -> None:
        """One intent from the page: play, row, pick, lobby, leave. A refusal is shown as the model's message."""
        do = intent.get("do")
        model = self.model
        number = intent.get("card", intent.get("row"))
        if do == "lobby" and self.command is not None:
            words = intent.get("words")
            if isinstance(words, list) and 0 < len(words) <= 4 and all(isinstance(w, str) and len(w) <= 40
                                                                        for w in words):
                try:
                    self.lobby_message = await self.command(words)
                except ValueError as exc:
                    self.lobby_message = f"not done: {exc}"
            return
        if do == "guest" and self.offer_guest is not None:
            try:
                self.lobby_message = await self.offer_guest()
            except ValueError as exc:
                self.lobby_message = f"not done: {exc}"
            return
        if do == "leave":
            if self.seat is not None and model.over is None:
                self.seat.leave()
            self.left.set()
            if self.on_leave is not None:
                self.on_leave()
            return
        if self.seat is None or type(number) is not int:
            return
        if do == "play" and model.asked == "card":
            model.committed, model.asked = number, None
            model.say(f"You commit {number}")
            if not self._intent(lambda seat: seat.play(number)):
                model.committed, model.asked = None, "card"
        elif do == "row" and model.asked == "row" and 0 <= number < 4:
            heads_now = heads(model.rows[number])
            if self._intent(lambda seat: seat.choose_row(number)):
                model.say(f"You take row {number + 1} ({heads_now} bull heads)")
        elif do == "pick" and model.asked == "pick":
            self._intent(lambda seat: seat.pick(number))
        model.changed()

    def _intent(self, intent) -> bool:
        try:
            error = intent(self.seat)
        except Exception as exc:  # a network or protocol problem: a message on the page, never a traceback
            error = f"{type(exc).__name__}: {exc}"
        if error:
            self.model.warn(f"not accepted: {error}")
            return False
        self.model.message = None
        return True
