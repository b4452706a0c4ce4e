"""FINDING (session 28, attack8), not fixed: one cheat keeps a dropped honest seat from ever taking its seat back.
A reproduction, not a test: it prints each node's end and exits 1 while the asking seat stays dropped.

Four seats, open deal, three rounds. Seat 2 is cut off in round 1 (a network blip, a phone changing relays), the
others vote it out, the link heals and seat 2 asks for its seat back (REJOIN, protocol.md 11.3). X is back "when
every seat active at (r, 32, 1) listed X with one and the same seq in its ROUND_END(r)", and "a signer that did not
have the ask yet lists it at the next round end": so seat 1, the cheat, simply never lists it (its own session
signs its ROUND_ENDs without `back`, and plays on consistently). Nothing proves the omission (no signed message
shows that the cheat held the REJOIN), no fault is recorded, and seat 2 is played by the stand-in to the end of
the game: an honest seat loses its seat because of another seat's messages. Any rule that needs every signer has
this hole; the take-back decides nothing a seat could be harmed by but the asker's own return (an entry needs the
seq of the asker's own signed REJOIN), so a rule of fewer signers (one, or a majority) would be a candidate fix,
for the lead to decide (spec 11.3, both implementations, the mixed tables).

    python benchmarks/attacks/back_withheld.py
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "protocol"), str(ROOT / "tests"), str(ROOT)]

from adversary import AttackNet  # noqa: E402
from sealed_adversary import Cheat  # noqa: E402
from test_drop import vote_out  # noqa: E402
from test_drop_consensus import short  # noqa: E402

from p2pnimmt.protocol.events import SeatBack  # noqa: E402

PLAYERS, ASKER, CHEAT = 4, 2, 1


def table(cheat: bool) -> AttackNet:
    net = AttackNet(PLAYERS, settings=short(PLAYERS, "standard", rounds=3, deal="open"), bots="heuristic", seed=60)
    net.rng = random.Random(3)

    def without_back(c: Cheat, kind: str, body: dict) -> list | None:
        if kind == "ROUND_END" and "back" in body:
            body.pop("back")
            c.fired = True
            return [(kind, body)]
        return None

    if cheat:
        Cheat(net, CHEAT, without_back)
    net.start()
    net.run(limit=60)
    x = net.identities[ASKER].peer
    net.cut = {x}
    net.run()
    vote_out(net, ASKER, run=False)
    net.run(limit=40)
    net.heal()
    asked = False
    while net.queue:
        net.run(limit=1)
        session = net.sessions[x]
        if not asked and ASKER in session.dropped:
            net.handle(x, session.rejoin())
            asked = True
    assert asked
    return net


def main() -> int:
    kept_out = False
    for cheat in (False, True):
        net = table(cheat)
        print(f"--- {'with' if cheat else 'without'} the cheat (seat {CHEAT}) leaving seat {ASKER}'s ask out")
        for i, peer in enumerate(net.peers):
            s = net.sessions[peer]
            back = [(e.seat, e.round + 1) for e in net.events[peer] if isinstance(e, SeatBack)]
            who = f"seat {i}" if i < PLAYERS else "spectator"
            print(f"{who}: {s.phase}, rounds {len(s.game.history)}, dropped {sorted(s.dropped)}, back (seat, round) "
                  f"{back}, faults {[f.code for f in net.faults(peer)]}")
            kept_out = kept_out or (cheat and i != CHEAT and ASKER in s.dropped)
    print(f"\nseat {ASKER} asked and was kept out to the end: {kept_out}")
    return 1 if kept_out else 0


if __name__ == "__main__":
    sys.exit(main())
