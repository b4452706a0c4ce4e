"""msgpack for bytes that came from the network: hard caps, str keys only, no ext types, no duplicate keys, and
every value in its canonical form (protocol.md 7: the form `encode` writes, so a value has exactly one encoding).

Callers sign and hash the exact bytes they received or sent, never a re-encoding.
"""

from __future__ import annotations

import threading
from typing import Any

import msgpack

MAX_FRAME = 64 * 1024  # bytes in one message on the wire
FRAME_LIMIT = MAX_FRAME + 1024  # bytes of one link frame (protocol.md 14): a session message plus [kind, payload]
HELLO = "p2pnimmt-hello"  # a link's first frame: [HELLO, version, game id, public key, nonce] (protocol.md, "Network")
MAX_ARRAY = 256
MAX_MAP = 32
MAX_STR = 1024
MAX_DEPTH = 6


class DecodeError(ValueError):
    """Bytes that are not an acceptable msgpack value; the message says what was wrong."""


class NotCanonical(DecodeError):
    """A valid msgpack value with a head in another form than its canonical one (protocol.md 7): `have` and `want`
    name the two forms, `at` is the head's byte offset in the value."""

    def __init__(self, have: str, want: str, at: int, part: str = "") -> None:
        self.have, self.want, self.at = have, want, at
        super().__init__(f"not canonical msgpack: {have} at byte {at}{part}, where {want} is canonical")

    def within(self, part: str) -> NotCanonical:
        """The same refusal, its offset said to count in `part` of the bytes (an envelope's signed part)."""
        return NotCanonical(self.have, self.want, self.at, f" of {part}")


_FORMS = {0xC0: "nil", 0xC2: "false", 0xC3: "true", 0xC4: "bin 8", 0xC5: "bin 16", 0xC6: "bin 32", 0xCA: "float 32",
          0xCB: "float 64", 0xCC: "uint 8", 0xCD: "uint 16", 0xCE: "uint 32", 0xCF: "uint 64", 0xD0: "int 8",
          0xD1: "int 16", 0xD2: "int 32", 0xD3: "int 64", 0xD9: "str 8", 0xDA: "str 16", 0xDB: "str 32",
          0xDC: "array 16", 0xDD: "array 32", 0xDE: "map 16", 0xDF: "map 32"}


def form(head: int) -> str:
    """The msgpack spec's name of the format whose first byte is `head` (of a value decode accepts)."""
    if head <= 0x7F:
        return "positive fixint"
    if head >= 0xE0:
        return "negative fixint"
    if head <= 0x8F:
        return "fixmap"
    if head <= 0x9F:
        return "fixarray"
    if head <= 0xBF:
        return "fixstr"
    return _FORMS.get(head, f"type 0x{head:02x}")


def check_canonical(data: bytes, value: Any) -> None:
    """NotCanonical if `data`, which decoded to `value`, is not `value`'s canonical encoding: the first head in
    another form is where the two first differ (a head's form fixes its length bytes, and so every byte after it
    until the next head; only the forms differ, never the values)."""
    canonical = encode(value)
    if canonical != data:
        at = next((i for i, (a, b) in enumerate(zip(data, canonical)) if a != b), min(len(data), len(canonical)))
        raise NotCanonical(form(data[at]), form(canonical[at]), at)


class FrameTooLarge(ValueError):
    """A link frame's header says more than FRAME_LIMIT bytes: the link ends there (the message says how many)."""


def bytes_of_size(values: list[Any] | tuple[Any, ...], size: int) -> bool:
    """Every value of `values` is a `bytes` (not a subclass) of `size` bytes: two passes in C, a third fewer
    instructions than a loop of isinstance and len in Python over a sealed deck's 104 values (docs/benchmarks.md,
    session 42). False is no verdict on a subclass of bytes: the callers' own loops look at the values one by one
    then, for their words."""
    return set(map(type, values)) <= _BYTES and set(map(len, values)) <= {size}


_BYTES = {bytes}


