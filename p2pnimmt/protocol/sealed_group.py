"""The sealed deal's group: Curve25519 u-coordinates, clamped key pairs, card encodings (protocol.md, "Sealed deal").

Pure: no I/O, no clock, no global random. Randomness comes from an
`entropy(n) -> bytes` callable, as in the session.

Byte orders. A *point* is the 32-byte little-endian u-coordinate of a
point of Curve25519 (RFC 7748), canonical: u < p = 2^255 - 19 (so the top
bit is clear), u not a low-order point, and u^3 + 486662 u^2 + u a
non-zero square mod p (on the curve, not on its twist). A *scalar* is 32
bytes little-endian and clamped as X25519 clamps: bits 0, 1, 2 and 255
clear, bit 254 set, i.e. the integer 2^254 + 8t with 0 <= t < 2^251.
`apply(s, X)` is X25519(s, X): scalar multiplication, which commutes, and
which `d` undoes when d*e = 1 mod l (l = 2^252 + 277423...493, the order
of the prime-order subgroup). Every X25519 output is a point of that
subgroup (clamped scalars are multiples of the cofactor 8).

Key pair (e, d). Draw 32 bytes b from entropy; e = clamp(b); if the
inverse of e mod l has a clamped representative d (the unique clamped
scalar with d = e^-1 mod l, which exists for about half the draws), the
pair is (e, d); otherwise draw again. d is a function of e, so revealing
e reveals the pair; `key_pair_from(e)` refuses an e that is not clamped
or has no clamped inverse.

Card encodings. S0 = clamp(SHA-256(b"p2pnimmt/sealed/s0/v1")), public.
For card k in 1..104 and counter = 0, 1, 2, ...:
  h = SHA-512(b"p2pnimmt/sealed/card/v1" || k as 2 bytes big-endian ||
              counter as 4 bytes big-endian),
  u = (h read as a 512-bit little-endian integer) mod p;
the first counter for which u^3 + 486662 u^2 + u is a non-zero square mod
p (and u is not one of the low-order u-coordinates, which no card reaches)
gives C_k = X25519(S0, u) (32 bytes little-endian), a point of the
prime-order subgroup. The u_k and C_k are shipped (sealed_cards.py: the
TypeScript peer's bytes), not computed by a node; the tests recompute them.
The C_k are distinct, and nobody knows the discrete log of one to another
(unlike k*G, which would let anyone test C_j = (j/i) C_i against the ciphertexts and read the whole deck).
"""

from __future__ import annotations

import base64
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import cast

from nacl.bindings import crypto_scalarmult
from nacl.exceptions import RuntimeError as SodiumError

from ..engine.cards import HIGHEST_CARD
from .codec import bytes_of_size
from .sealed_cards import CARD_TABLE

P = 2**255 - 19
A = 486662
L = 2**252 + 27742317777372353535851937790883648493  # order of the prime-order subgroup
SIZE = 32  # bytes of a point and of a scalar
CARD_TAG = b"p2pnimmt/sealed/card/v1"
S0_TAG = b"p2pnimmt/sealed/s0/v1"
MAX_KEY_DRAWS = 256  # about half the draws succeed: 256 failures in a row means the entropy is broken

_LOW = 2**254
_T_LIMIT = 2**251
_INV8 = pow(8, -1, L)
_LOW_255 = 2**255 - 1
_A24 = (A + 2) // 4
_QUARTER_A_MINUS_2 = (A - 2) // 4  # 121665
# Canonical u-coordinates of the low-order points of the curve (orders 1, 2, 4, 8) and of its twist (p - 1,
# order 4): X25519 maps them to all-zero.
LOW_ORDER = frozenset({
    0,
    1,
    P - 1,
    325606250916557431795983626356110631294008115727848805560023387167927233504,
    39382357235489614581723060781553021112529911719440698176882885853963445705823,
})


