"""How a person sees a network game: the full-screen lobby and table on a terminal, else lines of text."""

from __future__ import annotations

import asyncio
import logging
import sys

from ..i18n import _
from ..net.discovery import game_code
from ..net.invite import invite_link, link_addresses
from ..net.node import EventListener, Node
from .evening import Evening
from .options import Options
from .output import farewell, reporter, say, say_closing, stdin_lines
from .rematch import ASK_SECONDS, FULL_SCREEN, LINES, OFFER_WAIT, AfterGame

AGAIN_WORDS = ("again", "rematch", "r", "y", "yes")


def typed_code(node: Node) -> str:
    """What a friend types to join or watch `node`'s game: its code and the evening's seat key (protocol.md 14),
    `ABCD-WXYZ`, as the screens in the room show it (the host's, a TV's); the code alone without a key."""
    assert node.game_id is not None
    code = game_code(node.game_id)
    return f"{code}-{node.seat_key}" if node.seat_key else code


def lobby_link(node: Node, code: str) -> str | None:
    """The invite link a host's lobby shows (net.invite); a joiner's lobby shows none."""
    if not node.is_host:
        return None
    if node.seat_key is None:
        return None
    return invite_link(link_addresses(node.interface), node.port, code, node.identity.peer, node.seat_key,
                       node.link_secret)


class Front:
    """Full screen when both ends are a terminal (and not --lines or --headless), else lines of text."""

    def __init__(self, options: Options, headless: bool, evening: Evening | None = None,
                 rematches: int = 0) -> None:
        self.full_screen = not headless and not options.lines and sys.stdin.isatty() and sys.stdout.isatty()
        self.headless = headless
        self.evening = evening or Evening()
        self.rematches = rematches  # headless: offer (a host) or follow this many more rematches
        self.lobby_closed: asyncio.Future | None = None
        self.on_event: EventListener
        self.after: AfterGame | None = None
        self.screen = None
        if self.full_screen:
            from ..ui.front import FullScreenFront

            logging.getLogger("p2pnimmt").setLevel(logging.ERROR)  # warnings would be drawn over the screen
            self.lobby_closed = asyncio.get_running_loop().create_future()
            self.screen = FullScreenFront(after=self.lobby_closed, code_of=typed_code, again=self._again)
            self.on_event = self.screen.on_event
        else:
            self.on_event = reporter(None if headless else stdin_lines(), evening=self._evening_lines)

    def follow(self, node: Node) -> None:
        """The evening's table of `node`'s game (with the games before it) on this front's screens."""
        self.node = node
        if self.screen is not None:
            self.screen.model.evening = lambda: self.evening.table(node.session)

    def _evening_lines(self, node) -> list[str]:
        return self.evening.lines(node.session)

    def _again(self) -> str | None:
        """`r` on the game-over screen."""
        if self.after is None:
            return _("no rematch here")
        return self.after.want(True)

    def _note(self, text: str, _public: str = "") -> None:
        if self.screen is not None:
            self.screen.model.rematch = text
            self.screen.model.changed()
        else:
            say(text)

    async def after_game(self, node: Node) -> bool:
        """The game is over: True to go on to a rematch (a host: offer it; a member: the offer is in and taken)."""
        session = node.session
        if session is None or session.phase != "over":
            return False
        self.evening.add(session)
        screen = self.screen
        self.after = after = AfterGame(node, self._note, go=screen.go_again if screen is not None else None,
                                           keys=FULL_SCREEN if screen is not None else LINES)
        if self.headless:
            if not self.rematches:
                after.want(False)
                return await after.outcome(0)
            self.rematches -= 1
            after.want(True)
            return await after.outcome(None if node.is_host else OFFER_WAIT)
        if screen is not None:
            task = screen.task
            if task is None:
                return False

            async def closed() -> None:
                result = await asyncio.shield(task)  # the watcher is cancelled below: the screen stays up
                if result != "again":
                    after.want(False)

            watcher = asyncio.ensure_future(closed())
            try:
                again = await after.outcome(None)
            finally:
                watcher.cancel()
            if again:
                screen.go_again()
            return again
        return await self._ask_lines(node, after)

    async def _ask_lines(self, node: Node, after: AfterGame) -> bool:
        """The line terminal's game-over question: `again` within ASK_SECONDS, anything else leaves."""
        if node.role == "spectator":  # a TV follows the host's offer, while the host is there (a minute at most)
            say(_("watching for a rematch (up to {seconds} s, while the host is there) ...").format(
                seconds=f"{OFFER_WAIT:.0f}"))
            return await after.outcome(OFFER_WAIT)
        say((_("type again to offer everyone a rematch with the same seats ({seconds} s; Enter leaves)") if node.is_host
             else _("type again for a rematch with the same seats ({seconds} s; Enter leaves)")).format(
            seconds=f"{ASK_SECONDS:.0f}"))

        async def ask() -> None:
            while True:
                text = await stdin_lines().read("again> ")
                said = after.want(text is not None and text.strip().lower() in AGAIN_WORDS)
                if said is None:
                    return
                say(said)

        reading = asyncio.ensure_future(ask())
        try:
            return await after.outcome(ASK_SECONDS)
        finally:
            reading.cancel()

    def restarted(self, text: str) -> None:
        """The game was abandoned before it started, and a new one follows at once (app.anew): say so; the full
        screen closes for the new game's lobby and table, as for a rematch."""
        if self.screen is not None:
            self._note(text)
            self.screen.go_again()
        else:
            say(text)

    def resumed(self, node: Node) -> None:
        """A resumed game, which has no lobby: full screen, the table opens at once (no lobby to close first)."""
        if self.lobby_closed is not None and not self.lobby_closed.done():
            self.lobby_closed.set_result(True)

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
            code = game_code(node.game_id)
            # the host's screen is where the room reads the seat key (protocol.md 14): CODE-KEY
            shown = typed_code(node) if node.is_host else code
            stayed = await LobbyScreen(node, shown, command, link=lobby_link(node, code)).run()
            assert self.lobby_closed is not None  # made with the full screen
            self.lobby_closed.set_result(stayed)
            if not stayed:
                node.quit()

        node.spawn(lobby())

    async def results(self) -> None:
        """Full screen: the results stay up until the person closes them, also when the host has left meanwhile
        (a TV, which nobody closes, leaves with its host)."""
        after = self.after
        if self.full_screen:
            from ..ui.front import wait_closed

            if after is not None and after.spectator and after.wish.done() and self.screen is not None and \
                    self.screen.ui is not None:  # a TV leaving with its host: its screen closes before the result
                self.screen.ui.leave()  # is printed (printed under it, the result went with the screen)
            await wait_closed()
        self.say_result()

    def say_result(self) -> None:
        """Full screen: the game's result, printed to stay in the terminal once the screen is gone (each game of an
        evening's, as the screen of the next comes up), and kept for the start menu."""
        model = self.screen.model if self.screen is not None else None
        if model is not None and model.over is not None:
            say_closing(farewell(model))
