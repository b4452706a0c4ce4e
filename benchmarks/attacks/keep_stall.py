"""FINDING (session 28, attack8), not fixed: one cheat's KEEP keeps a seat that is gone from ever being voted out, and
the table waits for it for good. A reproduction, not a test: it prints each node's end and exits 1 while the honest
seats are stuck.

Four seats, open deal. Seat 3 is gone (its node stops, for good) before its commit of turn 3 reaches anyone; seats
0 and 2 wait on it and vote DROP(0, 8, 3) (protocol.md 11.1). Seat 1, the cheat, signs KEEP(0, 8, 3) instead of
its DROP: "I hold seat 3's commit and went on with it". Nobody can tell that from an honest KEEP (a KEEP carries
nothing of the message it claims to hold; section 11.1 "KEEP"), so the vote on seat 3 is void at every node: a
seat that went on never votes there, the drop can never complete, and no second DROP of a voter at that position
may be signed (`duplicate`). The cheat need not sign anything wrong later: whatever it does, the honest seats wait
at (0, 8) on seat 3's commit, which never comes. With four seats no set can be voted out (m = 1); with five or
more the honest seats could vote out {3, cheat} by the quorum rule, but the reference votes a linked seat out only
where the game waits on it (net/waiting.py), and the game waits on seat 3 alone. Any message of the cheat for a
later position (a DROP, a STANDIN or a commit of the next turn, a SEALED_KEYS) voids the vote the same way, and so
does a KEEP signed before anyone voted ("ahead": right after its own commit of the turn, naming seat 3 at the
commit step; no check refuses a KEEP that answers no vote), so a cheat can make every other seat undroppable, turn
after turn, before any of them is gone. One
rule breaker and one seat gone thus cost every other seat its game, the case section 11.1 closed for an expelled
seat ("An expelled seat ... is not needed"), where here nothing proves the lie.

    python benchmarks/attacks/keep_stall.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "protocol"), str(ROOT)]

from adversary import Adversary, AttackNet  # noqa: E402
from test_drop import vote_out  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402
from p2pnimmt.protocol.envelope import open_envelope  # noqa: E402
from p2pnimmt.protocol.phase import turn_steps  # noqa: E402
from p2pnimmt.protocol.session import LocalError  # noqa: E402

PLAYERS, GONE, CHEAT, TURN = 4, 3, 1, 2


def table(cheat: str | None) -> AttackNet:
    net = AttackNet(PLAYERS, settings=Settings(players=PLAYERS, max_rounds=1, deal="open"), seed=3)
    gone = net.identities[GONE].peer
    stopped: dict[str, int] = {}

    def withhold(to: bytes, frm: bytes, wire: bytes) -> bool:  # seat 3's node stops at its commit of TURN
        if frm != gone:
            return False
        env = open_envelope(wire)
        if env.kind == "PLAY_COMMIT" and env.body["turn"] == TURN:
            stopped.setdefault("seq", env.seq)
        return "seq" in stopped and env.seq >= stopped["seq"]

    net.withhold = withhold

    def keep_instead(adv: Adversary, env, body):
        if env.kind == "DROP" and body["seat"] == GONE and not adv.fired:
            adv.fired = True
            return adv.send("KEEP", body)  # the same round, step and seat
        return None

    def keep_ahead(adv: Adversary, env, body):
        if env.kind == "PLAY_COMMIT" and body["turn"] == TURN and not adv.fired:
            adv.fired = True
            return adv.default(env, body) + adv.send("KEEP", {"round": 0, "step": turn_steps(TURN)[0], "seat": GONE})
        if env.kind == "DROP" and body["seat"] == GONE:
            return []  # it never votes
        return None

    if cheat:
        Adversary(net, CHEAT, keep_instead if cheat == "instead" else keep_ahead)
    net.start()
    net.run()
    vote_out(net, GONE)
    vote_out(net, GONE)  # once more: nothing changes, a second DROP is refused
    return net


def main() -> int:
    stuck = False
    for cheat in (None, "instead", "ahead"):
        net = table(cheat)
        how = {None: "without the cheat", "instead": f"the cheat (seat {CHEAT}) signs KEEP instead of its DROP",
               "ahead": f"the cheat (seat {CHEAT}) signs KEEP ahead, before anyone votes, and never votes"}[cheat]
        print(f"--- {how}")
        for i, ident in enumerate(net.identities):
            if i == GONE:
                continue
            s = net.sessions[ident.peer]
            print(f"seat {i}: {s.phase}, round {s.round + 1} turn {s.turn + 1}, waits on {s.waiting_for()}, "
                  f"dropped {sorted(s.dropped)}, faults {[f.code for f in net.faults(ident.peer)]}")
            if i != CHEAT:
                try:
                    s.drop(GONE)
                    print("    could vote again")
                except LocalError as exc:
                    print(f"    a new vote on seat {GONE} refused: {exc}")
                stuck = stuck or (cheat and s.phase != "over")
    print(f"\nthe honest seats are stuck for good: {stuck}")
    return 1 if stuck else 0


if __name__ == "__main__":
    sys.exit(main())
