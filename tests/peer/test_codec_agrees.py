"""Section 7 in both implementations: the same bytes are accepted or refused by both strict decoders, and what
both accept re-encodes to the same bytes (the reference's shortest forms, str8, bin8, map order kept); what both
refuse, they refuse in the same words (the reference's: msgpack-python's, and its codec's own).

The corpus: random values near every limit of section 7 (arrays of 256/257, maps of 32/33, str of 1,024/1,025
bytes, nesting 6/7, ints of every width, floats, bin), encoded by Python's msgpack (some with duplicated keys, ext
types, non-str keys) and again with each head in a form drawn from all that hold it (since session 39 only the
canonical form is taken, and the first other one is named alike), then each also with a byte flipped, cut short or
followed by a byte.
"""

from __future__ import annotations

import json
import random
import struct
import subprocess
from pathlib import Path

import msgpack
from nodepeer import PEER, tool

from p2pnimmt.protocol.codec import DecodeError, decode, encode


def random_value(rng: random.Random, depth: int) -> object:
    kind = rng.choice(["int", "int", "str", "bin", "bool", "nil", "float", "list", "dict"] if depth < 8
                      else ["int", "str"])
    if kind == "int":
        return rng.choice([0, 1, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**53 + 1, 2**64 - 1,
                           -1, -32, -33, -128, -129, -(2**31), -(2**63), rng.randrange(-(2**40), 2**40)])
    if kind == "str":
        return rng.choice(["", "a", "é" * rng.choice([10, 512, 513]), "x" * rng.choice([31, 32, 255, 256, 1024, 1025]),
                           "\ufeffbom", "😀"])
    if kind == "bin":
        return rng.randbytes(rng.choice([0, 1, 16, 32, 255, 256, 300]))
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "nil":
        return None
    if kind == "float":
        return rng.choice([0.0, 1.0, -2.5, 1e300])
    size = rng.choice([0, 1, 2, 3, 15, 16, 32, 33, 256, 257] if depth == 0 else [0, 1, 2, 3])
    if kind == "list":
        return [random_value(rng, depth + 1) for _ in range(size)]
    return {f"k{i}": random_value(rng, depth + 1) for i in range(min(size, 40))}


def loose(value: object, rng: random.Random) -> bytes:
    """msgpack of `value` with each head in a form drawn from all that hold it, the canonical one among them (section
    7: only that one is taken): uint or int of any width that holds an integer, a float 32 where it holds a float
    exactly, a str, bin, array or map head of any width that holds its length."""
    def head(n: int, fix: int | None, fix_max: int, types: tuple[int | None, int, int]) -> bytes:
        forms = [(t, w) for t, w in zip(types, (1, 2, 4)) if t is not None and n < 1 << (8 * w)]
        if fix is not None and n <= fix_max:
            forms.append((fix, 0))
        kind, width = rng.choice(forms)
        return bytes([kind | n]) if width == 0 else bytes([kind]) + n.to_bytes(width, "big")

    if isinstance(value, bool) or value is None:
        return msgpack.packb(value)
    if isinstance(value, int):
        forms = [(t, w, False) for t, w in ((0xCC, 1), (0xCD, 2), (0xCE, 4), (0xCF, 8)) if 0 <= value < 1 << 8 * w]
        forms += [(t, w, True) for t, w in ((0xD0, 1), (0xD1, 2), (0xD2, 4), (0xD3, 8))
                  if -(1 << (8 * w - 1)) <= value < 1 << (8 * w - 1)]
        if -32 <= value < 128:
            forms.append((value & 0xFF, 0, False))
        kind, width, signed = rng.choice(forms)
        return bytes([kind]) + (value.to_bytes(width, "big", signed=signed) if width else b"")
    if isinstance(value, float):
        if abs(value) < 1e38 and struct.unpack(">f", struct.pack(">f", value))[0] == value and rng.random() < 0.5:
            return b"\xca" + struct.pack(">f", value)
        return b"\xcb" + struct.pack(">d", value)
    if isinstance(value, str):
        raw = value.encode()
        return head(len(raw), 0xA0, 31, (0xD9, 0xDA, 0xDB)) + raw
    if isinstance(value, bytes):
        return head(len(value), None, -1, (0xC4, 0xC5, 0xC6)) + value
    if isinstance(value, list):
        return head(len(value), 0x90, 15, (None, 0xDC, 0xDD)) + b"".join(loose(v, rng) for v in value)
    assert isinstance(value, dict)
    return head(len(value), 0x80, 15, (None, 0xDE, 0xDF)) + b"".join(loose(k, rng) + loose(v, rng)
                                                                    for k, v in value.items())


def corpus(rng: random.Random) -> list[bytes]:
    items: list[bytes] = []
    for _ in range(400):
        items.append(msgpack.packb(random_value(rng, 0), use_bin_type=True))
    for _ in range(400):  # every other form of a value too (section 7: only the canonical one is taken)
        items.append(loose(random_value(rng, 0), rng))
    for depth in range(4, 9):
        items.append(msgpack.packb(eval("[" * depth + "1" + "]" * depth), use_bin_type=True))
    items += [bytes.fromhex(h) for h in [
        "82a16101a16102",  # a duplicated key
        "810102", "81c4016102",  # an int key, a bin key
        "d40100", "c70100", "c1", "c0c0", "", "ca3f800000", "cb3ff0000000000000", "a2c328", "a3eda080", "a3efbbbf",
        "cf0000000000000005", "d0ff", "c6ffffffff", "dbffffffff", "dd00000001c0",
        # the order and words of each refusal: UTF-8 errors, ext lengths, keys, a map's keys twice, the stack
        "a3e28228", "a2e282", "a2e228", "a1e2", "a2f090", "a2f490", "a1c0", "a1ff", "c70005", "c701ff00", "c7ff05",
        "d4ff00", "c700ff", "c80000ff", "c900000000ff", "d6ff00000000", "81a161c700ff", "810102", "8101", "8101c0", "81c40127c0", "81c402275cc0", "84a16101a16202a16203a16104",
        "81c0c0", "81c3c0", "819000", "818000", "81ca0000000001", "dd00000101", "92a5616263",
    ]] + [b"\x91" * n + tail for n in (1023, 1024, 1025) for tail in (b"", b"\x00")]
    mutated = []
    for data in items:
        if data:
            flipped = bytearray(data)
            flipped[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            mutated += [bytes(flipped), data[: rng.randrange(len(data))], data + b"\x00"]
    return items + mutated


def test_both_decoders_agree(compiled: Path) -> None:
    cases = corpus(random.Random(7))
    done = subprocess.run([tool("node"), str(compiled / "test" / "agree.js")], cwd=PEER, capture_output=True,
                          text=True, timeout=120, input=json.dumps({"codec": [c.hex() for c in cases]}))
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)["codec"]
    assert len(theirs) == len(cases) > 1000
    accepted = refused = 0
    for data, answer in zip(cases, theirs):
        try:
            ours: object = encode(decode(data)).hex()
        except DecodeError as exc:
            ours = {"refused": str(exc)}  # and why, in the same words (a delivery fault's detail quotes them)
        assert answer == ours, f"{data[:60].hex()}: Python {ours}, TypeScript {answer}"
        accepted += isinstance(ours, str)
        refused += not isinstance(ours, str)
    assert accepted > 300 and refused > 300
    odd = [answer["refused"] for answer in theirs if isinstance(answer, dict) and "canonical" in answer["refused"]]
    assert len(odd) > 200 and len({o.split(" at byte")[0] for o in odd}) >= 15, sorted(set(odd))[:40]