def frame_size(data: bytes, at: int = 0) -> int:
    """The length the 4-byte big-endian header of a link frame at `at` of `data` says; FrameTooLarge past
    FRAME_LIMIT."""
    size = int.from_bytes(data[at:at + 4], "big")
    if size > FRAME_LIMIT:
        raise FrameTooLarge(f"frame of {size} bytes is over the {FRAME_LIMIT}-byte limit")
    return size


def _reject_ext(code: int, data: bytes) -> Any:
    raise DecodeError(f"msgpack ext type {code} is not allowed")


def _unique_pairs(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    for key, _value in pairs:
        if type(key) is not str:
            from .printable import value_repr  # noqa: PLC0415 (only to word a refusal)

            raise DecodeError(f"map key {value_repr(key):.40} is not a string")
    result = dict(pairs)
    if len(result) != len(pairs):
        keys = [k for k, _ in pairs]
        dup = next(k for k in keys if keys.count(k) > 1)
        from .printable import value_repr  # noqa: PLC0415
        raise DecodeError(f"duplicate map key {value_repr(dup)}")
    return result


def _check_depth(value: Any, depth: int = 0) -> None:
    """Raise DecodeError if containers nest deeper than MAX_DEPTH (`value`: a list or dict decode made, at `depth`)."""
    for child in value.values() if type(value) is dict else value:
        kind = type(child)
        if kind is list or kind is dict:  # decode makes exactly these (use_list, object_pairs_hook)
            if depth + 1 >= MAX_DEPTH:
                raise DecodeError(f"nested deeper than {MAX_DEPTH} levels")
            _check_depth(child, depth + 1)


def _why(exc: BaseException) -> str:
    """What msgpack found wrong; its exceptions often carry no message, so name the kind at least."""
    text = str(exc)
    if text:
        return text
    if isinstance(exc, msgpack.FormatError):
        return "FormatError (a reserved or invalid type byte)"
    if isinstance(exc, msgpack.StackError):
        return "StackError (nested too deep)"
    return type(exc).__name__


def decode(data: bytes, limit: int = MAX_FRAME) -> Any:
    """Decode one untrusted msgpack value of at most `limit` bytes.

    DecodeError, naming the problem, if it breaks any rule.
    """
    value = decode_shallow(data, limit)
    if isinstance(value, (list, dict)):
        check_depth(value)
    return value


check_depth = _check_depth  # (value, depth=0): decode's last check, of a list or dict decode_shallow made at `depth`


def decode_shallow(data: bytes, limit: int = MAX_FRAME) -> Any:
    """decode without its last check, the depth of nesting (check_depth): for a caller that knows which parts of
    the value can be containers (an envelope's signed part: only its body, once its fields are the right types).
    Every other rule is checked, and in decode's order."""
    if not isinstance(data, (bytes, bytearray)):
        raise DecodeError(f"expected bytes, got {type(data).__name__}")
    if len(data) > limit:
        raise DecodeError(f"{len(data)} bytes is over the {limit}-byte limit")
    if not data:
        raise DecodeError("no bytes at all")
    try:
        value = msgpack.unpackb(
            bytes(data),
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=MAX_STR,
            max_bin_len=limit,
            max_array_len=MAX_ARRAY,
            max_map_len=MAX_MAP,
            max_ext_len=0,
            ext_hook=_reject_ext,
            object_pairs_hook=_unique_pairs,
        )
    except DecodeError:
        raise
    except msgpack.ExtraData:
        raise DecodeError("trailing bytes after the msgpack value") from None
    except (ValueError, TypeError, msgpack.UnpackException, RecursionError) as exc:
        raise DecodeError(f"not valid msgpack: {_why(exc)}") from None
    check_canonical(data, value)
    return value


_packers = threading.local()  # one Packer per thread, made once (msgpack.packb makes one per call)


def encode(value: Any) -> bytes:
    """msgpack bytes of `value` (bin for bytes, str for text, no ext types): what msgpack.packb with these options
    gives, by a Packer kept for the thread (it starts afresh after each value, and after a value it refused)."""
    packer = getattr(_packers, "packer", None)
    if packer is None:
        packer = _packers.packer = msgpack.Packer(use_bin_type=True, strict_types=False)
    packed: bytes = packer.pack(value)
    return packed
