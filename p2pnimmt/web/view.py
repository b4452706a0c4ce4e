"""A page's source of state and intents, and one open tab of it (no aiohttp here: the server holds the sockets)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

log = logging.getLogger("p2pnimmt.web")

Act = Callable[[dict[str, Any]], Awaitable[None]]


class View:
    """What one kind of page shows (`state()`, JSON-ready) and, unless it is read-only, what it may do (`act`).

    Call `changed()` whenever the state may have changed: every open tab of this view gets the new state.
    `claim`: the link works for the first browser that opens it only (a guest's seat), and again for it.
    """

    def __init__(self, state: Callable[[], dict[str, Any]], act: Act | None = None, *, claim: bool = False) -> None:
        self.state = state
        self.act = act
        self.claim = claim
        self.claimed_by: str | None = None  # the cookie of the browser that claimed the link
        self.clients: set[Client] = set()

    def changed(self) -> None:
        for client in list(self.clients):
            client.dirty.set()


class Client:
    """One open WebSocket: it is sent the latest state whenever it is dirty (a slow tab never holds up the game)."""

    def __init__(self, ws, withheld: Callable[[], Iterable[str]] = tuple, source: str = "?") -> None:
        self.ws = ws
        self.source = source  # the address it came from
        self.opened = time.monotonic()
        self.withheld = withheld  # what this tab is never sent (another page's token, for a read-only page)
        self.dirty = asyncio.Event()
        self.dirty.set()  # the full state at once: a reload restores everything

    async def push(self, view: View) -> None:
        while not self.ws.closed:
            await self.dirty.wait()
            self.dirty.clear()
            text = json.dumps(view.state(), separators=(",", ":"))
            if any(secret in text for secret in self.withheld()):
                log.error("a read-only page's state held another page's link: not sent (a bug, never a leak)")
                continue
            try:
                await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return