def clamp(data: bytes) -> bytes:
    """The 32 bytes with bits 0, 1, 2 and 255 cleared and bit 254 set (RFC 7748 decodeScalar25519)."""
    if not isinstance(data, (bytes, bytearray)) or len(data) != SIZE:
        raise ValueError(f"a scalar is {SIZE} bytes, got {data!r}")
    b = bytearray(data)
    b[0] &= 248
    b[31] &= 127
    b[31] |= 64
    return bytes(b)


def is_clamped(data: object) -> bool:
    """True for 32 bytes that X25519 would use unchanged."""
    return (isinstance(data, bytes) and len(data) == SIZE and data[0] & 7 == 0 and data[31] & 0xC0 == 0x40)


def clamped_representative(n: int) -> bytes | None:
    """The clamped scalar congruent to n mod l, if there is one (there is at most one)."""
    t = (n - _LOW) * _INV8 % L
    if t >= _T_LIMIT:
        return None
    return (_LOW + 8 * t).to_bytes(SIZE, "little")


@dataclass(frozen=True, slots=True)
class KeyPair:
    """A clamped scalar e and its clamped inverse d: apply(d, apply(e, X)) == X for every point X."""

    e: bytes
    d: bytes

    def __repr__(self) -> str:  # keys are secrets until round end
        return "KeyPair(...)"


def key_pair_from(e: bytes) -> KeyPair:
    """The pair of a revealed e; ValueError if e is not a clamped scalar or its inverse is not clamped."""
    if not is_clamped(e):
        raise ValueError(f"key {e.hex() if isinstance(e, bytes) else e!r} is not a clamped 32-byte scalar")
    d = clamped_representative(pow(int.from_bytes(e, "little"), -1, L))
    if d is None:
        raise ValueError(f"key {e.hex()} has no clamped inverse")
    return KeyPair(e, d)


def new_key_pair(entropy: Callable[[int], bytes]) -> KeyPair:
    """Draw e = clamp(entropy(32)) until its inverse is clamped (the rejection method)."""
    for _ in range(MAX_KEY_DRAWS):
        draw = entropy(SIZE)
        if not isinstance(draw, (bytes, bytearray)) or len(draw) != SIZE:
            raise ValueError(f"entropy({SIZE}) returned {draw!r}")
        try:
            return key_pair_from(clamp(draw))
        except ValueError:
            continue
    raise ValueError(f"entropy gave {MAX_KEY_DRAWS} draws in a row with no clamped inverse")


def _jacobi(a: int, n: int) -> int:
    """The Jacobi symbol (a/n) for odd n > 0 (here the Legendre symbol mod p): 1, -1 or 0."""
    a %= n
    result = 1
    while a:
        twos = (a & -a).bit_length() - 1
        a >>= twos
        if twos & 1 and n & 7 in (3, 5):
            result = -result
        if a & n & 2:
            result = -result
        a, n = n % a, a
    return result if n == 1 else 0


def on_curve(u: int) -> bool:
    """u^3 + A u^2 + u is a non-zero square mod p: u is a point of Curve25519, not of its twist."""
    return _jacobi(u * (u * u + A * u + 1), P) == 1


class NotAPoint(ValueError):
    """A value of a list of points that is none (read_points' refusal): `why`, in words, and which (`index`)."""

    def __init__(self, what: str, index: int, why: str) -> None:
        super().__init__(f"{what}: value {index} {why}")
        self.index, self.why = index, why


def point_error(value: object, curve: bool = True) -> str | None:
    """Why `value` is not a point (see the module docstring), or None if it is one: read_points' words for it.

    curve=False skips the on-curve test (a Jacobi symbol, ~25 us): what a receiver checks at once. A value
    on the twist cannot hurt anyone's key (Curve25519 is twist-secure and clamped keys clear the cofactor);
    it only makes the deal wrong, which the round-end audit names.
    """
    try:
        read_points((value,), 1, "value", curve=curve)
    except NotAPoint as exc:
        return exc.why
    return None


