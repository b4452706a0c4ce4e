"""FINDING (session 28, attack8), fixed at five seats and more in session 29; at four seats a known limit.

One cheat W says it went on from the message of a seat X that is gone: KEEP(0, 8, X) instead of its DROP, or ahead
of any vote, or any message for a later position (protocol.md 11.1, "went on"). Nobody can tell that from an honest
KEEP, so the vote on X is void at every node, and the honest seats waited on X for good.

Since session 29 the node's policy (protocol.md 11.1, "A seat that never passes on what it went on from";
net/waiting.py: never_passed_on) votes W out together with X once X's message still has not come a drop time after
W's going on: at five seats the quorum rule drops {X, W} and the table finishes (tests/protocol/test_keep_liar.py,
tests/net/test_keep_liar_nodes.py). At four seats no set can be dropped (m = 1: two faults of four are beyond any quorum):
the honest seats wait on X, and their status says why (net/waiting.py: kept_back), so the people at the table can
start a new game without W. This script shows both; it exits 1 if five seats do not finish, or four seats do not
wait with that reason.

    python benchmarks/attacks/keep_stall.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "protocol"), str(ROOT)]

from test_keep_liar import CHEAT, LIES, table  # noqa: E402

from p2pnimmt.net.waiting import kept_back  # noqa: E402


def main() -> int:
    ok = True
    for players in (5, 4):
        for lie in LIES:
            net = table(players, lie)
            gone = players - 1
            print(f"--- {players} seats, seat {gone} gone, seat {CHEAT} lies ({lie})")
            for seat, ident in enumerate(net.identities):
                if seat in (CHEAT, gone):
                    continue
                s = net.sessions[ident.peer]
                linked = frozenset(i.peer for n, i in enumerate(net.identities) if n != gone)
                why = kept_back(s, linked)
                print(f"seat {seat}: {s.phase}, turn {s.turn + 1}, dropped {sorted(s.dropped)}"
                      + (f": {why[0]}" if why else ""))
                ok = ok and (s.phase == "over" if players >= 5 else why is not None and why[1] == [CHEAT])
    print(f"\nfive seats finish, four wait and say why: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
