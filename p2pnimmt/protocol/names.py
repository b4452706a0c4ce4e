"""A name at the table (protocol.md 9, **Names**): what a name may hold, and when two names look alike.

One rule, one place: the START (a roster whose names are not names, or two of which look alike, is not a
START), the host's lobby (a join for a seat whose name looks like a seated player's is refused; a spectator
whose name looks like any member's is shown as `ann (watching)`: `watcher_name`), the command line and the
menu (what a person types is made plain first: `plain`). The tables are shipped (name_ranges.py: Unicode 14.0.0's
categories; name_skeleton.py: UTS #39's confusables 13.0.0), never the running Python's; the normal forms and
case folding used are stable for every code point a name may hold (Unicode's stability policies), so every
Python from 3.11 on agrees.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Iterator

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
        return (f"a name holds no U+{ord(bad):04X} (no control, format, private-use, unassigned or invisible "
                "character, and no space but the plain one)")
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


def first_unlike(candidates: Iterable[str], taken: Iterable[str]) -> str:
    """The first of `candidates` that is a name and looks like none of `taken` (an endless `candidates`: guest
    seats, bots and spectators are given names no member's looks like)."""
    skeletons = {skeleton(name) for name in taken}
    return next(name for name in candidates if is_name(name) and skeleton(name) not in skeletons)


def watcher_name(name: str, taken: Iterable[str]) -> str:
    """A spectator's name as the lobby shows it: `name`, unless it looks like one of `taken` (the other
    members'); then `ann (watching)`, `ann (watching 2)`, ... (the first that looks like none; `name` cut short
    to fit NAME_LENGTH), so no spectator passes for a player or for another spectator on any screen."""

    def candidates() -> Iterator[str]:
        yield name
        number = 1
        while True:
            tag = " (watching)" if number == 1 else f" (watching {number})"
            yield name[:NAME_LENGTH - len(tag)].rstrip() + tag
            number += 1

    return first_unlike(candidates(), taken)
