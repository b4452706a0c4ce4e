"""What is printable, and texts quoted as a verifier's words quote them (protocol.md 13, "The words of the report").

A verdict quotes the texts it names (a record type, a fault code, a body's field) as Python's `repr` writes them,
and every line of the report is printed through p2pnimmt/neutral.py. Both depend on which code points are
printable; Python's own table is its Unicode version's (3.12 and later print code points 3.11 escapes), so the
words would change with the Python that runs them. They do not: printable is the table protocol.md pins, Unicode
14.0.0's (what Python 3.11's `str.isprintable` takes): a code point a name may hold (name_ranges.RANGES) or one of
name_ranges.PRINTABLE_BEYOND_NAMES. web/peer/src/names.ts reads the same table (tests/peer/test_difffuzz_agrees.py
checks both against each other, and against unicodedata where Python 3.11 runs).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from .name_ranges import PRINTABLE_BEYOND_NAMES
from .names import holds, is_mark

_BEYOND_STARTS = tuple(first for first, _last, _mark in PRINTABLE_BEYOND_NAMES)


def _beyond(cp: int) -> tuple[int, int, bool] | None:
    i = bisect_right(_BEYOND_STARTS, cp) - 1
    return PRINTABLE_BEYOND_NAMES[i] if i >= 0 and cp <= PRINTABLE_BEYOND_NAMES[i][1] else None


def is_printable(cp: int) -> bool:
    """Printable in Unicode 14.0.0 (Python 3.11's `str.isprintable` of chr(cp)), whatever Python runs."""
    return holds(cp) or _beyond(cp) is not None


def is_printable_mark(cp: int) -> bool:
    """A printable combining mark (general category Mn, Mc or Me in Unicode 14.0.0)."""
    if is_mark(cp):
        return True
    beyond = _beyond(cp)
    return beyond is not None and beyond[2]


def escape(cp: int) -> str:
    """A code point written as repr escapes it: \\xhh, \\uhhhh or \\Uhhhhhhhh."""
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


_SPECIAL = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def text_repr(text: str) -> str:
    """`text` as Python 3.11's repr writes it (a quote chosen as repr chooses it), whatever Python runs."""
    quote = '"' if "'" in text and '"' not in text else "'"
    if text.isascii() and text.isprintable() and "\\" not in text and quote not in text:
        return quote + text + quote  # (ASCII's printable ones are the same in every Unicode version)
    out = []
    for ch in text:
        if ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ch == quote:
            out.append("\\" + ch)
        elif is_printable(ord(ch)):
            out.append(ch)
        else:
            out.append(escape(ord(ch)))
    return quote + "".join(out) + quote


def value_repr(value: Any) -> str:
    """A decoded value (section 7: nil, bool, int, float, str, bin, arrays, maps) as Python 3.11's repr writes it:
    every text in it by text_repr."""
    if isinstance(value, str):
        return text_repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(value_repr, value)) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(value_repr, value)) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{value_repr(k)}: {value_repr(v)}" for k, v in value.items()) + "}"
    return repr(value)  # nil, bool, int, float, bytes: no text of Unicode beyond ASCII in them
