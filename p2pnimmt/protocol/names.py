"""A name at the table (protocol.md 9, **Names**): what a name may hold, and when two names look alike.

One rule, one place: the START (a roster whose names are not names, or two of which look alike, is not a
START), the host's lobby (a join whose name looks like a member's is refused), the command line and the menu
(what a person types is made plain first: `plain`). The tables are shipped (name_ranges.py: Unicode 14.0.0's
categories; name_skeleton.py: UTS #39's confusables 13.0.0), never the running Python's; the normal forms and
case folding used are stable for every code point a name may hold (Unicode's stability policies), so every
Python from 3.11 on agrees.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right

from .name_ranges import MARKS, RANGES
from .name_skeleton import PROTOTYPES

NAME_LENGTH = 40  # code points in a name
MAX_MARKS = 3  # combining marks in a row (after a letter; never first)
_STARTS = tuple(first for first, _last in RANGES)
_MARK_STARTS = tuple(first for first, _last in MARKS)


def _in(table: tuple[tuple[int, int], ...], starts: tuple[int, ...], cp: int) -> bool:
    i = bisect_right(starts, cp) - 1
    return i >= 0 and cp <= table[i][1]


def holds(cp: int) -> bool:
    """Whether a name may hold this code point (the shipped table: Unicode 14.0.0's printable ones)."""
    return _in(RANGES, _STARTS, cp)


def is_mark(cp: int) -> bool:
    """A combining mark: general category Mn, Mc or Me in Unicode 14.0.0."""
    return _in(MARKS, _MARK_STARTS, cp)


def name_problem(text: object) -> str | None:
    """Why `text` is not a name, in words for a person; None when it is one."""
    if not isinstance(text, str):
        return "a name is text"
    if not 0 < len(text) <= NAME_LENGTH:
        return f"a name is 1 to {NAME_LENGTH} characters, this one has {len(text)}"
    if text[0] == " " or text[-1] == " " or "  " in text:
        return "a name neither begins nor ends with a space, nor has two in a row"
    if text.isascii():
        return None if text.isprintable() else "a name holds no control character"
    bad = next((ch for ch in text if not holds(ord(ch))), None)
    if bad is not None:
        return (f"a name holds no U+{ord(bad):04X} (no control, format, private-use or unassigned character, and "
                "no space but the plain one)")
    if unicodedata.normalize("NFKC", text) != text:
        return ("a name is written plainly (in Unicode's NFKC form: no fullwidth, styled or composed-apart "
                "letters)")
    run = 0
    for i, ch in enumerate(text):
        if not is_mark(ord(ch)):
            run = 0
            continue
        run += 1
        if i == 0:
            return "a name does not begin with a combining mark"
        if run > MAX_MARKS:
            return f"a name has at most {MAX_MARKS} combining marks on one letter"
    return None


def is_name(text: object) -> bool:
    """A name (protocol.md 9, **Names**)."""
    return name_problem(text) is None


def plain(text: str) -> str:
    """What a person typed, made plain: NFKC (fullwidth and styled letters written plainly, accents composed),
    every run of white space one U+0020, none at either end. It is a name if `name_problem` says so."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def skeleton(name: str) -> str:
    """What `name` looks like: UTS #39's skeleton (NFD, each code point by its confusables prototype, NFD
    again), case-folded. Two names look alike when their skeletons are equal."""
    mapped = "".join(PROTOTYPES.get(ord(ch), ch) for ch in unicodedata.normalize("NFD", name))
    return unicodedata.normalize("NFD", mapped).casefold()


def look_alike(a: str, b: str) -> bool:
    return skeleton(a) == skeleton(b)
