"""The TV view on a big terminal (120x40 and larger): the rows as big cards, the scores in big digits, the code.

Read from a sofa: each card is a box 15 columns by 6 lines, coloured by its bull heads, its number in digits
three lines high and its bull heads as stars; every player's score in the same digits; the game's code in the
title bar for whoever arrives late. Below 120x40 the TV keeps the ordinary layout (ui.app). Pure functions
of the model, and one layout that ui.app.TableApp shows in place of its TV layout when the screen fits.
"""

from __future__ import annotations

from prompt_toolkit.data_structures import Point
from prompt_toolkit.layout import HSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension as D

from ..engine import BULL_HEADS
from ..i18n import _, ngettext
from .letters import DIGITS as PIXELS
from .model import TableModel, heads
from .words import columns, fit, n_games

BIG_WIDTH, BIG_HEIGHT = 120, 40  # the smallest screen drawn this way
CARD_WIDTH, CARD_HEIGHT = 15, 6
ROWS_HEIGHT = 4 * CARD_HEIGHT + 3  # a blank line between rows
BAND_HEIGHT = 6  # the players: name, score (3 lines), status, the card revealed

Fragments = list[tuple]

HALF = {("1", "1"): "█", ("1", "0"): "▀", ("0", "1"): "▄", ("0", "0"): " "}


def fits(size) -> bool:
    """The screen is big enough for this view."""
    return size.columns >= BIG_WIDTH and size.rows >= BIG_HEIGHT


def big_digits(number: int) -> list[str]:
    """`number` in digits three lines high, a column between digits: big_digits(7) == ['▀▀█', '  █', '  ▀']."""
    lines = ["", "", ""]
    for i, digit in enumerate(str(number)):
        pixels = PIXELS[digit] + ("000",)
        for line in range(3):
            top, bottom = pixels[2 * line], pixels[2 * line + 1]
            lines[line] += (" " if i else "") + "".join(HALF[t, b] for t, b in zip(top, bottom))
    return lines


def card_lines(card: int) -> list[str]:
    """One card as a box: its number big, its bull heads as stars."""
    inner = CARD_WIDTH - 2
    digits = big_digits(card)
    stars = " ".join("*" * BULL_HEADS[card])
    return (["┌" + "─" * inner + "┐"] + [f"│{d:^{inner}}│" for d in digits] + [f"│{stars:^{inner}}│"]
            + ["└" + "─" * inner + "┘"])


def empty_lines() -> list[str]:
    inner = CARD_WIDTH - 2
    middle = CARD_HEIGHT // 2 - 1
    return ["┌" + "┄" * inner + "┐"] + [
        "┆" + (" " * inner if line != middle else f"{'.':^{inner}}") + "┆" for line in range(CARD_HEIGHT - 2)] + [
        "└" + "┄" * inner + "┘"]


def sixth_lines() -> list[str]:
    return ["       ", "       ", "  !6!  ", "       ", "       ", "       "]


def row_lines(model: TableModel) -> Fragments:
    """The four rows as big cards (the screen's placing of the last turn included), each with its total."""
    out: Fragments = []
    for i, row in enumerate(model.shown_rows()):
        slots = [(f"class:h{BULL_HEADS[c]}", card_lines(c)) for c in row] + [
            ("class:empty", empty_lines()) for _ in range(len(row), 5)]
        total = heads(row)
        label = _("row {n}").format(n=i + 1)
        width = max(6, columns(label) + 1)  # 'row 1 ', 'Reihe 1 '
        total_lines = ["", *big_digits(total), ngettext("bull head", "bull heads", total), ""]
        for line in range(CARD_HEIGHT):
            out.append(("class:status", fit(label, width) if line == 2 else " " * width))
            for style, lines in slots:
                out += [(style, lines[line]), ("", " ")]
            out.append(("class:danger", sixth_lines()[line]))
            out.append(("class:status" if line else "", f"  {total_lines[line]}\n"))
        if i < 3:
            out.append(("", "\n"))
    return out


def band_lines(model: TableModel, columns: int) -> Fragments:
    """Every player side by side: the name, the score in big digits, the status and the card revealed."""
    players = model.players
    if not players:
        return []
    width = max(12, min(24, columns // len(players)))
    winners = set(model.over.winners) if model.over is not None else set()
    out: Fragments = []
    for seat, p in enumerate(players):
        style = "class:committed" if seat in winners else "class:status"
        out.append((style, fit(p.name, width - 1) + " "))
    out.append(("", "\n"))
    scores = [big_digits(p.score) for p in players]
    for line in range(3):
        out += [("class:status", f"{s[line]:<{width}}") for s in scores]
        out.append(("", "\n"))
    for p in players:
        out.append(("class:dim", fit(_(p.shown_status), width - 1) + " "))
    out.append(("", "\n"))
    for p in players:
        card = f"{p.card}*{BULL_HEADS[p.card]}" if p.card else ""
        out += [(f"class:h{BULL_HEADS[p.card]}" if p.card else "", card), ("", " " * (width - len(card)))]
    return out


def evening_line(model: TableModel) -> Fragments:
    """The evening's table on one line under the scores (after a rematch), or nothing."""
    games, rows = model.evening_table()
    if not games:
        return []
    items = [_("{name} {wins} won {points} pts").format(name=r.name, wins=r.wins, points=r.points) for r in rows]
    return [("class:status", " " + _("The evening ({games}):").format(games=n_games(games)) + "  "),
            ("", "   ".join(items))]


def layout(ui) -> HSplit:
    """The big TV screen of a ui.app.TableApp: its title (and the game's code), rows, players, the last turn."""
    model = ui.model

    def text(get, **kw) -> Window:
        return Window(FormattedTextControl(get, focusable=False), **kw)

    def title() -> str:
        code = getattr(ui, "code", None)
        join = "   " + _("game {code}: join with  p2pnimmt watch {code}  or  p2pnimmt join {code}").format(
            code=code) if code else ""
        return ui._title() + join

    return HSplit([
        text(title, height=1, style="class:title"),
        text(lambda: row_lines(model), height=D.exact(ROWS_HEIGHT)),
        Window(height=1, char="─", style="class:dim"),
        text(lambda: band_lines(model, ui.size().columns), height=D.exact(BAND_HEIGHT)),
        text(lambda: evening_line(model), height=lambda: D.exact(1 if model.evening_table()[0] else 0)),
        Window(height=1, char="─", style="class:dim"),
        text(lambda: ui._message(ui.size().columns), height=lambda: ui._message_height(ui.size().columns)),
        text(ui._tv_prompt, height=1),
        Window(FormattedTextControl(lambda: "\n".join(model.log),
                                    get_cursor_position=lambda: Point(0, max(len(model.log) - 1, 0))),
               wrap_lines=False, style="class:dim"),  # the latest lines of the log, as far as there is room
        text(lambda: [("class:dim", " " + _(ui.tv_keys))], height=1),
    ])
