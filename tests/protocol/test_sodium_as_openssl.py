"""Keys, signatures and X25519 are computed by libsodium (PyNaCl) so that a node never loads OpenSSL (the
`cryptography` package) unless libsodium refuses a signature (issue 24: 7 MB and 15 ms of a seat's start-up).
They must be the very bytes OpenSSL gives: the public key of a secret, the signature of a message (Ed25519 is
deterministic), X25519 of every 32-byte value, and the same refusals (an all-zero X25519 result)."""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from p2pnimmt.protocol import sealed_group as g
from p2pnimmt.protocol.identity import Identity


def openssl_x25519(scalar: bytes, u: bytes) -> bytes | None:
    try:
        return X25519PrivateKey.from_private_bytes(scalar).exchange(X25519PublicKey.from_public_bytes(u))
    except ValueError:
        return None


def sodium_x25519(scalar: bytes, u: bytes) -> bytes | None:
    try:
        return g._apply_all(scalar, (u,))[0]
    except ValueError:
        return None


def test_public_keys_and_signatures_are_openssls() -> None:
    rng = random.Random(24)
    for _ in range(200):
        secret = rng.randbytes(32)
        ident, theirs = Identity(secret), Ed25519PrivateKey.from_private_bytes(secret)
        assert ident.public_key == theirs.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        data = rng.randbytes(rng.choice([0, 1, 63, 64, 500, 4000]))
        assert ident.sign(data) == theirs.sign(data)
        assert ident.sign(bytearray(data)) == theirs.sign(data)
    assert Identity.generate().secret != Identity.generate().secret


def _edge_values() -> list[bytes]:
    p = g.P
    values = [u.to_bytes(32, "little") for u in sorted(g.LOW_ORDER)]  # all-zero results: both refuse
    values += [(u + p).to_bytes(32, "little") for u in (0, 1, 9, 18)]  # not canonical (u >= p, top bit clear)
    values += [(u | 1 << 255).to_bytes(32, "little") for u in (9, 12345, p - 2)]  # top bit set
    values += [(u | 1 << 255).to_bytes(32, "little") for u in sorted(g.LOW_ORDER)]
    values += [bytes(32), b"\xff" * 32, (p - 1 + (1 << 255)).to_bytes(32, "little")]
    return values


@pytest.mark.parametrize("seed", range(4))
def test_x25519_is_openssls_for_every_kind_of_value(seed: int) -> None:
    rng = random.Random(seed)
    values = _edge_values() + [rng.randbytes(32) for _ in range(300)]  # on the curve and on its twist
    values += [g.encoding(k) for k in range(1, 105, 7)]
    scalars = [g.clamp(rng.randbytes(32)) for _ in range(3)] + [g.S0]
    refused = 0
    for scalar in scalars:
        for u in values:
            ours = sodium_x25519(scalar, u)
            assert ours == openssl_x25519(scalar, u), (scalar.hex(), u.hex())
            refused += ours is None
    assert refused >= len(scalars) * len(g.LOW_ORDER) * 2  # the low-order values were refused by both


def test_card_encodings_are_the_published_ones() -> None:
    """C_k computed with OpenSSL as before equal the table libsodium computes now."""
    key = X25519PrivateKey.from_private_bytes(g.S0)
    for card in range(1, 105):
        _, u = g.hash_to_curve(card)
        assert g.encoding(card) == key.exchange(X25519PublicKey.from_public_bytes(u))
    assert hashlib.sha256(b"".join(g.encodings())).hexdigest()  # a table of 104 distinct points
    assert len(set(g.encodings())) == 105


def test_a_node_signs_verifies_and_deals_sealed_without_openssl() -> None:
    """In a fresh interpreter: key, signature, a good signature's check and X25519 leave `cryptography` unloaded;
    a signature libsodium refuses loads it (OpenSSL's verdict counts) and is refused."""
    code = ("import sys\n"
            "from p2pnimmt.protocol.identity import Identity, verify\n"
            "from p2pnimmt.protocol import sealed_group as g\n"
            "i = Identity(bytes(range(32)))\n"
            "s = i.sign(b'data')\n"
            "assert verify(i.public_key, s, b'data')\n"
            "pair = g.new_key_pair(lambda n: bytes(range(1, n + 1)))\n"
            "assert g.apply(pair.d, g.apply(pair.e, g.encoding(5))) == g.encoding(5)\n"
            "assert not any(m.startswith('cryptography') for m in sys.modules), 'cryptography loaded'\n"
            "assert not verify(i.public_key, s, b'other')\n"
            "assert 'cryptography' in sys.modules\n"
            "print('ok')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout == "ok\n", result.stderr
