"""The order of arrival never changes the outcome (protocol.md 11): the cases a second implementation found.

1. A vote at the end of a round that ended early (a sealed round made void at its third turn) is at the
   turn of its sender's round end: an honest DROP there is no progression skip.
2. A seat that comes back: its first message after its return may reach a node before the last vote that
   dropped it, and its GAME_END may reach a node that has not yet taken it back. Neither blames it, and
   the game ends the same everywhere.
"""

from __future__ import annotations

from harness import Net, absences_of, outcomes
from hypothesis import HealthCheck, example, given, settings, strategies as st
from sweep import examples
from test_drop import vote_out
from test_drop_consensus import cut_off

from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.phase import ROUND_END_PLACE, ROUND_END_STEP, Step
from p2pnimmt.protocol.verify import replay, verify_transcript


def void_then_round_end_drop(players: int, cut_at: int, delivery: int) -> Net:
    """Seat 3 is cut mid-round in a sealed game and voted out (the round is void); seat 2 is cut as the
    first other node reaches the round end, and the others vote it out there."""
    net = cut_off(players, "sealed", 3, cut_at, delivery)
    void_then_drop_at_round_end(net)
    return net


def void_then_drop_at_round_end(net: Net) -> None:
    """Seat 3 (cut already) voted out, the round void; seat 2 cut as the first other node reaches the round end
    and voted out there; then the net heals and runs to the end."""
    vote_out(net, 3, run=False)
    x2 = net.identities[2].peer
    while net.queue and not any(s.phase == "round-end" for p, s in net.sessions.items() if p != x2):
        net.run(limit=1)
    net.cut = {x2}
    net.run()
    vote_out(net, 2)
    net.heal()
    net.run()


def test_a_vote_at_the_end_of_a_round_made_void_is_no_skip() -> None:
    net = void_then_round_end_drop(5, 400, 0)
    found = outcomes(net, absences_of, faultless=True)
    assert len(found) == 1, found
    phase, _, dropped, _ = found.pop()
    assert phase == "over"
    assert dict(dropped)[2] == Step(0, ROUND_END_STEP, ROUND_END_PLACE)
    for session in net.sessions.values():
        assert 0 in session.table.voided