def checked_points(values: object, count: int, what: str, distinct: bool = True,
                   curve: bool = False) -> tuple[list[bytes], list[int] | None]:
    """`values` as a list of `count` (distinct) points, and the twin keys it found (distinct=True: `twin_keys`, 17.1's
    classes), else None; ValueError naming the first bad one otherwise (a value that is no point or equals an earlier
    one, read_points' words, then two twins). Receivers skip the on-curve test (see point_error)."""
    us = read_points(values, count, what, distinct, curve)
    values = cast("list[bytes]", values)  # read_points checked it
    if not distinct:
        return list(values), None
    folds = _twin_keys_of(us)
    twins = first_repeat(folds)
    if twins is not None:
        raise ValueError(f"{what}: values {twins[0]} and {twins[1]} differ by a small-order point")
    return list(values), folds


def read_points(values: object, count: int, what: str, distinct: bool = False, curve: bool = False) -> list[int]:
    """The u-coordinates of `values`, a list of `count` (distinct) points; ValueError naming the first bad one
    otherwise (each value's own problem, NotAPoint, then whether an earlier one equals it, value by value). Each
    value is read once: the twin keys are found from these integers. The one place of the checks of a point
    (point_error asks it of one value): bytes, 32 of them, a canonical u-coordinate (u < p), not of low order, and
    with `curve` on Curve25519 (not its twist)."""
    if not isinstance(values, (list, tuple)):
        raise ValueError(f"{what} is a {type(values).__name__}, not a list of points")
    if len(values) != count:
        raise ValueError(f"{what} has {len(values)} values, expected {count}")
    if not curve and bytes_of_size(values, SIZE):  # the usual list, its checks made in C
        us = [int.from_bytes(value, "little") for value in values]
        if (not us or max(us) < P) and LOW_ORDER.isdisjoint(us) and not (distinct and len(set(values)) < len(us)):
            return us  # else the loop below finds the first bad value, for its words
    us = []
    seen: dict[bytes, int] = {}
    for i, value in enumerate(values):
        if not isinstance(value, bytes):
            raise NotAPoint(what, i, f"is a {type(value).__name__}, not bytes")
        if len(value) != SIZE:
            raise NotAPoint(what, i, f"is {len(value)} bytes, not {SIZE}")
        u = int.from_bytes(value, "little")
        if u >= P:
            raise NotAPoint(what, i, "is not a canonical u-coordinate (not below 2^255 - 19)")
        if u in LOW_ORDER:
            raise NotAPoint(what, i, "is a low-order point")
        if curve and not on_curve(u):
            raise NotAPoint(what, i, "is not on Curve25519 (twist or no point)")
        if distinct and seen.setdefault(value, i) != i:
            raise ValueError(f"{what}: values {seen[value]} and {i} are equal")
        us.append(u)
    return us


def eightfolds(values: Sequence[bytes]) -> list[int]:
    """The eightfold of each value (protocol.md 17.1): the u-coordinate of 8P, three doublings on the u-line, one
    inversion for the whole list (Montgomery's trick). Two distinct valid values share one exactly when they differ
    by a small-order point, so the next clamped scalar maps them to one value. -1 for a value that reaches the point
    at infinity (a low-order point: never a valid value)."""
    # Each doubling as RFC 7748's ladder writes it: with a = (x + z)^2, b = (x - z)^2 and c = a - b = 4xz, the point
    # ((x^2 - z^2)^2 : 4xz(x^2 + Axz + z^2)) is (ab : c(b + A24 c)), A24 = (A + 2) / 4, the first with z = 1. Written
    # plainly: the arrival checks compare `twin_keys` (the same classes, a third less arithmetic); this is the
    # reference the tests hold them against (tests/protocol/test_twin_keys.py).
    xs, zs = [], []
    for value in values:
        x, z = int.from_bytes(value, "little") % P, 1
        for _ in range(3):
            a, b = (x + z) ** 2 % P, (x - z) ** 2 % P
            c = a - b
            x, z = a * b % P, c * (b + _A24 * c) % P
        xs.append(x)
        zs.append(z)
    return _quotients(xs, zs)


