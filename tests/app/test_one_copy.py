"""One seat, one process (app.onecopy) and how a node ends when a proof names it or comes after its game
(app.nodes.finish); the processes themselves: tests/net/test_copied_seat.py."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from p2pnimmt.app.nodes import NodeFiles, finish
from p2pnimmt.app.onecopy import OneCopySession
from p2pnimmt.app.options import RoleFailed
from p2pnimmt.protocol.envelope import NO_PREVIOUS, seal
from p2pnimmt.protocol.events import Fault
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.session import LocalError

GAME = bytes(range(16))
BODY = {"round": 0, "turn": 0, "commit": bytes(32), "state": bytes(32)}


def test_a_message_under_our_key_that_we_did_not_sign_stops_the_session() -> None:
    me, other = Identity.generate(), Identity.generate()
    session = OneCopySession(me, game_id=GAME)
    seen: list[int] = []
    session.on_other_copy = lambda: seen.append(1)
    replayed = seal(me, GAME, 0, NO_PREVIOUS, "PLAY_COMMIT", BODY).wire
    session.ours.add(replayed)  # as replay() does with the transcript's messages
    session.receive(replayed)  # ours: the session takes it as it would (no START yet: held)
    session.receive(seal(other, GAME, 0, NO_PREVIOUS, "PLAY_COMMIT", BODY).wire)  # another seat's: taken too
    assert session.other_copy is None and seen == []
    copy = seal(me, GAME, 1, NO_PREVIOUS, "PLAY_COMMIT", BODY).wire  # signed by another process with our key
    assert session.receive(copy) == []
    assert seen == [1] and session.other_copy is not None
    assert session.receive(seal(other, GAME, 1, NO_PREVIOUS, "PLAY_COMMIT", BODY).wire) == []  # nothing more in
    assert seen == [1]
    with pytest.raises(LocalError, match="another process plays this seat"):
        session.send("PLAY_COMMIT", BODY)  # and nothing more signed
    why = session.why_stopped()
    assert why is not None and "(#1, PLAY_COMMIT): another process plays this seat" in why


class Ended:
    """What finish() reads of a node whose game ended: its session's phase, fault and journal."""

    def __init__(self, me: Identity, fault: Fault | None, sealed: bool) -> None:
        self.identity = me
        self.done = asyncio.Event()
        self.done.set()
        self.refused = None
        self.links: dict = {}
        journal = SimpleNamespace(sealed=sealed, messages=[])
        journal.seal = lambda: setattr(journal, "sealed", True)  # as finish() seals every transcript it ends
        self.session = SimpleNamespace(phase="aborted", fault=fault, journal=journal, roster=[b"b" * 16],
                                       names=["bob"], start=object())

    async def linger(self) -> None:
        return None


def test_a_proof_after_the_game_leaves_the_sealed_game_standing(capsys: pytest.CaptureFixture[str]) -> None:
    fault = Fault(b"b" * 16, "equivocation", "seat 2 (bob) signed two different messages #28", True, ())
    assert asyncio.run(finish(Ended(Identity.generate(), fault, sealed=True), NodeFiles())) == 0
    out = capsys.readouterr().out
    assert "after the game was over: equivocation: seat 2 (bob) signed two different messages #28 (peer at fault: " \
           "bob); the sealed transcript stands" in out
    assert asyncio.run(finish(Ended(Identity.generate(), fault, sealed=False), NodeFiles())) == 1  # aborted in play
    assert "game did not finish: phase aborted" in capsys.readouterr().out


def test_a_node_named_for_equivocation_says_another_process_plays_its_seat() -> None:
    me = Identity.generate()
    fault = Fault(me.peer, "equivocation", "seat 2 (bob) signed two different messages #28", True, ())
    with pytest.raises(RoleFailed, match=r"^stopped: this seat's key signed two different messages \(seat 2 \(bob\) "
                                         r"signed two different messages #28\): another process plays this seat"):
        asyncio.run(finish(Ended(me, fault, sealed=True), NodeFiles()))
