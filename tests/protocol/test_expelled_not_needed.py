"""An expelled seat that the game does not wait on does not block the drop of a seat gone afterwards (protocol.md
11.1, "An expelled seat"; found by the seeded chaos of tests/peer/chaos.py, seeds 155, 170 and 189).

Seat 2 commits in turn TURN and then signs a STANDIN naming itself (`unexpected`, section 9): it is expelled from
that STANDIN on, but the game does not wait on it at the commit step (its commit, signed before, counts). Then the
last seats are cut off before their commits of that turn reach anyone, and the others vote them out. Before, the
expelled seat, which had not voted (its DROP after the STANDIN does not count), made every vote there void: nobody
could ever be dropped and the table stopped for good. Now it is not needed there: the gone seats are dropped at
the commit step (two of them together by the quorum rule), seat 2 at the reveal step, where the game then waits on
it, and the rest finish the game, every honest node and transcript alike.
"""

from __future__ import annotations

import pytest
from adversary import Adversary, AttackNet
from harness import Net
from support import short
from test_drop import vote_out

from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.phase import Step, message_round, turn_steps
from p2pnimmt.protocol.verify import verify_transcript

TURN = 4
CHEAT = 2


def expel_then_cut(net: Net, gone: tuple[int, ...]) -> Adversary:
    """Seat CHEAT of `net` expels itself right after its commit of turn TURN (a STANDIN naming itself); the seats
    `gone` are cut off before anything of theirs from that commit on leaves them (their relays too)."""

    def rule(adv: Adversary, env, body):  # type: ignore[no-untyped-def]
        if env.kind == "PLAY_COMMIT" and (body["round"], body["turn"]) == (0, TURN) and not adv.fired:
            adv.fired = True
            return adv.default(env, body) + adv.send("STANDIN", {"round": 0, "turn": TURN, "seat": adv.seat})
        return None

    adv = Adversary(net, CHEAT, rule)
    cut = {net.identities[s].peer for s in gone}
    commit = Step(0, turn_steps(TURN)[0])

    def late(_to: bytes, frm: bytes, wire: bytes) -> bool:
        if frm not in cut:
            return False
        env = open_envelope(wire)
        return env.sender != frm or Step.of_message(message_round(env.kind, env.body), env.kind, env.body) >= commit

    net.withhold = late
    return adv


def expelled_then_gone(players: int, deal: str, gone: tuple[int, ...], seed: int) -> tuple[AttackNet, Adversary]:
    """The game (of heuristic bots) run until it stalls on the seats `gone` (expel_then_cut)."""
    net = AttackNet(players, settings=short(players, "standard", rounds=2, deal=deal), bots="heuristic", seed=seed)
    adv = expel_then_cut(net, gone)
    net.start()
    net.run()
    return net, adv


@pytest.mark.parametrize("deal", ["open", "sealed"])
@pytest.mark.parametrize(("players", "gone"), [(4, (3,)), (5, (4,)), (6, (4, 5))])
def test_the_rest_vote_out_a_seat_gone_after_an_expelled_one_and_finish(players: int, gone: tuple[int, ...],
                                                                         deal: str) -> None:
    net, adv = expelled_then_gone(players, deal, gone, seed=players)
    assert adv.fired
    commit, reveal, _ = turn_steps(TURN)
    honest = [p for s, p in enumerate(net.peers) if s != CHEAT and s not in gone]  # the other seats, the spectators
    for p in honest:
        s = net.sessions[p]
        assert (s.phase, s.round, s.turn) == ("turn", 0, TURN)
        assert s.waiting_for() == gone  # not the cheat: its commit is in
        assert s.table.expelled_for == {CHEAT: "unexpected"}
    for seat in gone:
        vote_out(net, seat, run=False)
    net.run()
    found = set()
    for p in honest:
        s = net.sessions[p]
        assert not [f for f in net.faults(p) if f.fatal], net.faults(p)
        # before: ("turn", 0, TURN, waiting for the gone seats) for ever
        assert s.phase == "over", (s.phase, s.round, s.turn, s.waiting_for())
        assert {seat: s.dropped.get(seat) for seat in gone} == {seat: Step(0, commit) for seat in gone}
        assert s.dropped.get(CHEAT) == (Step(0, reveal) if deal == "open" else Step(0, 32, 1))  # a void round ends
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, verdict.report()
        found.add((s.result, tuple(sorted(s.dropped.items())), tuple(sorted(s.voided))))
    assert len(found) == 1, found