def _quotients(nums: list[int], dens: list[int]) -> list[int]:
    """nums[i] / dens[i] mod p for each i, -1 where dens[i] is 0: one inversion for the list (Montgomery's trick),
    by Euclid's method (pow(d, -1, p), in C: a sixth of the instructions of pow(d, p - 2, p))."""
    prefix, product = [], 1
    for d in dens:
        prefix.append(product)
        product = product * d % P if d else product
    inverse = pow(product, -1, P)
    out = [0] * len(dens)
    for i in range(len(dens) - 1, -1, -1):
        if dens[i]:
            out[i] = nums[i] * inverse % P * prefix[i] % P
            inverse = inverse * dens[i] % P
        else:
            out[i] = -1
    return out


def twin_keys(values: Sequence[bytes]) -> list[int]:
    """A key of each value that two valid values share exactly when their eightfolds are equal (they differ by a
    small-order point, or are equal): what the arrival checks compare (17.1's classes), for about two thirds of the
    eightfolds' arithmetic. -1 for a value of low order (never a valid value), as `eightfolds` gives.

    The key of u is x(phi(P)) / 4 for the isogeny phi = phi2 . phi1 . [2] of degree 16, P a point with u(P) = u on
    the curve or on its twist (the u-line's formulas hold on both): with t = u(2P) = X/Z (one doubling, the ladder's
    formula, from (u, 1)), phi1(t) = (t^2 + A t + 1) / t is the 2-isogeny whose kernel is (0, 0), and
    phi2(w) = w (w - A + 2) / (w - A - 2) the 2-isogeny of its image whose kernel is phi1(T4) = (A + 2, 0), T4 the
    curve's points with u = 1 (of order 4), so phi2(phi1(t)) = (t^2 + A t + 1)(t + 1)^2 / (t (t - 1)^2), which with
    s = (X + Z)^2, d = (X - Z)^2 and c = s - d = 4XZ is 4 s (s + 121665 c) / (c d), 121665 = (A - 2) / 4. So the
    key is s (s + 121665 c) / (c d) mod p (one inversion for the list, Montgomery's trick).

    Why the same classes. phi's kernel G is the 16 points R with 2R in {O, T4, -T4, (0, 0)}. Two points share
    an x of the image exactly when P1 - P2 or P1 + P2 is in G. A point of G that is rational on the curve is one of
    its 8 rational points of order dividing 8 (2R in a group of order 4), and all 8 are in G (2T8 = +-T4 for T8 of
    order 8: the curve's rational points of order 4 have u = 1); so for P1, P2 on the curve, keys equal <=>
    P1 -+ P2 in E(F_p)[8] <=> 8 P1 = +-8 P2 <=> eightfolds equal. On the twist (4 times a prime points), G's
    points rational there are O, (0, 0) and the two with u = -1 (2R = (0, 0)): G's other points have u = 1 or
    the u of a curve point of order 8 (points of the curve, not of the twist) or a u outside F_p (the other
    points of order 2, and T8 plus one of them); so they are the twist's 4 points of order dividing 4, again
    those whose difference the eightfold does not see. A value of the curve and one of the twist
    never share a key (then 2 P1 would be in G, P1 of low order) nor an eightfold. The denominator c d is 0 exactly
    for t in {0, 1, infinity}: 2P in {O, (0, 0), +-T4}, P of low order. tests/protocol/test_twin_keys.py compares
    the keys' classes with the eightfolds' on every twin of curve and twist values and on random values.
    """
    return _twin_keys_of([int.from_bytes(value, "little") for value in values])


