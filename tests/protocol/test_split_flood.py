"""A split commit is bounded (protocol.md 12): a seat that signs more versions of one commit than the table has
seats is caught as any equivocation (fatal, proven, verified), and the versions a game may need are always
in the transcript (before: a seat signing 41 versions made every honest transcript fail `verify`, the records
past 32 per peer left out)."""

from __future__ import annotations

import pytest
from test_attacks import assert_caught, assert_expelled, at, h, honest, play, vote_out_when_stalled

from p2pnimmt.protocol.events import Fault
from p2pnimmt.protocol.transcript import MAX_FAULTS_PER_PEER, TranscriptJournal


def flood(turn: int, versions: int):
    """One version of the turn's commit to the first other peer, `versions` more, each its own, to the rest."""
    def rule(adv, env, body):
        if not at(env, "PLAY_COMMIT", turn=turn):
            return None
        a = adv.chain(env.kind, body, env)
        outs = adv.to(a.wire, adv.others[:1])
        signed = [a.wire]
        for i in range(versions):
            b = adv.seal_at(a.seq, a.prev, env.kind, dict(body, commit=h(f"version {i}")))
            signed.append(b.wire)
            outs += adv.to(b.wire, adv.others[1:])
        adv.state["pair"] = tuple(signed)
        adv.silent = True
        adv.fired = True
        return outs
    return rule


@pytest.mark.parametrize("versions", [5, 40])
def test_more_versions_than_seats_is_caught_and_every_transcript_verifies_it(versions):
    net, adv = play(4, 1, flood(1, versions), shuffle=False)
    vote_out_when_stalled(net, adv)
    for fault in assert_caught(net, adv, "equivocation"):
        assert "versions of one commit" in fault.detail, fault.detail
    for p in honest(net, adv):  # bounded: at most one record per version held, never one per pair
        assert len([f for f in net.faults(p) if f.code == "equivocation"]) <= 4 + 1


def test_a_split_into_as_many_versions_as_seats_costs_the_seat_only():
    """Three versions at a 4-seat table (one per other peer): the split commit of protocol.md 12, not a flood."""
    net, adv = play(4, 1, flood(1, 2), shuffle=False)
    vote_out_when_stalled(net, adv)
    assert_expelled(net, adv, "equivocation")


def test_a_split_commits_proofs_are_always_recorded():
    """The replay needs every version a reveal may name: split-commit records are not cut at 32 per peer, as
    other non-fatal records are (a session records at most one per version, at most seats versions a turn)."""
    peer = bytes(16)
    kept, cut = TranscriptJournal(lambda _: None), TranscriptJournal(lambda _: None)
    for i in range(MAX_FAULTS_PER_PEER + 8):
        kept.fault(Fault(peer, "equivocation", f"split commit {i}", False, ()))
        cut.fault(Fault(peer, "absent", f"absent {i}", False, ()))
    assert kept.faults_left_out == 0 and cut.faults_left_out == 8
