"""Words for the screens and lines: counts with the right number, names cut with a mark (no prompt_toolkit)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from functools import cache

from ..i18n import N_, _, evening_rounds, ngettext, said

ELLIPSIS = "…"


@cache
def _wcwidth() -> Callable[[str], int]:
    """wcwidth.wcwidth, prompt_toolkit's own measure of a character's columns (it depends on wcwidth); loaded when
    a text is first measured (its tables are 2 MB of a headless seat's memory, which never measures one)."""
    from wcwidth import wcwidth

    return wcwidth


def columns(text: str) -> int:
    """How many terminal columns `text` takes: an emoji or a CJK character two, a combining mark none."""
    wcwidth = _wcwidth()
    return sum(max(wcwidth(ch), 0) for ch in text)


def where_it_stops(session) -> tuple[str, list[str]]:
    """Where a game left before its end stops, for `replay` and `verify`: 'round 2, turn 4' (the evening's round),
    and the names of those whose move the transcript ends waiting for."""
    where = _("round {round}, turn {turn}").format(round=session.game.round_no(session.round), turn=session.turn + 1)
    return where, [session.names[s] for s in session.waiting_for()]


def bull_heads(n: int) -> str:
    """'1 bull head', '11 bull heads' (German: '1 Hornochse', '11 Hornochsen')."""
    return ngettext("{n} bull head", "{n} bull heads", n).format(n=n)


def n_points(n: int) -> str:
    """'1 point', '66 points' (German '1 Punkt', '66 Punkte'): the evening's score, where a row's or a card's cost is in
    bull heads (bull_heads)."""
    return ngettext("{n} point", "{n} points", n).format(n=n)


def n_cards(n: int) -> str:
    """'1 card', '5 cards'."""
    return ngettext("{n} card", "{n} cards", n).format(n=n)


def n_games(n: int) -> str:
    """'1 game', '2 games'."""
    return ngettext("{n} game", "{n} games", n).format(n=n)


def n_rounds(n: int) -> str:
    """'1 round', '3 rounds'."""
    return ngettext("{n} round", "{n} rounds", n).format(n=n)


def clip(text: str, width: int) -> str:
    """`text` if it fits in `width` columns, else cut with a mark: clip('bartholomew', 8) == 'barthol…'.
    Columns, not characters: a name of emoji is cut where the screen would overflow."""
    if columns(text) <= width:
        return text
    if width <= 0:
        return ""
    kept, used, wcwidth = [], 0, _wcwidth()
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


def count(n: int, one: str, many: str | None = None) -> str:
    """'1 card', '3 cards' (English only: a translated count is one of n_cards, n_games, n_rounds, bull_heads)."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def agrees(subject: str, third: str, base: str) -> str:
    """The English verb for `subject`: base form after 'you' (our seat, or a player named 'you'), else third person."""
    return base if subject.strip().lower() == "you" else third


def addressed(subject: str) -> bool:
    """`subject` is spoken to (our seat, or a player named 'you' or its translation, the default name): its line
    takes the second person ('you take row 2', 'du nimmst Reihe 2')."""
    return subject.strip().lower() in ("you", _("you").lower())


def evening_lines(games: int, rows, width: int = 20) -> list[str]:
    """The evening's table as lines: per player (rows with name, games, wins, points) across `games` games."""
    heads = (_("games"), _("won"), _("points"))
    g, w, p = (max(least, columns(head)) for least, head in zip((5, 4, 6), heads))  # a longer word widens its column
    lines = [_("The evening: {games}").format(games=n_games(games)),
             "  " + fit(_("player"), width) + f" {heads[0]:>{g}} {heads[1]:>{w}} {heads[2]:>{p}}"]
    lines += [f"  {fit(r.name, width)} {r.games:>{g}} {r.wins:>{w}} {r.points:>{p}}" for r in rows]
    return lines


VARIANTS = {"standard": N_("standard"), "tactical": N_("tactical"), "draft": N_("draft")}
DEALS = (N_("sealed"), N_("open"))  # the deal's names, translated where shown


PHASES = {"lobby": N_("lobby"), "starting": N_("starting"), "deal": N_("deal"), "turn": N_("turn"),
          "round-end": N_("round end"), "game-end": N_("game end"), "over": N_("over"), "aborted": N_("aborted")}


def phase_name(phase: str) -> str:
    """A session's phase (protocol.phase.Phase) in the language in use: 'turn', German 'Zug'."""
    return _(PHASES[phase]) if phase in PHASES else phase


def variant_name(variant: str) -> str:
    """A variant's name in the language in use: 'standard', German 'Standard'."""
    return _(VARIANTS[variant]) if variant in VARIANTS else variant


def end_text(settings) -> str:
    """When the game ends, in words: "66 points", "3 rounds" or "66 points or 3 rounds" (the engine's
    Settings.end_text, in the language in use)."""
    parts = (_("{points} points").format(points=settings.point_limit) if settings.point_limit else "",
             n_rounds(settings.max_rounds) if settings.max_rounds else "")
    return _(" or ").join(part for part in parts if part)


def too_long() -> str:
    """Why a host may not set up a game of these limits over the network (engine.game.ends_in_time)."""
    from ..engine.game import NETWORK_MAX_POINTS, NETWORK_MAX_ROUNDS

    return _("a game over the network ends within {rounds} rounds: a round limit of {rounds} or fewer, or a point "
             "limit of {points} or fewer (every seat may sign 16,384 messages and 4 MiB in a game)").format(
        rounds=NETWORK_MAX_ROUNDS, points=NETWORK_MAX_POINTS)


def dropped_said(name: str, left: bool) -> str:
    """A seat dropped (the stand-in plays its hand): voted out after its link went, or after it left on purpose
    (said `bye`: Node.left_seats), which is no fault."""
    return (_("{name} left the game: a stand-in plays that hand") if left else
            _("{name} was dropped by the others' vote: a stand-in plays that hand")).format(name=name)


def void_said(reason: str, seat: int | None, names: Sequence[str], left: Collection[int], before: int) -> str:
    """Why a round is void, as a person reads it (RoundVoided's `reason` and `absent`): the seat whose drop voided it
    left the game if it left on purpose (said `bye`) after it shuffled; the protocol's words otherwise (a seat that
    vanished stopped before sending its part, an audit's verdict)."""
    if seat is not None and seat in left and seat < len(names):
        return _("{name} left the game after shuffling the round's cards").format(name=names[seat])
    return said(evening_rounds(reason, before))