def _twin_keys_of(us: Sequence[int]) -> list[int]:
    """twin_keys of the values read as integers (0 <= u < 2^256): what the arrival checks call with the integers
    they read once for the points' own checks."""
    # The ladder's doubling of (u : 1), written in u alone: with a = (u + 1)^2, b = (u - 1)^2 and c = a - b = 4u,
    # (ab : c(b + A24 c)) is X = (u^2 - 1)^2, Z = 4u(u^2 + A u + 1): three products where the ladder's form takes
    # four. Between the products a number t >= 0 is only folded, (t mod 2^255) + 19 (t >> 255), which is t mod p up
    # to a multiple of p (2^255 = 19 mod p), once, wherever that keeps the next product's factors within 300 bits
    # (a factor of 300 bits costs a product little more than one of 255, a fold three operations more); the key's
    # numerator and denominator are reduced mod p. The same numbers as the formula reduced at every step
    # (tests/protocol/test_twin_keys.py), about an eighth fewer instructions than the ladder's form folded twice
    # after each product (issue 24, session 38): this is the arrival checks' hot path. Bounds, for u < 2^256:
    # u^2 < 2^512 folds below 2^262; (u^2 - 1)^2 < 2^524 below 2^274 (X); (u + A) u^2 + u < 2^519 below 2^269
    # (Z/4); (X +- Z)^2 < 2^550 below 2^300 (s, d).
    nums, dens = [], []
    m, k = _LOW_255, _QUARTER_A_MINUS_2
    for u in us:
        t = u * u
        u2 = (t & m) + 19 * (t >> 255)
        t = (u2 - 1) ** 2
        x = (t & m) + 19 * (t >> 255)
        t = (u + A) * u2 + u
        z = ((t & m) + 19 * (t >> 255)) << 2
        s, d = (x + z) ** 2, (x - z) ** 2
        s = (s & m) + 19 * (s >> 255)
        d = (d & m) + 19 * (d >> 255)
        c = s - d
        nums.append(s * (s + k * c) % P)
        dens.append(c * d % P)
    return _quotients(nums, dens)


def twin_keys_with(known: Sequence[int | None], unkeyed: Sequence[int]) -> list[int]:
    """The twin keys of a list, where known[i], unless None, is the twin key of its value i found before (a memo kept
    by position: the caller vouches that value i is the value it was found for), and `unkeyed` the u-coordinates of
    the values at the None places, in order (read_points'), whose keys are found in one batch."""
    missing = [i for i, key in enumerate(known) if key is None]
    if len(missing) != len(unkeyed):
        raise ValueError(f"{len(unkeyed)} values for the {len(missing)} keys not known")
    out = list(known)
    for i, key in zip(missing, _twin_keys_of(unkeyed)):
        out[i] = key
    return cast("list[int]", out)


def first_repeat(folds: Sequence[int]) -> tuple[int, int] | None:
    """(i, j): j the first index whose eightfold (or twin key) an earlier index i has, or None."""
    if len(set(folds)) == len(folds):
        return None  # the usual answer, found in C
    seen: dict[int, int] = {}
    for j, eightfold in enumerate(folds):
        if eightfold in seen:
            return seen[eightfold], j
        seen[eightfold] = j
    return None


def first_twins(values: Sequence[bytes]) -> tuple[int, int] | None:
    """(i, j): j the first index whose eightfold an earlier index i has (two values that differ by a small-order
    point, or are equal), or None; found by their twin keys, as the arrival checks find them."""
    return first_repeat(twin_keys(values))


def _private(scalar: bytes) -> bytes:
    if not is_clamped(scalar):
        raise ValueError("a scalar must be 32 clamped bytes")
    return scalar


def apply(scalar: bytes, point: bytes) -> bytes:
    """X25519(scalar, point); ValueError for a bad scalar, a value that is not 32 bytes, or a low-order point."""
    return apply_all(scalar, (point,))[0]


# The memo of layers applied: the sessions of one process (a host's bots, a guest seat, the in-memory harness,
# verify) each audit the same round, so each would apply every seat's revealed key to the same deck; the
# first does it, the others find it here (a seat's own shuffle, unlock and opening are found by the others'
# audits too). Only whole results are kept (a bad point raises and is not remembered), at most LAYERS_KEPT
# batches, the least recently used dropped first: a 10-seat round is 10 shuffles, 10 unlocks and the hands'
# openings, so one round's batches fit, about 7 KB each. A process with one session only ever misses.
LAYERS_KEPT = 48
_layers: OrderedDict[tuple[bytes, tuple[bytes, ...]], tuple[bytes, ...]] = OrderedDict()
_layers_lock = threading.Lock()
layers_memo = True  # benchmarks that stand for separate processes switch it off
_layers_found = 0  # batches found in the memo since the process started


