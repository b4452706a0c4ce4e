"""The full-screen front of a network node: the table (ui.app.TableApp) opens at GameStarted and is fed the
node's events; the caller awaits the screens still showing (wait_closed)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from .app import NodeSeat, TableApp
from .model import TableModel

OPEN: set[asyncio.Task] = set()  # full-screen apps still showing, for the caller to await (wait_closed)


class FullScreenFront:
    """The full-screen front end of a network node: starts the app at GameStarted, then feeds it events."""

    def __init__(self, after: asyncio.Future | None = None, code_of: Callable[[Any], str] | None = None,
                 again: Callable[[], str | None] | None = None) -> None:
        self.model = TableModel()
        self.again = again  # `r` at game over (a rematch), see TableApp
        self.task: asyncio.Task | None = None  # the running screen; its result: "again", "over" or "left"
        # what a latecomer types to watch or join the node's game (app.front.typed_code: the code and its seat key,
        # as the room's screens show them), for the big TV view
        self.code_of = code_of
        self.ui: TableApp | None = None
        self.after = after  # the lobby screen: the table opens once it has closed
        self._seen: frozenset[bytes] = frozenset()  # the peers linked to this node at some time in the game

    def on_event(self, node, event) -> None:
        self.model.left = node.left_seats()  # who said bye: their going is leaving, not a fault
        self.model.update(node.session, event)
        if self.ui is None and self.model.players:
            seat = NodeSeat(node) if node.session.seat is not None and node.bot is None else None
            code = self.code_of(node) if self.code_of is not None and node.game_id is not None else None
            self.ui = TableApp(self.model, seat, code=code, again=self.again)
            node.watch_lobby(self.on_links)
            self.task = task = asyncio.ensure_future(self._run(node))
            OPEN.add(task)
            task.add_done_callback(OPEN.discard)
        self.on_links(node)

    def on_links(self, node) -> None:
        """Who this node is linked to changed (or may have): a seated peer whose link is gone shows as left.

        Only peers once linked during the game count: a spectator, linked to the host alone, sees no one left.
        """
        session = node.session
        if session is None or not self.model.players:
            return
        linked = node.linked
        self._seen |= linked
        self.model.left = node.left_seats()
        self.model.links({seat for seat, peer in enumerate(session.roster)
                          if peer in self._seen and peer not in linked})

    def go_again(self) -> None:
        """Close the screen for the rematch (its lobby and table follow)."""
        if self.ui is not None:
            self.ui.go_again()

    async def _run(self, node) -> str:
        try:
            if self.after is not None:
                await asyncio.wait([self.after])
            assert self.ui is not None  # made before this task
            return await self.ui.app.run_async()
        finally:
            node.quit()  # the screen closed: its person left (or saw the end), and the node signs nothing more


async def wait_closed() -> None:
    """Wait until every full-screen app has been closed by its user (after the game, the results stay up)."""
    while OPEN:
        await asyncio.gather(*list(OPEN), return_exceptions=True)
