"""Signed messages (protocol.md, "Envelope").

wire   = msgpack [signed: bin, signature: bin 64]
signed = msgpack [version, game id: bin 16, sender: bin 16, seq: int, prev: bin 32, kind: str, body: map]
signature = Ed25519(sender key, SIGN_TAG || signed); hash = SHA-256(signed).
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from .codec import MAX_FRAME, DecodeError, NotCanonical, check_depth, decode, decode_shallow, encode
from .identity import PEER_ID_SIZE, SIGNATURE_SIZE, Identity, verify

VERSION = 1
SIGN_TAG = b"p2pnimmt/message/v1"
GAME_ID_SIZE = 16
HASH_SIZE = 32
NO_PREVIOUS = bytes(HASH_SIZE)


class Envelope(NamedTuple):
    """One signed message: its fields, the exact signed bytes and wire bytes, and its hash.

    A named tuple (made for every message that arrives, and every one we sign): it costs a fifth of a frozen
    dataclass's constructor, and is read-only alike."""

    version: int
    game_id: bytes
    sender: bytes
    seq: int
    prev: bytes
    kind: str
    body: dict[str, Any]
    signed: bytes
    signature: bytes
    wire: bytes
    hash: bytes

    def check_signature(self, public_key: bytes) -> bool:
        """True if the sender's key signed these exact bytes."""
        return verify(public_key, self.signature, SIGN_TAG + self.signed)


def seal(identity: Identity, game_id: bytes, seq: int, prev: bytes, kind: str, body: dict[str, Any]) -> Envelope:
    """Sign a new message from `identity`."""
    signed = encode([VERSION, game_id, identity.peer, seq, prev, kind, body])
    signature = identity.sign(SIGN_TAG + signed)
    wire = encode([signed, signature])
    return Envelope(VERSION, game_id, identity.peer, seq, prev, kind, body, signed, signature, wire,
                    hashlib.sha256(signed).digest())


_tuple_new = tuple.__new__
_BIN_WIDTH = {0xC4: 1, 0xC5: 2}  # msgpack bin 8 / 16: the width of the length that follows (bin 32: decode's)
_BIN_SHORTEST = {0xC4: 0, 0xC5: 0x100}  # the least length each is canonical for (protocol.md 7)
_SIGNATURE_HEAD = bytes([0xC4, SIGNATURE_SIZE])  # bin 8 of 64 bytes


def split(wire: bytes) -> tuple[bytes, bytes]:
    """The signed bytes and the signature of a wire message; DecodeError if it is not that shape.

    Bytes that are exactly [bin, bin 64] in their canonical form (an array of two, a bin 8 or bin 16 as the signed
    part's length asks, the signature's bin 8, nothing after) are taken apart by slicing: what decode gives for
    them. Anything else goes through decode, which names what is wrong (the result for every input is decode's:
    a bin 16 where a bin 8 fits is not canonical, section 7)."""
    if type(wire) is bytes and 2 < len(wire) <= MAX_FRAME and wire[0] == 0x92:
        width = _BIN_WIDTH.get(wire[1])
        if width is not None:
            start = 2 + width
            size = int.from_bytes(wire[2:start], "big")
            end = start + size
            if end + 2 + SIGNATURE_SIZE == len(wire) and wire[end:end + 2] == _SIGNATURE_HEAD \
                    and size >= _BIN_SHORTEST[wire[1]]:
                return wire[start:end], wire[end + 2:]
    outer = decode(wire)
    if not (isinstance(outer, list) and len(outer) == 2
            and isinstance(outer[0], bytes) and isinstance(outer[1], bytes)):
        raise DecodeError("a message must be [signed bytes, signature]")
    if len(outer[1]) != SIGNATURE_SIZE:
        raise DecodeError(f"signature must be {SIGNATURE_SIZE} bytes, got {len(outer[1])}")
    return outer[0], outer[1]


def open_envelope(wire: bytes) -> Envelope:
    """Parse a wire message (signature NOT yet checked); DecodeError naming the first problem."""
    signed, signature = split(wire)
    try:
        fields = decode_shallow(signed)
    except NotCanonical as exc:  # its offset counts in the signed part, not in the wire
        raise exc.within("the signed part") from None
    if type(fields) is list and len(fields) == 7 and type(fields[0]) is int and type(fields[1]) is bytes and \
            type(fields[2]) is bytes and type(fields[3]) is int and type(fields[4]) is bytes and \
            type(fields[5]) is str and type(fields[6]) is dict:
        check_depth(fields[6], 1)  # what decode's check of the whole finds: of these, only the body can nest
    elif isinstance(fields, (list, dict)):
        check_depth(fields)  # decode's check, as decode makes it (its error before any about the fields)
    if not (isinstance(fields, list) and len(fields) == 7):
        raise DecodeError("signed part must be [version, game, sender, seq, prev, kind, body]")
    version, game_id, sender, seq, prev, kind, body = fields
    if type(version) is not int or version != VERSION:  # the integer 1: not 1.0, not true (protocol.md 8)
        raise DecodeError(f"protocol version {version!r}, this peer speaks {VERSION}")
    if not (isinstance(game_id, bytes) and len(game_id) == GAME_ID_SIZE):
        raise DecodeError(f"game id must be {GAME_ID_SIZE} bytes")
    if not (isinstance(sender, bytes) and len(sender) == PEER_ID_SIZE):
        raise DecodeError(f"sender must be a {PEER_ID_SIZE}-byte peer id")
    if type(seq) is not int or not 0 <= seq < 2**32:
        raise DecodeError(f"sequence number must be 0..2^32-1, got {seq!r}")
    if not (isinstance(prev, bytes) and len(prev) == HASH_SIZE):
        raise DecodeError(f"previous hash must be {HASH_SIZE} bytes")
    if not isinstance(kind, str):
        raise DecodeError("kind must be a string")
    if not isinstance(body, dict):
        raise DecodeError("body must be a map")
    return _tuple_new(Envelope, (version, game_id, sender, seq, prev, kind, body, signed, signature, bytes(wire),
                                 hashlib.sha256(signed).digest()))  # Envelope(...), without its __new__'s Python call