def apply_all(scalar: bytes, points: Iterable[bytes]) -> list[bytes]:
    """[X25519(scalar, x) for x in points], with the errors of `apply` naming the index (memoized: LAYERS_KEPT)."""
    points = tuple(points)
    entry = (scalar, points)
    try:
        hash(entry)
    except TypeError:  # not bytes: _apply_all names the bad value
        return _apply_all(scalar, points)
    if not layers_memo:
        return _apply_all(scalar, points)
    with _layers_lock:
        done = _layers.get(entry)
        if done is not None:
            global _layers_found
            _layers_found += 1
            _layers.move_to_end(entry)
            return list(done)
    out = _apply_all(scalar, points)
    with _layers_lock:
        _layers[entry] = tuple(out)
        while len(_layers) > LAYERS_KEPT:
            _layers.popitem(last=False)
    return out


def layers_memo_counts() -> tuple[int, int]:
    """(batches the memo holds now, batches found in it so far)."""
    with _layers_lock:
        return len(_layers), _layers_found


def clear_layers_memo() -> None:
    """Empty the memo and zero its count."""
    global _layers_found
    with _layers_lock:
        _layers.clear()
        _layers_found = 0


# X25519 is libsodium's crypto_scalarmult (PyNaCl): the function of RFC 7748 as OpenSSL computes it (it clamps the
# scalar, ignores the u-coordinate's top bit, reduces a non-canonical u, and refuses an all-zero result as OpenSSL
# does), 8% cheaper here, and without loading OpenSSL (tests/protocol/test_sealed_group_sodium.py compares them).
def _apply_all(scalar: bytes, points: tuple[bytes, ...]) -> list[bytes]:
    key = _private(scalar)
    mult = crypto_scalarmult
    out = []
    for i, x in enumerate(points):
        if not isinstance(x, bytes) or len(x) != SIZE:
            raise ValueError(f"value {i} is not {SIZE} bytes: {x!r}")
        try:
            out.append(mult(key, x))
        except SodiumError:
            raise ValueError(f"value {i} ({x.hex()}) is a low-order point") from None
    return out


S0 = clamp(hashlib.sha256(S0_TAG).digest())


def hash_to_curve(card: int) -> tuple[int, bytes]:
    """(counter, u) for `card`: the first u = SHA-512(tag, card, counter) mod p on the curve (see module doc)."""
    if type(card) is not int or not 1 <= card <= HIGHEST_CARD:
        raise ValueError(f"card {card!r} is not a card (1..{HIGHEST_CARD})")
    counter = 0
    while True:
        digest = hashlib.sha512(CARD_TAG + card.to_bytes(2, "big") + counter.to_bytes(4, "big")).digest()
        u = int.from_bytes(digest, "little") % P
        if u not in LOW_ORDER and on_curve(u):
            return counter, u.to_bytes(SIZE, "little")
        counter += 1


def computed_card_table() -> tuple[tuple[bytes, bytes], ...]:
    """(u_k, C_k) for k in 1..104 computed from the definition (module docstring): what sealed_cards.py ships, which
    tests/protocol/test_sealed_cards.py compares with this. About 10 ms of CPU: no node calls it."""
    out = []
    for card in range(1, HIGHEST_CARD + 1):
        u = hash_to_curve(card)[1]
        out.append((u, crypto_scalarmult(S0, u)))  # u on the curve and not low-order: not all-zero
    return tuple(out)


@cache
def _shipped() -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
    """(hashed points, encodings), index k for card k (index 0 empty), read from sealed_cards.CARD_TABLE."""
    raw = base64.b64decode(CARD_TABLE, validate=True)
    if len(raw) != HIGHEST_CARD * 2 * SIZE:
        raise AssertionError("the shipped card table has the wrong length")  # never: checked by the tests
    points = (b"", *(raw[i : i + SIZE] for i in range(0, len(raw), 2 * SIZE)))
    table = (b"", *(raw[i + SIZE : i + 2 * SIZE] for i in range(0, len(raw), 2 * SIZE)))
    if len(set(table)) != len(table) or bytes(SIZE) in table:
        raise AssertionError("card encodings collide")  # never: checked by the tests
    return points, table


