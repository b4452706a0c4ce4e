"""Who a peer is: an Ed25519 key pair; peer id = hash of the public key; a short fingerprint for people."""

from __future__ import annotations

import base64
import hashlib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from nacl.bindings import crypto_sign, crypto_sign_open, crypto_sign_seed_keypair
from nacl.exceptions import CryptoError

PEER_ID_TAG = b"p2pnimmt/peer/v1"
PEER_ID_SIZE = 16
KEY_SIZE = 32
SIGNATURE_SIZE = 64


def peer_id(public_key: bytes) -> bytes:
    """The 16-byte peer id: SHA-256(PEER_ID_TAG || public key), first 16 bytes."""
    return hashlib.sha256(PEER_ID_TAG + public_key).digest()[:PEER_ID_SIZE]


GAME_ID_TAG = b"p2pnimmt/game/v1"
SALT_SIZE = 16


def game_id_for(host_key: bytes, salt: bytes) -> bytes:
    """The 16-byte game id: SHA-256(GAME_ID_TAG || host public key || salt), first 16 bytes."""
    return hashlib.sha256(GAME_ID_TAG + host_key + salt).digest()[:16]


LONG_FINGERPRINT_BYTES = 15  # an invite link's fingerprint: 120 bits, six groups of four (protocol.md 6)


def fingerprint(pid: bytes, long: bool = False) -> str:
    """A short name people can compare: base32 of the first 5 bytes of the peer id, as XXXX-XXXX. `long`: of
    the first 15 bytes, as six groups XXXX-XXXX-...; its first two groups are the short one (invite links)."""
    text = base64.b32encode(pid[:LONG_FINGERPRINT_BYTES if long else 5]).decode()
    return "-".join(text[i:i + 4] for i in range(0, len(text), 4))


# The memo of signatures found good: peers in one process (bots, the in-memory harness, verify) check each
# message's signature once. An entry is the key, the signature and the SHA-256 of the data (128 bytes), never
# the data itself, and only data up to MEMO_MAX_DATA bytes is remembered (honest messages are < 4 KB), so the
# memo holds at most MEMO_SIZE * MEMO_ENTRY bytes of keys however large or many the messages checked
# (protocol.md section 14, "Bounds"). A bad signature is never remembered: a flood of them cannot evict the
# good ones.
MEMO_SIZE = 4096  # signatures remembered
MEMO_MAX_DATA = 16 * 1024  # larger data is checked every time (a hash of it would cost what the check saves)
MEMO_ENTRY = KEY_SIZE + SIGNATURE_SIZE + 32  # bytes of one entry's key: public key, signature, SHA-256(data)
_memo: OrderedDict[tuple[bytes, bytes, bytes], None] = OrderedDict()
_memo_lock = threading.Lock()


def verify(public_key: bytes, signature: bytes, data: bytes) -> bool:
    """True if `signature` is the Ed25519 signature of `data` by `public_key` (memoized: see MEMO_SIZE)."""
    entry = None
    if len(data) <= MEMO_MAX_DATA:
        entry = (public_key, signature, hashlib.sha256(data).digest())
        with _memo_lock:
            if entry in _memo:
                _memo.move_to_end(entry)
                return True
    if not verify_unmemoized(public_key, signature, data):
        return False
    if entry is not None:
        with _memo_lock:
            _memo[entry] = None
            while len(_memo) > MEMO_SIZE:
                _memo.popitem(last=False)
    return True


# Signatures are checked by libsodium (PyNaCl) first: twice as fast as OpenSSL here (benchmarks/signature_bench.py).
# It accepts a subset of what OpenSSL accepts (the same cofactorless equation on the same bytes, and it also refuses
# keys and R of small order and non-canonical keys), so whatever it accepts OpenSSL accepts; whatever it refuses
# is judged by OpenSSL, whose verdict counts. The signatures accepted are thus exactly OpenSSL's, as before (and
# the TypeScript peer's, which checks them as OpenSSL does); an honest signature costs libsodium's check alone.
# OpenSSL (the `cryptography` package, about 7 MB of a process's memory and 15 ms of its start-up) is loaded only
# when libsodium refuses a signature. Keys are made and messages signed by libsodium too: Ed25519 signing is
# deterministic (RFC 8032), so its signatures are the very bytes OpenSSL made for the same key and data
# (tests/protocol/test_identity.py compares them).
BACKEND = "libsodium (PyNaCl), OpenSSL (cryptography) for what libsodium refuses"


def verify_unmemoized(public_key: bytes, signature: bytes, data: bytes) -> bool:
    """The check itself, made in full every time."""
    if len(public_key) == KEY_SIZE and len(signature) == SIGNATURE_SIZE:
        try:
            crypto_sign_open(signature + data, public_key)
            return True
        except (CryptoError, ValueError, TypeError):
            pass  # refused by libsodium: OpenSSL decides (it accepts a few signatures libsodium refuses)
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


def verify_memo() -> tuple[int, int]:
    """(entries, bytes) the memo of good signatures holds now: the bytes of its entries' keys and signatures
    and data hashes (at most MEMO_SIZE * MEMO_ENTRY)."""
    with _memo_lock:
        return len(_memo), sum(len(k) + len(s) + len(d) for k, s, d in _memo)


def clear_verify_memo() -> None:
    """Forget every signature found good (for measurements: the next checks are made in full)."""
    with _memo_lock:
        _memo.clear()


@dataclass(frozen=True)
class Identity:
    """A peer's key pair. `secret` is the 32-byte Ed25519 private key: keep it private."""

    secret: bytes
    # Derived from `secret` in __post_init__: not arguments, not compared, not shown.
    public_key: bytes = field(init=False, repr=False, compare=False)
    peer: bytes = field(init=False, repr=False, compare=False)
    _signing: bytes = field(init=False, repr=False, compare=False)  # libsodium's 64-byte form: secret || public

    def __post_init__(self) -> None:
        if len(self.secret) != KEY_SIZE:
            raise ValueError(f"an Ed25519 private key is {KEY_SIZE} bytes, got {len(self.secret)}")
        public, signing = crypto_sign_seed_keypair(bytes(self.secret))
        object.__setattr__(self, "_signing", signing)
        object.__setattr__(self, "public_key", public)
        object.__setattr__(self, "peer", peer_id(public))

    @classmethod
    def generate(cls) -> Identity:
        """A fresh key pair from the operating system's randomness."""
        return cls(os.urandom(KEY_SIZE))

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.peer)

    def sign(self, data: bytes) -> bytes:
        signed: bytes = crypto_sign(data if type(data) is bytes else bytes(data), self._signing)
        return signed[:SIGNATURE_SIZE]

    def __repr__(self) -> str:
        return f"Identity({self.fingerprint})"
