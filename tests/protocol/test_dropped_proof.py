"""A seat being voted out whose own message proves a fault (issue 21's leftover): it is expelled whatever the order of
arrival (protocol.md 9, item 1; 12).

Seat 3 is cut off and the others vote it out. Its last message M, a STANDIN with a field no STANDIN has (`bad-body`),
reaches seat 0 alone: either before the last DROP of seat 3 arrives there, or after seat 0 has dropped seat 3.
Before issue 21's settling, the first order expelled seat 3 (and recorded the fault, and sent M on to every node,
so every node expelled it) and the second did not (a dropped seat's messages were not checked at all): whether seat
3 could ever take its seat back, the fault records and `verify`'s report depended on when M came. Now the checks the
message alone decides (its kind and its body) run whether or not its sender is dropped here: both orders end alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from harness import Net
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from sweep import examples
from test_drop import vote_out
from test_drop_consensus import cut_off

from p2pnimmt.protocol.effects import Fatal
from p2pnimmt.protocol.envelope import seal
from p2pnimmt.protocol.events import Fault
from p2pnimmt.protocol.transcript import records
from p2pnimmt.protocol.verify import verify_transcript

GONE = 3


# The proofs M a seat being voted out signs, by section 9's item: its body (item 3), the seat it names (item 5), a
# second STANDIN for one slot (item 7). Before issue 21's second leftover items 4 to 7 ran only on a seat still
# playing: the last two expelled seat 3 only where M came before the last DROP of it.
PROOFS: dict[str, list[dict[str, Any]]] = {
    "bad-body": [{"seat": 0, "why": "no STANDIN has this field"}],
    "unexpected": [{"seat": GONE}],
    "duplicate": [{"seat": 0}, {"seat": 0}],
}


def proof_from_a_seat_being_dropped(order: str | int, players: int, deal: str, cut_at: int, delivery: int,
                                    proof: str = "bad-body") -> Net:
    """The net after the game: seat 3 cut and voted out, its STANDINs `proof` delivered to seat 0 `first` (before
    the votes), `after` (once seat 0 dropped seat 3, mid-game), or after `order` deliveries once the votes began."""
    net = cut_off(players, deal, GONE, cut_at, delivery)
    gone, at = net.identities[GONE], net.identities[0].peer
    seq, prev = net.sessions[at].inbox.head(gone.peer)  # its chain as seat 0 holds it: M is its next message
    # (where another node holds more of it, M is a fork there, fatal `equivocation`; where one holds less, M waits in
    # its gap for messages that seat 3, cut off, never sends it again; a seat cut before every node had its START_ACK
    # stops the game for good, section 12: other matters, left out. Seat 3's own node is not asked: it may hold a
    # message of its own that the cut kept in, and it stays cut, so M never reaches it; 5 seats, draft, cut at 120,
    # delivery 7 is such a game, and failed here while seat 3's node was asked)
    assume(all(session.inbox.head(gone.peer)[0] == seq and str(session.phase) not in ("lobby", "starting")
               for peer, session in net.sessions.items() if peer != gone.peer))
    table = net.sessions[at].table
    bad = []
    for fields in PROOFS[proof]:
        bad.append(seal(gone, net.game_id, seq, prev, "STANDIN", {"round": table.round, "turn": table.turn,
                                                                  **fields}))
        seq, prev = seq + 1, bad[-1].hash

    def deliver() -> None:
        for env in bad:
            net.handle(at, net.sessions[at].receive(env.wire, gone.peer))

    if order == "first":
        deliver()
        net.run()
        vote_out(net, GONE)
    elif isinstance(order, int):
        vote_out(net, GONE, run=False)
        net.run(limit=order)
        deliver()
    else:
        vote_out(net, GONE, run=False)
        while GONE not in net.sessions[at].dropped:
            net.run(limit=1)
        assert str(net.sessions[at].phase) != "over"
        deliver()
    net.run()
    return net


def outcome(net: Net) -> list[tuple[Any, ...]]:
    """Each node's (phase, result, drops, expelled, fault records' codes) and verify's verdict and report (the report's
    record numbers and fault texts may differ with the order; whether seat 3 lost its seat may not)."""
    found = []
    for i, ident in enumerate(net.identities[:GONE] + net.watchers):
        session = net.sessions[ident.peer]
        data = bytes(net.transcripts[ident.peer])
        verdict = verify_transcript(data)
        assert verdict.ok, verdict.report()
        lost = [line for line in verdict.report().splitlines() if "lost its seat" in line]
        found.append((i, str(session.phase), session.result, tuple(sorted(session.dropped.items())),
                      tuple(sorted(session.table.expelled)),
                      sorted(body["code"] for what, body in records(data) if what == "fault"), lost))
    return found


# (Where seat 0 holds less of seat 3's chain than another node, M is a fork there: fatal `equivocation`, another
# matter; these games have seat 0 hold all of it that anyone holds.)
GAMES = [(4, "open", 60, 0), (4, "open", 100, 1), (4, "open", 150, 2), (5, "draft", 80, 3), (5, "draft", 120, 11),
         (5, "sealed", 150, 6)]


@pytest.mark.parametrize("proof", list(PROOFS))
@pytest.mark.parametrize("players, deal, cut_at, delivery", GAMES)
def test_a_seat_being_dropped_is_expelled_by_its_own_proof_whatever_the_order(players: int, deal: str, cut_at: int,
                                                                              delivery: int, proof: str) -> None:
    """(`unexpected` and `duplicate`: protocol.md 9, item 1 since issue 21's second leftover; before, the order
    `after` expelled nobody: `assert first == after` failed in all 12 games.)"""
    first = outcome(proof_from_a_seat_being_dropped("first", players, deal, cut_at, delivery, proof))
    after = outcome(proof_from_a_seat_being_dropped("after", players, deal, cut_at, delivery, proof))
    assert first == after
    assert all(o[4] == (GONE,) and proof in o[5] and o[6] for o in first), first  # (sealed: also `absent`)


@settings(max_examples=examples(6, 40), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much], derandomize=True)
@given(players=st.integers(4, 5), deal=st.sampled_from(["open", "draft", "sealed"]), cut_at=st.integers(40, 250),
       delivery=st.integers(0, 2**16), proof=st.sampled_from(list(PROOFS)), when=st.integers(0, 80))
def test_a_seat_being_dropped_is_expelled_whenever_its_proof_arrives(players: int, deal: str, cut_at: int,
                                                                     delivery: int, proof: str, when: int) -> None:
    """The property behind the games above: M reaches seat 0 after any number of deliveries once the votes began
    (before the last DROP, after it, or while seat 0 waits on a voter): every node ends as when M came first."""
    first = outcome(proof_from_a_seat_being_dropped("first", players, deal, cut_at, delivery, proof))
    assert outcome(proof_from_a_seat_being_dropped(when, players, deal, cut_at, delivery, proof)) == first


def test_an_expulsion_starts_at_the_highest_seq_in_the_evidence_and_a_second_proof_only_lower() -> None:
    """protocol.md 12: the expulsion starts from the highest `seq` of the seat's messages in the evidence, whatever
    their order, and a second proof against a seat expelled here counts (is recorded, and moves the start) only if it
    starts lower. (The reference always took the highest; it ignored every second proof, so a bad reveal found after
    a later message expelled its signer was never taken out of its slot.)"""
    net = Net(4, seed=1)
    net.start()
    net.run(limit=200)
    spectator = net.sessions[net.watchers[0].peer]
    peer = net.identities[1].peer
    mine = [env for env in spectator.inbox.accepted if env.sender == peer]
    first, second = mine[1], mine[2]

    def proof(*evidence: Any) -> list[str]:
        outputs = spectator._run(lambda: spectator._apply(Fatal(1, "bad-body", "a proof",
                                                                tuple(env.wire for env in evidence))))
        return [out.code for out in outputs if isinstance(out, Fault)]

    assert proof(second, first) == ["bad-body"]
    assert spectator.table.expelled[1] == second.seq
    assert proof(second) == []  # it starts at the expulsion: nothing recorded
    assert proof(first) == ["bad-body"]  # it starts lower: recorded, and the expulsion starts there
    assert spectator.table.expelled[1] == first.seq
