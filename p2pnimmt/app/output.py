"""Lines for the user: printing, the one reader of standard input, game progress, and benchmark stamps."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..i18n import _, fault_said
from ..protocol.events import (
    Committed,
    Event,
    GameAborted,
    GameOver,
    GameStarted,
    RoundEnded,
    RoundStarted,
    RoundVoided,
    SeatBack,
    SeatDropped,
    TurnResolved,
)
from ..ui.lines import LineSeat, StdinLines
from ..ui.words import dropped_said, n_rounds, void_said

_stdin: StdinLines | None = None

# The lines the last game ended with (its result, its transcript's file): the start menu shows them again, over
# the terminal where they were printed (cli.from_menu).
closing: list[str] = []


def say(text: str) -> None:
    print(text, flush=True)


def say_closing(lines: list[str], last: list[str] | None = None) -> None:
    """Print a game's closing lines (an evening's: every game's) and keep the last game's (`last`, else all of
    `lines`) for the start menu."""
    for line in lines:
        say(line)
    closing[:] = lines if last is None else last


def farewell(model) -> list[str]:
    """What stays in the terminal's scrollback once the full screen is gone: the scores, and who won."""
    if not model.players:
        return []
    scores = ", ".join(f"{p.name} {p.score}" for p in model.players)
    if model.over is not None:
        winners = model.winners()
        won = _("Winners: {names}") if len(winners) > 1 else _("Winner: {names}")
        return [_("Game over after {rounds}: {scores}.").format(rounds=n_rounds(model.over.rounds), scores=scores),
                won.format(names=", ".join(winners)) + "."]
    return [_("You left in round {round}, turn {turn}. Scores so far: {scores}.").format(
        round=model.round + 1, turn=min(model.turn, 9) + 1, scores=scores)]


def stdin_lines() -> StdinLines:
    """The one reader of standard input for this process."""
    global _stdin
    if _stdin is None:
        _stdin = StdinLines()
    return _stdin


def rounds_before(session) -> int:
    """The rounds of the evening before `session`'s game: those of the game it continues (START's `carry`), else 0."""
    game = getattr(session, "game", None)  # None before the START
    return game.before if game is not None else 0


def evening_round(session) -> int:
    """The evening's number of the round `session` is in: a game that carries counts on from the rounds of the game
    it continues (protocol.md 9, START's `carry`), as its totals and every screen do (ui.model.TableModel.round_no)."""
    game = session.game
    return game.round_no(session.round) if game is not None else session.round + 1


def reporter(lines: StdinLines | None = None,
             evening: Callable[[Any], list[str]] | None = None) -> Callable[[object, Event], None]:
    """Prints game progress; given `lines`, also the table and prompts for a person; `evening(node)`: the
    evening's table, printed after each round and at the game's end (none while the evening has one game)."""
    def say_lines(*text: str) -> None:
        for line in text:
            say(line)

    person = LineSeat(lines.read, say_lines) if lines is not None else None

    def report(node, event: Event) -> None:
        if person is not None:
            person.on_event(node, event)
        if isinstance(event, GameStarted):
            seat = _("seat {seat}").format(seat=event.seat + 1) if event.seat is not None else _("spectator")
            say(_("game started: {names} (you: {seat})").format(names=", ".join(event.names), seat=seat))
            carry = node.session.start.body.get("carry")
            if carry is not None:  # it continues a game a seat's equivocation ended (protocol.md 9, 12)
                say(_("it carries the scores after round {round}: {scores}; the rounds left are played").format(
                    round=carry["rounds"], scores=", ".join(f"{name} {p}" for name, p in zip(
                        event.names, carry["scores"], strict=True))))
        elif isinstance(event, RoundEnded):
            n = node.session.names
            say(_("round {round}: {penalties} | scores: {scores}").format(
                round=node.session.game.round_no(event.round),  # a game that carries: the evening's rounds
                penalties=", ".join(f"{n[i]} +{p}" for i, p in enumerate(event.penalties)),
                scores=", ".join(f"{n[i]} {p}" for i, p in enumerate(event.scores))))
        elif isinstance(event, GameOver):
            n = node.session.names
            say(_("final scores: {scores}").format(scores=", ".join(f"{n[i]} {p}" for i, p in enumerate(event.scores))))
            say((_("winners: {names}") if len(event.winners) > 1 else _("winner: {names}")).format(
                names=", ".join(n[i] for i in event.winners)))
        if isinstance(event, (RoundEnded, GameOver)) and evening is not None:
            for line in evening(node):
                say(line)
        elif isinstance(event, RoundVoided):
            say(_("round {round} is void (nobody scores it): {reason}").format(
                round=node.session.game.round_no(event.round),
                reason=void_said(event.reason, event.absent, node.session.names, node.left_seats(),
                                node.session.game.before)))
        elif isinstance(event, SeatDropped):
            say(dropped_said(node.session.names[event.seat], event.seat in node.left_seats()))
            if event.seat == node.session.seat and node.bot is None and not getattr(node, "resumed", False):
                say(_("you were dropped: type anything to ask for your seat back from a next round"))
        elif isinstance(event, SeatBack):
            say(_("{name} is back in the game from round {round}").format(name=node.session.names[event.seat],
                                                                          round=node.session.game.round_no(event.round)))
        elif isinstance(event, GameAborted):
            say(_("game aborted: {why}").format(
                why=fault_said(event.fault, dict(zip(node.session.roster, node.session.names)),
                               rounds_before(node.session))))

    return report


def stamp(node, event: Event) -> None:
    """For the benchmarks (P2PNIMMT_TIMING): when our own commit went out, when a turn was resolved here, when a
    round was dealt and ended; each line `timing KIND ROUND TURN MONOTONIC CPU`, CPU this process's time so far."""
    if isinstance(event, Committed) and event.seat == node.session.seat:
        head, r, t = "timing commit ", event.round, event.turn
    elif isinstance(event, TurnResolved):
        head, r, t = "timing resolved ", event.round, event.turn
    elif isinstance(event, RoundStarted):
        head, r, t = "timing dealt ", event.round, 0
    elif isinstance(event, RoundEnded):
        head, r, t = "timing ended ", event.round, 0
    else:
        return
    print(f"{head}{r} {t} {time.monotonic():.6f} {time.process_time():.6f}", flush=True)
