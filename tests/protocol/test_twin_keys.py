"""The arrival checks' twin keys (sealed_group.twin_keys) have exactly the eightfolds' classes (protocol.md 17.1).

Since the eighteenth sitting of issue 24 the checks of a shuffle's and an unlock's values compare a key found by one
doubling and a 4-isogeny (degree 16 in all) instead of the eightfold (three doublings, degree 64): about two thirds of
the arithmetic. The keys are other numbers; what must hold is that two values share a key exactly when they share an
eightfold, on the curve and on its twist, so that every list is taken or refused with the same words as before.
Shown here against `eightfolds` (itself compared with 17.1's formula as written in test_own_steps.py): on every
card encoding with its seven twins, on values of the twist with their three, on random values, and on the lists
the checks judge.
"""

from __future__ import annotations

import random
from typing import cast

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from test_attack_torsion import sqrt, twins

from p2pnimmt.protocol import sealed_group as g

P, A = g.P, g.A


def same_classes(values: list[bytes]) -> bool:
    """Every pair shares a twin key exactly when it shares an eightfold; low order (-1) in the same places."""
    folds, keys = g.eightfolds(values), g.twin_keys(values)
    if [f == -1 for f in folds] != [k == -1 for k in keys]:
        return False
    first_of_fold: dict[int, int] = {}
    first_of_key: dict[int, int] = {}
    return all(first_of_fold.setdefault(f, i) == first_of_key.setdefault(k, i)
               for i, (f, k) in enumerate(zip(folds, keys)))


def twist_twins(value: bytes) -> list[bytes]:
    """The three values that differ from a value u of the twist by a point of the twist's order 2 or 4: 1/u, and
    u(P + T), u(P - T) for T with u(T) = -1 (the roots y of y^2 - S y + 1, S = u(P + T) + u(P - T) by the u-line's
    addition formula, their product 1)."""
    u = int.from_bytes(value, "little")
    s = -2 * ((u - 1) ** 2 + 2 * A * u) * pow((u + 1) ** 2, -1, P) % P
    root = sqrt((s * s - 4) % P)
    half = pow(2, -1, P)
    return [x.to_bytes(32, "little") for x in (pow(u, -1, P), (s + root) * half % P, (s - root) * half % P)]


def twist_value(rng: random.Random) -> bytes:
    while True:
        u = rng.randrange(2, P - 1)
        if u not in g.LOW_ORDER and not g.on_curve(u):
            return u.to_bytes(32, "little")


def test_every_card_encoding_and_its_twins():
    """The 104 encodings and their 7 twins each (832 valid values, 104 classes of 8)."""
    values = [v for k in range(1, 105) for v in (g.encoding(k), *twins(g.encoding(k)))]
    keys = g.twin_keys(values)
    assert len(set(keys)) == 104 and -1 not in keys
    assert all(len(set(keys[i : i + 8])) == 1 for i in range(0, len(keys), 8))
    assert same_classes(values)


def test_values_of_the_twist_and_their_twins():
    """The twist's classes have 4 values (its points of order dividing 4: its order is 4 times a prime); the twist
    value u = 12 of 17.1's vector and 1/u among them."""
    rng = random.Random(5)
    values = []
    for u in [twist_value(rng) for _ in range(60)] + [(12).to_bytes(32, "little")]:
        found = twist_twins(u)
        assert all(g.point_error(t, curve=False) is None and not g.on_curve(int.from_bytes(t, "little"))
                   for t in found)
        assert len({u, *found}) == 4 and len(set(g.eightfolds([u, *found]))) == 1
        values += [u, *found]
    keys = g.twin_keys(values)
    assert all(len(set(keys[i : i + 4])) == 1 for i in range(0, len(keys), 4)) and len(set(keys)) == 61
    assert same_classes(values)


def test_low_order_values_and_edges():
    """-1 exactly where the eightfold reaches infinity (the low-order points); values near 0, p and 2^256."""
    edges = [*range(40), *(P + k for k in range(-40, 40)), *(2**256 - k for k in range(1, 40)), *g.LOW_ORDER,
             *(2**255 - k for k in range(1, 40)), *(2 * P - k for k in range(1, 10))]
    values = [v.to_bytes(32, "little") for v in edges if v < 2**256]
    assert same_classes(values)
    assert g.twin_keys([u.to_bytes(32, "little") for u in sorted(g.LOW_ORDER)]) == [-1] * len(g.LOW_ORDER)


