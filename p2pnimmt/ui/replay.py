"""`p2pnimmt replay FILE`: step through a game on the full-screen table (← → a turn, PgUp PgDn a round); a game
left before its end is replayed up to where it stops, its last stop saying so.

The transcript is replayed into a spectator Session, as `p2pnimmt verify` does; the table model the screens
read is fed its events, and a copy of the model is kept at every point worth stopping at: a round dealt, each
turn's cards revealed (with each player's commitment next to its card) and placed, the round's end, the game's
end. The screen is the TV view of the live table (no hand), showing one of those copies at a time.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings

from ..engine import HAND_SIZE
from ..i18n import N_, _, fault_said
from ..protocol.events import Event, GameOver, Revealed, RoundEnded, RoundStarted, TurnResolved
from ..protocol.session import Session
from ..protocol.verify import TranscriptError, replay as replay_transcript
from . import widgets
from .app import TableApp
from .model import TableModel
from .words import where_it_stops


@dataclass(frozen=True)
class Frame:
    """One point of the game: what the table showed then, and where it is."""

    model: TableModel
    round: int
    turn: int
    kind: str  # "round", "revealed", "placed", "round-end", "over", or "unfinished" (where a game left stops)
    label: str
    host: str = ""  # the name of the game's host (who sent its START): whose game it is


def host_name(session: Session) -> str:
    start = session.start
    if start is None or start.sender not in session.roster:
        return ""
    return session.names[list(session.roster).index(start.sender)]


class ReplayError(ValueError):
    """The transcript cannot be replayed (it does not verify)."""


def commitments_line(session: Session, event: Revealed) -> str:
    """Each seat's commitment (its first 8 hex digits) and the card it revealed for it."""
    commits = session.slot("PLAY_COMMIT", event.round, event.turn)
    parts = []
    for seat, card in enumerate(event.cards):
        env = commits.get(seat)
        commit = env.body["commit"].hex()[:6] if env is not None else _("stand-in")
        parts.append(f"{session.names[seat]} {commit}:{card}")
    return _("commits: {list}").format(list=", ".join(parts))


def ending(data: bytes) -> tuple[list[bytes], str | None]:
    """The signed messages of the transcript `data`, and what to say where they stop if the game did not end
    there: a game left before its end (or aborted) is replayed up to where it stops. Anything else that `verify`
    refuses (a record altered, a finished game with no seal) is a ReplayError with verify's words."""
    try:
        state = replay_transcript(data, complete=False)
        session = state.session
        if session.phase == "over" or session.game is None:
            state.finish()
    except TranscriptError as exc:
        raise ReplayError(exc.verdict().report()) from None
    wires = [env.wire for env in session.inbox.accepted]
    if session.phase == "over":
        return wires, None
    names = dict(zip(session.roster, session.names))
    before = session.game.before
    if session.fault is not None:
        return wires, _("the game was aborted here: {why}").format(why=fault_said(session.fault, names, before))
    where, waiting = where_it_stops(session)
    if waiting:
        return wires, _("the game was left unfinished here ({where}): the transcript ends waiting for {names}").format(
            where=where, names=", ".join(waiting))
    return wires, _("the game was left unfinished here ({where})").format(where=where)


