"""The host's full-screen lobby shows its invite link (issue 27 item 1); a joiner's lobby shows none.

A real Node on 127.0.0.1, the screen as text; the link read off the screen (wrapped at its width) is the
host's: its address and port, the game's code, the host key's long fingerprint.
"""

from __future__ import annotations

import asyncio
import re
from functools import partial

import screens
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

LO = "127.0.0.1"
until = partial(screens.until, timeout=20.0)


def link_on(text: str) -> str | None:
    """The link a screen shows, its wrapped pieces put together (inside the frame's borders)."""
    inside = "".join(line.strip("│").rstrip() for line in text.splitlines())
    match = re.search(r"Invite link \(beyond the LAN\): (p2pnimmt://\S+?)Seats", inside)
    return match.group(1) if match else None


async def shown(node: Node) -> str:
    with create_pipe_input() as keys:
        code = game_code(node.game_id)
        screen = LobbyScreen(node, code, None, link=lobby_link(node, code), input=keys, output=SizedOutput())
        task = asyncio.ensure_future(screen.run())
        await until(lambda: screen.app.is_running and "Seats" in screen_text(screen), "the lobby")
        text = screen_text(screen)
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
        assert invite.host_key == fingerprint(host.identity.peer, long=True)
        await bob.listen()
        await bob.join(LO, host.port, code=invite.code, host_key=invite.host_key)
        text = await shown(bob)
        assert "Seats" in text and "Invite link" not in text and "p2pnimmt://" not in text
    finally:
        await bob.close()
        await host.close()
