"""Signatures are checked by libsodium first, OpenSSL for what it refuses: the verdicts are exactly OpenSSL's.

identity.verify_unmemoized asks libsodium (PyNaCl, twice as fast) and, when it refuses, OpenSSL (cryptography).
libsodium refuses a few signatures OpenSSL accepts (an R of small order, among others): every node must reach
the same verdict on every message, as the TypeScript peer does with OpenSSL's rules, so those must still pass.
"""

from __future__ import annotations

import hashlib

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from nacl.bindings import crypto_sign_open
from nacl.exceptions import BadSignatureError

from p2pnimmt.protocol.identity import Identity, verify_unmemoized

ORDER = 2**252 + 27742317777372353535851937790883648493  # L, the order of the base point


def openssl(public_key: bytes, signature: bytes, data: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


def sodium(public_key: bytes, signature: bytes, data: bytes) -> bool:
    try:
        crypto_sign_open(signature + data, public_key)
    except (BadSignatureError, ValueError, TypeError):
        return False
    return True


def identity_r_signature(seed: bytes, data: bytes) -> tuple[bytes, bytes]:
    """(public key, signature) with R the neutral point (small order) and S = h·a: the signer alone can make it."""
    ident = Identity(seed)
    clamped = bytearray(hashlib.sha512(seed).digest()[:32])
    clamped[0] &= 248
    clamped[31] = clamped[31] & 127 | 64
    r = (1).to_bytes(32, "little")  # y = 1, x = 0: the neutral point
    h = int.from_bytes(hashlib.sha512(r + ident.public_key + data).digest(), "little") % ORDER
    return ident.public_key, r + (h * int.from_bytes(clamped, "little") % ORDER).to_bytes(32, "little")


def test_small_order_r_is_judged_as_openssl_judges_it() -> None:
    data = b"p2pnimmt/message/v1" + b"a message with a small-order R"
    key, signature = identity_r_signature(bytes(range(32)), data)
    assert openssl(key, signature, data) and not sodium(key, signature, data)  # the two libraries differ here
    assert verify_unmemoized(key, signature, data)
    assert not verify_unmemoized(key, signature, data + b"!")


@pytest.mark.parametrize("index", range(0, 64, 7))
def test_flipped_bits_are_refused_by_all(index: int) -> None:
    ident = Identity(hashlib.sha256(b"flips").digest())
    data = b"p2pnimmt/message/v1" + bytes(range(200))
    signature = ident.sign(data)
    assert verify_unmemoized(ident.public_key, signature, data) and sodium(ident.public_key, signature, data)
    for bit in range(8):
        bad = bytearray(signature)
        bad[index] ^= 1 << bit
        assert verify_unmemoized(ident.public_key, bytes(bad), data) == openssl(ident.public_key, bytes(bad), data)
        assert not verify_unmemoized(ident.public_key, bytes(bad), data)


def test_non_canonical_s_is_refused() -> None:
    ident = Identity(hashlib.sha256(b"s plus l").digest())
    data = b"p2pnimmt/message/v1 s + L"
    signature = ident.sign(data)
    s = int.from_bytes(signature[32:], "little") + ORDER  # the same scalar mod L, not reduced: RFC 8032 refuses it
    bad = signature[:32] + s.to_bytes(32, "little")
    assert not openssl(ident.public_key, bad, data) and not sodium(ident.public_key, bad, data)
    assert not verify_unmemoized(ident.public_key, bad, data)


def test_wrong_sizes_are_refused() -> None:
    ident = Identity(bytes(32))
    signature = ident.sign(b"x")
    assert not verify_unmemoized(ident.public_key[:31], signature, b"x")
    assert not verify_unmemoized(ident.public_key, signature[:63], b"x")
    assert not verify_unmemoized(ident.public_key + b"\0", signature, b"x")
