"""protocol.md 17.8: a seat behind an alarm reveals before its keys. An alarm's turn is the number of turns its
sender had revealed; a seat whose every commit of the last of those turns was not in yet when the alarm came has
not revealed it, and the audit needs every shuffling seat's reveal of every turn below the stop. That seat signs
its reveal once the turn's commits are in, and only then its SEALED_KEYS, so every seat's keys in mean its reveals
below the stop are in (its chain): the audit runs on every node. Before, it sent its keys and never its reveal, and
every node waited at (r, 32, 0) on nobody for ever (11.1: once every key is in, the game waits on nobody there;
no clock runs and no vote can be called).
"""

from __future__ import annotations

from typing import Any

import pytest
from sealed_adversary import Cheat, SealedNet, assert_audited, cheat, keys_body, sealed, vote_out
from support import outcome

from p2pnimmt.protocol.phase import Step
from p2pnimmt.protocol.steps import ROUND_END_STEP
from p2pnimmt.protocol.verify import verify_transcript

CHEAT = 2


def alarm_after_reveal(c: Cheat, kind: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]] | None:
    """Its PLAY_REVEAL of turn 1, then at once its SEALED_KEYS with `alarm` (a false alarm): the alarm's turn is 1."""
    if kind == "PLAY_REVEAL" and (body["round"], body["turn"]) == (0, 0) and not c.fired:
        c.fired = True
        return [(kind, body), ("SEALED_KEYS", keys_body(c.session, alarm=True))]
    return None


@pytest.mark.parametrize("seed", [3, 10, 11])  # delivery orders where a seat was behind the alarm (stuck before)
def test_a_false_alarm_right_after_a_reveal_is_audited_on_every_node(seed: int) -> None:
    """Four seats, two sealed rounds; seat 2's false alarm right after its reveal of turn 1. Every honest node audits
    the round, finds the alarm false (`sealed-false-alarm` against seat 2), voids the round, drops seat 2 at its round
    end, plays round 2 without it and ends alike; every honest transcript verifies."""
    net, made = cheat(4, CHEAT, alarm_after_reveal, seed=seed)
    assert made.fired
    assert_audited(net, CHEAT, "sealed-false-alarm")


def keys_instead_of_reveal(c: Cheat, kind: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]] | None:
    """Behind an alarm at turn 1: its SEALED_KEYS in place of the reveal of turn 1 it owes first."""
    if kind == "PLAY_REVEAL" and (body["round"], body["turn"]) == (0, 0) and c.session.phase == "round-end":
        c.fired = True
        return [("SEALED_KEYS", keys_body(c.session))]
    return None


@pytest.mark.parametrize("seed", [13, 17, 25])  # delivery orders where seat 1 was behind the alarm
def test_a_seat_that_sends_its_keys_instead_of_its_reveal_is_waited_on_and_voted_out(seed: int) -> None:
    """Seats 1 and 2 collude: seat 2's false alarm right after its reveal of turn 1, and seat 1, behind it, sends its
    keys in place of the reveal it owes first. Every key is in and the audit lacks seat 1's reveal: every node waits
    at (0, 32, 0) on seat 1 (11.1), the others vote it out there, the round is void (`absent`, seat 1 forfeits) and
    the game ends alike everywhere; every honest transcript verifies. Before, every node waited there on nobody (no
    vote could be called): stuck for good."""
    net = SealedNet(4, seed=seed, settings=sealed(4, rounds=2))
    alarm, behind = Cheat(net, 2, alarm_after_reveal), Cheat(net, 1, keys_instead_of_reveal)
    net.start()
    net.run()
    assert alarm.fired and behind.fired
    seat_1 = net.identities[1].peer
    assert all(net.sessions[p].waiting_for() == (1,) for p in net.peers if p != seat_1)
    vote_out(net, 1)
    ends = set()
    for p in net.peers:
        if p == seat_1:
            continue
        s = net.sessions[p]
        assert s.phase == "over" and s.dropped == {1: Step(0, ROUND_END_STEP, 0)}, (s.phase, s.dropped)
        assert [(f.code, f.peer) for f in net.faults(p)] == [("absent", seat_1)]
        assert list(s.voided) == [0] and 1 in s.table.forfeits
        ends.add(outcome(s))
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, verdict.report()
    assert len(ends) == 1, ends
