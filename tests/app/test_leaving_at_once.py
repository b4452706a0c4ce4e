"""A node that leaves before the game is over (q then y, Ctrl-C then y, q in the lobby: what the full-screen
front does is set `node.done`) is gone at once: it waits for no `bye`, since the others play on and learn of
its leaving from its own `bye` (issue 23 item 3: a full-screen host took 5 s, the bye wait meant for the end
of a game, before it even said bye). Real nodes over TCP on 127.0.0.1, in one process.

The bye wait is set to an hour here: a node that still waited for it would never finish within the test's
deadline, so no duration is asserted."""

from __future__ import annotations

import asyncio

import pytest
from deadlines import outer
from screens import until

import p2pnimmt.net.node as node_module
from p2pnimmt.app.nodes import NodeFiles, finish
from p2pnimmt.bots import make_bot
from p2pnimmt.engine import Settings
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.identity import Identity

LO = "127.0.0.1"


def node(name: str, bot: bool) -> Node:
    identity = Identity.generate()
    return Node(identity, name=name, bot=make_bot("random", identity.secret) if bot else None, interface=LO,
                drop_after=60)


@pytest.mark.parametrize("when", ["in play", "in the lobby"])
async def test_a_node_that_leaves_before_the_end_waits_for_no_bye(monkeypatch, capsys, when: str) -> None:
    monkeypatch.setattr(node_module, "BYE_WAIT", 3600.0)  # what a leaver must not wait for (5 s in the product)
    host, guest = node("ann", bot=False), node("bob", bot=True)  # ann is a person: the game waits on her
    try:
        await host.listen()
        await host.host(Settings(players=2 if when == "in play" else 3, deal="open"))
        await guest.listen()
        guest.seat_key = host.seat_key  # bob read the host's screen (protocol.md 14)
        await guest.join(LO, host.port, host.game_id)
        if when == "in play":
            await until(lambda: host.session is not None and host.session.phase == "turn", "the game in play", 30)
        else:
            await until(lambda: len(host.players()) == 2 and host.identity.peer in guest.linked, "bob in the lobby",
                        30)
        host.done.set()  # ann leaves (the full-screen front sets it when its screen closes)
        status = await asyncio.wait_for(finish(host, NodeFiles()), outer(60))
        assert status == 1  # the game did not finish here
        said = capsys.readouterr().out  # in the words of a person who left, not of a stalled protocol's phase
        assert ("You left the game in round 1, before its end" if when == "in play" else "You left before the game started.") \
            in said and "phase" not in said, said
        await host.close()  # bye on every link
        await until(lambda: host.identity.peer in guest.byes, "bob told that ann left", 30)
    finally:
        await guest.close()
        await host.close()
