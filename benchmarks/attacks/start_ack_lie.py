"""FINDING (session 29, redteam9), not fixed: one seat that lies in its START_ACK aborts the game for every other
seat, and nothing starts it again. A reproduction, not a test: it prints each seat's phase and faults and exits 1
while the honest seats' game is aborted.

Four seats, open and sealed deal. Seat 2, the cheat, signs START_ACK with a `start` that is not the hash of the
START (or any START_ACK the checks refuse: a bad body, one from the host). protocol.md 9's checks make that fault,
`start-mismatch`, fatal ("fatal if that message is a START or a START_ACK"): every honest node records it, names the
cheat, and aborts; the cheat's own node plays on alone. An aborted game takes no rematch (section 14: `again` and
`rematch` are ignored once G is aborted), and the new start of section 14 ("A new start") is only for a seat gone
before its START_ACK, not for one that signed a wrong one. So one rule breaker, with a signed proof against it,
costs the others the game before its first card, and the evening's next game has to be hosted by hand (a new code
for everyone). The cost is small (nothing was played yet), but it is the case the promise "one misbehaving player
never costs the others their game" names, and it can be repeated at every game the cheat joins.

Candidate fixes: (1) a START_ACK fault by a seat other than the host is a ground for the host's new start without
that seat (section 14, "A new start": the same frames, `seats` without X; the seat's proof is in every honest
transcript, so the others can check the host's reason), taken by the receivers while aborted for that fault only;
(2) expel the seat instead of aborting (as any other signed rule break does, section 12): the others would still
lack its START_ACK, so the starting phase would need to count an expelled seat as acknowledged, which START's
order of seats and the sealed deal's first shuffle make delicate.

    python benchmarks/attacks/start_ack_lie.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "protocol"), str(ROOT)]

from adversary import Adversary, AttackNet  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402

PLAYERS, CHEAT = 4, 2


def lie(adv: Adversary, env, body):
    if env.kind == "START_ACK":
        body["start"] = bytes(32)  # not the START's hash
        return adv.default(env, body)
    return None


def main() -> int:
    lost = False
    for deal in ("open", "sealed"):
        net = AttackNet(PLAYERS, settings=Settings(players=PLAYERS, max_rounds=1, deal=deal), seed=3)
        Adversary(net, CHEAT, lie)
        net.start()
        net.run()
        print(f"--- {deal} deal, seat {CHEAT} signs a START_ACK of another START")
        for i, ident in enumerate(net.identities):
            session = net.sessions[ident.peer]
            print(f"seat {i}{' (the cheat)' if i == CHEAT else ''}: {session.phase}, "
                  f"faults {[f.code for f in net.faults(ident.peer)]}")
            lost = lost or (i != CHEAT and session.phase == "aborted")
    print(f"\nthe honest seats lost their game to one cheat's START_ACK: {lost}")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
