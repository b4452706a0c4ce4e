"""Dropping a player who is gone: every remaining player votes, the stand-in plays its hand, nobody diverges."""

from __future__ import annotations

import pytest
from harness import Net

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.events import Outgoing, SeatDropped
from p2pnimmt.protocol.session import LocalError
from p2pnimmt.protocol.verify import verify_transcript


def silence_after(net: Net, seat: int, messages: int) -> None:
    """Seat `seat` sends its first `messages` messages, then nothing (a crashed laptop)."""
    peer = net.identities[seat].peer
    sent = 0

    def tamper(_peer, out: Outgoing):
        nonlocal sent
        from p2pnimmt.protocol.envelope import open_envelope

        if open_envelope(out.wire).sender == peer:
            sent += 1
            if sent > messages:
                return []
        return [(to, out.wire) for to in net.targets(peer, out)]

    net.tamper[peer] = tamper


def vote_out(net: Net, seat: int, run: bool = True) -> None:
    """When the game is stuck on `seat`, every other player votes to drop it (what the timer does on a network);
    then (`run`) the votes are delivered. Each node's timer found it gone: a node that comes to wait on it later
    joins the vote on sight (Net.gone, the node's policy; the session never joins by itself, protocol.md 11.1)."""
    net.gone.add(seat)
    for voter, ident in enumerate(net.identities):
        session = net.sessions[ident.peer]
        if voter != seat and seat in session.waiting_for():
            try:
                net.handle(ident.peer, session.drop(seat))
            except LocalError:
                pass  # it voted already, or the game is not under way yet
    if run:
        net.run()


@pytest.mark.parametrize("players, variant, after", [(3, "standard", 2), (4, "standard", 9), (4, "standard", 14),
                                                    (5, "tactical", 30), (4, "draft", 5), (4, "draft", 40)])
def test_a_silent_player_is_dropped_and_the_game_completes(players: int, variant: str, after: int) -> None:
    net = Net(players, settings=Settings(players=players, variant=variant, max_rounds=2, point_limit=None, deal="open"), seed=after)
    gone = players - 1
    silence_after(net, gone, after)
    net.start()
    net.run()
    assert net.sessions[net.identities[0].peer].waiting_for() == (gone,)
    vote_out(net, gone)
    remaining = [p for i, p in enumerate(net.peers) if p != net.identities[gone].peer]
    results = {(net.sessions[p].phase, net.sessions[p].result, tuple(net.sessions[p].game.history)) for p in remaining}
    assert len(results) == 1, results
    phase, result, _ = results.pop()
    assert phase == "over" and result.rounds == 2
    for p in remaining:
        session = net.sessions[p]
        assert gone in session.dropped
        assert [e.seat for e in net.events[p] if isinstance(e, SeatDropped)] == [gone]
        assert not [f for f in net.faults(p) if f.fatal]
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, verdict.report()


def test_a_vote_is_withdrawn_when_the_late_message_was_used_by_someone() -> None:
    """One seat votes while another already holds the missing message: the vote never completes, nobody diverges."""
    net = Net(3, settings=Settings(players=3, max_rounds=1, point_limit=None, deal="open"), seed=5, shuffle_delivery=False)
    late = net.identities[2].peer
    held: list[tuple[bytes, bytes, bytes]] = []
    original = net.send

    def send(peer, out):
        # Seat 2's first PLAY_COMMIT reaches seat 1 (and the spectator) but not seat 0 for now.
        from p2pnimmt.protocol.envelope import open_envelope

        env = open_envelope(out.wire)
        if peer == late and env.kind == "PLAY_COMMIT" and env.body["turn"] == 0 and not held:
            held.append((net.identities[0].peer, peer, out.wire))
            for to in net.peers:
                if to not in (peer, net.identities[0].peer):
                    net.queue.append((to, peer, out.wire))
            return
        original(peer, out)

    net.send = send
    net.relay_block = True
    net.start()
    # Seat 1 must not relay seat 2's commit to seat 0 either: hold every copy addressed to seat 0.
    zero = net.identities[0].peer
    while net.queue:
        to, frm, wire = net.queue.popleft()
        from p2pnimmt.protocol.envelope import open_envelope

        env = open_envelope(wire)
        if to == zero and env.sender == late and env.kind == "PLAY_COMMIT" and env.body["turn"] == 0:
            held.append((to, frm, wire))
            continue
        net.handle(to, net.sessions[to].receive(wire, via=frm))
    s0 = net.sessions[zero]
    assert s0.waiting_for() == (2,)
    net.handle(zero, s0.drop(2))  # seat 0 gives up on seat 2; seat 1 holds seat 2's commit and does not join
    net.run()
    for item in held:  # the late copies finally arrive
        net.queue.append(item)
    net.run()
    results = {(s.phase, s.result) for s in net.sessions.values()}
    assert len(results) == 1, results
    assert results.pop()[0] == "over"
    assert all(not s.dropped for s in net.sessions.values())
    for p in net.peers:
        assert verify_transcript(bytes(net.transcripts[p])).ok


def test_a_spectator_cannot_vote_and_nobody_votes_for_a_seat_it_is_not_waiting_for() -> None:
    net = Net(3, settings=Settings(players=3, max_rounds=1, point_limit=None, deal="open"), seed=1)
    net.start()
    net.run(limit=30)
    spectator = net.sessions[net.watchers[0].peer]
    with pytest.raises(LocalError):
        spectator.drop(1)
    seat0 = net.sessions[net.identities[0].peer]
    others = [s for s in range(3) if s not in seat0.waiting_for() and s != 0]
    if others:
        with pytest.raises(LocalError):
            seat0.drop(others[0])
