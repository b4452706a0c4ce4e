"""A line-by-line terminal for network games: shows the table and every turn, asks for cards and rows.

Used by `p2pnimmt host`, `join` and `watch` with --lines or off a terminal
(app.front). It reads the node's session and sends intents through
node.act; it never changes the game itself.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TextIO

from ..engine import BULL_HEADS, HAND_SIZE
from ..i18n import _
from ..protocol.events import (
    ClockRan,
    ClockWarning,
    Event,
    PickNeeded,
    PlayNeeded,
    Revealed,
    RoundStarted,
    RowChoiceNeeded,
    SeatAway,
    SeatDropped,
    TurnResolved,
)
from ..protocol.session import LocalError
from .console import below_every_row, card_text, not_a_row, not_in_hand, not_open, table_text, turn_lines


class LineSeat:
    """Shows a node's game as lines of text; when the node has a seat and no bot, asks its person to play."""

    def __init__(self, read: Callable[[str], Awaitable[str | None]], say: Callable[..., None]) -> None:
        self.read = read
        self.say = say
        self.tasks: set[asyncio.Task] = set()

    def on_event(self, node, event: Event) -> None:
        session = node.session
        names = session.names
        if isinstance(event, RoundStarted):
            self.say(_("round {round} begins").format(round=session.game.round_no(event.round)))  # the evening's
        elif isinstance(event, Revealed):
            self.say(*turn_lines(event, names, session.seat))
        elif isinstance(event, TurnResolved):
            self.say(*turn_lines(event, names, session.seat))
            if session.seat is None:
                for line in table_text(event.rows):
                    self.say(line)
        elif isinstance(event, SeatAway):
            self.say("  " + (_("{name} is away: the stand-in plays for them") if event.away
                             else _("{name} is back")).format(name=names[event.seat]))
        if node.bot is not None or session.seat is None:
            return
        if isinstance(event, ClockWarning):
            self.say("  " + _("{seconds} s left, then the stand-in plays for you").format(
                seconds=event.seconds_left) + "\a")
        elif isinstance(event, ClockRan):
            for task in list(self.tasks):
                task.cancel()  # the question is answered
            self.say("  " + _("time is up: the stand-in played for you"))
        if isinstance(event, SeatDropped) and event.seat == session.seat:
            self._spawn(self._ask_back(node))  # the stand-in plays our hand now
        if session.seat in session.dropped:
            return  # nothing is asked of a dropped seat (the stand-in's row choices are not ours to make)
        if isinstance(event, PlayNeeded):
            self._spawn(self._ask_card(node))
        elif isinstance(event, RowChoiceNeeded) and event.seat == session.seat:
            self._spawn(self._ask_row(node, event.card))
        elif isinstance(event, PickNeeded):
            self._spawn(self._ask_pick(node))

    def _spawn(self, coro) -> None:
        """Ask a new question: one still open is answered by now (the game moved on), and is closed, so the next
        line typed answers this one (a seat back in play was asked its card, the line went to the old ask)."""
        for task in list(self.tasks):
            task.cancel()
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _ask(self, node, prompt: str, valid: Callable[[str], int | None],
                   hint: Callable[[str], str]) -> int | None:
        while not node.done.is_set():
            text = await self.read(prompt)
            if text is None:
                self.say(_("input closed: leaving the game"))
                node.quit()
                return None
            value = valid(text.strip())
            if value is not None:
                return value
            self.say(hint(text.strip()))
        return None

    async def _ask_card(self, node) -> None:
        session = node.session
        rnd = session.game.round
        self.say("", _("round {round}, turn {turn}/{turns}").format(
            round=session.game.round_no(session.round), turn=session.turn + 1, turns=HAND_SIZE),
            *table_text(rnd.rows))
        hand = list(rnd.hands[session.seat])
        self.say("  " + _("your hand: {cards}").format(cards=" ".join(card_text(c) for c in hand)))
        card = await self._ask(node, _("your card> "),
                               lambda t: int(t) if t.isascii() and t.isdigit() and int(t) in hand else None,
                               lambda t: not_in_hand(t, hand))
        if card is not None:
            self._act(node, lambda: session.play(card))
            self.say("  " + _("committed {card}; waiting for the others").format(card=card))

    async def _ask_row(self, node, card: int) -> None:
        rows = node.session.game.round.rows
        heads = [sum(BULL_HEADS[c] for c in row) for row in rows]
        self.say(*below_every_row(card, heads))
        row = await self._ask(node, _("take row (1-4)> "),
                              lambda t: int(t) - 1 if t in ("1", "2", "3", "4") else None, not_a_row)
        if row is not None:
            self._act(node, lambda: node.session.choose_row(row))

    async def _ask_pick(self, node) -> None:
        cards = list(node.session.game.draft.open_cards)
        self.say("  " + _("open: {cards}").format(cards=" ".join(card_text(c) for c in cards)))
        card = await self._ask(node, _("pick> "),
                               lambda t: int(t) if t.isascii() and t.isdigit() and int(t) in cards else None,
                               not_open)
        if card is not None:
            self._act(node, lambda: node.session.pick(card))

    async def _ask_back(self, node) -> None:
        session = node.session
        if session.table.asked_back(session.seat, session.round):  # a resumed seat has asked on its own
            self.say("  " + _("you were dropped: your seat is asked back for a next round"))
            return
        text = await self.read(_("press Enter to ask for your seat back> "))
        if text is None:
            node.quit()
        elif node.take_seat_back():
            self.say("  " + _("asked: you play again from the round after more than half of the players have your ask"))
        elif session.phase in ("game-end", "over"):  # no round is left to play again in (protocol.md 11.3)
            self.say("  " + _("the game is over: no round is left to take your seat back in"))

    def _act(self, node, intent: Callable[[], list]) -> None:
        try:
            node.act(intent())
        except LocalError as exc:
            self.say(_("not accepted: {why}").format(why=exc))


