"""msgpack for bytes that came from the network: hard caps, str keys only, no ext types, no duplicate keys.

msgpack is not canonical: callers sign and hash the exact bytes they
received or sent, never a re-encoding.
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


class FrameTooLarge(ValueError):
    """A link frame's header says more than FRAME_LIMIT bytes: the link ends there (the message says how many)."""


def frame_size(data: bytes, at: int = 0) -> int:
    """The length the 4-byte big-endian header of a link frame at `at` of `data` says; FrameTooLarge past
    FRAME_LIMIT."""
    size = int.from_bytes(data[at:at + 4], "big")
    if size > FRAME_LIMIT:
        raise FrameTooLarge(f"frame of {size} bytes is over the {FRAME_LIMIT}-byte limit")
    return size


def frame_end(data: bytes, at: int = 0) -> int | None:
    """Where the link frame that begins at `at` of `data` ends (its header, then as many bytes as it says): None if
    it has not come whole yet; FrameTooLarge if its header says more than FRAME_LIMIT. How net.connection and a phone
    relay's door (web.relaydoor) split the bytes of a link."""
    if len(data) - at < 4:
        return None
    end = at + 4 + frame_size(data, at)
    return end if end <= len(data) else None


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
