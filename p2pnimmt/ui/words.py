"""Words for the screens and lines: counts with the right number, names cut with a mark (no prompt_toolkit)."""

from __future__ import annotations

from wcwidth import wcwidth  # prompt_toolkit's own measure of a character's columns (it depends on wcwidth)

ELLIPSIS = "…"


def columns(text: str) -> int:
    """How many terminal columns `text` takes: an emoji or a CJK character two, a combining mark none."""
    return sum(max(wcwidth(ch), 0) for ch in text)


def count(n: int, one: str, many: str | None = None) -> str:
    """'1 card', '3 cards', '1 bull head', '0 bull heads'."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def bull_heads(n: int) -> str:
    """'1 bull head', '11 bull heads'."""
    return count(n, "bull head")


def clip(text: str, width: int) -> str:
    """`text` if it fits in `width` columns, else cut with a mark: clip('bartholomew', 8) == 'barthol…'.
    Columns, not characters: a name of emoji is cut where the screen would overflow."""
    if columns(text) <= width:
        return text
    if width <= 0:
        return ""
    kept, used = [], 0
    for ch in text:
        used += max(wcwidth(ch), 0)
        if used > width - 1:
            break
        kept.append(ch)
    return "".join(kept) + ELLIPSIS


def fit(text: str, width: int, right: bool = False) -> str:
    """`text` clipped to `width` columns and padded to exactly `width` (a table's column, emoji or not);
    `right`: padded on the left."""
    text = clip(text, width)
    pad = " " * (width - columns(text))
    return pad + text if right else text + pad


def wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` columns, broken between words (a word longer than a line is cut)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        while len(word) > width > 0:  # a word longer than a line: cut, with a mark
            if line:
                lines.append(line)
                line = ""
            lines.append(word[: width - 1] + ELLIPSIS)
            word = ""
        if not word:
            continue
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines or [""]


def agrees(subject: str, third: str, base: str) -> str:
    """The verb for `subject`: base form after 'you' (our seat, or a player named 'you'), else third person."""
    return base if subject.strip().lower() == "you" else third


def evening_lines(games: int, rows, width: int = 20) -> list[str]:
    """The evening's table as lines: per player (rows with name, games, wins, points) across `games` games."""
    lines = [f"The evening: {count(games, 'game')}", f"  {'player':<{width}} {'games':>5} {'won':>4} {'points':>6}"]
    lines += [f"  {fit(r.name, width)} {r.games:>5} {r.wins:>4} {r.points:>6}" for r in rows]
    return lines
