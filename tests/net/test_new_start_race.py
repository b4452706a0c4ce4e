"""A new start's offer decides by the phase it arrives at (protocol.md 14, "A new start"): a member whose game is
still starting when its host's offer comes follows it, also where the last START_ACK comes a moment later, before
its node looked (app.nodes.stalled looks about once a second). Real nodes in one process over TCP on 127.0.0.1."""

from __future__ import annotations

import asyncio
from functools import partial

import pytest
import screens

from p2pnimmt.app.anew import NewStart
from p2pnimmt.app.nodes import NodeFiles, finish, journal_opener, new_node, stalled
from p2pnimmt.app.options import Options, RoleFailed
from p2pnimmt.app.resume import run_resume
from p2pnimmt.bots import make_bot
from p2pnimmt.engine import Settings
from p2pnimmt.net.discovery import game_code
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.identity import Identity, fingerprint
from p2pnimmt.protocol.session import Session

LO = "127.0.0.1"
until = partial(screens.until, timeout=20.0)


def bot_node(name: str) -> Node:
    identity = Identity.generate()
    return Node(identity, name=name, bot=make_bot("random", identity.secret), interface=LO, drop_after=0)


def hold_start_acks(monkeypatch, node: Node, sender: Node, hold=lambda held: True) -> list[bytes]:
    """`sender`'s START_ACK as it reaches `node`'s session is held back (kept in the list returned, not taken in)
    while `hold(held)` says so."""
    held: list[bytes] = []
    receive = Session.receive

    def receive_or_hold(self: Session, wire: bytes, via: bytes | None = None) -> list:
        if self is node.session and hold(held) and open_envelope(wire).kind == "START_ACK" \
                and open_envelope(wire).sender == sender.identity.peer:
            held.append(wire)
            return []
        return receive(self, wire, via=via)

    monkeypatch.setattr(Session, "receive", receive_or_hold)
    return held


async def seated(host: Node, *joiners: Node) -> None:
    """`host` hosts a 3-seat open game of one round and the joiners join it."""
    await host.listen()
    await host.host(Settings(players=3, max_rounds=1, point_limit=None, deal="open"))
    for joiner in joiners:
        await joiner.listen()
        joiner.seat_key = host.seat_key  # what the host's screen shows them
        await joiner.join(LO, host.port, host.game_id)


async def test_an_offer_taken_while_starting_is_followed_though_the_last_start_ack_came_before_the_node_looked(
        monkeypatch) -> None:
    ann, bob, mal = bot_node("ann"), bot_node("bob"), bot_node("mal")
    holding = [True]  # mal's START_ACK as it reached bob, held back until the offer is taken at bob's
    held = hold_start_acks(monkeypatch, bob, mal, lambda _: holding[0])
    try:
        await seated(ann, bob, mal)
        await until(lambda: held and bob.session is not None and bob.session.phase == "starting", "bob starting")
        # ann abandons the game for a new start without mal (as app.host does), while bob's game is starting
        seats = [ann.identity.public_key, bob.identity.public_key]
        assert ann.port is not None
        ann.rematch.offer_to_all(b"\x07" * 16, ann.port, seats, 60)
        await until(lambda: bob.rematch.offer is not None, "the offer taken at bob's")
        holding[0] = False  # mal's START_ACK comes a moment later: bob's game starts before stalled looks
        bob.act(bob.session.receive(held[0], via=mal.identity.peer))
        assert bob.session is not None and bob.session.phase != "starting"
        new = await asyncio.wait_for(stalled(bob, 0), 10)  # before: it waited for good (the offer kept for later)
        assert isinstance(new, NewStart) and new.names == "mal", new
    finally:
        for node in (mal, bob, ann):
            await node.close()


