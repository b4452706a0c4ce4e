"""A row the stand-in chose is marked as such on every node, like a card it played (issue 23, papercuts): a seat
whose clock ran out below every row end does not look as if its player chose that row."""

from __future__ import annotations

from test_presence import run_with_clock, slow_net

from p2pnimmt.protocol.events import RowChoiceNeeded, TurnResolved
from p2pnimmt.ui.console import STAND_IN_ROW, turn_lines


def choices(net, peer) -> tuple[set, set]:
    """(turns where seat 2 chose a row, turns whose TurnResolved says the stand-in chose it) on one node."""
    chose = {(e.round, e.turn) for e in net.events[peer] if isinstance(e, RowChoiceNeeded) and e.seat == 2}
    marked = {(e.round, e.turn) for e in net.events[peer] if isinstance(e, TurnResolved) and e.stand_in == (2,)}
    return chose, marked


def test_every_node_marks_the_rows_the_stand_in_chose_and_only_those() -> None:
    for seed in range(3, 40):
        net = slow_net(4, "open", slow=2, seed=seed)
        run_with_clock(net, 2)
        chose, marked = choices(net, net.identities[0].peer)
        if chose:
            break
    else:
        raise AssertionError("no seed below 40 makes the slow seat choose a row")
    for peer in net.peers:
        assert choices(net, peer) == (chose, chose)  # every node, every such turn, no other
    resolved = next(e for e in net.events[net.identities[0].peer]
                    if isinstance(e, TurnResolved) and e.stand_in == (2,))
    names = ["ann", "bob", "cat", "dan"]
    lines = turn_lines(resolved, names)
    assert any(line.startswith("  cat takes row") and line.endswith(STAND_IN_ROW) for line in lines), lines


def test_a_row_the_player_chose_is_not_marked() -> None:
    for seed in range(3, 40):
        net = slow_net(4, "open", slow=2, seed=seed)
        run_with_clock(net, 2, manual_from=0)  # from the first turn of round 2 on, the player moves itself
        peer = net.identities[0].peer
        late = {(r, t) for r, t in choices(net, peer)[0] if r == 1}
        if late:
            break
    else:
        raise AssertionError("no seed below 40 makes the slow seat choose a row in round 2")
    marked = choices(net, peer)[1]
    assert not late & marked, (late, marked)
    for e in net.events[peer]:
        if isinstance(e, TurnResolved) and (e.round, e.turn) in late:
            assert not any(line.endswith(STAND_IN_ROW) for line in turn_lines(e, ["a", "b", "c", "d"]))
