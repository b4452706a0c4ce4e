"""Text from the network made harmless before it reaches a terminal, a log or a screen: the one place.

A peer's refusal, a lobby field, a TXT record, a fault's detail or a log argument may hold anything: ESC
sequences (`ESC]0;title BEL`, `ESC[2J`), C1 controls (U+009B is a CSI on many terminals), bidi overrides and
isolates (U+202E turns the rest of a line around), line separators, a flood of combining marks. `neutral`
writes every code point that is not printable (protocol/printable.py: Unicode 14.0.0's table, what Python
3.11's `str.isprintable` says, whatever Python runs: categories Cc, Cf, Cs, Co, Cn, Zl, Zp and every space
but U+0020; so C0 with ESC, DEL, C1, the bidi controls, U+2028) as a visible escape
(`\\x1b`, `\\u202e`), keeps at most MAX_MARKS combining marks in a row (the rest escaped), and cuts the
text to a length. What comes out is printable and on one line: it cannot move the cursor, set a title,
clear the screen, change colours or reorder what follows it.

Names (protocol.md 9, **Names**) are checked where they arrive and are printable already; everything else
from a peer goes through here. `NeutralFormatter` is the last guard: every log line's message (not the
traceback a bug of ours adds) is neutralised, whatever its arguments were.
"""

from __future__ import annotations

import logging

from .protocol.printable import escape, is_printable, is_printable_mark

MAX_MARKS = 3  # combining marks kept on one base character (the rest are escaped): a name allows as many


def neutral(text: object, limit: int | None = None) -> str:
    """`text` (a str, or anything: its str()) safe to print: every non-printable code point escaped, at most
    MAX_MARKS combining marks in a row, at most `limit` characters of the original (with `…` when cut)."""
    if not isinstance(text, str):
        text = str(text)
    cut = limit is not None and len(text) > limit
    if cut:
        text = text[:limit]
    if text.isascii() and text.isprintable():  # (printable ASCII is the same in every Unicode version: the table's)
        return text + ("…" if cut else "")
    return escaped(text) + ("…" if cut else "")


def escaped(text: str) -> str:
    """`text` by the table, code point by code point: every non-printable one escaped, at most MAX_MARKS combining
    marks in a row. A printable ASCII character (U+0020..U+007E: printable in the table, no mark) is kept as it is
    without asking the table (tests/net/test_neutral_text.py holds both ways to the table on all of ASCII)."""
    out: list[str] = []
    marks = 0
    for ch in text:
        cp = ord(ch)
        if 0x20 <= cp < 0x7F:
            marks = 0
            out.append(ch)
        elif not is_printable(cp):
            out.append(escape(cp))
            marks = 0
        elif is_printable_mark(cp):
            marks += 1
            out.append(ch if marks <= MAX_MARKS else escape(cp))
        else:
            marks = 0
            out.append(ch)
    return "".join(out)


def shown(text: object, limit: int = 24) -> str:
    """A stranger's text quoted for a message about it: neutralised, in quotes, at most `limit` characters
    (and how many more there were)."""
    text = text if isinstance(text, str) else str(text)
    more = f" (and {len(text) - limit} more characters)" if len(text) > limit else ""
    return "'" + neutral(text[:limit]).replace("'", "\\'") + "'" + more


PLAIN = {"plain": True}  # a log call's `extra` for news meant for the person: printed as a plain line


class NeutralFormatter(logging.Formatter):
    """A log line whose message is neutralised (a peer's text in its arguments cannot reach the terminal raw)."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        record.message = neutral(record.message)
        if getattr(record, "plain", False):  # news for the person (extra={"plain": True}): a line of its own,
            return record.message  # not a log line with a level and a logger's name
        return super().formatMessage(record)
