"""What the full-screen UI shows, kept up to date from a session's events (no prompt_toolkit here).

The model is fed `(session, event)` pairs; it copies what it needs from the
session (rows, my hand, scores, who the game waits for) and turns events
into statuses and log lines. The UI reads it; intents go back to the
session through a `Seat` (see `ui.app`), never through the model.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from ..engine import BULL_HEADS
from ..i18n import N_, _, evening_rounds, fault_said, said
from ..neutral import neutral
from ..protocol.events import (
    ClockRan,
    ClockWarning,
    Committed,
    Event,
    Fault,
    GameAborted,
    GameOver,
    GameStarted,
    Picked,
    PickNeeded,
    PlayNeeded,
    Revealed,
    RoundEnded,
    RoundStarted,
    RoundVoided,
    RowChoiceNeeded,
    SeatAway,
    SeatBack,
    SeatDropped,
    TurnResolved,
)
from ..protocol.gamecode import game_code
from ..protocol.verify import verify_transcript
from .console import STAND_IN_ROW
from .words import addressed, bull_heads, dropped_said, n_cards, n_rounds, void_said

# The statuses are keys (the web page's too); shown, they are translated (_(status)).
CHOOSING, COMMITTED, REVEALED, ROW, DROPPED, WAITING, PICKING = (
    N_("choosing"), N_("committed"), N_("revealed"), N_("choosing a row"), N_("disconnected"), N_("waiting"),
    N_("picking"))
AWAY = N_("away")  # shown instead of the status while the seat's last three cards were the stand-in's
LEFT = N_("left")  # shown instead of the status while this node has no link to the seat's peer (it quit, or is cut off)
OWING = (CHOOSING, ROW, PICKING)  # statuses of a player who owes a move (its clock runs)
STAND_IN_PLAYS = {"card": N_("your lowest card"), "row": N_("the row with the fewest bull heads"),
                  "pick": N_("the lowest open card")}


def took(who: str, chose: bool) -> str:
    """The line of a take, to be formatted with who, row, card, cards and heads: 'ann places the 6th card in row 2
    with 45: takes 5 cards, 12 bull heads'; the second person for our seat ('You choose row 1 ...')."""
    if addressed(who):
        return (_("{who} choose row {row} with {card}: take {cards}, {heads}") if chose
                else _("{who} place the 6th card in row {row} with {card}: take {cards}, {heads}"))
    return (_("{who} chooses row {row} with {card}: takes {cards}, {heads}") if chose
            else _("{who} places the 6th card in row {row} with {card}: takes {cards}, {heads}"))


def heads(cards) -> int:
    """The bull heads of some cards."""
    return sum(BULL_HEADS[c] for c in cards)


@dataclass
class Player:
    name: str
    bot: bool = False
    status: str = WAITING
    score: int = 0
    card: int | None = None  # the card revealed this turn
    away: bool = False  # the stand-in plays for this seat (its last three cards were the stand-in's)
    gone: bool = False  # this node has no link to the seat's peer now (it quit, or its link broke)
    quit: bool = False  # its player left the game on purpose (its node said bye: TableModel.left)
    asked_at: float | None = None  # when its current move was asked for (model.now), for its clock

    @property
    def shown_status(self) -> str:
        if self.status == DROPPED:
            return LEFT if self.quit else DROPPED
        return LEFT if self.gone else AWAY if self.away else self.status