@settings(max_examples=examples(6, 40), deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(players=st.integers(4, 5), cut_at=st.integers(60, 700), delivery=st.integers(0, 2**16))
# Found by the sweep (issue 21 item 3): seats 2 and 3 cut at the first turn's commit vote each other out there,
# the others both; dropping one voids the round, and the other's drop, complete at once, must be made there too
# (protocol.md 11.1, "Active"): before, it was left for a step gone past and every node stalled.
@example(players=4, cut_at=92, delivery=0)
# Found by the sweep too: seat 1 signed its ROUND_END, then found seat 3's drop complete at a step it had passed
# and rebuilt; the rebuild parked its ROUND_END behind its own open vote, and once the vote completed it signed a
# second ROUND_END for the round (a `duplicate` proven against an honest seat: the others expelled it at (1, 0, 0),
# seat 2, rebuilding, at (0, 32, 0)). A node signs one message per slot (protocol.md 11.1, "A rebuild").
@example(players=4, cut_at=93, delivery=0)
def test_every_node_agrees_after_a_vote_at_the_end_of_a_void_round(players: int, cut_at: int, delivery: int) -> None:
    found = outcomes(void_then_round_end_drop(players, cut_at, delivery), absences_of, faultless=True)
    assert len(found) == 1, found
    assert found.pop()[0] == "over"


def back_with_a_vote_held(players: int, deal: str, seat: int, cut_at: int, delivery: int, held: str,
                          late: bool = False) -> Net:
    """`seat` is cut and voted out; it asks back at once (`late`: once it is in round 2 of 3, so it comes
    back two rounds after its last message) and plays on. One voter's DROP of it (`held` =
    "drop"), or one seat's ROUND_END of the round before its return (`held` = "round-end"), is kept from
    the spectator until everything else has arrived: the spectator sees the seat's messages after its
    return while it has not dropped it (or not taken it back) yet."""
    net = cut_off(players, deal, seat, cut_at, delivery, rounds=3 if late else 2)
    x = net.identities[seat].peer
    spectator = net.watchers[0].peer
    vote_out(net, seat, run=False)
    other = next(i.peer for n, i in enumerate(net.identities) if n != seat)

    def withhold(to: bytes, _frm: bytes, wire: bytes) -> bool:
        env = open_envelope(wire)
        if to != spectator or env.sender != other:
            return False
        if held == "drop":
            return env.kind == "DROP" and env.body["seat"] == seat
        return env.kind == "ROUND_END" and any(s == seat for s, _ in env.body.get("back", ()))

    net.heal()
    net.withhold = withhold
    asked = False
    while net.queue:
        net.run(limit=1)
        session = net.sessions[x]
        if not asked and seat in session.dropped and session.round >= (1 if late else 0):
            net.handle(x, session.rejoin())
            asked = True
    net.heal()
    net.run()
    return net


@settings(max_examples=examples(8, 40), deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(players=st.integers(3, 5), deal=st.sampled_from(["open", "sealed", "draft"]), seat=st.integers(0, 4),
       cut_at=st.integers(5, 250), delivery=st.integers(0, 2**16), held=st.sampled_from(["drop", "round-end"]),
       late=st.booleans())
def test_a_seat_coming_back_is_never_blamed_for_the_order_its_messages_arrive_in(
        players: int, deal: str, seat: int, cut_at: int, delivery: int, held: str, late: bool) -> None:
    net = back_with_a_vote_held(players, deal, seat % players, cut_at, delivery, held, late)
    found = outcomes(net, absences_of, faultless=True)
    assert len(found) == 1, found
    assert found.pop()[0] == "over"


def test_a_seat_back_two_rounds_after_its_last_message_is_no_skip_where_its_drop_is_not_known_yet() -> None:
    """Its REJOIN lets its next message be at the start of a later round (section 9): the spectator that
    lacks a vote sees the seat's round-3 messages after its round-1 ones, and blames nobody."""
    net = back_with_a_vote_held(4, "open", 2, 40, 1, "drop", late=True)
    found = outcomes(net, absences_of, faultless=True)
    assert len(found) == 1, found
    phase, _, dropped, absences = found.pop()
    assert phase == "over" and dropped == ()
    ((seat, ((gone, back),)),) = absences
    assert seat == 2 and gone.round == 0 and back == 2


def void_round_with_a_second_round_end(players: int, cut_at: int, delivery: int) -> tuple[Net, int]:
    """As `void_then_round_end_drop`, and seat 1 cheats: it signs its ROUND_END of the void round twice (a
    `duplicate`, section 12: it is expelled from the second). Returns the net and the cheat's seat."""
    from adversary import Adversary

    net = cut_off(players, "sealed", 3, cut_at, delivery)
    cheat = 1
    adv = Adversary(net, cheat)
    adv.seq, adv.prev = net.sessions[adv.peer].inbox.head(adv.peer)  # it takes over mid-game: its chain so far

    def twice(adv: Adversary, env, body):  # type: ignore[no-untyped-def]
        if env.kind != "ROUND_END" or adv.fired:
            return None
        adv.fired = True
        return adv.default(env, body) + adv.send("ROUND_END", dict(body))

    adv.rule = twice
    void_then_drop_at_round_end(net)
    return net, cheat


@settings(max_examples=examples(6, 40), deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(players=st.integers(4, 5), cut_at=st.integers(60, 700), delivery=st.integers(0, 2**16))
# The example of test_every_node_agrees_after_a_vote_at_the_end_of_a_void_round with cut_at=93, made by a cheat on
# purpose: seat 2, rebuilding, expelled seat 1 while the void round had moved to its round end but was not yet
# scored, and dropped it at (0, 32, 0), the keys, where the others (which got the proof later) dropped it at
# (1, 0, 0). A void round waits on nobody's keys (17.9), so no node ever drops a seat there.
@example(players=4, cut_at=93, delivery=0)
# Found by a random example (issue 21): seats 2 and 3 vote each other out at one commit step, seat 3's drop there
# completing with seat 2's vote (so it voids the round before seat 2's drop completes); seat 3's own node, past the
# step, rebuilt for both without their votes there and dropped neither, so its transcript's `duplicate` record against
# the cheat was one its replay never found. A rebuild counts X's DROPs at its own drop position and stops there until
# X's drop is made (protocol.md 11.1, "A node already past the step").
@example(players=4, cut_at=351, delivery=33415)
def test_a_seat_expelled_in_a_void_round_is_dropped_at_one_position_whenever_the_proof_comes(
        players: int, cut_at: int, delivery: int) -> None:
    net, cheat = void_round_with_a_second_round_end(players, cut_at, delivery)
    honest = {p: s for p, s in net.sessions.items() if p != net.identities[cheat].peer}
    found = set()
    for peer, session in honest.items():
        assert not [f for f in net.faults(peer) if f.fatal]
        verdict = verify_transcript(bytes(net.transcripts[peer]))
        assert verdict.ok, verdict.report()
        for s in (session, replay(bytes(net.transcripts[peer])).session):
            found.add((str(s.phase), s.result, tuple(sorted(s.dropped.items())), tuple(sorted(s.table.expelled))))
    assert len(found) == 1, found
    phase, _, dropped, expelled = found.pop()
    assert phase == "over" and expelled == (cheat,) and cheat in dict(dropped)
