"""Both verifiers on tests/protocol/test_shuffle_places.py's game (issue 21 item 2; protocol.md 11.1, 17.9): five
sealed seats, seat 3 shuffles on seat 2's shuffle, then seats 2 and 4 are gone at once and the others drop them
together at seat 4's shuffle (r, 0, 4): the round is void and seat 2 forfeits. `p2pnimmt verify` and
`node peer.js verify` print the same lines, with the same exit status, on every transcript of that game (every
seat's, the two gone seats' too, and the spectator's), for a first and a second round; the remaining seats' and
the spectator's verify, showing the void round and seat 2's forfeit (before the TypeScript session gave a sealed
round's shuffles their places, a7d5594, `node peer.js verify` failed them at the drop: "the recorded fault 'absent'
against seat 2 ... is not one the replay found").
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
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
        if peer in gone:  # cut off in the round's shuffles: both say so alike
            assert code == 1 and "the transcript ends before the game does" in err, err
            continue
        assert code == 0 and "verified:" in out, (path.name, out, err)
        assert f"round {round_index + 1}: void, nobody scores it: seat 2 (p2) stopped before sending its unlock " \
               "after it shuffled" in out, out
        assert f"round {2 - round_index}: void" not in out, out
        assert "forfeited (left a round and made it void, so cannot win): p2\n" in out, out
        assert "winner: p2" not in out, out
