"""How a person sees a network game: the full-screen lobby and table on a terminal, else lines of text."""

from __future__ import annotations

import asyncio
import logging
import sys

from ..net.discovery import game_code
from ..net.node import EventListener, Node
from .options import Options
from .output import reporter, say, stdin_lines


class Front:
    """Full screen when both ends are a terminal (and not --lines or --headless), else lines of text."""

    def __init__(self, options: Options, headless: bool) -> None:
        self.full_screen = not headless and not options.lines and sys.stdin.isatty() and sys.stdout.isatty()
        self.lobby_closed: asyncio.Future | None = None
        self.on_event: EventListener
        if self.full_screen:
            from ..ui.app import FullScreenFront

            logging.getLogger("p2pnimmt").setLevel(logging.ERROR)  # warnings would be drawn over the screen
            self.lobby_closed = asyncio.get_running_loop().create_future()
            self.on_event = FullScreenFront(after=self.lobby_closed, code_of=game_code).on_event
        else:
            self.on_event = reporter(None if headless else stdin_lines())

    def say(self, text: str) -> None:
        if not self.full_screen:
            say(text)

    def show_lobby(self, node: Node, command=None) -> None:
        """Full screen: the lobby until the game starts (the table follows); leaving it leaves the game."""
        if not self.full_screen:
            return
        from ..ui.lobby import LobbyScreen

        async def lobby() -> None:
            assert node.game_id is not None  # the lobby is shown once the node has hosted or joined
            stayed = await LobbyScreen(node, game_code(node.game_id), command).run()
            assert self.lobby_closed is not None  # made with the full screen
            self.lobby_closed.set_result(stayed)
            if not stayed:
                node.done.set()

        node.spawn(lobby())

    async def results(self) -> None:
        """Full screen: the results stay up until the person closes them."""
        if self.full_screen:
            from ..ui.app import wait_closed

            await wait_closed()
