"""The host's full-screen lobby shows its invite link (issue 27 item 1), and beside it, where the screen has room,
the link's QR code (session 30: joining by the link, which mDNS cannot spoil, no harder than typing the code); a
joiner's lobby shows neither.

A real Node on 127.0.0.1, the screen as text; the link read off the screen (wrapped at its width) is the
host's: its address and port, the game's code, the host key's long fingerprint.
"""

from __future__ import annotations

import asyncio
import re
from functools import partial

import screens
import segno
from prompt_toolkit.input import create_pipe_input
from screens import SizedOutput

from p2pnimmt.app.front import lobby_link
from p2pnimmt.engine import Settings
from p2pnimmt.net.discovery import game_code
from p2pnimmt.net.invite import parse_link
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.identity import Identity, fingerprint
from p2pnimmt.ui.app import screen_text
from p2pnimmt.ui.lobby import LobbyScreen
from p2pnimmt.ui.qr import modules

LO = "127.0.0.1"
until = partial(screens.until, timeout=20.0)


def link_on(text: str) -> str | None:
    """The link a screen shows, its wrapped pieces put together (inside the frame's borders)."""
    inside = "".join(line.strip("│").rstrip() for line in text.splitlines())
    match = re.search(r"Invite link \(beyond the LAN\): (p2pnimmt://\S+?)Seats", inside)
    return match.group(1) if match else None


async def shown(node: Node, columns: int = 80, rows: int = 24) -> str:
    with create_pipe_input() as keys:
        code = game_code(node.game_id)
        screen = LobbyScreen(node, code, None, link=lobby_link(node, code), input=keys,
                             output=SizedOutput(columns, rows))
        task = asyncio.ensure_future(screen.run())
        await until(lambda: screen.app.is_running and "Seats" in screen_text(screen, columns, rows), "the lobby")
        text = screen_text(screen, columns, rows)
        screen.app.exit()
        await asyncio.wait_for(task, 20)
    return text


async def test_the_host_lobby_shows_its_invite_link_and_a_joiner_lobby_none() -> None:
    host = Node(Identity.generate(), name="ann", interface=LO, drop_after=0)
    bob = Node(Identity.generate(), name="bob", interface=LO, drop_after=0)
    await host.listen()
    await host.host(Settings(players=3, max_rounds=1, point_limit=None, deal="open"))
    try:
        link = link_on(await shown(host))
        assert link is not None
        invite = parse_link(link)
        assert invite.addresses == ((LO, host.port),) and invite.code == game_code(host.game_id)
        assert invite.host_key == fingerprint(host.identity.peer, long=True) and invite.seat_key == host.seat_key
        await bob.listen()
        bob.seat_key = invite.seat_key  # the link carries the seat key (protocol.md 14)
        await bob.join(LO, host.port, code=invite.code, host_key=invite.host_key)
        text = await shown(bob)
        assert "Seats" in text and "Invite link" not in text and "p2pnimmt://" not in text
    finally:
        await bob.close()
        await host.close()


def qr_on(text: str, width: int, height: int) -> list[list[bool]]:
    """The modules of the `width` x `height` half blocks a screen shows at the top right inside its frame."""
    lines = text.splitlines()
    right = lines[0].rindex("┐")
    return modules([lines[row][right - width:right].ljust(width) for row in range(1, 1 + height)])


async def test_a_wide_host_lobby_shows_the_invite_link_as_a_qr_code_and_a_joiner_lobby_none() -> None:
    host = Node(Identity.generate(), name="ann", interface=LO, drop_after=0)
    bob = Node(Identity.generate(), name="bob", interface=LO, drop_after=0)
    await host.listen()
    await host.host(Settings(players=3, max_rounds=1, point_limit=None, deal="open"))
    try:
        code = game_code(host.game_id)
        assert "the invite link" not in await shown(host)  # 80 columns: no room beside the lobby, the link in words
        text = await shown(host, 130, 40)
        link = lobby_link(host, code)
        assert link is not None
        dark = [[bool(m) for m in row] for row in segno.make(link, error="l").matrix]
        height, width = (len(dark) + 5) // 2, len(dark) + 4  # a quiet zone of 2 around it, an even count of rows
        shown_modules = qr_on(text, width, height)
        inner = [row[2:2 + len(dark)] for row in shown_modules[2:2 + len(dark)]]  # inside the quiet zone
        assert inner == dark, "the screen's QR code is not the invite link's"
        assert not any(shown_modules[0]) and not any(shown_modules[1])  # a light quiet zone above it
        await bob.listen()
        bob.seat_key = host.seat_key  # bob read the host's screen (protocol.md 14)
        await bob.join(LO, host.port, code=code, host_key=fingerprint(host.identity.peer, long=True))
        assert "the invite link" not in await shown(bob, 130, 40)
    finally:
        await bob.close()
        await host.close()
