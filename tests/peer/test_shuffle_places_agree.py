"""Both verifiers on tests/protocol/test_shuffle_places.py's game (issue 21 item 2; protocol.md 11.1, 17.9): five
sealed seats, seat 3 shuffles on seat 2's shuffle, then seats 2 and 4 are gone at once and the others drop them
together at seat 4's shuffle (r, 0, 4): the round is void and seat 2 forfeits. `p2pnimmt verify` and
`node peer.js verify` print the same lines, with the same exit status, on every transcript of that game (every
seat's, the two gone seats' too, and the spectator's), for a first and a second round; the remaining seats' and
the spectator's verify, showing the void round and seat 2's forfeit (before the TypeScript session gave a sealed
round's shuffles their places, a7d5594, `node peer.js verify` failed them at the drop: "the recorded fault 'absent'
against seat 2 ... is not one the replay found"). And the same game at a mixed table, the voters seats 1 and 3 in TypeScript: the same
bytes and transcripts as the all-Python table.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mixed import NodeSeats
from test_mixed_tables import (
    Table,
    check,
    child,  # noqa: F401  (the fixture of the node process of the TypeScript seats)
    signed_in,
    timers as mixed_timers,
)
from test_verify_agrees import same_lines

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from test_shuffle_places import GONE, after_seat_3_shuffled, check_outcome  # noqa: E402
from test_two_gone import timers  # noqa: E402


@pytest.mark.parametrize("round_index", [0, 1])
def test_both_verifiers_agree_on_two_seats_dropped_at_a_shuffles_place(round_index: int, tmp_path: Path) -> None:
    net = after_seat_3_shuffled(round_index, delivery=7)
    timers(net)
    check_outcome(net, round_index)  # the Python sessions' outcome, as test_shuffle_places.py asserts it
    gone = {net.identities[s].peer for s in GONE}
    for i, peer in enumerate([*net.peers, *(w.peer for w in net.watchers)]):
        path = tmp_path / f"places-{round_index}-{i}.p2pt"
        path.write_bytes(bytes(net.transcripts[peer]))
        code, out, err = same_lines(path)
        if peer in gone:  # cut off in the round's shuffles: both say so alike (since session 45 an unfinished game, 3)
            assert code == 3 and ": UNFINISHED: the transcript is valid as far as it goes" in out \
                and "the game was not finished: it stops in round" in out and not err, (out, err)
            continue
        assert code == 0 and "verified:" in out, (path.name, out, err)
        assert f"round {round_index + 1}: void, nobody scores it: seat 2 (p2) stopped before sending its unlock " \
               "after it shuffled" in out, out
        assert f"round {2 - round_index}: void" not in out, out
        assert "forfeited (made a round void, so cannot win): p2\n" in out, out
        assert "winner: p2" not in out, out


@pytest.mark.parametrize("round_index, typescript", [(0, [1, 3, 4, 6]), (1, [1, 3, 4, 6]), (0, [0, 2, 6])])
def test_a_mixed_table_drops_both_at_seat_4s_shuffle_as_a_python_one(
        round_index: int, typescript: list[int], child: NodeSeats, tmp_path: Path) -> None:  # noqa: F811
    """The same scenario at a mixed table (tests/peer/test_mixed_tables.py): the voters seats 1 and 3 (seat 3, which
    shuffled on seat 2's and must name it at (r, 0, 4)), the gone seat 4 and the second spectator run in TypeScript
    (or else the voter 0, the gone shuffler seat 2 and that spectator). Played once with every node in Python and
    once mixed, with the same keys, entropy, delivery order and moves, cut after the same delivery (seat 3's shuffle
    of the round signed): every node sends the same bytes and writes the same transcript, both verifiers say the
    same of each, and the remaining seats end alike with {2, 4} dropped together at (r, 0, 4), the round void and
    seat 2 forfeiting."""
    table = Table(child, "sealed", 5, typescript, seed=round_index * 100 + 7, rounds=2)
    ref, mixed = table.nets
    ref.start()
    seat3 = ref.sessions[ref.identities[3].peer]
    deliveries = 0
    while 3 not in (seat3.slot("SEALED_SHUFFLE", round_index) if seat3.game is not None else {}):
        assert ref.queue, "the game ended before seat 3 shuffled"
        ref.run(limit=1)
        deliveries += 1
    assert all(4 not in ref.sessions[p].slot("SEALED_SHUFFLE", round_index) for p in ref.peers)
    mixed.start()
    for _ in range(deliveries):
        mixed.run(limit=1)
    for net in table.nets:
        net.cut = {net.identities[s].peer for s in GONE}
        net.run()
        mixed_timers(net)
    assert [s for s in range(5) if mixed.is_typescript(mixed.identities[s].peer)] == typescript[:-1]
    outcomes = check(table, tmp_path, gone=GONE)
    at = [round_index, 0, 4]
    for i, outcome in enumerate(outcomes):
        if i in GONE:
            continue
        assert outcome["dropped"] == [[2, at], [4, at]], (i, outcome["dropped"])
        assert outcome["voided"] == [round_index] and outcome["forfeits"] == [2], (i, outcome)
        assert 2 not in outcome["winners"]
    drops = signed_in(mixed, mixed.peers[0], "DROP")
    named = {body["seat"] for seat, body in drops if seat == 3 and
             [body["round"], body["step"], body.get("place", 0)] == at}
    assert named == {2, 4}, drops  # seat 3 named seat 2, on whose shuffle it shuffled, there
