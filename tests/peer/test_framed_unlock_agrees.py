"""Protocol.md 17.5 step 3 and 17.10 ("A framed unlock", closed in session 36) at mixed tables: Python and TypeScript
nodes reach the same verdict, byte for byte, on an unlock whose values collide with its sender's own hand.

- framed: Python seat 2 (the unlocker before seat 3) writes into the TypeScript seat 3's hand the twin of a row
  card's encoding, which seat 3's honest unlock then outputs at that row. Every node, seat 3's own included, takes
  seat 3's unlock (the collision is not its fault), audits at once with every step recomputed and names seat 2
  (`sealed-unlock`); seat 3 keeps its seat. Before, every node expelled seat 3 and the cheat was never named.
- own hand: Python seat 1 makes its own output at the first row a twin of its own hand's first value: taken on
  arrival, the TypeScript seats after it unlock on over the broken deal, and the audit names seat 1.

Each game is played at a table of Python nodes and at one with the TypeScript seats 0 and 3 and a TypeScript
spectator; `test_mixed_tables.check` asserts every node sent the bytes the Python node in its place sent, wrote the
same transcript, and that `p2pnimmt verify` and `node peer.js verify` say the same of them (and accept them).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from mixed import NodeSeats
from test_mixed_tables import (
    Table,
    check,
    child as child,  # noqa: F401 (the node process of test_mixed_tables, a fixture)
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from sealed_adversary import Cheat  # noqa: E402
from test_own_steps import frame, own_hand_twin  # noqa: E402

TYPESCRIPT = [0, 3, 5]  # seats 0 and 3 (the framed seat) and the second spectator
VICTIM = 3


@pytest.mark.parametrize(("cheat", "cheater"), [("framed", 2), ("own-hand", 1)])
def test_both_implementations_name_the_cheat_of_a_framed_unlock(cheat: str, cheater: int, child: NodeSeats,
                                                                 tmp_path: Path) -> None:
    table = Table(child, "sealed", 4, TYPESCRIPT, seed=36, rounds=2)
    for net in table.nets:  # the Python table first: its sessions hold every seat's secrets, the same at both
        change = frame(VICTIM, table.reference) if cheat == "framed" else own_hand_twin()
        made: Any = Cheat(net, cheater, change)
        net.start()
        net.run()
        assert made.fired, "the cheat was not made: the case is not exercised"
    assert table.mixed.is_typescript(table.mixed.identities[VICTIM].peer)
    outcomes = check(table, tmp_path, gone=cheater)
    for i, outcome in enumerate(outcomes):
        if i != cheater:
            assert outcome["voided"] == [0], (i, outcome)
            assert [seat for seat, _pos in outcome["dropped"]] == [cheater], (i, outcome)
    for peer in table.mixed.peers:
        if not table.mixed.is_typescript(peer) and peer != table.mixed.identities[cheater].peer:
            faults = [(f.code, f.peer) for f in table.mixed.sessions[peer].journal.faults]  # type: ignore[union-attr]
            assert faults == [("sealed-unlock", table.mixed.identities[cheater].peer)], faults