def key_as_written(value: bytes) -> int:
    """twin_keys' formula reduced mod p at every step: t = X/Z = u(2P), s = (X + Z)^2, d = (X - Z)^2, c = s - d,
    key s (s + 121665 c) / (c d), -1 where c d is 0."""
    u = int.from_bytes(value, "little") % P
    a, b = (u + 1) ** 2 % P, (u - 1) ** 2 % P
    c = (a - b) % P
    x, z = a * b % P, c * (b + (A + 2) // 4 * c) % P
    s, d = (x + z) ** 2 % P, (x - z) ** 2 % P
    c = (s - d) % P
    return -1 if c * d % P == 0 else s * (s + 121665 * c) * pow(c * d, -1, P) % P


def test_the_folded_arithmetic_gives_the_formula_as_written():
    """twin_keys folds its numbers between products (2^255 = 19 mod p) and reduces once: the same keys as the
    formula reduced at every step, on random values and next to 0, p, 2^255 and 2^256 (where a fold or a negative
    difference would go wrong first)."""
    rng = random.Random(16)
    edges = [*range(40), *(P + k for k in range(-40, 40)), *(2**256 - k for k in range(1, 40)), *g.LOW_ORDER,
             *(2**255 - k for k in range(1, 40)), *(2 * P - k for k in range(1, 10))]
    values = [*(rng.randrange(2**256).to_bytes(32, "little") for _ in range(1500)),
              *(v.to_bytes(32, "little") for v in edges if v < 2**256)]
    assert g.twin_keys(values) == [key_as_written(v) for v in values]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(1, 60), twins_in=st.integers(0, 8))
def test_random_lists_with_twins_have_the_eightfolds_classes_and_verdicts(seed, size, twins_in):
    """Random 32-byte values (of the curve or the twist, a few of low order or not canonical) with twins of some of
    them put in: the same classes, and checked_points takes or refuses each list with the words the eightfolds give
    (the first repeat found by them)."""
    rng = random.Random(seed)
    values = [rng.randrange(2**256).to_bytes(32, "little") for _ in range(size)]
    for _ in range(twins_in):
        base = values[rng.randrange(len(values))]
        u = int.from_bytes(base, "little")
        if u >= P or u in g.LOW_ORDER:
            continue
        found = twins(base) if g.on_curve(u) else twist_twins(base)
        values.insert(rng.randrange(len(values) + 1), rng.choice(found))
    assert same_classes(values)
    valid = list(dict.fromkeys(v for v in values if g.point_error(v, curve=False) is None))
    expected = g.first_repeat(g.eightfolds(valid))
    if expected is None:
        taken, keys = g.checked_points(valid, len(valid), "shuffle output")
        assert taken == valid and keys == g.twin_keys(valid)
    else:
        words = f"^shuffle output: values {expected[0]} and {expected[1]} differ by a small-order point$"
        with pytest.raises(ValueError, match=words):
            g.checked_points(valid, len(valid), "shuffle output")


def points_as_written(values: list[object], what: str, distinct: bool) -> list[int] | str:
    """The checks' loop as it was written before session 38: point_error, then an equal earlier value, value by value;
    the integers, or the words of the first problem."""
    seen: dict[object, int] = {}
    for i, value in enumerate(values):
        problem = g.point_error(value, curve=False)
        if problem:
            return f"{what}: value {i} {problem}"
        if distinct and value in seen:
            return f"{what}: values {seen[value]} and {i} are equal"
        seen[value] = i
    return [int.from_bytes(cast(bytes, v), "little") for v in values]