def hashed_points() -> tuple[bytes, ...]:
    """u_k at index k for k in 1..104: the hash-to-curve point of card k, before S0 (index 0 is unused and empty).
    Shipped (sealed_cards.py), not computed: the same bytes as `computed_card_table`'s (the tests compare)."""
    return _shipped()[0]


def encodings() -> tuple[bytes, ...]:
    """C_k at index k for k in 1..104 (index 0 is unused and empty); shipped like `hashed_points`."""
    return _shipped()[1]


def _clamped_up_to_sign(n: int) -> bytes | None:
    """The clamped representative of n mod l, else of -n mod l, else None. X25519 gives the u-coordinate only, and
    u(-Q) = u(Q): on a point of the prime-order subgroup (or one whose low-order part a clamped scalar clears) the
    two scalars give the same bytes. Half the residues have the first; all but about one in 2^126 have one of the
    two: n has one when r = (n - 2^254) / 8 mod l is below 2^251, and -n's r is then l + delta - r (delta = l -
    2^252, about 2^124.4), below 2^251 unless 2^251 <= r <= 2^251 + 2 delta."""
    found = clamped_representative(n)
    return found if found is not None else clamped_representative(-n % L)


def encodings_under(scalars: Sequence[bytes], cards: Sequence[int]) -> list[bytes]:
    """[C_k with every scalar of `scalars` applied in turn, for k in cards], in one or two passes over the cards.

    Every C_k is in the prime-order subgroup, so applying e_1, ..., e_n in turn is applying their product E mod l
    once. X25519 takes only clamped scalars, and about half of all residues mod l have a clamped representative
    (clamped_representative), and as X25519 gives u-coordinates, -E does what E does (_clamped_up_to_sign), so:
    (+-E)'s, applied to C_k (one pass: all but about one product in 2^126; before the signs, issue 24's eighteenth
    sitting, one in two, and one in four took two passes); else (+-E * S0 mod l)'s, applied to the hashed point u_k
    (C_k = X25519(S0, u_k), and a clamped scalar is a multiple of 8, which clears u_k's low-order part); else some
    e_i and (+-E / e_i)'s in two passes; else each scalar in turn. The values are the same whichever way: only the
    cost differs.
    ValueError for a scalar that is not clamped or a card not a card.
    """
    cards = list(cards)
    for k in cards:
        encoding(k)  # a card, or ValueError
    keys = [int.from_bytes(_private(e), "little") for e in scalars]
    product = 1
    for key in keys:
        product = product * key % L
    whole = _clamped_up_to_sign(product)
    if whole is not None:
        return apply_all(whole, [encodings()[k] for k in cards])
    times_s0 = _clamped_up_to_sign(product * int.from_bytes(S0, "little") % L)
    if times_s0 is not None:
        return apply_all(times_s0, [hashed_points()[k] for k in cards])
    for scalar, key in zip(scalars, keys):
        rest = _clamped_up_to_sign(product * pow(key, -1, L) % L)
        if rest is not None:
            return apply_all(scalar, apply_all(rest, [encodings()[k] for k in cards]))
    points = [encodings()[k] for k in cards]
    for scalar in scalars:
        points = apply_all(scalar, points)
    return points


@cache
def card_table() -> dict[bytes, int]:
    """C_k -> k."""
    return {c: k for k, c in enumerate(encodings()) if k}


def encoding(card: int) -> bytes:
    """C_card."""
    if type(card) is not int or not 1 <= card <= HIGHEST_CARD:
        raise ValueError(f"card {card!r} is not a card (1..{HIGHEST_CARD})")
    return encodings()[card]


def encode_deck(cards: Sequence[int]) -> list[bytes]:
    """[C_k for k in cards]; ValueError unless the cards are distinct cards."""
    cards = list(cards)
    if len(set(cards)) != len(cards):
        raise ValueError(f"a deck holds distinct cards, got {cards!r}")
    return [encoding(k) for k in cards]
