"""What a front may use of a Node, in one process over real TCP on 127.0.0.1: the lobby and game
subscriptions, the linked peers, the players, spawn; and the benchmark stamps the app installs."""

from __future__ import annotations

import asyncio
from functools import partial

import screens

from p2pnimmt.app.nodes import new_node
from p2pnimmt.app.options import Options
from p2pnimmt.bots import make_bot
from p2pnimmt.engine import Settings
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.events import GameOver, GameStarted
from p2pnimmt.protocol.identity import Identity

LO = "127.0.0.1"
until = partial(screens.until, timeout=20.0)  # waits on real nodes and mDNS: longer than a screen's


def bot_node(name: str, **kw) -> Node:
    identity = Identity.generate()
    return Node(identity, name=name, bot=make_bot("random", identity.secret), interface=LO, drop_after=0, **kw)


async def test_lobby_watchers_linked_peers_and_players() -> None:
    host, guest, watcher = bot_node("host"), bot_node("guest"), Node(Identity.generate(), name="tv", role="spectator",
                                                                      interface=LO, drop_after=0)
    seen: list[list[str]] = []
    stopped: list[int] = []
    try:
        await host.listen()
        await host.host(Settings(players=3, max_rounds=1, point_limit=None, deal="open"))
        host.watch_lobby(lambda node: seen.append([m.name for m in node.players()]))
        unwatch = host.watch_lobby(lambda node: stopped.append(1))
        await guest.listen()
        guest.seat_key = host.seat_key  # what the host's screen shows the guest
        await guest.join(LO, host.port, host.game_id)
        await until(lambda: guest.identity.peer in host.linked and len(host.players()) == 2, "the guest's seat")
        assert seen[-1] == ["host", "guest"] and stopped == [1]
        # the guest learns the lobby from the host's next frame: a moment after the host has its seat
        await until(lambda: host.identity.peer in guest.linked and [m.name for m in guest.players()] == ["host", "guest"],
                    "the guest's mirror of the lobby")
        unwatch()
        await watcher.listen()
        watcher.seat_key = host.seat_key
        await watcher.join(LO, host.port, host.game_id)
        await until(lambda: watcher.identity.peer in host.members, "the spectator in the lobby")
        assert stopped == [1], "an unwatched listener is not called again"
        assert [m.name for m in host.players()] == ["host", "guest"], "a spectator takes no seat"
        host.change_settings(Settings(players=3, max_rounds=2, point_limit=None, deal="open"))
        assert host.settings.max_rounds == 2
        ran = asyncio.Event()

        async def job() -> None:
            ran.set()
            await asyncio.sleep(3600)

        task = host.spawn(job())
        await ran.wait()
    finally:
        for node in (watcher, guest, host):
            await node.close()
    assert task.cancelled(), "close() ends what was spawned on the node"


async def hosted_and_joined(host: Node, guest: Node, players: int) -> None:
    """host hosts a one-round open game of `players` on 127.0.0.1, and guest joins it (with the seat key)."""
    await host.listen()
    await host.host(Settings(players=players, max_rounds=1, point_limit=None, deal="open"))
    await guest.listen()
    guest.seat_key = host.seat_key
    await guest.join(LO, host.port, host.game_id)


async def play_one_round(host, guest) -> None:
    """host hosts a one-round open game of two on 127.0.0.1, guest joins, both play it to the end; both closed."""
    try:
        await hosted_and_joined(host, guest, 2)
        await asyncio.wait_for(asyncio.gather(host.done.wait(), guest.done.wait()), 30)
    finally:
        await guest.close()
        await host.close()


async def test_event_watchers_see_a_whole_game_of_bots() -> None:
    host, guest = bot_node("host"), bot_node("guest")
    events: dict[str, list] = {"host": [], "guest": []}
    host.watch_events(lambda node, event: events["host"].append(event))
    guest.watch_events(lambda node, event: events["guest"].append(event))
    await play_one_round(host, guest)
    for name in ("host", "guest"):
        kinds = [type(e) for e in events[name]]
        assert kinds[0] is GameStarted and kinds[-1] is GameOver, (name, kinds)
    assert events["host"][-1] == events["guest"][-1]


async def test_the_benchmark_stamps_are_the_apps_not_the_nodes(capsys, monkeypatch) -> None:
    """With $P2PNIMMT_TIMING the app's nodes print when a commit leaves and a turn is resolved; a bare Node prints
    nothing (net/ prints nothing for the user)."""
    monkeypatch.setenv("P2PNIMMT_TIMING", "1")
    options = Options(interface=LO, drop_after=0)
    host_identity, guest_identity = Identity.generate(), Identity.generate()
    host = new_node(host_identity, options, name="host", bot=make_bot("random", host_identity.secret))
    guest = Node(guest_identity, name="guest", bot=make_bot("random", guest_identity.secret), interface=LO,
                 drop_after=0)
    await play_one_round(host, guest)
    lines = capsys.readouterr().out.splitlines()
    kinds = [line.split()[1] for line in lines]
    assert all(line.startswith("timing ") for line in lines), lines
    assert kinds.count("commit") == 10 and kinds.count("resolved") == 10  # one node's stamps: the host's
    assert kinds.count("dealt") == 1 and kinds.count("ended") == 1
