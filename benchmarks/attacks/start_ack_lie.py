"""FINDING (session 29, redteam9), fixed in session 30: one seat that lies in its START_ACK no longer aborts the game
for every other seat. A demonstration, not a test (tests/protocol/test_refused_ack.py, tests/net/test_start_ack_lie.py
and tests/peer/test_mixed_tables.py are the tests): it prints each seat's phase, faults and the seats it refused, and
exits 1 if an honest node lost its game to the lie (aborted without the ground of a new start).

Four seats, open and sealed deal. Seat 2, the cheat, signs START_ACK with a `start` that is not the hash of the
START; then, as an equivocation, a right START_ACK to the host and seat 1 and a wrong one to the others. Before, the
fault (`start-mismatch`) was fatal: every honest node aborted, and an aborted game takes no rematch. Now
(protocol.md 12, "A refused START_ACK") each honest node records the fault as non-fatal, refuses the seat and stays
starting; a node that had started on the right version aborts on the equivocation, with the same ground: the host
starts a new game without the cheat at once, and every honest node takes it (protocol.md 14, "A new start"; the
net part is app.nodes.stalled and net.rematch, shown by tests/net/test_start_ack_lie.py).

    python benchmarks/attacks/start_ack_lie.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "protocol"), str(ROOT)]

from adversary import Adversary, AttackNet  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402
from p2pnimmt.net.waiting import refused_acks  # noqa: E402
from p2pnimmt.protocol.envelope import NO_PREVIOUS  # noqa: E402

PLAYERS, CHEAT = 4, 2


def lie(adv: Adversary, env, body):
    if env.kind == "START_ACK":
        body["start"] = bytes(32)  # not the START's hash
        return adv.default(env, body)
    return None


def lie_to_some(adv: Adversary, env, body):
    if env.kind == "START_ACK":
        ids = [i.peer for i in adv.net.identities]
        right = adv.seal_at(0, NO_PREVIOUS, "START_ACK", body)
        wrong = adv.seal_at(0, NO_PREVIOUS, "START_ACK", {"start": bytes(32)})
        adv.advance(right, env)
        return [(p, right.wire if p in ids[:2] else wrong.wire) for p in adv.others]
    return None


def main() -> int:
    lost = False
    for deal in ("open", "sealed"):
        for name, rule, shuffle in (("signs a START_ACK of another START", lie, True),
                                    ("shows the host and seat 1 a right START_ACK, the others a wrong one",
                                     lie_to_some, False)):
            net = AttackNet(PLAYERS, settings=Settings(players=PLAYERS, max_rounds=1, deal=deal), seed=3,
                            shuffle_delivery=shuffle)
            Adversary(net, CHEAT, rule)
            net.start()
            net.run()
            print(f"--- {deal} deal, seat {CHEAT} {name}")
            for i, ident in enumerate(net.identities):
                session = net.sessions[ident.peer]
                ground = refused_acks(session)
                print(f"seat {i}{' (the cheat)' if i == CHEAT else ''}: {session.phase}, "
                      f"faults {[(f.code, 'fatal' if f.fatal else 'recorded') for f in net.faults(ident.peer)]}, "
                      f"new start without {ground}")
                lost = lost or (i != CHEAT and ground != [CHEAT])
    print(f"\nan honest seat lost its game to one cheat's START_ACK: {lost}")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
