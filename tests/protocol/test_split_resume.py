"""A node restarted in the middle of a split commit (protocol.md 12, 13) keeps the versions it held.

A seat signs two PLAY_COMMITs for one turn and shows each to other peers; an honest node that holds both
records the proof (a non-fatal `equivocation` with both versions as evidence) and keeps both for the turn's
reveals to decide on. If it restarts before they decide, `resume` replays its transcript: the proof's versions
are replayed at the place of their record (transcript.replay_wires), as `verify` takes them, so the resumed node
decides as the others do. Before, it replayed only the messages it had accepted, lost the other version, and
the reveals naming a set with it waited for ever (for a version that never came again).
"""

from __future__ import annotations

import pytest
from adversary import Adversary, AttackNet
from harness import catch_up, restart
from test_attacks import equivocate, honest, vote_out_when_stalled

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.transcript import records, replay_wires
from p2pnimmt.protocol.verify import verify_transcript

TURN = 2


def split_then_restart(players: int, seat: int, seed: int, which: int) -> tuple[AttackNet, Adversary, bytes]:
    """Seat `seat` splits its commit of turn 3; the `which`-th honest seat to hold both versions (before the turn
    is decided) restarts from its files at once; then the game runs to its end."""
    net = AttackNet(players, seed=seed, settings=Settings(players=players, max_rounds=1, deal="open"),
                    shuffle_delivery=seed > 0)
    adv = Adversary(net, seat, equivocate(TURN, keep_playing=False))
    net.start()
    seats = [p for p in honest(net, adv) if p in [i.peer for i in net.identities]]
    victim = None
    while net.queue and victim is None:
        net.run(limit=1)
        holding = [p for p in seats if len(net.sessions[p].table.versions.get((0, TURN), {}).get(seat, {})) >= 2
                   and net.sessions[p].turn == TURN and seat not in net.sessions[p].dropped]
        if len(holding) > which:
            victim = holding[which]
    assert victim is not None, "no honest seat held both versions while the turn was open"
    before = dict(net.sessions[victim].table.versions[(0, TURN)][seat])
    # A process killed loses what was on its way to it and from it; on reconnect the heads exchange brings back the
    # chains' messages (catch_up), never a version of a split commit that no chain holds: only its record does.
    net.queue = type(net.queue)(item for item in net.queue if victim not in item[:2])
    net.handle(victim, restart(net, victim))
    catch_up(net, victim)
    assert net.sessions[victim].table.versions.get((0, TURN), {}).get(seat) == before  # the versions survive
    net.run()
    vote_out_when_stalled(net, adv)
    return net, adv, victim


@pytest.mark.parametrize("players, seat", [(3, 1), (4, 2), (5, 0)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_node_restarted_in_a_split_commit_reaches_the_same_end(players: int, seat: int, seed: int) -> None:
    """Every honest node, the restarted one included, ends the game with the splitter expelled and dropped at the
    turn's commit step, the same result everywhere, and every honest transcript verifies."""
    net, adv, victim = split_then_restart(players, seat, seed, which=0)
    ends = set()
    for p in honest(net, adv):
        s = net.sessions[p]
        assert s.phase == "over", (p == victim, s.phase, net.faults(p))
        for f in net.faults(p):  # the splitter's proofs; a copy the reconnect sent twice (a replay, the deliverer's)
            assert not f.fatal and (f.peer == adv.peer or f.code == "replay"), f
        assert s.table.expelled_for.get(seat) == "equivocation"
        ends.add((s.result, tuple(sorted(s.dropped.items()))))
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, verdict.report()
    assert len(ends) == 1, ends
    assert net.sessions[victim].dropped[seat] == (0, 2 + 3 * TURN, 0)


def test_the_replay_holds_each_recorded_versions_at_the_place_of_its_record() -> None:
    """replay_wires: the messages in order, and the evidence of a split commit's record where the record is."""
    net, adv, victim = split_then_restart(4, 2, 0, which=0)
    data = bytes(net.transcripts[victim])
    expected: list[bytes] = []
    for kind, payload in records(data):
        if kind == "msg":
            expected.append(payload)
        elif kind == "fault" and payload["code"] == "equivocation" and not payload["fatal"]:
            expected += payload["evidence"]
    assert replay_wires(data) == expected
    assert len(expected) > len([p for k, p in records(data) if k == "msg"])  # a proof was recorded and is replayed