class StdinLines:
    """Lines of standard input for whoever asks next (the lobby, then the game), without blocking the loop.

    One thread reads standard input; a line typed goes to the one prompt
    waiting for it, so the lobby's last read cannot swallow a card. A line
    typed for a question that was withdrawn before it was read (the clock ran,
    the seat was dropped, the game started) answered that question: it is
    ignored, with a line saying so, never taken as the answer to the next one.
    Lines typed ahead of any question (piped input) wait for the next prompt.
    """

    def __init__(self, stream: TextIO | None = None, say: Callable[[str], None] | None = None) -> None:
        self.stream = stream  # None: sys.stdin when the first read starts
        self.say = say or (lambda text: print(text, flush=True))
        self.started = False
        self.ahead: deque[str | None] = deque()  # lines typed while no prompt was open, for the next one
        self.waiter: asyncio.Future[str | None] | None = None  # the open prompt's answer
        self.withdrawn = False  # the last prompt was withdrawn unanswered, and no prompt is open since

    def _start(self) -> None:
        loop = asyncio.get_running_loop()
        stream = self.stream or sys.stdin
        self.started = True

        def pump() -> None:
            while True:
                line = stream.readline()
                loop.call_soon_threadsafe(self._arrive, line.rstrip("\n") if line else None)
                if not line:
                    return

        threading.Thread(target=pump, name="stdin", daemon=True).start()

    def _arrive(self, line: str | None) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(line)
        elif line is not None and self.withdrawn:
            self._ignore(line)
        else:
            self.ahead.append(line)

    def _ignore(self, line: str) -> None:
        self.say("  " + _("'{text}' ignored: the question it answered is no longer open").format(text=line))

    async def read(self, prompt: str) -> str | None:
        """The next line (after showing `prompt`); None at the end of input."""
        if not self.started:
            self._start()
        print(prompt, end="", flush=True)
        self.withdrawn = False
        if self.ahead:
            return self.ahead.popleft()
        waiter = self.waiter = asyncio.get_running_loop().create_future()
        try:
            return await waiter
        except asyncio.CancelledError:
            self.withdrawn = True
            if waiter.done() and not waiter.cancelled():  # the answer came, then the prompt was withdrawn
                line = waiter.result()
                if line is None:
                    self.ahead.append(None)  # the end of input stays the end of input
                else:
                    self._ignore(line)
            raise
        finally:
            self.waiter = None
