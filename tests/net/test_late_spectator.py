"""A spectator whose join reaches the host as the game ends (issue 26's open race, seen in CI as a `watch` that said
"joined … as spectator" and then nothing until its give-up time). A one-round game of bots lasts well under a
second, so a spectator started with the last seat can finish its handshake while the game runs and send its
join only after the game is over: the host used to leave as soon as every linked peer had said bye, closing the
spectator's connection before its join was read, and the spectator, without a START and nobody to dial but a
host whose port now refuses, waited in silence until --give-up.

In one process over real TCP on 127.0.0.1: the spectator's frames after its handshake are held until the
moment each test needs (what the test controls is the order, not the timing)."""

from __future__ import annotations

import asyncio
from functools import partial

import pytest
import screens

from p2pnimmt.app.nodes import stalled
from p2pnimmt.bots import make_bot
from p2pnimmt.engine import Settings
from p2pnimmt.net import mesh as mesh_module, node as node_module
from p2pnimmt.net.connection import Connection
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.events import GameOver
from p2pnimmt.protocol.identity import Identity

LO = "127.0.0.1"
until = partial(screens.until, timeout=30.0)  # real nodes on a shared machine


def bot_node(name: str) -> Node:
    identity = Identity.generate()
    return Node(identity, name=name, bot=make_bot("random", identity.secret), interface=LO, drop_after=0)


def held_spectator(name: str = "tv", **kw) -> tuple[Node, asyncio.Event]:
    """A spectator node whose frames after the handshake (its join first) go out only once the event is set."""
    tv = Node(Identity.generate(), name=name, role="spectator", interface=LO, **kw)
    release = asyncio.Event()
    dial = tv.mesh.dial

    async def dial_and_hold(host: str, port: int, expect: bytes | None = None) -> Connection:
        conn = await dial(host, port, expect)
        queue = conn._queue
        held: list[bytes] = []

        def hold(data: bytes) -> None:
            (queue if release.is_set() and not held else held.append)(data)

        async def let_go() -> None:
            await release.wait()
            while held:
                queue(held.pop(0))

        conn._queue = hold  # type: ignore[method-assign]
        tv.spawn(let_go())
        return conn

    tv.mesh.dial = dial_and_hold  # type: ignore[method-assign]
    return tv, release


async def play_until_over(host: Node, guest: Node, tv: Node) -> None:
    """The host's lobby, the spectator's handshake (its join held), the guest's join: the game of bots runs to
    its end; the host has the guest's bye (nothing linked to it is left to wait for)."""
    await host.listen()
    await host.host(Settings(players=2, max_rounds=1, point_limit=None, deal="open"))
    await tv.listen()
    tv.seat_key = guest.seat_key = host.seat_key  # what the host's screen shows them
    await tv.join(LO, host.port, host.game_id)  # the handshake is done; the join waits in the spectator
    await guest.listen()
    await guest.join(LO, host.port, host.game_id)
    await until(lambda: host.done.is_set() and guest.done.is_set() and guest.identity.peer in host.byes,
                "the game's end at the host, and the guest's bye")
    assert tv.identity.peer not in host.members and tv.session is not None and tv.session.start is None


async def test_a_spectator_whose_join_comes_as_the_game_ends_still_watches_it(monkeypatch) -> None:
    """The host lingers (up to BYE_WAIT) for a connection still on its way to membership: the spectator's join,
    read after the game is over, admits it, the heads exchange brings it the whole game, it says bye, and the
    host leaves then. Failed before: linger returned at once (every link had said bye), the host closed the
    spectator's connection unread, and the spectator had nothing."""
    monkeypatch.setattr(mesh_module, "MEMBER_WAIT", 120.0)  # the join is held over a whole game: not cut for it
    monkeypatch.setattr(node_module, "BYE_WAIT", 120.0)  # a loaded machine: the wait is bounded, not the test's
    host, guest = bot_node("host"), bot_node("guest")
    tv, release = held_spectator(drop_after=0)
    events: list[object] = []
    tv.watch_events(lambda node, event: events.append(event))
    try:
        await play_until_over(host, guest, tv)
        lingering = asyncio.ensure_future(host.linger())
        # every link has said bye; a connection is still on its way to membership: the host waits for it (it
        # would leave at once otherwise: half a second is a hundred times what that takes)
        await asyncio.wait({lingering}, timeout=0.5)
        assert not lingering.done(), "the host left with a spectator's connection still waiting for its join"
        release.set()
        await lingering  # until the spectator's bye (it had the whole game), or BYE_WAIT
        assert tv.identity.peer in host.byes
        await host.close()
        await until(lambda: tv.done.is_set() or not tv.links, "the spectator's game end, or its link's end")
        assert tv.done.is_set() and any(isinstance(e, GameOver) for e in events), \
            "the spectator got the game from the host before it left"
        assert tv.session.phase == "over"
        assert tv.session.journal is not None
    finally:
        for node in (tv, guest, host):
            await node.close()


@pytest.mark.parametrize("give_up", [300.0, 0.0])
async def test_a_spectator_whose_host_left_before_the_start_reached_it_says_so_at_once(give_up: float,
                                                                                     monkeypatch) -> None:
    """The host is gone (its port refuses) before the spectator had the START: there is no seat to dial and
    nothing that could come back (a game is only taken up again past its START), so the spectator stops at
    once with a line saying so, whatever --give-up says. Failed before: no line until the give-up time (300 s
    by default; never with --give-up 0)."""
    monkeypatch.setattr(mesh_module, "MEMBER_WAIT", 120.0)
    host, guest = bot_node("host"), bot_node("guest")
    tv, release = held_spectator(drop_after=60.0)
    try:
        await play_until_over(host, guest, tv)
        await host.close()  # without lingering: the spectator's connection is closed before its join is read
        release.set()
        why = await asyncio.wait_for(stalled(tv, give_up), 60)
        assert "the host" in why and "before the game started" in why, why
        assert tv.session is not None and tv.session.start is None
    finally:
        for node in (tv, guest, host):
            await node.close()