class TableModel:
    """The state of the table as one peer (a seat or a spectator) sees it."""

    def __init__(self, log_size: int = 200) -> None:
        self.players: list[Player] = []
        self.seat: int | None = None
        self.rows: tuple[tuple[int, ...], ...] = ((), (), (), ())
        self.rows_before: tuple[tuple[int, ...], ...] = self.rows  # the rows when the last turn began
        self.placing: tuple[tuple, ...] = ()  # the last turn's placements, in order (seat, card, row, taken)
        self.placed = 0  # how many of them the screen shows so far
        self.hand: tuple[int, ...] = ()
        self.open_cards: tuple[int, ...] = ()  # draft variant
        self.round = 0
        self.turn = 0
        self.replaying = False  # the model of `p2pnimmt replay`: nobody watches the game live
        # a game that continues one a seat's equivocation ended (protocol.md 9, START's `carry`): the rounds of the
        # evening played before it, and each seat's total then; its rounds are shown with the evening's numbers
        self.before = 0
        self.carried: tuple[int, ...] = ()
        # what is asked of me: None, "card", "row", "pick"; and what I committed this turn
        self.asked: str | None = None
        self.committed: int | None = None
        self.my_row_card: int | None = None
        self.chooser: int | None = None  # the seat choosing a row this turn
        self.takes: list[str] = []  # who took which row in the last turn
        self.log: deque[str] = deque(maxlen=log_size)
        self.sheet: list[tuple[int, ...]] = []  # penalties by round
        self.round_over: tuple[int, tuple[int, ...], tuple[int, ...]] | None = None  # (round, penalties, scores)
        self.over: GameOver | None = None
        self.verified = ""  # the result of checking our transcript at game over
        self.aborted: str | None = None
        # the seats whose players left the game on purpose (their node said `bye`: Node.left_seats), set by
        # a network front before each event: their going is said as leaving, not as a fault
        self.left: frozenset[int] = frozenset()
        self.message: str | None = None  # the latest warning or refusal, for the status line
        self.clock: int | None = None  # seconds for each move (the START's settings), None: no clock
        self.now: Callable[[], float] = time.monotonic  # the clock the remaining times are counted on
        self.warnings = 0  # ClockWarnings for our seat so far (the screen rings the bell for each new one)
        self.stand_ins = 0  # our moves the stand-in made so far (ClockRan)
        self.here = True  # the person is at the keys (False from our SeatAway until a key is pressed)
        self._picker: int | None = None  # the seat the draft waits for
        self.listeners: list[Callable[[], None]] = []
        # The evening's table across rematches (app.evening): () -> (games, rows with name, games, wins,
        # points); (0, []) while the evening has one game. Set by the front that follows the rematches.
        self.evening: Callable[[], tuple[int, list]] | None = None
        self.rematch: str = ""  # what the game-over screen says of a rematch (offered, asked, who wants one)

    def reset(self) -> None:
        """A new game (a rematch) on the same screens: everything of the last game goes; the listeners, the
        evening's table and the clock to count on stay."""
        keep = (self.listeners, self.evening, self.now, self.log.maxlen or 200)
        self.__init__(keep[3])  # type: ignore[misc]
        self.listeners, self.evening, self.now = keep[0], keep[1], keep[2]
        self.changed()

    # ------------------------------------------------------------- queries

    @property
    def spectator(self) -> bool:
        return self.seat is None

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]

    def waiting_names(self) -> list[str]:
        return [p.name for i, p in enumerate(self.players) if i != self.seat and p.status in (CHOOSING, ROW)]

    def time_left(self, seat: int) -> int | None:
        """Whole seconds left on `seat`'s clock (rounded up; 0 once it ran out), None: no clock runs for it."""
        player = self.players[seat] if 0 <= seat < len(self.players) else None
        if self.clock is None or player is None or player.asked_at is None or player.status not in OWING:
            return None
        if self.over is not None or self.aborted:
            return None
        return max(0, math.ceil(self.clock - (self.now() - player.asked_at)))

    def clock_running(self) -> bool:
        """Some player's remaining time is shown and still counts down."""
        return any(self.time_left(s) for s in range(len(self.players)))

    def next_change(self) -> float:
        """Seconds until a remaining time shown changes (at most 1)."""
        now, soonest = self.now(), 1.0
        for seat, player in enumerate(self.players):
            if self.time_left(seat) and player.asked_at is not None and self.clock is not None:
                remaining = self.clock - (now - player.asked_at)
                step = remaining - math.floor(remaining)
                soonest = min(soonest, step if step > 0 else 1.0)
        return max(soonest, 0.01)

    def evening_table(self) -> tuple[int, list]:
        """(games, rows) of the evening's table, or (0, []) when there is none to show."""
        return self.evening() if self.evening is not None else (0, [])

    def winners(self) -> list[str]:
        return [self.players[s].name for s in self.over.winners] if self.over else []

    # ------------------------------------------------------------- updates

    def say(self, line: str) -> None:
        self.log.append(line)

    def warn(self, text: str) -> None:
        self.message = text
        self.say(f"! {text}")
        self.changed()

    def intent(self, send: Callable[[], str | None]) -> bool:
        """My seat's intent (a move) sent by `send()`, which returns the seat's refusal, or None once it took it:
        True once taken (the message cleared); else False, with a warning that says why: the refusal, or the
        network or protocol problem it raised (a message, never a traceback)."""
        try:
            error = send()
        except Exception as exc:  # a network or protocol problem: a message, never a traceback
            error = f"{type(exc).__name__}: {exc}"
        if error:
            self.warn(_("not accepted: {why}").format(why=error))
            return False
        self.message = None
        return True

    def changed(self) -> None:
        for listener in list(self.listeners):
            listener()

    def update(self, session, event: Event) -> None:
        """Take in one event of `session` (the session has already applied it)."""
        self._mark_left()
        handler = getattr(self, "_on_" + type(event).__name__, None)
        if handler is not None:
            handler(session, event)
        self._copy(session)
        self.changed()

    @property
    def placing_now(self) -> bool:
        """The screen is still placing the last turn's cards one by one (what is asked waits for it)."""
        return self.placed < len(self.placing)

    def place_all(self) -> None:
        """Show every placement of the last turn at once."""
        if self.placing_now:
            self.placed = len(self.placing)
            self.changed()

    def _mark_left(self) -> None:
        """Each player's `quit`: whether it left the game on purpose (self.left, set by a network front)."""
        for seat, player in enumerate(self.players):
            player.quit = seat in self.left

    def links(self, gone: set[int]) -> None:
        """The seats whose peers this node has no link to now (not ours): shown as left while so."""
        if self.over is not None or self.aborted:
            return  # after the game the peers close their links: nobody left
        changed = False
        self._mark_left()
        for seat, player in enumerate(self.players):
            now = seat in gone and seat != self.seat
            if now != player.gone:
                player.gone, changed = now, True
                if now and seat in self.left:
                    continue  # it left on purpose (said bye): its drop says so once, with the stand-in (dropped_said)
                self.say((_("{name} is connected again") if not now else _("{name} left: no link to them"))
                         .format(name=player.name))
        if changed:
            self.changed()

    def shown_rows(self) -> tuple[tuple[int, ...], ...]:
        """The rows as the screen shows them: the turn's placements up to `placed`, then the rows as they are."""
        if self.placed >= len(self.placing):
            return self.rows
        rows = [list(r) for r in self.rows_before]
        for _seat, card, row, taken in self.placing[: self.placed]:
            rows[row] = [card] if taken else rows[row] + [card]
        return tuple(tuple(r) for r in rows)

    def step_placing(self) -> bool:
        """Show one more placement of the last turn; False when all are shown."""
        if self.placed >= len(self.placing):
            return False
        self.placed += 1
        self.changed()
        return True

    def _copy(self, session) -> None:
        game = session.game
        if game is None:
            return
        # A session that relays nothing reads a record (a replay): its game's clock ran long ago, none runs now.
        settings = getattr(game, "settings", None)
        self.clock = getattr(settings, "clock", None) if getattr(session, "relay", True) else None
        for player, score in zip(self.players, game.scores):
            player.score = score
        rnd = getattr(game, "round", None)
        if rnd is not None:
            # The rows come from RoundStarted and TurnResolved only: when several events arrive together the
            # session is already past them all, and the screen places each turn's cards from the rows before it.
            if self.seat is not None:
                self.hand = tuple(sorted(rnd.hands[self.seat]))
        draft = getattr(game, "draft", None)
        self.open_cards = tuple(draft.open_cards) if draft is not None and not draft.done else ()
        if draft is not None and not draft.done and self.seat is not None and self.seat < len(draft.hands):
            self.hand = tuple(sorted(draft.hands[self.seat]))  # the hand picked so far (the round's is dealt after)
        picker = None
        if draft is not None and not draft.done:
            waiting = session.waiting_for()
            picker = waiting[0] if len(waiting) == 1 and waiting[0] < len(self.players) else None
        if picker != self._picker:  # a draft pick is asked of one seat at a time
            if self._picker is not None and self.players[self._picker].status == PICKING:
                self.players[self._picker].status = WAITING
            if picker is not None and self.players[picker].status != DROPPED:
                self.players[picker].status = PICKING
                self.players[picker].asked_at = self.now()
            self._picker = picker

    def round_no(self, index: int) -> int:
        """The evening's number of the game's round `index` (0-based): a game that carries counts on from the rounds
        of the game it continues ("round 3" after 2 carried), as its totals do."""
        return self.before + index + 1

    def _on_GameStarted(self, session, event: GameStarted) -> None:
        bots = list(getattr(session, "bots", [])) or [False] * len(event.names)
        self.players = [Player(name, bool(bot)) for name, bot in zip(event.names, bots)]
        self.seat = event.seat
        who = (_("a replay") if self.replaying else _("you watch") if event.seat is None
               else _("you: seat {seat}").format(seat=event.seat + 1))
        self.say(_("Game started: {names} ({who})").format(names=", ".join(event.names), who=who))
        start = getattr(session, "start", None)
        carry = start.body.get("carry") if start is not None else None
        if carry is not None:
            self.before, self.carried = carry["rounds"], tuple(carry["scores"])
            self.say(_("It continues game {code} after {rounds}, from the scores then: {scores}").format(
                code=game_code(carry["game"]), rounds=n_rounds(self.before), scores=", ".join(
                    f"{name} {points}" for name, points in zip(event.names, self.carried, strict=True))))

    def _on_RoundStarted(self, session, event: RoundStarted) -> None:
        self.placing, self.placed = (), 0
        self.rows = self.rows_before = event.rows
        self.round, self.turn = event.round, 0
        self.takes = []
        self._all(CHOOSING)
        self._ask_all()
        for player in self.players:
            player.card = None
        self.say(_("Round {round} begins").format(round=self.round_no(event.round)))

    def _on_PlayNeeded(self, session, event: PlayNeeded) -> None:
        self.round, self.turn = event.round, event.turn
        self.asked, self.committed, self.message = "card", None, None

    def _on_PickNeeded(self, session, event: PickNeeded) -> None:
        self.asked, self.message = "pick", None
        if self.seat is not None and self.seat < len(self.players):  # our next pick: our clock starts again
            self.players[self.seat].asked_at = self.now()

    def _on_Picked(self, session, event: Picked) -> None:
        if event.seat == self.seat and self.asked == "pick":
            self.asked = None  # our pick is in: the next one is asked by its own PickNeeded

    def _on_Committed(self, session, event: Committed) -> None:
        if event.seat < len(self.players) and self.players[event.seat].status != DROPPED:
            self.players[event.seat].status = COMMITTED

    def _on_Revealed(self, session, event: Revealed) -> None:
        for seat, card in enumerate(event.cards):
            player = self.players[seat]
            player.card = card
            if player.status != DROPPED:
                player.status = REVEALED
        order = sorted(range(len(event.cards)), key=event.cards.__getitem__)
        # A card the stand-in played (a clock ran out, the seat is away or dropped) is marked in every log.
        stand_in = _(" (stand-in)")
        self.say(_("Turn {turn}: ").format(turn=event.turn + 1) + ", ".join(
            f"{self.players[s].name} {event.cards[s]}" + (stand_in if s in event.stand_in else "")
            for s in order))

    def _on_RowChoiceNeeded(self, session, event: RowChoiceNeeded) -> None:
        self.chooser = event.seat
        if self.players[event.seat].status != DROPPED:
            self.players[event.seat].status = ROW
            self.players[event.seat].asked_at = self.now()
        if event.seat == self.seat:
            self.asked, self.my_row_card = "row", event.card
            self.say(_("Your {card} is below every row: choose the row you take").format(card=event.card))
        else:
            self.say(_("{name}'s {card} is below every row: they choose a row").format(
                name=self.players[event.seat].name, card=event.card))

    def _on_TurnResolved(self, session, event: TurnResolved) -> None:
        # For the screen to place the cards one by one: the rows before the turn, and each placement.
        self.rows_before = self.rows
        self.rows = event.rows  # after the last turn of a round the session has no round left to copy them from
        self.placing = tuple(event.placements)
        self.placed = 0
        self.takes = []
        for seat, card, row, taken in event.placements:
            if taken:
                who = _("You") if seat == self.seat else self.players[seat].name
                line = (took(who, seat == self.chooser).format(
                    who=who, row=row + 1, card=card, cards=n_cards(len(taken)), heads=bull_heads(heads(taken)))
                        + _(STAND_IN_ROW) * (seat in event.stand_in))
                self.takes.append(line)
                self.say(line)
        self.chooser = None
        if self.asked in ("card", "row"):
            self.asked = None
        self.my_row_card = None
        self.committed = None
        self.turn = event.turn + 1
        self._all(CHOOSING)
        self._ask_all()

    def _on_RoundEnded(self, session, event: RoundEnded) -> None:
        self.sheet.append(tuple(event.penalties))
        self.round_over = (event.round, tuple(event.penalties), tuple(event.scores))
        self.hand = ()
        self._all(WAITING)
        self.say(_("Round {round} over: ").format(round=self.round_no(event.round))
                 + ", ".join(f"{p.name} +{n}" for p, n in zip(self.players, event.penalties)))

    def _on_GameOver(self, session, event: GameOver) -> None:
        self.over = event
        self.asked = None
        names = ", ".join(self.players[s].name for s in event.winners)
        winners = _("Winners: {names}") if len(event.winners) > 1 else _("Winner: {names}")
        self.say(_("Game over after {rounds}.").format(rounds=n_rounds(self.before + event.rounds)) + " "
                 + winners.format(names=names))
        data = getattr(session.journal, "data", None)
        if data is not None:  # check our own transcript exactly as `p2pnimmt verify` would
            verdict = verify_transcript(bytes(data))
            self.verified = (
                _("Transcript verified: {n} signed messages, every card and turn").format(n=verdict.messages)
                if verdict.ok else _("Transcript check: {report}").format(report=said(verdict.report())))
            self.say(self.verified)

    def _on_GameAborted(self, session, event: GameAborted) -> None:
        self.asked = None
        self.aborted = fault_said(event.fault, dict(zip(session.roster, session.names)), self.before)
        self.say(_("Game aborted: {why}").format(why=self.aborted))

    def _on_Fault(self, session, event: Fault) -> None:
        if not event.fatal:
            names = dict(zip(session.roster, session.names))
            if event.code == "absent" and names.get(event.peer) is not None and \
                    session.roster.index(event.peer) in self.left:
                return  # it left on purpose (said bye): the void round says so, as leaving (words.void_said)
            if event.code.startswith("sealed-") or event.code == "absent":  # a verdict on the sealed deal
                self.message = _("{who} is at fault: {detail}").format(
                    who=names.get(event.peer, _("a peer")), detail=said(neutral(evening_rounds(event.detail,
                                                                                           self.before))))
            else:
                self.message = _("ignored bad data: {what}").format(what=fault_said(event, names, self.before))
            self.say(self.message)

    def _on_RoundVoided(self, session, event: RoundVoided) -> None:
        self.say(_("Round {round} is void (nobody scores it): {reason}; the next round is dealt without that seat")
                 .format(round=self.round_no(event.round),
                         reason=void_said(event.reason, event.absent, [p.name for p in self.players], self.left,
                                         self.before)))

    def _on_SeatDropped(self, session, event: SeatDropped) -> None:
        self.players[event.seat].status = DROPPED
        if event.seat == self.seat:
            self.say(_("You were dropped by the others' vote: a stand-in plays your hand. Press any key to ask for "
                       "your seat back from a next round"))
        else:
            self.say(dropped_said(self.players[event.seat].name, event.seat in self.left))

    def _on_SeatBack(self, session, event: SeatBack) -> None:
        self.players[event.seat].status = WAITING
        back = (_("You are back in the game from round {round}") if event.seat == self.seat
                else _("{name} is back in the game from round {round}"))
        self.say(back.format(name=self.players[event.seat].name, round=self.round_no(event.round)))
        if event.seat == self.seat and event.seat in session.forfeits:  # dealt open from then on (protocol.md 17.9)
            self.say(_("You forfeited this game by making a round void: you cannot win, and your hand is "
                       "dealt open from now on (every player sees it)"))

    def _on_SeatAway(self, session, event: SeatAway) -> None:
        if not 0 <= event.seat < len(self.players):
            return
        player = self.players[event.seat]
        player.away = event.away
        if event.seat == self.seat:
            self.here = not event.away  # as our node's clock has it: away, the stand-in plays until a key is pressed
            self.message = (_("You are away: the stand-in plays your cards until you press a key") if event.away
                            else None)
            self.say(self.message or _("You are back: you play your own cards again"))
        else:
            self.say((_("{name} is away: the stand-in plays for them") if event.away
                      else _("{name} is back")).format(name=player.name))

    def _on_ClockWarning(self, session, event: ClockWarning) -> None:
        if self.seat is None:
            return
        self.warnings += 1
        then = STAND_IN_PLAYS.get(self.asked or "card", STAND_IN_PLAYS["card"])
        self.message = _("{seconds} s left: then the stand-in plays {what}").format(
            seconds=event.seconds_left, what=_(then))
        self.say(self.message)

    def _on_ClockRan(self, session, event: ClockRan) -> None:
        if self.seat is None:
            return
        self.stand_ins += 1
        if self.asked == "card" and self.hand:
            self.committed = min(self.hand)  # the stand-in's card: the lowest of the hand
        self.asked = None
        self.my_row_card = None
        self.message = (_("time is up: the stand-in played for you") if self.here
                        else _("you are away: the stand-in played for you (press a key to play yourself)"))
        self.say(self.message)

    def back(self) -> None:
        """The person at our away seat pressed a key: the stand-in stops playing for us."""
        self.here = True
        if self.seat is not None and 0 <= self.seat < len(self.players):
            # Our own line stops saying "away" at once; the others see us back when our own card is revealed.
            self.players[self.seat].away = False
        self.warn(_("You are back at the keys: the stand-in stops playing for you"))

    def _ask_all(self) -> None:
        """Every player owes a move from now (a turn began): their clocks start."""
        now = self.now()
        for player in self.players:
            player.asked_at = now

    def _all(self, status: str) -> None:
        for player in self.players:
            if player.status != DROPPED:
                player.status = status
