"""A reveal naming a version of a split commit that this node does not hold yet names nobody (protocol.md 11, "A
reveal naming another commit set"; issue 21).

Seat 0 signs two PLAY_COMMITs for one turn and shows version A to seat 1 (and the spectator), version B to seat 2.
Seat 2 reveals on the set with B. Seat 1 gets that reveal while B is still on its way to it (held back here, as a
slow relay does): it cannot tell an honest seat that holds another version from a liar, so it waits and records
nothing. Before, it recorded a non-fatal `digest-mismatch` naming seat 2, an honest seat (tests/net/
test_copied_seat.py saw it once in CI, "after its reveal in round 2, turn 3"). Once B comes, seat 1 decides as every
node does: the seats revealed on both versions, so seat 0 is expelled at the turn's commit step and the game goes
on without it.
"""

from __future__ import annotations

import pytest
from adversary import Adversary, AttackNet
from test_attacks import at, h, honest

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.verify import verify_transcript


def split_and_hold(players: int, turn: int, seed: int) -> tuple[AttackNet, Adversary, bool]:
    """Seat 0 splits its commit of `turn`: A to seat 1 and the spectator, B to every other seat. Every delivery of
    B to seat 1 is held back (delivery otherwise in order; `seed` picks the keys and the bots' moves) until seat 1 holds the reveal of seat 2 (which names the set with B); then the game
    runs to its end. Returns whether seat 1 held that reveal while it lacked B (the situation under test)."""
    net = AttackNet(players, seed=seed, settings=Settings(players=players, max_rounds=1, deal="open"),
                    shuffle_delivery=False)  # in order: seat 2 takes B first and reveals on it
    seat1 = net.identities[1].peer

    def rule(adv, env, body):
        if not at(env, "PLAY_COMMIT", turn=turn):
            return None
        a = adv.chain(env.kind, body, env)
        b = adv.seal_at(a.seq, a.prev, env.kind, dict(body, commit=h("the other commitment")))
        adv.state["pair"] = (a.wire, b.wire)
        adv.fired = True
        shown_a = [seat1, *(w.peer for w in net.watchers)]
        return adv.to(a.wire, shown_a) + adv.to(b.wire, [p for p in adv.others if p not in shown_a])

    adv = Adversary(net, 0, rule)
    net.withhold = lambda to, frm, wire: to == seat1 and "pair" in adv.state and wire == adv.state["pair"][1]
    net.start()
    waited = False
    while net.queue:
        net.run(limit=1)
        reveals = net.sessions[seat1].table.slot("PLAY_REVEAL", 0, turn)
        if net.withhold is not None and 2 in reveals:
            own = net.sessions[seat1].table.slot("PLAY_REVEAL", 0, turn).get(1)
            waited = (net.sessions[seat1].turn == turn and own is not None
                      and reveals[2].body["commits"] != own.body["commits"]  # seat 2 names another set: with B
                      and len(net.sessions[seat1].table.versions.get((0, turn), {}).get(0, {})) < 2)
            net.heal()  # B reaches seat 1 at last: relayed, or as a proof's evidence
    return net, adv, waited


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("turn", [0, 2])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_reveal_on_a_version_still_on_its_way_names_nobody(players: int, turn: int, seed: int) -> None:
    net, adv, waited = split_and_hold(players, turn, seed)
    assert adv.fired and waited, "seat 1 never held seat 2's reveal before version B"
    ends = set()
    for p in honest(net, adv):
        s = net.sessions[p]
        assert s.phase == "over", (p, s.phase, net.faults(p))
        for f in net.faults(p):
            assert f.peer == adv.peer and not f.fatal, f  # the splitter's proofs and expulsion; no honest seat
        assert s.table.expelled_for.get(0) == "equivocation"
        assert s.dropped[0] == (0, 2 + 3 * turn, 0)
        ends.add(s.result)
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, verdict.report()
        assert all(f["peer"] == adv.peer for f in verdict.faults_recorded), verdict.faults_recorded
    assert len(ends) == 1, ends
