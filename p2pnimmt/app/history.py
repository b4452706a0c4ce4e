"""`p2pnimmt history`: the games this machine has played, from the transcripts kept in the user's data directory.

Every networked game writes its transcript under `data_dir()/transcripts` (XDG_DATA_HOME, else
~/.local/share/p2pnimmt); each is re-checked on the spot with the same replay `p2pnimmt verify` uses.
`--stats` adds up, per player (people by name and fingerprint, bots by name): games, wins and mean points
per round.
"""

from __future__ import annotations

import os
import shlex
import textwrap
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..i18n import N_, _, evening_rounds, ngettext, said
from ..net.discovery import game_code
from ..net.files import data_dir
from ..protocol.identity import fingerprint, peer_id
from ..protocol.transcript import read_file
from ..protocol.verify import TranscriptError, replay
from ..ui.words import where_it_stops
from .anew import abandoned_why, carried_on, read_secrets
from .evening import previous_of

WIDTH = 80  # a game's head and replay lines fit a terminal this wide (tests/app/test_history.py)
STATUSES = (N_("finished"), N_("aborted"), N_("unfinished"), N_("damaged"), N_("not started"), N_("bot"),
            N_("abandoned"))


def transcripts_dir() -> Path:
    return data_dir() / "transcripts"


def shown_path(path: Path) -> str:
    """A transcript as `history` names it, quoted for the shell: its name alone when it lies in the transcripts
    folder (`p2pnimmt replay NAME` finds it there; the line stays inside 80 columns), else its whole path."""
    return shlex.quote(path.name if path.parent == transcripts_dir() else str(path))


def fitted(line: str) -> list[str]:
    """A line of the history in lines of at most WIDTH columns, broken between words, the further ones indented
    (a damaged game's reason, an abandoned game's why, a long `[NOT verified: ...]`)."""
    return textwrap.wrap(line, WIDTH, subsequent_indent="    ", break_long_words=False, break_on_hyphens=False)


def command_line(label: str, command: str) -> list[str]:
    """`label: command` on one line of at most WIDTH columns, or the command on a line of its own under its label
    where both would run past it (a long transcript name: `NAME-2.p2pt`); the command is never broken."""
    beside = f"    {label} {command}"
    return [beside] if len(beside) <= WIDTH else [f"    {label}", f"      {command}"]


def transcript_file(name: str) -> str:
    """FILE as `p2pnimmt replay` reads it: as given, or, when there is no such file here and it is a bare name, the
    transcript of that name in the transcripts folder (the name `history` shows)."""
    kept = transcripts_dir() / name
    return str(kept) if not os.path.exists(name) and os.sep not in name and kept.is_file() else name


@dataclass(frozen=True)
class Player:
    name: str
    who: str  # the fingerprint of a person's key, or "bot"
    score: int
    won: bool
    me: bool
    peer: bytes = b""  # the seat's peer id (people and bots are told apart by their key across a rematch)


@dataclass(frozen=True)
class GameRecord:
    """What one transcript says of its game; `problem` is why it does not verify ('' if it does)."""

    path: Path
    when: float
    status: str  # "finished", "aborted", "unfinished", "damaged", "not started" or "abandoned" (app.anew)
    variant: str = ""
    deal: str = ""
    rounds: int = 0
    players: tuple[Player, ...] = field(default_factory=tuple)
    problem: str = ""
    game_id: bytes = b""
    previous: bytes | None = None  # the game this one is a rematch of (its START's `previous`)
    carried_on: bool = False  # abandoned after its start (a seat's equivocation): the new game carries its scores
    stops: str = ""  # where an unfinished game stops ('round 2, turn 4', as `verify` says it); its head says so

    @property
    def verified(self) -> bool:
        return self.status == "finished" and not self.problem


def read_game(path: Path) -> GameRecord:
    """Replay one transcript (the checks of `p2pnimmt verify`) and say what game it holds."""
    when = path.stat().st_mtime
    try:
        data = read_file(str(path))  # at most MAX_FILE: a /dev/zero linked here is no endless read
    except OSError as exc:
        return GameRecord(path, when, "damaged", problem=_("cannot read it: {why}").format(why=exc.strerror or exc))
    problem = ""
    try:
        state = replay(data, complete=False)  # a game still going, or cut short, is read as far as it goes
    except TranscriptError as exc:
        return GameRecord(path, when, "damaged", problem=exc.verdict().report())
    session = state.session
    game = session.game
    if game is None:  # a lobby that closed, or a join the host refused: no game to list
        return GameRecord(path, when, "not started", problem=_("no game started in it"))
    stops = ""
    if session.phase == "over":
        try:
            state.finish()  # the end as `verify` checks it (the seal, the result)
        except TranscriptError as exc:
            return GameRecord(path, when, "damaged", problem=exc.verdict().report())
    me = peer_id(state.recorder) if state.recorder else None
    winners = set(session.result.winners) if session.phase == "over" else set()
    players = tuple(Player(name, "bot" if bot else fingerprint(peer), score, seat in winners, peer == me, peer)
                    for seat, (name, peer, bot, score) in
                    enumerate(zip(session.names, session.roster, session.bots, game.scores)))
    status = {"over": "finished", "aborted": "aborted"}.get(str(session.phase), "unfinished")
    # aborted too: a START_ACK equivocation found once this node had started (protocol.md 12, "A refused START_ACK")
    why = abandoned_why(read_secrets(path)) if session.phase in ("starting", "aborted") else None
    if why is not None:  # a seat left before its START_ACK (or its START_ACK was refused): its players went on anew
        status, problem = "abandoned", why
    elif session.fault is not None:
        problem = _("aborted: {why}").format(why=evening_rounds(session.fault.detail, game.before))
    elif status == "unfinished":  # where it stops in `verify`'s words (its UNFINISHED line): 'round 2, turn 4'
        stops = where_it_stops(session)[0]
        problem = _("unfinished")
    # a game that carries: the evening's rounds, which its scores count (the game it continues is not finished)
    return GameRecord(path, when, status, game.settings.variant, game.settings.deal, game.before + game.rounds_played,
                      players, problem, session.game_id, previous_of(session), carried_on(session), stops)


