"""Formatted text for the full-screen UI: cards, rows, hand, players, overlays (pure functions of the model)."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.mouse_events import MouseEventType
from prompt_toolkit.styles import Style

from ..engine import BULL_HEADS
from ..i18n import N_, _, ngettext, pgettext
from .model import AWAY, COMMITTED, DROPPED, LEFT, REVEALED, ROW, TableModel, heads
from .words import bull_heads, clip, evening_lines, fit, wrap

STYLE = Style.from_dict({
    "title": "reverse bold",
    "h1": "bg:ansiwhite ansiblack",
    "h2": "bg:ansicyan ansiblack",
    "h3": "bg:ansiyellow ansiblack",
    "h5": "bg:ansired ansiwhite bold",
    "h7": "bg:ansimagenta ansiwhite bold",
    "selected": "reverse bold underline",
    "empty": "ansibrightblack",
    "danger": "ansired bold",
    "me": "bold",
    "status": "bold",
    "committed": "ansigreen bold",
    "warn": "ansired bold",
    "dim": "ansibrightblack",
    "overlay": "bg:ansiblack ansiwhite",
    "overlay.title": "bold underline",
    "frame.border": "ansibrightblack",
})

Fragments = list[tuple]
Click = Callable[[], None]


def card_style(card: int) -> str:
    return f"class:h{BULL_HEADS[card]}"


def clickable(action: Click | None):
    """A mouse handler running `action` on a click (None: no handler)."""
    if action is None:
        return None

    def handler(event) -> None:
        if event.event_type == MouseEventType.MOUSE_UP:
            action()
        else:
            return NotImplemented

    return handler


def card_cell(card: int, selected: bool = False, action: Click | None = None) -> Fragments:
    """One card, 7 columns: '[ 55*7]' when selected, ' 55*7 ' coloured by its bull heads otherwise."""
    left, right = ("[", "]") if selected else (" ", " ")
    style = card_style(card) + (" class:selected" if selected else "")
    frag = (style, f"{left}{card:>3}*{BULL_HEADS[card]}{right}")
    return [frag + (clickable(action),)] if action else [frag]


def row_lines(model: TableModel, choose: Callable[[int], Click] | None = None, marked: int | None = None) -> Fragments:
    """The four rows: up to five cards, the sixth slot marked '!6!', the bull-head total."""
    # The label column is 6 wide: the header's first word names it (German 'Reihe'), each row's label fits it.
    out: Fragments = [("class:dim", fit(_("row"), 6) + "   1      2      3      4      5  " + fit(_("6th bh"), 7, True)
                       + "\n")]
    for i, row in enumerate(model.shown_rows()):
        action = choose(i) if choose else None
        head_style = "class:selected" if marked == i else "class:status"
        label = fit(pgettext("a row's label, 6 columns", "row {n}").format(n=i + 1), 6)
        out.append((head_style, label) + ((clickable(action),) if action else ()))
        for card in row:
            out += card_cell(card, action=action)
        for _slot in range(len(row), 5):
            out.append(("class:empty", "   .   "))
        out.append(("class:danger", " !6! "))
        out.append(("", f"{heads(row):>3}\n"))
    return out


def row_heads_text(n: int) -> str:
    """A TV row's bull heads, its number at the same column in every row ("   1 bull head", "  13 bull heads"): the
    words right-aligned put "1 bull head" (German "1 Hornochse") a column right of "5 bull heads"."""
    return " " * (4 - len(str(n))) + bull_heads(n)


def big_row_lines(model: TableModel) -> Fragments:
    """The rows for a TV: cards two lines high, a blank line between rows."""
    out: Fragments = []
    for i, row in enumerate(model.shown_rows()):
        for line in range(2):
            out.append(("class:status", fit(_("row {n}").format(n=i + 1), 7) if line == 0 else "       "))
            for card in row:
                text = f"  {card:>3}  " if line == 0 else f"  {'*' * BULL_HEADS[card]:<5}"[:7]
                out += [(card_style(card), text), ("", " ")]
            for _slot in range(len(row), 5):
                out.append(("class:empty", "   .    " if line == 0 else "        "))
            out.append(("class:danger", "  !6!  " if line == 0 else "       "))
            out.append(("", row_heads_text(heads(row)) + "\n" if line == 0 else "\n"))
        out.append(("", "\n"))
    return out


def hand_line(model: TableModel, selected: int, select: Callable[[int], Click]) -> Fragments:
    out: Fragments = []
    for i, card in enumerate(model.hand):
        if i:
            out.append(("", " "))
        committed = model.committed == card
        out += card_cell(card, selected=(i == selected and model.asked == "card") or committed,
                         action=select(i))
    return out or [("class:dim", _("(no cards)"))]


SHORT = {ROW: N_("takes row"), DROPPED: N_("dropped")}  # statuses in at most 9 columns (translated where shown)
STATUS_STYLE = {COMMITTED: "class:committed", REVEALED: "class:status", ROW: "class:warn", DROPPED: "class:warn",
                AWAY: "class:warn", LEFT: "class:warn"}
NAME_WIDTH = 9  # the name column of the players' panel at 80 columns (a longer name is cut with a mark)
PLAYERS_WIDTH = 30  # the players' panel at 80 columns


def name_width(model: TableModel, spare: int) -> int:
    """The name column: 9, or wide enough for the longest name (and the '*' marking ours) when `spare` allows."""
    longest = max((len(p.name) + (seat == model.seat) for seat, p in enumerate(model.players)), default=0)
    return NAME_WIDTH + max(0, min(longest - NAME_WIDTH, spare))


def time_text(seconds: int) -> str:
    """A remaining time in at most 4 characters: 42s, 120s."""
    return f"{seconds}s"


def player_lines(model: TableModel, names: int = NAME_WIDTH) -> Fragments:
    """Name, status, the card revealed (or, while the player owes a move on a clock, the time left), points.

    `names`: the width of the name column (a name that does not fit is cut with a mark, '…').
    """
    head = (fit(_("player"), names), fit(_("status"), 9), fit(_("card"), 5), fit(_("pts"), 4, True))
    out: Fragments = [("class:dim", " ".join(head) + "\n")]
    for seat, p in enumerate(model.players):
        me = seat == model.seat
        name = ("*" if me else "") + p.name
        status = p.shown_status
        left = model.time_left(seat)
        out.append(("class:me" if me else "", f"{fit(name, names)} "))
        text = clip(_(SHORT.get(status, status)), 9)
        if left is not None:  # "choosing 42s": the time takes the last turn's card's place while the move is owed
            out.append((STATUS_STYLE.get(status, ""), text + " "))
            out.append(("class:warn" if left <= 15 else "class:status", f"{time_text(left):<{14 - len(text)}} "))
        else:
            out.append((STATUS_STYLE.get(status, ""), f"{text:<9} "))
            out += [(card_style(p.card), f"{p.card:>3}*{BULL_HEADS[p.card]}"), ("", " ")] if p.card else [
                ("", "      ")]
        out.append(("", f"{p.score:>4}\n"))
    return out


def prompt_lines(model: TableModel, typed: str, row_mark: int | None) -> Fragments:
    """What the game wants from me now, in one or two lines."""
    if model.over is not None or model.aborted:
        return [("class:status", _("The game is over: press Enter to see the results, q to leave."))]
    if model.spectator:
        waiting = model.waiting_names()
        return [("", _("Watching.") + " " + (_("Waiting for: {names}").format(names=", ".join(waiting))
                                             if waiting else ""))]
    if model.asked in ("card", "row") and model.placing_now:  # the prompt waits until the last turn is placed
        return [("class:dim", _("Placing the cards of turn {turn}...").format(turn=model.turn))]
    if model.asked == "row":
        out: Fragments = [("class:warn", _("Your {card} is below every row: take a row (1-4)").format(
            card=model.my_row_card) + "\n")]
        for i, row in enumerate(model.shown_rows()):  # the totals of the rows drawn
            style = "class:selected" if row_mark == i else "class:status"
            out.append((style, f"[{i + 1}] {bull_heads(heads(row))}"))
            out.append(("", "   "))
        return out
    if model.asked == "card":
        out = [("class:status", _("Your turn: choose a card") + " ")]
        out.append(("class:dim", _("(←/→ or click, or type its number) and press Enter")))
        if typed:  # on a line of its own: at 80 columns it would wrap the hint mid-word
            out.append(("class:selected", "\n" + _("typed: {typed}").format(typed=typed)))
        return out
    if model.asked == "pick":
        return [("class:status", _("Draft: type the number of an open card and press Enter:") + " "
                 + " ".join(map(str, model.open_cards)))]
    waiting = model.waiting_names()
    if model.committed is not None:
        out = [("class:committed", _("Committed {card}.").format(card=model.committed) + " ")]
    else:
        out = []
    return out + [("", _("Waiting for: {names}").format(names=", ".join(waiting)) if waiting
                   else _("Waiting for the next turn"))]


def scoresheet(model: TableModel, width: int = 80) -> list[str]:
    """Points by round and seat, and the totals; the columns narrow so that 10 players fit in `width`."""
    column = max(5, min(9, (width - 6) // max(1, len(model.players))))
    lines = [fit(_("round"), 5) + " " + "".join(" " + fit(p.name, column - 1, right=True) for p in model.players)]
    if model.before:  # a game that carries: the totals it started from, after the rounds of the game it continues
        rounds = "1" if model.before == 1 else f"1-{model.before}"
        lines.append(f"{rounds:>5} " + "".join(f"{p:>{column}}" for p in model.carried))
    for r, penalties in enumerate(model.sheet):
        lines.append(f"{model.round_no(r):>5} " + "".join(f"{'+' + str(p):>{column}}" for p in penalties))
    lines.append(fit(_("total"), 5) + " " + "".join(f"{p.score:>{column}}" for p in model.players))
    return lines


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st ... (German: 1., 2., 3.)"""
    if _("1st") != "1st":  # a language whose ordinals are the number and a mark (German: '1.')
        return _("{n}th").format(n=n)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def placings(model: TableModel) -> list[str]:
    """Everyone ranked by points, fewest first; equal points share a place (marked =)."""
    scores = [p.score for p in model.players]
    lines = []
    for seat in sorted(range(len(scores)), key=lambda s: (scores[s], s)):
        place = 1 + sum(1 for x in scores if x < scores[seat])
        tie = "=" if scores.count(scores[seat]) > 1 else " "
        points = ngettext("point", "points", scores[seat])
        lines.append(f"{ordinal(place):>5}{tie} {fit(model.players[seat].name, 24)} {scores[seat]:>4} {points}")
    return lines


