"""Two seats gone at once (protocol.md 11.1): a phone's battery dies while another player walks out.

Every drop at a step needs a vote from each seat still there — not from the other seat that is gone: the
seats voted on together are dropped together, by the votes of every seat that stays. Every node (the two
seats that were cut, once they are back on the network, spectators and verify included) drops the same
seats at the same step, and the game ends.
"""

from __future__ import annotations

import random

from harness import Net, catch_up
from hypothesis import HealthCheck, given, settings, strategies as st
from support import short
from sweep import examples

from p2pnimmt.protocol.session import LocalError
from p2pnimmt.protocol.verify import replay, verify_transcript


def vote_out_together(net: Net, gone: list[int]) -> None:
    """Each seat still there votes to drop every seat of `gone` (the one it waits for first), as a node does
    whose links to both are down; then the votes are delivered."""
    for voter, ident in enumerate(net.identities):
        if voter in gone:
            continue
        session = net.sessions[ident.peer]
        for seat in sorted(gone, key=lambda s: s not in session.waiting_for()):
            try:
                net.handle(ident.peer, session.drop(seat))
            except LocalError:
                pass  # not waiting on anyone here (yet), or voted already
    net.run()


def both_cut(players: int, deal: str, gone: tuple[int, int], cut_at: int, delivery: int, rounds: int = 2) -> Net:
    variant, deal = ("draft", "open") if deal == "draft" else ("standard", deal)
    net = Net(players, settings=short(players, variant, rounds=rounds, deal=deal), bots="heuristic", seed=cut_at,
              spectators=1)
    net.rng = random.Random(delivery)
    net.start()
    while net.queue and any(s.phase in ("lobby", "starting") for s in net.sessions.values()):
        net.run(limit=1)  # (before every START_ACK is in the game has not started: the lobby's matter)
    net.run(limit=cut_at)
    net.cut = {net.identities[s].peer for s in gone}
    net.run()
    for _ in range(200):  # a vote per stuck step, until the game ends without them (or needs them no more)
        stuck = {p: s.waiting_for() for p, s in net.sessions.items()
                 if p not in net.cut and s.seat is not None and s.phase not in ("over", "aborted")}
        if not stuck or not any(w for w in stuck.values()):
            break
        for peer in net.peers:  # what a waiting node does first: ask the others for what it lacks
            if peer not in net.cut:
                catch_up(net, peer)
        net.run()
        vote_out_together(net, list(gone))
    # gone for good, the game ends without them: every node still on the network is over
    left = [s for p, s in net.sessions.items() if p not in net.cut]
    assert all(s.phase == "over" for s in left), [(s.seat, s.phase, s.round, s.waiting_for()) for s in left]
    net.heal()  # they come back on the network: they learn they were dropped, and end as everyone did
    net.run()
    return net


def outcomes(net: Net) -> set[tuple]:
    found = set()
    for peer, session in net.sessions.items():
        assert not [f for f in net.faults(peer) if f.fatal], net.faults(peer)
        verdict = verify_transcript(bytes(net.transcripts[peer]))
        assert verdict.ok, verdict.report()
        for s in (session, replay(bytes(net.transcripts[peer])).session):
            found.add((str(s.phase), s.result, tuple(sorted(s.dropped.items()))))
    return found


def test_two_seats_gone_at_the_same_step_are_dropped_together_and_the_game_ends() -> None:
    """The reported run: 5 seats, two joiners gone at once; the host, a bot and a joiner vote both out."""
    net = both_cut(5, "sealed", (2, 3), 150, 0)
    found = outcomes(net)
    assert len(found) == 1, found
    phase, _, dropped = found.pop()
    assert phase == "over"
    steps = dict(dropped)
    assert set(steps) == {2, 3} and steps[2] == steps[3]  # one step: nobody could vote the other first


@settings(max_examples=examples(10, 60), deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(players=st.integers(4, 6), deal=st.sampled_from(["open", "sealed", "draft"]), first=st.integers(0, 5),
       apart=st.integers(1, 5), cut_at=st.integers(0, 500), delivery=st.integers(0, 2**16))
def test_every_node_agrees_when_two_seats_go_at_once(players: int, deal: str, first: int, apart: int, cut_at: int,
                                                     delivery: int) -> None:
    a = first % players
    b = (a + 1 + apart % (players - 1)) % players
    net = both_cut(players, deal, (a, b), cut_at, delivery)
    found = outcomes(net)
    assert len(found) == 1, found
    assert found.pop()[0] == "over"
