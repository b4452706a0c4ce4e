"""FINDING (session 28, attack8), not fixed: one griefer voids round after round of a sealed game. A reproduction,
not a test: it prints the rounds played and voided and exits 1 while a seat that forfeited voids another round.

Four seats, sealed deal. Seat 1 shuffles, then never unlocks: it is voted out at its unlock (11.1), the round is
void and it forfeits (17.9, "Leaving never pays": it cannot win). At once it asks for its seat back (REJOIN,
11.3); the honest seats list its ask at the next round end, as they must, and it is back: it shuffles again, stalls
at its unlock again, and voids that round too. Forfeiting costs it nothing more once it has forfeited, so nothing
stops it: every other round of the game scores nothing (with a point limit and no round limit, the game drags on
twice as long), one player costing every other seat half its game. Candidate fixes, for the lead: a seat that
forfeited is taken back only with its hand dealt open (it does not shuffle, 17.5, so its drop voids nothing), or
not at all.

    python benchmarks/attacks/void_every_round.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "protocol"), str(ROOT / "tests"), str(ROOT)]

from sealed_adversary import Cheat, SealedNet  # noqa: E402
from test_drop import vote_out  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402
from p2pnimmt.protocol.events import SeatBack, SeatDropped  # noqa: E402

PLAYERS, GRIEFER, ROUNDS = 4, 1, 6


class GrieferNet(SealedNet):
    """The griefer's node asks for its seat back as soon as it learns it was dropped."""

    def react(self, peer: bytes, event: object) -> None:
        super().react(peer, event)
        x = self.identities[GRIEFER].peer
        if peer == x and isinstance(event, SeatDropped) and event.seat == GRIEFER:
            self.handle(x, self.sessions[x].rejoin())


def never_unlock(c: Cheat, kind: str, body: dict) -> list | None:
    if kind == "SEALED_UNLOCK":
        c.fired = True
        return []
    return None


def main() -> int:
    settings = Settings(players=PLAYERS, variant="standard", max_rounds=ROUNDS, point_limit=None, deal="sealed")
    net = GrieferNet(PLAYERS, seed=5, settings=settings, bots="heuristic")
    Cheat(net, GRIEFER, never_unlock)
    net.start()
    net.run()
    host = net.sessions[net.identities[0].peer]
    for _ in range(100):
        if host.phase == "over":
            break
        if GRIEFER in host.waiting_for():
            vote_out(net, GRIEFER)
        net.run()
    back = [e.round + 1 for e in net.events[net.identities[0].peer] if isinstance(e, SeatBack)]
    void = sorted(r + 1 for r in host.voided)
    print(f"{host.phase}: {len(host.game.history)} rounds, void: rounds {void}; seat {GRIEFER} back in rounds {back}, "
          f"forfeited: {sorted(host.table.forfeits)}; scores {list(host.game.scores)}")
    again = [r for r in void if any(b <= r for b in back)]  # rounds voided after the griefer had forfeited and came back
    print(f"rounds voided by a seat that had forfeited already: {again}")
    return 1 if again else 0


if __name__ == "__main__":
    sys.exit(main())
