"""protocol.md section 16's `canonical-refusals`: one STANDIN message (the `envelope-refusals` one, `version` 1) in
its canonical form and written again in other forms at each layer, each signed part validly signed; how they are
made, so that the test can make them again and compare (`python tests/protocol/canonical_vectors.py` prints the
block).

The forms are written byte by byte here (msgpack-python and both codecs write only the canonical ones)."""

from __future__ import annotations

import json
import struct
from typing import Any

from p2pnimmt.protocol.codec import encode
from p2pnimmt.protocol.envelope import SIGN_TAG
from p2pnimmt.protocol.identity import Identity

SECRET = bytes(range(32))
GAME = bytes(range(16))


def bin16(data: bytes) -> bytes:
    return b"\xc5" + struct.pack(">H", len(data)) + data


def bin32(data: bytes) -> bytes:
    return b"\xc6" + struct.pack(">I", len(data)) + data


def str8(text: str) -> bytes:
    raw = text.encode()
    return b"\xd9" + bytes([len(raw)]) + raw


def str16(text: str) -> bytes:
    raw = text.encode()
    return b"\xda" + struct.pack(">H", len(raw)) + raw


def array16(items: list[bytes]) -> bytes:
    return b"\xdc" + struct.pack(">H", len(items)) + b"".join(items)


def array32(items: list[bytes]) -> bytes:
    return b"\xdd" + struct.pack(">I", len(items)) + b"".join(items)


def map16(pairs: list[tuple[bytes, bytes]]) -> bytes:
    return b"\xde" + struct.pack(">H", len(pairs)) + b"".join(k + v for k, v in pairs)


def fixarray(items: list[bytes]) -> bytes:
    return bytes([0x90 | len(items)]) + b"".join(items)


def fixmap(pairs: list[tuple[bytes, bytes]]) -> bytes:
    return bytes([0x80 | len(pairs)]) + b"".join(k + v for k, v in pairs)


def cases() -> dict[str, Any]:
    """The block: the signer's secret, the game id and each case (`why`, `wire` in hex, `refusal`: the words of the
    reference, or null for a message taken)."""
    me = Identity(SECRET)
    e = encode
    body = [(e("round"), e(0)), (e("turn"), e(3)), (e("seat"), e(1))]
    fields = [e(1), e(GAME), e(me.peer), e(0), e(bytes(32)), e("STANDIN")]

    def signed(version: bytes = fields[0], game: bytes = fields[1], seq: bytes = fields[3],
               kind: bytes = fields[5], body_bytes: bytes | None = None, outer=fixarray) -> bytes:
        return outer([version, game, fields[2], seq, fields[4], kind, body_bytes or fixmap(body)])

    def wire(part: bytes) -> bytes:
        return e([part, me.sign(SIGN_TAG + part)])

    plain = signed()
    signature = me.sign(SIGN_TAG + plain)
    out: list[tuple[str, bytes, str | None]] = [
        ("the canonical message", e([plain, signature]), None),
        ("its body's keys in another order, signed so: the order is its signer's, not a rule",
         wire(signed(body_bytes=fixmap(body[::-1]))), None),
        # the outer array: nobody signs it, anyone could write it again
        ("the signed part in a bin 16", fixarray([bin16(plain), e(signature)]),
         "not canonical msgpack: bin 16 at byte 1, where bin 8 is canonical"),
        ("the signed part in a bin 32", fixarray([bin32(plain), e(signature)]),
         "not canonical msgpack: bin 32 at byte 1, where bin 8 is canonical"),
        ("the signature in a bin 16", fixarray([e(plain), bin16(signature)]),
         f"not canonical msgpack: bin 16 at byte {1 + len(e(plain))}, where bin 8 is canonical"),
        ("the outer array an array 16", array16([e(plain), e(signature)]),
         "not canonical msgpack: array 16 at byte 0, where fixarray is canonical"),
        ("the outer array an array 32", array32([e(plain), e(signature)]),
         "not canonical msgpack: array 32 at byte 0, where fixarray is canonical"),
        ("both bins in a bin 16: the first in byte order is named", fixarray([bin16(plain), bin16(signature)]),
         "not canonical msgpack: bin 16 at byte 1, where bin 8 is canonical"),
        ("a byte after the message", e([plain, signature]) + b"\xc0", "trailing bytes after the msgpack value"),
        # the signed part, each signed as it is: only its signer could have written it
        ("the signed part an array 16", wire(signed(outer=array16)),
         "not canonical msgpack: array 16 at byte 0 of the signed part, where fixarray is canonical"),
        ("version 1 as a uint 8", wire(signed(version=b"\xcc\x01")),
         "not canonical msgpack: uint 8 at byte 1 of the signed part, where positive fixint is canonical"),
        ("the game id in a bin 16", wire(signed(game=bin16(GAME))),
         "not canonical msgpack: bin 16 at byte 2 of the signed part, where bin 8 is canonical"),
        ("seq 0 as a uint 32", wire(signed(seq=b"\xce\x00\x00\x00\x00")),
         "not canonical msgpack: uint 32 at byte 38 of the signed part, where positive fixint is canonical"),
        ("seq 0 as an int 8", wire(signed(seq=b"\xd0\x00")),
         "not canonical msgpack: int 8 at byte 38 of the signed part, where positive fixint is canonical"),
        ("the kind in a str 8", wire(signed(kind=str8("STANDIN"))),
         "not canonical msgpack: str 8 at byte 73 of the signed part, where fixstr is canonical"),
        ("the body a map 16", wire(signed(body_bytes=map16(body))),
         "not canonical msgpack: map 16 at byte 81 of the signed part, where fixmap is canonical"),
        ("the body's key turn in a str 16", wire(signed(body_bytes=fixmap([body[0], (str16("turn"), e(3)), body[2]]))),
         "not canonical msgpack: str 16 at byte 89 of the signed part, where fixstr is canonical"),
        ("turn 3 as a uint 16", wire(signed(body_bytes=fixmap([body[0], (e("turn"), b"\xcd\x00\x03"), body[2]]))),
         "not canonical msgpack: uint 16 at byte 94 of the signed part, where positive fixint is canonical"),
        ("turn as a float 32 (3.0): refused as not canonical before the body's check",
         wire(signed(body_bytes=fixmap([body[0], (e("turn"), b"\xca" + struct.pack(">f", 3.0)), body[2]]))),
         "not canonical msgpack: float 32 at byte 94 of the signed part, where float 64 is canonical"),
        ("the key seat twice: msgpack's refusal comes before the form's",
         wire(signed(body_bytes=map16([*body, (e("seat"), e(1))]))), "duplicate map key 'seat'"),
    ]
    return {"signer_secret": SECRET.hex(), "game_id": GAME.hex(),
            "messages": [{"why": why, "wire": data.hex(), "refusal": refusal} for why, data, refusal in out]}


def block_text() -> str:
    """The block as protocol.md holds it: one line per case."""
    block = cases()
    lines = [json.dumps(m, ensure_ascii=False) for m in block["messages"]]
    return ('{\n  "signer_secret": "' + block["signer_secret"] + '",\n  "game_id": "' + block["game_id"]
            + '",\n  "messages": [\n    ' + ",\n    ".join(lines) + "\n  ]\n}\n")


if __name__ == "__main__":
    print(block_text(), end="")