HELP = N_("""Keys
  Left / Right     choose a card in your hand (or click it)
  0-9              type a card's number
  Enter            commit the chosen or typed card (click a chosen card too)
  1-4              when you take a row: that row (Up/Down + Enter too)
  Backspace        clear what you typed
  a                ask the stand-in to play for the players this turn
                   waits on (once all others ask, it plays their move)
  m                mute / unmute the bell at 15 s left on your clock
  ?                this help
  q / Ctrl-C       leave the game (asks first)

Cards show number*bull heads, coloured by bull heads (1, 2, 3, 5, 7).
A row takes at most 5 cards: the 6th card placed takes the row (!6!).
A card below every row end takes a row of its player's choice.
Press any key to close this help.""")


CARDS_HELP = N_("""Cards show number*bull heads, coloured by bull heads (1, 2, 3, 5, 7).
A row takes at most 5 cards: the 6th card placed takes the row (!6!).
A card below every row end takes a row of its player's choice.
Press any key to close this help.""")

# A spectator's help (watch, the TV view): it plays nothing, so none of the seat's keys.
WATCH_HELP = N_("""Keys
  ?                this help
  q / Ctrl-C       leave (asks first)

The table follows the game by itself: every turn is shown as it is played.""")

# `p2pnimmt replay`'s help: the keys that step through the game.
REPLAY_HELP = N_("""Keys
  Left / Right     a step back / on (a deal, a turn's reveal, its placing)
  PgUp / PgDn      the round before / the next round
  Home / End       the first / the last step
  ?                this help
  q / Ctrl-C       close the replay (asks first)""")


