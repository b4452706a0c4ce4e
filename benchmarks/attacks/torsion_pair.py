"""FOUND AND FIXED (session 28, attack8): one cheat in a sealed deal got honest seats expelled for `sealed-shuffle` /
`sealed-unlock`. A reproduction, not a test (tests/protocol/test_attack_torsion.py is the test): it prints what every
node holds at the end and exits 1 while an honest seat is blamed. Since the fix (protocol.md 17.1, "eightfolds":
no list a receiver takes may hold two values that differ by a small-order point) the cheat's own message is
refused, it alone loses its seat, and this exits 0; before (36e5bf0) it printed, for the three variants, seats 2
and 3 expelled (the cheat too, by its own unlock), seat 1 expelled (the cheat, seat 3, kept its seat), seat 2
expelled (the cheat, seat 1, kept its seat).

The cheat publishes, in its SEALED_SHUFFLE (or SEALED_UNLOCK), two values u and 1/u mod p at two positions. Both
pass every check made on arrival (protocol.md 17.5: canonical, not one of the five low-order u-coordinates, all
distinct). But 1/u is the u-coordinate of P + T2, T2 = (0, 0) the point of order 2, and a clamped scalar is a
multiple of 8: the next honest seat's X(e, .) (or X(d, .)) maps both to one value. The honest seat's own step is
then refused on arrival for two equal values (`sealed-shuffle`, `values i and j are equal`; `sealed-unlock`,
`positions p and q now hold the same value`), a fault its own signed message proves, so it is expelled (protocol.md
12): it loses its seat, and in the shuffle the next honest seat, shuffling on the same deck, is expelled too. The
cheat is caught only by its own unlock (which collapses its own pair) or not at all.

Protocol.md 17.1 says "a value with a small-order component is simply a wrong value, which the audit catches; the
next clamped scalar removes that component anyway": that removal is what makes two distinct values equal, and the
distinctness check then runs before any audit, against the seat that applied its key.

    python benchmarks/attacks/torsion_pair.py [shuffle|last-shuffler|unlock ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "protocol"), str(ROOT)]

from sealed_adversary import Cheat, cheat, label  # noqa: E402

P = 2**255 - 19
PLAYERS = 4


def partner(value: bytes) -> bytes:
    """u(P + T2) = 1/u(P) on a Montgomery curve: another valid, distinct point that a clamped scalar maps to the
    same value as `value`."""
    return pow(int.from_bytes(value, "little"), P - 2, P).to_bytes(32, "little")


def in_shuffle(c: Cheat, kind: str, body: dict) -> list | None:
    """The cheat's shuffle output holds u at index 0 and 1/u at index 1."""
    if kind != "SEALED_SHUFFLE" or body["round"] != 0 or c.fired:
        return None
    deck = list(body["deck"])
    deck[1] = partner(deck[0])
    body["deck"] = deck
    c.fired = True
    return [(kind, body)]


def in_unlock(c: Cheat, kind: str, body: dict) -> list | None:
    """The cheat's unlock (seat 1: it unlocks positions 0..9, 20.., ascending) puts u at position 0 and 1/u at
    position 1: seat 0's hand, which seat 2 unlocks next."""
    if kind != "SEALED_UNLOCK" or body["round"] != 0 or c.fired:
        return None
    values = list(body["values"])
    values[1] = partner(values[0])
    body["values"] = values
    c.fired = True
    return [(kind, body)]


# variant -> (the cheat's seat, its change)
VARIANTS = {"shuffle": (1, in_shuffle), "last-shuffler": (PLAYERS - 1, in_shuffle), "unlock": (1, in_unlock)}


def run(variant: str) -> bool:
    """Play the variant; print each node's end; True if an honest seat was blamed."""
    seat, change = VARIANTS[variant]
    net, made = cheat(PLAYERS, seat, change, rounds=2)
    assert made.fired, "the cheat was never made"
    culprit = net.identities[seat].peer
    hurt = set()
    print(f"--- {variant}: the cheat is seat {seat} of {PLAYERS}")
    for p in net.peers:
        s = net.sessions[p]
        faults = [f for f in net.faults(p) if f.code in ("sealed-shuffle", "sealed-unlock")]
        blamed = sorted({label(net, f.peer) for f in faults if f.peer != culprit})
        if p != culprit:
            hurt.update(blamed)
        print(f"{label(net, p)}: {s.phase}, expelled {sorted(s.table.expelled)}, dropped "
              f"{ {k: tuple(v) for k, v in s.dropped.items()} }")
        for f in faults:
            print(f"    {f.code} naming {label(net, f.peer)}: {f.detail[:110]}")
    print(f"honest seats blamed: {sorted(hurt) or 'none'}")
    return bool(hurt)


def main() -> int:
    variants = sys.argv[1:] or list(VARIANTS)
    hurt = [v for v in variants if run(v)]
    print(f"\nan honest seat was blamed in: {hurt or 'none'}")
    return 1 if hurt else 0


if __name__ == "__main__":
    sys.exit(main())