def frames(data: bytes) -> list[Frame]:
    """The stops of a replay of the transcript `data` (ReplayError if it does not verify, or stops before its end
    in a way `verify` refuses for more than that): a game left unfinished ends with a stop that says so."""
    wires, unfinished = ending(data)
    session = Session(None, relay=False)
    model = TableModel()
    model.clock = None  # a replay shows no countdowns
    model.replaying = True
    found: list[Frame] = []

    def keep(event: Event | None, kind: str, label: str) -> None:
        shown = copy.copy(model)
        shown.listeners = []
        shown = copy.deepcopy(shown)
        shown.placed = len(shown.placing)  # a stop shows the turn's cards all placed
        found.append(Frame(shown, model.round, model.turn, kind, label, host_name(session)))

    for wire in wires:
        for item in session.receive(wire):
            if not isinstance(item, Event):
                continue
            if isinstance(item, Revealed):
                model.say(commitments_line(session, item))
            model.update(session, item)
            if isinstance(item, RoundStarted):
                keep(item, "round", _("round {round} dealt").format(round=model.round_no(item.round)))
            elif isinstance(item, Revealed):
                keep(item, "revealed", _("round {round}, turn {turn}: cards revealed").format(
                    round=model.round_no(item.round), turn=item.turn + 1))
            elif isinstance(item, TurnResolved):
                keep(item, "placed", _("round {round}, turn {turn}: cards placed").format(
                    round=model.round_no(item.round), turn=item.turn + 1))
            elif isinstance(item, RoundEnded):
                keep(item, "round-end", _("round {round} over").format(round=model.round_no(item.round)))
            elif isinstance(item, GameOver):
                keep(item, "over", _("game over"))
    if not found:
        raise ReplayError(_("the transcript holds no dealt round"))
    if unfinished is not None:
        model.say(unfinished)
        model.message = unfinished
        keep(None, "unfinished", unfinished)
    return found


# The keys line under the table: the steps' keys (the status line above says where in the game the step is).
REPLAY_KEYS = N_("?: help  ←/→: a step  PgUp/PgDn: a round  Home/End  q: close")


class ReplayApp:
    """The TV view of the table showing one frame at a time; ← → step, PgUp PgDn jump a round, q leaves."""

    def __init__(self, stops: list[Frame], *, input=None, output=None) -> None:
        self.frames = stops
        self.index = 0
        self.host = stops[-1].host
        self.model = TableModel()
        self.ui = TableApp(self.model, None, input=input, output=output, title=_("p2pnimmt replay"),
                           help_text=(widgets.REPLAY_HELP, widgets.CARDS_HELP), tv_keys=REPLAY_KEYS,
                           replay=self.where)
        keys = KeyBindings()
        keys.add("left")(lambda _e: self.go(self.index - 1))
        keys.add("right")(lambda _e: self.go(self.index + 1))
        keys.add("pageup")(lambda _e: self.go(self._round_start(-1)))
        keys.add("pagedown")(lambda _e: self.go(self._round_start(1)))
        keys.add("home")(lambda _e: self.go(0))
        keys.add("end")(lambda _e: self.go(len(self.frames) - 1))
        self.ui.app.key_bindings = merge_key_bindings([self.ui.app.key_bindings or KeyBindings(), keys])
        self.go(0)

    def where(self) -> str:
        """The line under the replayed table: that it is a replay, whose game (its host's), where in it and which
        step of how many."""
        frame = self.frame
        game = _("Replay of {host}'s game").format(host=self.host) if self.host else _("Replay")
        step = _("step {step} of {steps}").format(step=self.index + 1, steps=len(self.frames))
        if frame.kind == "over":
            return _("{game}: the end ({step})").format(game=game, step=step)
        turn = frame.turn if frame.kind == "placed" else frame.turn + 1  # a turn placed: the model is on the next
        return _("{game}: round {round}, turn {turn} ({step})").format(
            game=game, round=frame.model.round_no(frame.round), turn=min(max(turn, 1), HAND_SIZE), step=step)

    @property
    def frame(self) -> Frame:
        return self.frames[self.index]

    def _round_start(self, direction: int) -> int:
        """The frame where the previous (-1) or next (+1) round is dealt; the first or last frame if none."""
        i = self.index + direction
        while 0 <= i < len(self.frames):
            if self.frames[i].kind == "round" and (direction > 0 or self.frames[i].round < self.frame.round
                                                   or self.frame.kind != "round"):
                return i
            i += direction
        return 0 if direction < 0 else len(self.frames) - 1

    def go(self, index: int) -> None:
        self.index = max(0, min(len(self.frames) - 1, index))
        shown = copy.deepcopy(self.frame.model)
        listeners = self.model.listeners
        self.model.__dict__.update(shown.__dict__)
        self.model.listeners = listeners
        self.model.message = self.frame.label
        self.ui.app.invalidate()