def evening_block(model: TableModel) -> list[str]:
    """The evening's table of games under a blank line, from the second game of the evening on (else none)."""
    games, rows = model.evening_table()
    return ["", *evening_lines(games, rows, 16)] if games else []


def fitted(lines: list[str], rows: int | None, sheet: list[str]) -> str:
    """`lines` as the text of a screen `rows` high (None: any height), its last line (the keys) always shown: when
    they do not fit, the blank lines go first, then the scoresheet's rounds (`sheet`: its lines, whose header and
    total stay), then lines from the middle (marked …). At 80x24 the second game's results, with the evening's
    table, were taller than the screen: the keys line and the transcript's verdict were cut off."""
    if rows is None or len(lines) <= rows:
        return "\n".join(lines)
    lines = [line for line in lines if line]
    if len(lines) > rows and len(sheet) > 2:
        rounds = set(sheet[1:-1])
        lines = [line for line in lines if line not in rounds]
    if len(lines) > rows:
        lines = lines[:max(0, rows - 2)] + ["…", lines[-1]]
    return "\n".join(lines)


def round_text(model: TableModel, rows: int | None = None) -> str:
    """The round-end screen: each seat's penalty and total, the scoresheet, the evening's table of games (fitted to
    `rows` lines)."""
    assert model.round_over is not None  # the screen is up only at a round's end
    rnd, penalties, scores = model.round_over
    lines = [_("End of round {round}").format(round=model.round_no(rnd)), ""]
    lines += [f"  {fit(p.name, 16)} +{n:<4} " + _("total {points}").format(points=s)
              for p, n, s in zip(model.players, penalties, scores)]
    sheet = scoresheet(model)
    lines += ["", *sheet]
    lines += evening_block(model)
    lines += ["", _("Press Enter for the next round.")]
    return fitted(lines, rows, sheet)


def over_text(model: TableModel, *, again: bool, rows: int | None = None) -> str:
    """The game-over screen (or why the game was aborted), fitted to `rows` lines; `again`: `r` offers a rematch
    here."""
    if model.aborted:
        return _("The game was aborted.") + f"\n\n{model.aborted}\n\n" + _("Press Enter to leave.")
    winners = model.winners()
    named = _("Winners: {names}") if len(winners) > 1 else _("Winner: {names}")
    lines = [_("GAME OVER"), "", named.format(names=", ".join(winners)), ""]
    sheet = scoresheet(model)
    lines += placings(model) + [""] + sheet
    lines += evening_block(model)
    if model.verified:
        lines += ["", model.verified]
    lines += ["", *wrap(model.rematch, 76)] if model.rematch else []
    keys = _("r: play again (same seats)   Enter or q: leave") if again else _("Press Enter or q to leave.")
    return fitted(lines + ["", keys], rows, sheet)