class Bytes(bytes):
    """A bytes subclass: a point to point_error, as to read_points."""


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(0, 12), distinct=st.booleans())
def test_read_points_reads_each_value_once_with_the_words_of_point_error(seed, size, distinct):
    """read_points (session 38: each value read once, its integer kept for the twin keys) takes and refuses every
    list as the loop over point_error did, with the same words, and gives the values' u-coordinates: on lists of
    good values mixed with each kind of bad one (not bytes, a bytearray, a bytes subclass, the wrong length, not
    canonical, of low order) and with repeats."""
    rng = random.Random(seed)
    good = [rng.randrange(2, P - 1).to_bytes(32, "little") for _ in range(4)]
    bad: list[object] = [None, 7, "x" * 32, bytearray(good[0]), Bytes(good[1]), b"\x01" * 31, b"\x01" * 33,
                         P.to_bytes(32, "little"), (2**256 - 1).to_bytes(32, "little"),
                         *(u.to_bytes(32, "little") for u in g.LOW_ORDER)]
    values = [rng.choice(good) if rng.random() < 0.8 else rng.choice(bad) for _ in range(size)]
    expected = points_as_written(values, "list", distinct)
    if isinstance(expected, str):
        with pytest.raises(ValueError) as caught:
            g.read_points(values, size, "list", distinct)
        assert str(caught.value) == expected
    else:
        assert g.read_points(values, size, "list", distinct) == expected
        assert g.read_points(tuple(values), size, "list", distinct) == expected
    with pytest.raises(ValueError, match=f"^list has {size} values, expected {size + 1}$"):
        g.read_points(values, size + 1, "list", distinct)
    with pytest.raises(ValueError, match="^list is a set, not a list of points$"):
        g.read_points(set(good), 4, "list")


def test_twin_keys_with_puts_the_new_keys_at_the_places_not_known():
    """twin_keys_with: the known keys kept by position, the unkeyed values' keys (from their integers) at the None
    places in order; as many unkeyed values as places, else ValueError."""
    rng = random.Random(38)
    values = [rng.randrange(2, P - 1).to_bytes(32, "little") for _ in range(20)]
    keys = g.twin_keys(values)
    places = sorted(rng.sample(range(20), 7))
    known = [None if i in places else keys[i] for i in range(20)]
    unkeyed = [int.from_bytes(values[i], "little") for i in places]
    assert g.twin_keys_with(known, unkeyed) == keys
    assert g.twin_keys_with([None] * 20, [int.from_bytes(v, "little") for v in values]) == keys
    assert g.twin_keys_with(keys, []) == keys
    with pytest.raises(ValueError, match="^6 values for the 7 keys not known$"):
        g.twin_keys_with(known, unkeyed[1:])


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), bad_at=st.none() | st.integers(0, 103), distinct=st.booleans())
def test_read_points_of_a_deck_takes_and_refuses_as_the_loop_did(seed, bad_at, distinct):
    """A list of a deck's size (104) read in C (session 42: the types, lengths, the bound p, the low-order points and
    repeats asked of the whole list at once, the loop only for the words of a bad one): the same integers, or the
    same words, as the loop over point_error, whatever the bad value and wherever it is (a repeat of an earlier one
    among them)."""
    rng = random.Random(seed)
    values: list[object] = [rng.randrange(2, P - 1).to_bytes(32, "little") for _ in range(104)]
    if bad_at is not None:
        bad: list[object] = [None, "x" * 32, bytearray(32), Bytes(cast(bytes, values[0])), b"\x01" * 31,
                             P.to_bytes(32, "little"), (2**256 - 1).to_bytes(32, "little"),
                             *(u.to_bytes(32, "little") for u in g.LOW_ORDER), values[rng.randrange(104)]]
        values[bad_at] = rng.choice(bad)
    expected = points_as_written(values, "deck", distinct)
    if isinstance(expected, str):
        with pytest.raises(ValueError) as caught:
            g.read_points(values, 104, "deck", distinct)
        assert str(caught.value) == expected
    else:
        assert g.read_points(values, 104, "deck", distinct) == expected


def test_bytes_of_size_answers_as_the_loop_of_isinstance_and_len():
    """codec.bytes_of_size (the messages' shape of a list of points, the audit's, read_points'): True exactly when
    every value is bytes of the size; a subclass of bytes gives False (its callers then look value by value)."""
    from p2pnimmt.protocol.codec import bytes_of_size

    good = [bytes([i]) * 32 for i in range(5)]
    assert bytes_of_size(good, 32) and bytes_of_size(tuple(good), 32) and bytes_of_size([], 32)
    for bad in (None, 7, "x" * 32, bytearray(32), b"\x01" * 31, b"\x01" * 33, Bytes(good[0])):
        for at in (0, 2, 4):
            assert not bytes_of_size(good[:at] + [bad] + good[at + 1:], 32), (bad, at)
    assert not bytes_of_size(good, 31)
