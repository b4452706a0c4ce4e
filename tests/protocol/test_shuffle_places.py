"""Two seats gone during a sealed round's shuffles, one of them after it shuffled (issue 21 item 2; protocol.md
11.1 "Positions", 17.9).

Five seats. Seat 2 shuffles, seat 3 shuffles on top of it, and then seats 2 and 4 are gone at once: the table
waits on seat 4's shuffle. Seat 4's drop alone needs seat 2's vote; the set {2, 4} needs seat 3 to name seat
2. Before the shuffles had places, seat 3's own shuffle counted as going on from seat 2's message at (r, 0),
so it could never name seat 2 there: no drop could complete and the table stopped for good. With places,
seat p's SEALED_SHUFFLE is at (r, 0, p): the table waits at (r, 0, 4), seat 3 has signed nothing after that
position, and seats 0, 1 and 3 vote out {2, 4} there. Seat 2 is dropped after its shuffle (its layer is in
the deck): the round is void and it forfeits; seat 4 did not shuffle.
"""

from __future__ import annotations

import random

import pytest
from harness import Net
from hypothesis import HealthCheck, given, settings, strategies as st
from support import short
from sweep import examples
from test_two_gone import agreed, remaining, timers

from p2pnimmt.protocol.phase import Step

GONE = (2, 4)


def after_seat_3_shuffled(round_index: int, delivery: int, spectators: int = 1) -> Net:
    """A sealed game of five heuristic bots, run one delivery at a time until seat 3 has signed its shuffle of
    `round_index` on top of seat 2's, and seat 4 has not shuffled: then seats 2 and 4 are cut off at once."""
    net = Net(5, settings=short(5, rounds=2, deal="sealed"), bots="heuristic", seed=round_index * 100 + delivery,
              spectators=spectators)
    net.rng = random.Random(delivery)
    net.start()
    seat3 = net.sessions[net.identities[3].peer]
    while 3 not in (seat3.slot("SEALED_SHUFFLE", round_index) if seat3.game is not None else {}):
        assert net.queue, "the game ended before seat 3 shuffled"
        net.run(limit=1)
    # seat 3 signed its shuffle in the delivery that brought seat 2's: seat 4 cannot have it yet
    assert all(4 not in net.sessions[p].slot("SEALED_SHUFFLE", round_index) for p in net.peers)
    net.cut = {net.identities[s].peer for s in GONE}
    net.run()
    return net


def check_outcome(net: Net, round_index: int) -> None:
    phase, result, dropped = agreed(net, remaining(net, GONE))
    assert phase == "over" and result.rounds == 2, (phase, result)
    at = Step(round_index, 0, 4)
    assert dict(dropped) == {2: at, 4: at}  # together, at seat 4's shuffle
    for peer in remaining(net, GONE):
        session = net.sessions[peer]
        assert round_index in session.voided, session.voided  # seat 2's layer is in the deck: void
        assert set(session.table.forfeits) == {2}  # it left after it shuffled; seat 4 never shuffled
        assert 2 not in result.winners
        assert {f.code for f in net.faults(peer)} <= {"absent"}
        assert [f.peer for f in net.faults(peer) if f.code == "absent"] == [net.identities[2].peer]


@pytest.mark.parametrize("round_index", [0, 1])
def test_seats_2_and_4_gone_after_seat_3_shuffled_on_seat_2_are_dropped_together(round_index: int) -> None:
    """The CI run of tests/net/test_two_killed.py: before places, every node waited for ever on seat 4."""
    net = after_seat_3_shuffled(round_index, delivery=7)
    timers(net)
    check_outcome(net, round_index)


@settings(max_examples=examples(8, 60), deadline=None, suppress_health_check=[HealthCheck.too_slow],
          derandomize=True)
@given(round_index=st.integers(0, 1), delivery=st.integers(0, 2**16))
def test_every_order_of_arrival_drops_both_at_seat_4s_shuffle(round_index: int, delivery: int) -> None:
    net = after_seat_3_shuffled(round_index, delivery)
    timers(net)
    check_outcome(net, round_index)
