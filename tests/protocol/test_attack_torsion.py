"""A sealed-deal cheat publishes two values that differ by a small-order point (protocol.md 17.1, "eightfolds").

u and 1/u are the u-coordinates of P and P + (0, 0); P + T for T of order 4 or 8 are others. Each is a valid
point, and all are distinct, so they passed every check on arrival; but a clamped scalar is a multiple of 8, so the
next honest seat's layer (X(e, .) in its shuffle, X(d, .) in its unlock) maps them to one value, and that seat's own
step was refused for two equal values: the honest seat was expelled for the cheat's message (two honest shufflers
after a cheat at a table of four; an honest unlocker after a cheat's unlock or a cheating last shuffler, the cheat
keeping its seat: benchmarks/attacks/torsion_pair.py). Now the list is refused where the pair first shows: the
cheat's own SEALED_SHUFFLE or SEALED_UNLOCK, which costs the cheat its seat, and nobody honest is blamed.
"""

from __future__ import annotations

import pytest
from sealed_adversary import Cheat, assert_caught, cheat

from p2pnimmt.protocol import sealed_group as g
from p2pnimmt.protocol.sealed import check_shuffle, initial_deck, new_secrets, shuffle_step

P, A = g.P, g.A
ORDER_8 = 325606250916557431795983626356110631294008115727848805560023387167927233504  # u of a point of order 8


def sqrt(a: int) -> int:
    """A square root mod p (p = 5 mod 8); ValueError if a is no square."""
    r = pow(a, (P + 3) // 8, P)
    if r * r % P != a % P:
        r = r * pow(2, (P - 1) // 4, P) % P
    if r * r % P != a % P:
        raise ValueError("not a square")
    return r


def lift(u: int) -> tuple[int, int]:
    """A point (u, v) of the curve v^2 = u^3 + A u^2 + u."""
    return u, sqrt((u * u * u + A * u * u + u) % P)


def add(p1: tuple[int, int] | None, p2: tuple[int, int] | None) -> tuple[int, int] | None:
    """Affine addition on the curve (None: the point at infinity)."""
    if p1 is None or p2 is None:
        return p2 if p1 is None else p1
    (u1, v1), (u2, v2) = p1, p2
    if u1 == u2:
        if (v1 + v2) % P == 0:
            return None
        lam = (3 * u1 * u1 + 2 * A * u1 + 1) * pow(2 * v1, P - 2, P) % P
    else:
        lam = (v2 - v1) * pow(u2 - u1, P - 2, P) % P
    u3 = (lam * lam - A - u1 - u2) % P
    return u3, (lam * (u1 - u3) - v1) % P


def twins(value: bytes) -> list[bytes]:
    """u(P + T) for the seven points T of order 2, 4 and 8: values that differ from `value` by a small-order point."""
    point, torsion, out = lift(int.from_bytes(value, "little")), lift(ORDER_8), []
    t = torsion
    for _ in range(7):
        moved = add(point, t)
        assert moved is not None
        out.append(moved[0].to_bytes(32, "little"))
        t = add(t, torsion)
    assert t is None  # T has order 8
    return out


def test_twins_share_an_eightfold_and_collapse_under_a_clamped_scalar():
    """Every twin of a card encoding is a valid point other than it, and shares its eightfold; any clamped scalar
    maps the two to one value (what made the next honest step publish two equal values). The 104 encodings and an
    honest shuffle of them have distinct eightfolds: the check refuses no honest step."""
    deck = initial_deck(range(1, 105))
    value = deck[0]
    for twin in twins(value):
        assert twin != value and g.point_error(twin, curve=False) is None
        assert g.eightfolds([value]) == g.eightfolds([twin])
        assert g.apply(g.S0, value) == g.apply(g.S0, twin)
    eight: tuple[int, int] | None = lift(int.from_bytes(value, "little"))
    for _ in range(3):
        eight = add(eight, eight)
    assert eight is not None and g.eightfolds([value]) == [eight[0]]  # the u-coordinate of 8P
    assert len(set(g.eightfolds(deck))) == 104
    secrets = new_secrets(lambda n: bytes(range(n)))
    assert g.first_twins(shuffle_step(secrets.key.e, secrets.seed, deck)) is None
    inverse = pow(int.from_bytes(value, "little"), P - 2, P).to_bytes(32, "little")
    assert inverse == twins(value)[3]  # u and 1/u: P and P + (0, 0), the point of order 2 (4 x the order-8 one)
    with pytest.raises(ValueError, match="^shuffle output: values 1 and 3 differ by a small-order point$"):
        check_shuffle(deck[:4], [deck[5], value, deck[6], twins(value)[1]])  # a received shuffle's check
    with pytest.raises(ValueError, match="^shuffle output: values 0 and 2 are equal$"):  # equal first: the old words
        check_shuffle(deck[:3], [value, twins(value)[0], value])


def partner(value: bytes, k: int) -> bytes:
    return twins(value)[k]


def in_deck(k: int):
    def change(c: Cheat, kind: str, body: dict) -> list | None:
        if kind != "SEALED_SHUFFLE" or body["round"] != 0 or c.fired:
            return None
        body["deck"][1] = partner(body["deck"][0], k)
        c.fired = True
        return [(kind, body)]
    return change


def in_unlock(k: int):
    def change(c: Cheat, kind: str, body: dict) -> list | None:
        if kind != "SEALED_UNLOCK" or body["round"] != 0 or c.fired:
            return None
        body["values"][1] = partner(body["values"][0], k)  # two positions the next unlocker unlocks
        c.fired = True
        return [(kind, body)]
    return change


@pytest.mark.parametrize("seat, change, code, words", [
    (1, in_deck(3), "sealed-shuffle", "shuffle output: values 0 and 1 differ by a small-order point"),
    (3, in_deck(0), "sealed-shuffle", "shuffle output: values 0 and 1 differ by a small-order point"),
    (1, in_unlock(6), "sealed-unlock", "seat 1's unlock: positions 0 and 1 now differ by a small-order point"),
], ids=["shuffle", "last-shuffler", "unlock"])
def test_the_cheat_that_publishes_twins_loses_its_seat_and_nobody_else(seat, change, code, words):
    """Four seats, sealed: the cheat's own step is refused on arrival (`sealed-shuffle` or `sealed-unlock`, the new
    words), it is expelled at every node alike, the game goes on to its end, and no honest seat is blamed (before:
    seats 2 and 3, seat 1, seat 2 were expelled in turn, and the cheat of the last two kept its seat)."""
    net, made = cheat(4, seat, change, rounds=2)
    assert made.fired
    for fault in assert_caught(net, seat, code):
        assert words in fault.detail, fault.detail
