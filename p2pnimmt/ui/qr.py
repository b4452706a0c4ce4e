"""A QR code in a terminal: two rows of modules to a line of half blocks, dark on light (segno encodes it).

The host's lobby shows its invite link so beside the game's code (red team, session 29: a stranger on the LAN can
answer for a host's code on mDNS; the link, whose host key the handshake proves, does not go through mDNS), so a
phone's camera takes the link as easily as a person reads the code."""

from __future__ import annotations

from functools import lru_cache

BORDER = 2  # light modules around the code (a reader needs a quiet zone; 4 by the book, 2 reads on a screen)
STYLE = "fg:#000000 bg:#ffffff"  # dark modules on light, whatever the terminal's colours
_HALVES = {(True, True): "█", (True, False): "▀", (False, True): "▄", (False, False): " "}


@lru_cache(maxsize=8)
def qr_lines(text: str) -> tuple[str, ...]:
    """`text` as a QR code, in lines of half blocks (a module is one column wide and half a line high)."""
    import segno

    rows = [[bool(dark) for dark in row] for row in segno.make(text, error="l").matrix]
    width = len(rows[0]) + 2 * BORDER
    rows = [[False] * width] * BORDER + [[False] * BORDER + row + [False] * BORDER for row in rows] \
        + [[False] * width] * (BORDER + 1)  # an even count of rows: the last line's lower half is light
    return tuple("".join(_HALVES[top, low] for top, low in zip(rows[i], rows[i + 1], strict=True))
                 for i in range(0, len(rows) - 1, 2))


def modules(lines: tuple[str, ...] | list[str]) -> list[list[bool]]:
    """The dark and light modules that lines of half blocks show (qr_lines read back, border included)."""
    tops = {"█": (True, True), "▀": (True, False), "▄": (False, True), " ": (False, False)}
    rows: list[list[bool]] = []
    for line in lines:
        pairs = [tops[ch] for ch in line]
        rows += [[top for top, _ in pairs], [low for _, low in pairs]]
    return rows