def games(folder: Path | None = None) -> list[GameRecord]:
    """Every transcript in the folder, oldest first."""
    folder = folder or transcripts_dir()
    if not folder.is_dir():
        return []
    return sorted((read_game(p) for p in folder.glob("*.p2pt") if p.is_file()), key=lambda g: (g.when, g.path))


def history_lines(records: Iterable[GameRecord]) -> list[str]:
    """One block per game: date, players with scores, variant, deal, winner, verified or not; then the command that
    replays it (`p2pnimmt replay FILE`; a game left unfinished or aborted up to where it stops), or its file where it
    is damaged (replay refuses it). FILE is the transcript's name in the transcripts folder (`shown_path`)."""
    lines: list[str] = []
    records = list(records)
    empty = sum(g.status == "not started" for g in records)
    for g in records:
        if g.status == "not started":
            continue
        date = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.when))
        if not g.players:
            lines.extend(fitted(f"{date}  {g.path.name}: {_(g.status)} ({said(g.problem)})"))
            continue
        if g.status == "abandoned":
            why = (_("abandoned after its start ({why}): its players went on to a new game that carries its scores")
                   if g.carried_on else
                   _("abandoned before it started ({why}): its players went on to a new game"))
            lines.extend(fitted(f"{date}  " + why.format(why=said(g.problem))))
            lines.extend(fitted("    " + ", ".join(p.name for p in g.players)))
            continue
        winners = [p.name for p in g.players if p.won]
        check = _("verified") if g.verified else _("NOT verified: {why}").format(why=said(g.problem) or _(g.status))
        named = {"variant": _(g.variant) if g.variant else "", "deal": _(g.deal) if g.deal else ""}
        head = f"{date}  " + (_("{variant}, {deal} deal, stops in {where}").format(
            where=g.stops, **named) if g.stops else ngettext(
            "{variant}, {deal} deal, {n} round", "{variant}, {deal} deal, {n} rounds", g.rounds).format(
            n=g.rounds, **named))
        if winners:
            head += _(", won by {names}").format(names=", ".join(winners))
        if g.previous is not None:
            head += _(", rematch of {code}").format(code=game_code(g.previous))
        said_check = f"[{check}]"  # beside the head, or under it where both would run past 80 columns
        beside = f"{head}  {said_check}"
        lines.extend([beside] if len(beside) <= WIDTH else [*fitted(head), *fitted("    " + said_check)])
        you = _(" (you)")
        lines.append("    " + ", ".join(f"{p.name}{you if p.me else ''} {p.score}" for p in g.players))
        if g.verified or g.status in ("unfinished", "aborted"):
            label = _("to watch it again:") if g.verified else _("watch it up to where it stops:")
            lines.extend(command_line(label, f"p2pnimmt replay {shown_path(g.path)}"))
        else:
            lines.extend(fitted("    " + _("file: {path}").format(path=shown_path(g.path))))
    if empty:
        lines.append(ngettext("(and {n} lobby or refused join that never started a game, not listed)",
                              "(and {n} lobbies or refused joins that never started a game, not listed)",
                              empty).format(n=empty))
    return lines if lines and not lines[0].startswith("(") else \
        [_("No games yet: transcripts are kept in {folder}").format(folder=transcripts_dir())] + lines


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    points: int = 0
    rounds: int = 0


def stats_lines(records: Iterable[GameRecord]) -> list[str]:
    """Per player across the finished, verified games: games, wins, mean points per round."""
    tallies: dict[tuple[str, str], Tally] = {}
    for g in records:
        if not g.verified:
            continue
        for p in g.players:
            key = (_("you"), "") if p.me else (p.name, p.who)
            tally = tallies.setdefault(key, Tally())
            tally.games += 1
            tally.wins += p.won
            tally.points += p.score
            tally.rounds += g.rounds
    if not tallies:
        return [_("No finished, verified games yet.")]
    player, played, wins, mean_points = _("player"), _("games"), _("wins"), _("points/round")
    # each column as wide as its heading (German "Spiele" has 6 letters: its numbers stood a column left of it)
    gw, ww, mw = max(5, len(played)), max(5, len(wins)), max(12, len(mean_points))
    lines = [f"{player:<28} {played:>{gw}} {wins:>{ww}} {mean_points:>{mw}}"]
    for (name, who), t in sorted(tallies.items(), key=lambda kv: (kv[0] != (_("you"), ""), kv[0])):
        label = name if not who else f"{name} ({_('bot') if who == 'bot' else who})"
        mean = t.points / t.rounds if t.rounds else 0.0
        lines.append(f"{label:<28.28} {t.games:>{gw}} {t.wins:>{ww}} {mean:>{mw}.2f}")
    return lines


def run_history(stats: bool = False, folder: Path | None = None) -> int:
    records = games(folder)
    for line in (stats_lines(records) if stats else history_lines(records)):
        print(line)
    return 0
