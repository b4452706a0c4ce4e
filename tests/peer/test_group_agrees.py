"""Section 17.1 and 17.3 in both implementations, on the values a cheating seat could send: the same received points
are valid or refused (in the same words), X25519 gives the same bytes or refuses on every path a peer runs, and the
same revealed keys have the same clamped inverse or none, and the same points the same twin keys.

The paths: the reference's X25519 (libsodium's crypto_scalarmult, via PyNaCl), OpenSSL's (the `cryptography`
package, what protocol.md 17.1 names), the TypeScript portable one (@noble/curves: what a browser runs), node's
OpenSSL, and node's libsodium then OpenSSL (`node peer.js` and the benchmarks, sodium-native where it loads), asked
through web/peer/test/agree.ts. The same question, asked of the Ed25519 check, found
a disagreement (protocol.md 8, "The signature check"); here none: a value that is not canonical (u >= p, the top
bit set) or of low order is refused on arrival by both (17.1, conditions 1 and 2) before any X25519 sees it, and on
every valid value (curve or twist, with or without a small-order part) the five X25519 agree and never refuse.

The values: every u of low order, each also plus p, plus 2^255 and plus both; 0..39; p - 40 .. p + 18 (every
non-canonical u below 2^255); 2^255 .. 2^255 + 39; 2^256 - 40 .. 2^256 - 1; 30+ points of the curve and 30+ of its
twist, each also plus 2^255 and plus p where that fits; card encodings and hashed points, each also plus 2^255. The
scalars: the smallest and largest clamped, S0, the vector keys. The keys: clamped and not (each bit X25519 clamps
set wrongly), the vector keys, those whose inverse lands next to a limit of 17.3 (t < 2^251), 200 random.
"""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from nodepeer import PEER, tool

from p2pnimmt.protocol import sealed_group as g

VECTOR_E = "b83d73245d1ea22821617af64f153dab343d18dd9a2e19b9b98e17fac29cd655"  # protocol.md 17.3 "sealed-key-pair"
VECTOR_D = "38f4abef26a2ccb6483c019c9ce978f1a8d72d8a4fea54682c59f66fca6c195a"


def edge_points(rng: random.Random) -> list[bytes]:
    us: set[int] = set()
    for low in g.LOW_ORDER:
        us |= {low, low + g.P, low + 2**255, low + g.P + 2**255}
    us |= set(range(40)) | {g.P + d for d in range(-40, 19)} | {2**255 + d for d in range(40)}
    us |= {2**256 - 1 - d for d in range(40)}
    curve = twist = 0
    while curve < 30 or twist < 30:
        u = rng.randrange(g.P)
        curve, twist = (curve + 1, twist) if g.on_curve(u) else (curve, twist + 1)
        us |= {u, u + 2**255} | ({u + g.P} if u + g.P < 2**255 else set())
    for card in (1, 2, 55, 104):
        for point in (g.encoding(card), g.hashed_points()[card]):
            u = int.from_bytes(point, "little")
            us |= {u, u + 2**255}
    return [u.to_bytes(32, "little") for u in sorted(us) if u < 2**256]


def edge_keys(rng: random.Random) -> list[bytes]:
    keys = {g.clamp(bytes(32)), g.clamp(b"\xff" * 32), g.S0, bytes.fromhex(VECTOR_E), bytes.fromhex(VECTOR_D),
            bytes(32), b"\xff" * 32}
    base = g.clamp(b"\x11" * 32)
    for byte, flip in ((0, 1), (0, 2), (0, 4), (31, 0x80), (31, 0x40)):  # each bit X25519 clamps, set wrongly
        wrong = bytearray(base)
        wrong[byte] ^= flip
        keys.add(bytes(wrong))
    # the clamped e whose inverse is 2^254 + 8t mod l, for the first three t that have one counting from each side
    # of each limit of 17.3 step 4: down from 2^251 - 1 (d clamped) and up from 2^251 (none), up from 0, down from l - 1
    for ts in (range(2**251 - 1, 0, -1), range(2**251, g.L), range(g.L), range(g.L - 1, 0, -1)):
        found = [e for t in ts[:200] if (e := g.clamped_representative(pow((2**254 + 8 * t) % g.L, -1, g.L)))]
        assert len(found) >= 3
        keys |= set(found[:3])
    keys |= {g.clamp(rng.randbytes(32)) for _ in range(200)}
    return sorted(keys)


def sodium(scalar: bytes, point: bytes) -> str | dict[str, bool]:
    try:
        return g.apply(scalar, point).hex()
    except ValueError:
        return {"refused": True}


def openssl(scalar: bytes, point: bytes) -> str | dict[str, bool]:
    try:
        return X25519PrivateKey.from_private_bytes(scalar).exchange(X25519PublicKey.from_public_bytes(point)).hex()
    except ValueError:
        return {"refused": True}


def test_points_x25519_and_keys_agree_on_every_edge(compiled: Path) -> None:
    rng = random.Random(25519)
    points = edge_points(rng)
    scalars = [g.clamp(bytes(32)), g.clamp(b"\xff" * 32), g.S0, g.clamp(hashlib.sha256(b"x").digest()),
               bytes.fromhex(VECTOR_E), bytes.fromhex(VECTOR_D)]
    keys = edge_keys(rng)
    request = {"group": {"points": [p.hex() for p in points], "scalars": [s.hex() for s in scalars],
                         "keys": [k.hex() for k in keys]}}
    done = subprocess.run([tool("node"), str(compiled / "test" / "agree.js")], cwd=PEER, capture_output=True,
                          text=True, timeout=120, input=json.dumps(request))
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)["group"]

    valid = 0
    for point, answer in zip(points, theirs["points"], strict=True):
        u = int.from_bytes(point, "little")
        problem = g.point_error(point, curve=False)
        assert answer == {"problem": problem, "onCurve": g.on_curve(u) if u < g.P else None,
                          "card": g.card_table().get(point)}, point.hex()
        valid += problem is None
    assert len(points) == 341 and valid == 155

    refused: set[bytes] = set()
    for scalar, row in zip(scalars, theirs["products"], strict=True):
        for point, answer in zip(points, row, strict=True):
            ours = sodium(scalar, point)
            assert answer == {"portable": ours, "node": ours, "sodium": ours} and openssl(scalar, point) == ours, (scalar.hex(), point.hex())
            if ours == {"refused": True}:
                refused.add(point)
    # refused exactly where the u-coordinate, its top bit cleared and reduced mod p, is of low order; never a valid one
    assert refused == {p for p in points if int.from_bytes(p, "little") % 2**255 % g.P in g.LOW_ORDER}
    assert len(refused) == 14 and not any(g.point_error(p, curve=False) is None for p in refused)

    kept = 0
    for key, d in zip(keys, theirs["keys"], strict=True):
        try:
            our_d: str | None = g.key_pair_from(key).d.hex()
        except ValueError:
            our_d = None
        assert d == our_d, key.hex()
        kept += our_d is not None
    assert 0 < kept < len(keys)

    # the arrival checks' twin keys (17.1's classes): the same numbers, the list's one inversion and all (the
    # TypeScript peer's in WebAssembly and its tests' BigInt oracle, the reference's in Python ints), -1 on each point of
    # low order
    assert [int(k) for k in theirs["twinKeys"]] == g.twin_keys(points)
    assert [int(k) for k in theirs["bigIntTwinKeys"]] == g.twin_keys(points)
    assert g.twin_keys(points).count(-1) == sum(int.from_bytes(p, "little") % g.P in g.LOW_ORDER for p in points) > 0
