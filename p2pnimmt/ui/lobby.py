"""The lobby, full screen: the game's code in large letters, the seats and spectators, live; the host's controls.

The host's keys call the same lobby commands it can type in the line
terminal (app.lobby.lobby_command, passed in as `command`), so there is one
implementation. The screen follows the node through node.watch_lobby.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.containers import WindowAlign
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output.color_depth import ColorDepth
from prompt_toolkit.widgets import Frame

from ..i18n import N_, _
from ..protocol.identity import fingerprint
from . import widgets
from .letters import block_letters
from .qr import STYLE, qr_lines
from .words import end_text, variant_name

HOST_KEYS = N_("b: heuristic bot   r: random bot   ↑/↓: choose   x: remove the chosen one\n"
               "v: variant   d: deal   p: point limit   n: number of rounds   c: clock\n"
               "t: TV page in the browser   g: a phone's link   s: start now   q: leave")
GUEST_KEYS = N_("The host starts the game when the seats are taken.   q: leave")
VARIANTS = ("standard", "tactical", "draft")
DEALS = ("sealed", "open")
DEAL_TEXT = {"sealed": N_("sealed (no one can see another's hand, audited at round end)"),
             "open": N_("open (a shared seed: fast, but a modified client could compute every hand)")}
POINTS = ("66", "100", "33", "none")
ROUNDS = ("none", "1", "3", "5", "10")
CLOCKS = ("30", "60", "120", "off")

QR_BESIDE = 82  # columns the lobby keeps for its text when the invite link's QR code is shown beside it

Command = Callable[[list[str]], Awaitable[str]]


def big(code: str, columns: int = 80, rows: int = 24) -> str:
    """The code to be read from across the room: in block letters as large as the screen has room for (5 lines
    from 60×30, 10 lines from 120×44), else spaced out and framed (3 lines)."""
    for scale, (width, height) in ((2, (120, 44)), (1, (60, 30))):
        if columns >= max(width, 8 * scale * len(code)) and rows >= height:  # a letter and its gap: 8 x scale
            return "\n".join(block_letters(code, scale)) + f"\n{'   '.join(code)}"
    letters = "   ".join(code)
    return f"+{'-' * (len(letters) + 6)}+\n|   {letters}   |\n+{'-' * (len(letters) + 6)}+"


class LobbyScreen:
    """Shows `node`'s lobby until the game starts (or the person leaves); `command` is the host's, or None."""

    def __init__(self, node, code: str, command: Command | None = None, *, link: str | None = None, input=None,
                 output=None) -> None:
        self.node = node
        self.code = code
        self.command = command
        # The host's invite link: where mDNS does not reach (another network, over an overlay), net.invite
        self.link = link  # the host's invite link (net.invite), shown under the code
        self.chosen = 0
        self.message = ""
        self.left = False
        self.app: Application[None] = Application(
            layout=Layout(self._root()), key_bindings=self._keys(), style=widgets.STYLE, full_screen=True,
            input=input, output=output, color_depth=ColorDepth.DEPTH_1_BIT if os.environ.get("NO_COLOR") else None)
        self._unwatch = node.watch_lobby(self._changed)

    def _changed(self, node) -> None:
        if node.lobby_state != "lobby" and self.app.is_running:
            self.app.exit()
        self.app.invalidate()

    def size(self) -> tuple[int, int]:
        """The screen's columns and lines."""
        size = self.app.output.get_size()
        return size.columns, size.rows

    def members(self) -> list:
        return list(self.node.members.values())

    def _text(self):
        node = self.node
        players = node.players()
        watchers = [m for m in self.members() if m.role != "player"]
        host = node.identity.peer if node.is_host else node.host_peer
        # the host's key tells games of one code apart (join says); "game code:" last, over the code it names (the
        # host key after it read as the code: "game code:   host key QUNX-JF72")
        head = (_("p2pnimmt lobby   host key {key}   game code:").format(key=fingerprint(host)) if host else
                _("p2pnimmt lobby   game code:"))
        lines = [("class:status", head + "\n"),
                 ("class:selected", big(self.code, *self.size()) + "\n\n"),
                 ("", _("Seats {taken}/{seats}").format(taken=len(players), seats=node.seats) + "\n")]
        if self.link is not None:
            lines.insert(2, ("", _("Invite link (beyond the LAN): {link}").format(link=self.link) + "\n"))
        for i, m in enumerate(self.members()):
            if m.role != "player":
                continue
            here = m.peer == node.identity.peer or m.peer in node.linked or node.is_host is False
            mark = "> " if self.command is not None and i == self.chosen else "  "
            kind = _("bot") if m.bot else _("human")
            linked = _("connected") if here else _("not connected")
            lines.append(("class:selected" if mark == "> " else "",
                          f"{mark}{m.name:<14} {fingerprint(m.peer)}  {kind:<5}  {linked}\n"))
        lines.append(("", "\n" + _("Spectators: {n}").format(n=len(watchers)) + "\n"))
        s = node.settings
        if s is not None:
            lines.append(("", _("Variant {variant}, the game ends at {end}").format(
                variant=variant_name(s.variant), end=end_text(s)) + "\n"))
            lines.append(("", _("Deal: {deal}").format(deal=_(DEAL_TEXT[s.deal])) + "\n"))
            lines.append(("", (_("Clock: {seconds} s a move, then the stand-in plays it").format(seconds=s.clock)
                               if s.clock else
                               _("Clock: none (the others can ask the stand-in to play a stalled move)")) + "\n"))
        if self.message:
            lines.append(("class:warn", f"\n{self.message}\n"))
        lines.append(("class:dim", "\n" + _(HOST_KEYS if self.command is not None else GUEST_KEYS)))
        return lines

    def qr(self) -> tuple[str, ...]:
        """The invite link's QR code as the screen shows it beside the lobby (none for a joiner, or when the screen
        has no room for it: the link is written out above the seats either way)."""
        if self.link is None:
            return ()
        lines = qr_lines(self.link)
        columns, rows = self.size()
        return lines if columns >= len(lines[0]) + QR_BESIDE and rows >= len(lines) + 2 else ()

    def _qr_text(self):
        return [(STYLE, line + "\n") for line in self.qr()]

    def _root(self):
        text = Window(FormattedTextControl(self._text), wrap_lines=True)
        beside = ConditionalContainer(
            HSplit([Window(FormattedTextControl(self._qr_text), width=lambda: len(self.qr()[0]) if self.qr() else 0,
                           dont_extend_height=True),
                    Window(FormattedTextControl(lambda: [("class:dim", _("the invite link"))]), height=1,
                           align=WindowAlign.CENTER),
                    Window()]),
            filter=Condition(lambda: bool(self.qr())))
        return HSplit([Frame(VSplit([text, beside]))])

    def _do(self, words: list[str]) -> None:
        async def run() -> None:
            assert self.command is not None  # only the host's keys call this, bound when there is a command
            try:
                self.message = await self.command(words)
            except ValueError as exc:
                self.message = _("not done: {why}").format(why=exc)
            self.app.invalidate()

        asyncio.ensure_future(run())

    def _cycle(self, name: str, values: tuple[str, ...], current: str, skip: str = "") -> None:
        """Set `name` to the value after `current` (leaving out `skip`: a game needs an end)."""
        choices = [v for v in values if v != skip]
        following = choices[(choices.index(current) + 1) % len(choices)] if current in choices else choices[0]
        self._do([name, following])

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("q")
        @kb.add("c-c")
        def _(event) -> None:
            self.left = True
            event.app.exit()

        if self.command is None:
            return kb

        @kb.add("b")
        def _(event) -> None:
            self._do(["bot", "heuristic"])

        @kb.add("r")
        def _(event) -> None:
            self._do(["bot", "random"])

        @kb.add("up")
        def _(event) -> None:
            self.chosen = max(0, self.chosen - 1)

        @kb.add("down")
        def _(event) -> None:
            self.chosen = min(len(self.members()) - 1, self.chosen + 1)

        @kb.add("x")
        @kb.add("delete")
        def _(event) -> None:
            members = self.members()
            if 0 <= self.chosen < len(members):
                self._do(["remove", members[self.chosen].name])
                self.chosen = max(0, self.chosen - 1)

        @kb.add("v")
        def _(event) -> None:
            self._cycle("variant", VARIANTS, self.node.settings.variant)

        @kb.add("d")
        def _(event) -> None:
            self._cycle("deal", DEALS, self.node.settings.deal)

        @kb.add("p")
        def _(event) -> None:
            limit, rounds = self.node.settings.point_limit, self.node.settings.max_rounds
            self._cycle("points", POINTS, "none" if limit is None else str(limit), "none" if rounds is None else "")

        @kb.add("n")
        def _(event) -> None:
            limit, rounds = self.node.settings.point_limit, self.node.settings.max_rounds
            self._cycle("rounds", ROUNDS, "none" if rounds is None else str(rounds), "none" if limit is None else "")

        @kb.add("c")
        def _(event) -> None:
            clock = self.node.settings.clock
            self._cycle("clock", CLOCKS, "off" if clock is None else str(clock))

        @kb.add("t")
        def _(event) -> None:
            self._do(["tv"])

        @kb.add("g")
        def _(event) -> None:
            self._do(["phone"])  # a phone plays its own seat (a peer); no seat is filled before it takes one

        @kb.add("s")
        def _(event) -> None:
            self._do(["start"])

        return kb

    async def run(self) -> bool:
        """Show the lobby until the game starts; False if the person left."""
        if self.node.lobby_state == "lobby":
            await self.app.run_async()
        self._unwatch()
        return not self.left
