"""How many evenings the forger of the seeded chaos (tests/peer/chaos.py) still ends, by hand (session 31,
protocol.md 12, "An equivocation after the START"): each seed with a forger is played at its all-Python table, and
where the forger's equivocation aborted every honest seat, the host's rule of app.anew is applied as the node does:
the host's ground (its own session aborted on an `equivocation` of a seat that is not the host, net.waiting.refused_acks),
its carry (protocol.carry.carry_for: the last round end its session completed) and each other honest seat's check of
it (protocol.carry.carry_problem against its own record). Prints one line a seed and the counts; asserts nothing.

    python benchmarks/forked_evenings.py FIRST LAST   # seeds FIRST..LAST-1
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "peer"), str(ROOT / "tests")]

from chaos import Chaos, plan  # noqa: E402
from mixed import Mixed  # noqa: E402
from test_mixed_tables import DEALS  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402
from p2pnimmt.net.waiting import refused_acks  # noqa: E402
from p2pnimmt.protocol.carry import carry_for, carry_problem  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=int)
    parser.add_argument("last", type=int)
    args = parser.parse_args()
    forged = lost = saved = refused = 0
    for seed in range(args.first, args.last):
        p = plan(seed)
        if p.forger is None:
            continue
        forged += 1
        variant, how = DEALS[p.deal]
        net = Mixed(p.players, settings=Settings(players=p.players, variant=variant, max_rounds=p.rounds,
                                                 point_limit=None, deal=how, clock=p.clock), seed=p.seed, spectators=2)
        Chaos(p, net).play()
        seats = [net.sessions[i.peer] for i in net.identities]
        honest = [s for n, s in enumerate(seats) if n not in (p.forger, (p.cheat or (None,))[0])]
        if not honest or not all(s.phase == "aborted" for s in honest):
            print(f"{seed}: forger {p.forger}, not every honest seat aborted: {[str(s.phase) for s in seats]}")
            continue
        lost += 1
        host = seats[0]
        if host not in honest or host.fault is None:
            print(f"{seed}: every honest seat aborted; the host is the cheat ({host.phase})")
            continue
        gone = refused_acks(host)
        if not gone or p.players - len(gone) < 2:
            print(f"{seed}: every honest seat aborted; no new start: host's fault {host.fault.code} "
                  f"naming seat {host.roster.index(host.fault.peer) if host.fault.peer in host.roster else None}")
            continue
        keys = [k for n, k in enumerate(host.keys[peer] for peer in host.roster) if n not in gone]
        carry = carry_for(host.table, keys)
        body = {"roster": [{"key": k} for k in keys], **({"carry": carry} if carry is not None else {})}
        problems = [(n, carry_problem(s.table, body)) for n, s in enumerate(seats)
                    if n not in gone and n != 0 and s in honest]
        no = [(n, why) for n, why in problems if why is not None]
        saved += not no
        refused += bool(no)
        print(f"{seed}: every honest seat aborted; new start without {gone}, carry "
              f"{None if carry is None else (carry['rounds'], carry['scores'])}; "
              + ("every seat takes it" if not no else f"refused by {no}"))
    print(f"{forged} seeds with a forger; {lost} with every honest seat aborted; new start taken by every honest seat "
          f"in {saved}, refused by some in {refused}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