async def test_a_seat_the_new_start_leaves_out_is_told_so_and_its_transcript_is_not_offered_to_resume(
        monkeypatch, tmp_path) -> None:
    # mal's link came back between ann's choice and her offer: it takes the offer, and its seat is not in it. Its game
    # is abandoned as the others' are (its secrets file says why, `resume` refuses it); before, it was told to take
    # the game up again with `p2pnimmt resume`, a game whose host and players had gone on to another.
    ann, bob = bot_node("ann"), bot_node("bob")
    identity = Identity.generate()
    files = NodeFiles()
    options = Options(interface=LO, transcript=tmp_path / "mal.p2pt", name="mal", drop_after=0)
    mal = new_node(identity, options, bot=make_bot("random", identity.secret),
                   journal_for=journal_opener(identity, options, files))
    hold_start_acks(monkeypatch, mal, bob)  # mal stays starting
    try:
        await seated(ann, bob, mal)
        await until(lambda: mal.session is not None and mal.session.phase == "starting"
                    and mal.session.start is not None, "mal starting")
        assert ann.port is not None
        ann.rematch.offer_to_all(b"\x07" * 16, ann.port, [ann.identity.public_key, bob.identity.public_key], 60)
        try:
            await asyncio.wait_for(finish(mal, files, 0), 20)
            raise AssertionError("mal's game went on")
        except RoleFailed as failed:
            said = str(failed)
        assert "ann abandoned game" in said and "without this seat" in said and "resume" not in said, said
    finally:
        for node in (mal, bob, ann):
            await node.close()
        files.close()
    with pytest.raises(RoleFailed, match="abandoned before it started"):
        await run_resume(tmp_path / "mal.p2pt", Options(interface=LO), headless=True)


async def test_the_host_takes_nothing_more_in_from_the_moment_it_chooses_a_new_start(monkeypatch) -> None:
    # The choice and the end of its intake are one step: a START_ACK of the seat left out that comes a moment after
    # (before app.nodes.finish abandons the game) does not start, at the host, the game it has left. Before, it did.
    identity = Identity.generate()
    ann = Node(identity, name="ann", bot=make_bot("random", identity.secret), interface=LO, drop_after=60)
    bob, mal = bot_node("bob"), bot_node("mal")
    held = hold_start_acks(monkeypatch, ann, mal, lambda held: not held)
    try:
        await seated(ann, bob, mal)
        await until(lambda: held and ann.session is not None and ann.session.phase == "starting", "ann starting")
        await mal.close()  # mal says bye: ann chooses a new start at once
        new = await asyncio.wait_for(stalled(ann, 0), 10)
        assert isinstance(new, NewStart) and new.names == "mal", new
        assert ann.session is not None
        ann.act(ann.session.receive(held[0], via=bob.identity.peer))  # mal's START_ACK, a moment late
        assert ann.session.phase == "starting"
    finally:
        for node in (mal, bob, ann):
            await node.close()


async def test_an_offer_taken_while_starting_that_leaves_out_no_seat_is_refused_as_no_new_start(
        monkeypatch, caplog) -> None:
    # A new start leaves out the seat gone before its START_ACK (or puts a new bot in its place): an offer of every
    # seat while bob's game is starting is none. Before, bob took it, abandoned his game and followed it, saying that
    # the game was abandoned because "" left.
    ann, bob, mal = bot_node("ann"), bot_node("bob"), bot_node("mal")
    hold_start_acks(monkeypatch, bob, mal)  # bob stays starting
    try:
        await seated(ann, bob, mal)
        await until(lambda: bob.session is not None and bob.session.phase == "starting", "bob starting")
        assert ann.port is not None and ann.game_id is not None and bob.session is not None
        every = [node.identity.public_key for node in (ann, bob, mal)]
        ann.rematch.offer_to_all(b"\x07" * 16, ann.port, every, 60)
        await until(lambda: "leaves out no seat" in caplog.text, "bob's refusal")
        code, new = game_code(ann.game_id), game_code(b"\x07" * 16)
        assert f"ignored a rematch frame from {fingerprint(ann.identity.peer)}: ann offered a new start of game " \
               f"{code} (game {new} on port {ann.port}) that leaves out no seat of it" in caplog.text, caplog.text
        assert bob.rematch.offer is None and not bob.leaving and bob.session.phase == "starting"
        assert not bob.session.inbox.closed  # still taking its game in: the offer did not abandon it
    finally:
        for node in (mal, bob, ann):
            await node.close()
