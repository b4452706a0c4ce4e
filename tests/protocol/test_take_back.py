"""Taking a dropped seat back (protocol.md 11.3): a seat the others dropped asks with REJOIN, and plays again
from the round after a round end at which more than half of the ROUND_ENDs list it. Every node — the seat itself,
spectators and verify — agrees on when it is back, whatever the delivery order and whenever it asks; its score stays
its own.
"""

from __future__ import annotations

import pytest
from harness import Net, absences_of, outcomes
from hypothesis import HealthCheck, given, settings, strategies as st
from sweep import examples
from test_drop import vote_out
from test_drop_consensus import cut_off

from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.events import SeatBack
from p2pnimmt.protocol.session import LocalError
from p2pnimmt.protocol.verify import verify_transcript


def comes_back(players: int, deal: str, seat: int, cut_at: int, delivery: int, delay: int,
               rounds: int = 3, cut_for: int = 40) -> Net:
    """Cut `seat` after `cut_at` deliveries; once the game waits on it the others vote it out; `cut_for`
    deliveries later the cut heals; `delay` deliveries after its node learns it was dropped, its player asks
    for the seat back."""
    net = cut_off(players, deal, seat, cut_at, delivery, rounds=rounds)
    x = net.identities[seat].peer
    vote_out(net, seat, run=False)
    net.run(limit=cut_for)
    net.heal()
    asked, waited = False, 0
    while net.queue:
        net.run(limit=1)
        session = net.sessions[x]
        if not asked and seat in session.dropped:
            if waited >= delay:
                net.handle(x, session.rejoin())
                asked = True
            waited += 1
    return net


def test_a_dropped_seat_that_asks_is_back_from_a_next_round_and_keeps_its_score() -> None:
    net = comes_back(4, "open", 2, 60, 3, delay=0)
    found = outcomes(net, absences_of)
    assert len(found) == 1, found
    phase, result, dropped, absences = found.pop()
    assert phase == "over" and dropped == ()
    ((seat, ((gone, back),)),) = absences
    assert seat == 2 and gone.round == 0 and back == 1
    x = net.identities[2].peer
    for peer in net.peers:
        assert [(e.seat, e.round) for e in net.events[peer] if isinstance(e, SeatBack)] == [(2, 1)]
    # after its return its own node played its seat again: its reveals of round 2 and 3 are in everyone's game
    session = net.sessions[net.peers[0]]
    own = [open_envelope(w) for w in session.journal.messages if open_envelope(w).sender == x]
    assert any(e.kind == "REJOIN" for e in own)
    later = [e for e in own if e.kind == "PLAY_REVEAL" and e.body["round"] >= 1]
    assert len(later) == 20 and all(e.body.get("auto") is not True for e in later)
    # its score is the stand-in's bull heads of round 1 plus its own afterwards: the same total everywhere
    assert result.scores[2] == sum(history[2] for history in session.game.history)


def test_asking_twice_or_while_seated_is_refused_locally() -> None:
    net = comes_back(3, "open", 1, 40, 1, delay=0, rounds=2)
    seated = net.sessions[net.identities[0].peer]
    with pytest.raises(LocalError, match="not dropped"):
        seated.rejoin()


@settings(max_examples=examples(8, 25), deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(players=st.integers(3, 5), deal=st.sampled_from(["open", "sealed", "draft"]), seat=st.integers(0, 4),
       cut_at=st.integers(5, 300), delivery=st.integers(0, 2**16), delay=st.integers(0, 400),
       cut_for=st.integers(0, 300))
def test_every_node_agrees_on_when_a_seat_is_back_whatever_the_order(players: int, deal: str, seat: int,
                                                                   cut_at: int, delivery: int, delay: int,
                                                                   cut_for: int) -> None:
    net = comes_back(players, deal, seat % players, cut_at, delivery, delay, cut_for=cut_for)
    found = outcomes(net, absences_of)
    assert len(found) == 1, found
    assert found.pop()[0] == "over"


def test_leaving_a_sealed_round_to_void_it_never_pays_the_leaver_cannot_win() -> None:
    """A shuffling seat that is dropped mid-round makes the round void for everyone (17.9); it may come back
    and play on, but it forfeits the game: every node, and verify, leaves it out of the winners (issue 21)."""
    net = comes_back(4, "sealed", 2, 198, 3, delay=0)  # p2 ends with the fewest bull heads: 16 of 29, 36, 16, 45
    # (cut at 150 until session 27: since nobody joins a vote on sight, only by its policy, that game went otherwise;
    # cut at 190, delivery 0 until session 29: since a seat that forfeited is dealt open, that game went otherwise)
    found = outcomes(net, absences_of)
    assert len(found) == 1, found
    phase, result, _, absences = found.pop()
    assert phase == "over" and dict(absences)[2]  # it came back
    for peer, session in net.sessions.items():
        assert session.voided and set(session.table.forfeits) == {2}
        assert session.result.winners == tuple(
            s for s in (0, 1, 3) if result.scores[s] == min(result.scores[t] for t in (0, 1, 3)))
        summary = verify_transcript(bytes(net.transcripts[peer])).summary
        assert "forfeited (made a round void, so cannot win): p2" in summary
    assert result.scores[2] < min(result.scores[t] for t in (0, 1, 3))
    assert all(2 not in s.result.winners for s in net.sessions.values())
