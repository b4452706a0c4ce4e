"""The full-screen table: a prompt_toolkit Application that reads a TableModel and sends intents to a Seat.

A Seat has `play(card)`, `choose_row(row)`, `pick(card)` (each returns an
error text or None), `ask_stand_in()` (asks the stand-in to play for the
seats the turn waits on; the seats asked), `present()` (the person pressed
a key) and `leave()`. A spectator has no Seat. Input and
output are injectable, so tests run the app on a pipe and a DummyOutput.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Protocol

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Point, Size
from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output.color_depth import ColorDepth
from prompt_toolkit.widgets import Frame

from ..engine import HAND_SIZE
from ..i18n import N_, _
from . import bigtable, widgets
from .keys import make_bindings
from .model import TableModel, heads
from .placing import Placer, place_delay
from .words import bull_heads, wrap

# The smallest terminal the table is drawn on: the rows (49 columns) and the players (30) side by side, and
# every line of the seated screen (20 lines; 21 at a table of 10). The too-small screen states what this
# table needs, computed from its layout (TableApp.needed), so the two cannot disagree.
MIN_WIDTH, MIN_HEIGHT = 80, 20


class Seat(Protocol):
    def play(self, card: int) -> str | None: ...
    def choose_row(self, row: int) -> str | None: ...
    def pick(self, card: int) -> str | None: ...
    def ask_stand_in(self) -> list[int]: ...
    def present(self) -> None: ...
    def leave(self) -> None: ...


TYPED_AHEAD = 0.8  # seconds after the results come up in which Enter does not leave them
PLACE_DELAY = 0.4  # seconds between the cards of a turn as they are placed (P2PNIMMT_PLACE_DELAY overrides)


class TableApp:
    """The screen state (selection, typed digits, overlays) and the actions the keys call."""

    def __init__(self, model: TableModel, seat: Seat | None, *, input=None, output=None,
                 title: str = "p2pnimmt", code: str | None = None,
                 again: Callable[[], str | None] | None = None, help_text: tuple[str, ...] | None = None,
                 tv_keys: str = N_("?: help   q: leave"), replay: Callable[[], str] | None = None) -> None:
        self.model = model
        # A replay's own line under the table (whose game, where in it), and its words for leaving: it closes a
        # replay, not a game (None: a live table).
        self.replay = replay
        self.seat = seat
        # What `?` shows, as paragraphs of the catalog (translated when shown): a seat's keys, else a spectator's
        # (who presses nothing to play); `tv_keys`, the keys line under the TV view (a replay's steps).
        self.help_text = help_text if help_text is not None else (widgets.HELP,) if seat is not None else \
            (widgets.WATCH_HELP, widgets.CARDS_HELP)
        self.tv_keys = tv_keys
        # At game over, `r`: play again (a rematch: the host offers it, a player asks for it or accepts it);
        # `again()` returns what to say, and exits the screen when it returns None (on to the next game).
        self.again = again
        self.title = title
        self.code = code  # the game's code, shown on the big TV view for whoever arrives late
        self.selected = 0
        self.typed = ""
        self.row_mark: int | None = None
        self.help = False
        self.confirm_quit = False
        self.results = False  # the game-over screen is up
        self.results_at = 0.0  # when it came up (time.monotonic)
        self.round_seen = -1  # the last round whose end screen was dismissed
        self.muted = False  # no terminal bell at the clock's warning
        self.bells = 0  # bells rung (for tests)
        self._warned = model.warnings
        self._ran = model.stand_ins
        self._ticker: asyncio.Task | None = None
        self.app: Application[str] = Application(
            layout=Layout(self._root()), key_bindings=make_bindings(self), style=widgets.STYLE, full_screen=True,
            mouse_support=True, input=input, output=output,
            color_depth=ColorDepth.DEPTH_1_BIT if os.environ.get("NO_COLOR") else None)
        model.listeners.append(self._clock_events)
        model.listeners.append(self.app.invalidate)
        # After a turn, its cards are placed one by one, with a short pause, so people can follow.
        self.placer = Placer(model, place_delay(PLACE_DELAY), running=lambda: self.app.is_running, first=False)
        self.app.after_render += self._tick_if_needed
        self.app.key_processor.before_key_press += self._key_pressed

    @property
    def place_delay(self) -> float:
        """Seconds between the cards of a turn as they are placed (0: all at once)."""
        return self.placer.delay

    @place_delay.setter
    def place_delay(self, delay: float) -> None:
        self.placer.delay = delay

    def _clock_events(self) -> None:
        """Our clock's warning rings the bell (unless muted); once the stand-in played for us, drop what was typed."""
        model = self.model
        if model.warnings != self._warned:
            self._warned = model.warnings
            if not self.muted and self.seat is not None:
                self.bells += 1
                self.app.output.bell()
        if model.stand_ins != self._ran:
            self._ran = model.stand_ins
            self.typed, self.row_mark = "", None

    def _tick_if_needed(self, _app=None) -> None:
        """While a clock runs, redraw each time a remaining time shown changes (a timer, not a loop)."""
        if self._ticker is not None or not self.model.clock_running() or not self.app.is_running:
            return

        async def tick() -> None:
            try:
                while self.model.clock_running():
                    await asyncio.sleep(self.model.next_change())
                    self.app.invalidate()
            finally:
                self._ticker = None

        self._ticker = self.app.create_background_task(tick())

    def _key_pressed(self, _processor=None) -> None:
        """Any key from the person at an away seat: the stand-in stops playing for it."""
        model = self.model
        if self.seat is not None and not model.here:
            model.back()
            try:
                self.seat.present()
            except Exception as exc:  # a network problem: a message, never a traceback
                model.warn(f"{type(exc).__name__}: {exc}")

    # ------------------------------------------------------------ state queries

    @property
    def round_screen(self) -> bool:
        over = self.model.round_over
        if self.seat is None and over is not None and (self.model.round, self.model.turn) > (over[0], HAND_SIZE - 1):
            return False  # a TV needs nobody to press Enter: the next round's first turn closes it
        model = self.model
        if (over is not None and model.clock is not None and model.round > over[0] and model.asked is not None
                and self.seat is not None):
            # The next round asks us a move and our clock runs: the table and the clock are what matter now (the
            # round's points stay in the log, the player list and the scoresheet); the box is seen.
            self.round_seen = max(self.round_seen, over[0])
        return over is not None and over[0] > self.round_seen and model.over is None

    def size(self) -> Size:
        app = getattr(self, "app", None)  # None while the layout is being built
        return app.output.get_size() if app is not None else Size(rows=MIN_HEIGHT, columns=MIN_WIDTH)

    def needed(self) -> tuple[int, int]:
        """The columns and lines this table's screen needs (below them prompt_toolkit could not draw it)."""
        app = getattr(self, "app", None)
        key = (app.render_counter if app is not None else -1, len(self.model.players), self.model.spectator)
        cached = getattr(self, "_needed", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        self._needed = (key, self._measure())
        return self._needed[1]

    def _measure(self) -> tuple[int, int]:
        body = self._table_body()
        self._measuring = True  # measured with the narrowest name column (longer names only where there is room)
        try:
            width = max(MIN_WIDTH, body.preferred_width(10_000).min)
            return width, max(MIN_HEIGHT, body.preferred_height(width, 10_000).min)
        finally:
            self._measuring = False

    def too_small(self) -> bool:
        if getattr(self, "app", None) is None or not hasattr(self, "_seated"):
            return False
        size, (width, height) = self.size(), self.needed()
        return size.columns < width or size.rows < height

    # ------------------------------------------------------------ actions (called by keys and clicks)

    def move(self, step: int) -> None:
        hand = self.model.hand
        if self.model.asked == "row":
            self.row_mark = ((self.row_mark if self.row_mark is not None else -step) + step) % 4
        elif hand:
            self.selected = (self.selected + step) % len(hand)
            self.typed = ""

    def digit(self, d: str) -> None:
        if self.model.asked == "row":
            if d in "1234":
                self.take_row(int(d) - 1)
            return
        if self.model.asked not in ("card", "pick"):
            return
        self.typed = (self.typed + d)[-3:]
        if self.typed.isdigit() and int(self.typed) in self.model.hand:
            self.selected = self.model.hand.index(int(self.typed))

    def backspace(self) -> None:
        self.typed = self.typed[:-1]

    def enter(self) -> None:
        model = self.model
        model.place_all()  # a person who answers knows the turn: its cards are shown at once
        if self.results and time.monotonic() - self.results_at < TYPED_AHEAD:
            return  # an Enter typed ahead (through the last round's screen) never leaves the results unseen
        if self.results or model.aborted and not self.confirm_quit:
            self.leave()
        elif model.over is not None:
            self.results, self.results_at = True, time.monotonic()
        elif self.round_screen:
            assert model.round_over is not None  # a round screen shows the round that is over
            self.round_seen = model.round_over[0]
        elif model.asked == "row" and self.row_mark is not None:
            self.take_row(self.row_mark)
        elif model.asked == "card":
            if self.typed:
                card = int(self.typed) if self.typed.isdigit() else -1
                if card not in model.hand:
                    self.typed = ""
                    return model.warn(_("{card} is not in your hand").format(card=card if card >= 0 else self.typed))
                self.selected = model.hand.index(card)
            self.play(model.hand[min(self.selected, len(model.hand) - 1)])
        elif model.asked == "pick" and self.typed.isdigit():
            self._intent(lambda seat: seat.pick(int(self.typed)))
            self.typed = ""

    def play(self, card: int) -> None:
        self.typed = ""
        self.model.committed = card
        self.model.asked = None
        self.model.say(_("You commit {card}").format(card=card))
        if not self._intent(lambda seat: seat.play(card)):
            self.model.committed, self.model.asked = None, "card"
        self.selected = min(self.selected, max(len(self.model.hand) - 1, 0))

    def take_row(self, row: int) -> None:
        self.model.place_all()
        heads_now = heads(self.model.shown_rows()[row])  # the row as drawn (the same as the row once placed)
        self.row_mark = None
        # Said before the intent, as a commit is: a table in this process (`play`) resolves the turn (and may end the
        # round) inside the call, and the line would follow the turn's outcome and the next round's start in the log.
        self.model.say(_("You take row {row} ({heads})").format(row=row + 1, heads=bull_heads(heads_now)))
        self._intent(lambda seat: seat.choose_row(row))

    def click_card(self, index: int):
        def click() -> None:
            if self.model.asked != "card":
                return
            if index == self.selected and not self.typed:
                self.play(self.model.hand[index])
            else:
                self.selected, self.typed = index, ""
        return click

    def click_row(self, row: int):
        def click() -> None:
            if self.model.asked == "row":
                self.take_row(row)
        return click

    def ask_stand_in(self) -> None:
        """Ask the stand-in to play for every other seat this turn waits on (a stalled player)."""
        if self.seat is None or self.model.over is not None or self.model.aborted:
            return
        try:
            asked = self.seat.ask_stand_in()
        except Exception as exc:  # a network or protocol problem: a message, never a traceback
            return self.model.warn(_("not accepted: {why}").format(why=f"{type(exc).__name__}: {exc}"))
        names = [self.model.players[s].name for s in asked if s < len(self.model.players)]
        if names:
            self.model.message = _("asked the stand-in to play for {names} in this turn").format(names=", ".join(names))
        else:
            self.model.message = _("nobody to ask the stand-in for: the turn waits on no one else (or you asked)")
        self.model.say(self.model.message)
        self.model.changed()

    def play_again(self) -> None:
        """`r` at game over: a rematch (the host offers one; a player asks for one, or accepts the offer)."""
        if self.again is None or self.model.over is None:
            return
        try:
            said = self.again()
        except Exception as exc:  # a network problem: a message, never a traceback
            said = _("no rematch: {why}").format(why=f"{type(exc).__name__}: {exc}")
        if said is None:
            self.go_again()
        else:
            self.model.rematch = said
            self.model.changed()

    def go_again(self) -> None:
        """On to the rematch: this screen closes (the next game's lobby and table follow)."""
        if self.app.is_running and not self.app.is_done:
            self.app.exit(result="again")

    def toggle_mute(self) -> None:
        self.muted = not self.muted
        self.model.message = (_("the bell is muted (m: bell on)") if self.muted
                              else _("the bell rings when 15 s are left on your clock"))
        self.model.changed()

    def _intent(self, intent: Callable[[Seat], str | None]) -> bool:
        """Send an intent to the seat; False if there is none (a spectator) or it was refused (with a warning)."""
        seat = self.seat
        return seat is not None and self.model.intent(lambda: intent(seat))

    def ask_quit(self) -> None:
        if self.model.over is not None or self.model.aborted:
            self.leave()
        elif self.confirm_quit:
            self.leave()  # Ctrl-C twice
        else:
            self.confirm_quit = True

    def leave(self) -> None:
        if self.seat is not None and self.model.over is None:
            self.seat.leave()
        if self.app.is_running and not self.app.is_done:  # is_done: its future is done (it has one while running)
            self.app.exit(result="over" if self.model.over is not None else "left")

    # ------------------------------------------------------------ layout

    def _text(self, get, **kw) -> Window:
        return Window(FormattedTextControl(get, focusable=False), **kw)

    def _root(self):
        model = self.model
        title = self._text(self._title, height=1, style="class:title")
        players = self._text(lambda: widgets.player_lines(model, self._names()), width=self._players_width)
        # The rows' own width (49 columns, a little more to breathe): on a wide terminal the player list stays
        # beside them and the room left over is at the right, not between them.
        rows = self._text(lambda: widgets.row_lines(model, self.click_row, self.row_mark),
                          width=D(min=49, preferred=49, max=52))
        hand = HSplit([
            self._text(lambda: [("class:dim", _("Your hand"))], height=1),
            self._text(lambda: widgets.hand_line(model, self.selected, self.click_card), height=1),
        ])
        table_height = lambda: D.exact(max(5, len(model.players) + 1))  # noqa: E731
        prompt = self._text(lambda: widgets.prompt_lines(model, self.typed, self.row_mark), height=2, wrap_lines=True)
        seated_width = lambda: self.size().columns  # noqa: E731
        tv_width = lambda: self.size().columns - 1 - self._players_width().preferred  # noqa: E731
        message = self._text(lambda: self._message(seated_width()), height=lambda: self._message_height(seated_width()))
        tv_message = self._text(lambda: self._message(tv_width()), height=lambda: self._message_height(tv_width()))
        log = Window(FormattedTextControl(self._log, get_cursor_position=self._log_end), wrap_lines=False)
        rule = Window(height=1, char="─", style="class:dim")
        footer = self._text(lambda: [("class:dim", " " + self._footer())], height=1)
        log_title = lambda: _("log")  # noqa: E731
        seated = HSplit([title, VSplit([rows, Window(width=1), players], height=table_height), rule, hand,
                         prompt, message, Frame(log, title=log_title), footer])
        big = self._text(lambda: widgets.big_row_lines(model), height=D(min=12, max=12))
        tv = HSplit([title, big, rule, VSplit([HSplit([tv_message, Frame(log, title=log_title)]), Window(width=1),
                                               players]),
                     self._text(self._tv_prompt, height=1),
                     self._text(lambda: [("class:dim", " " + _(self.tv_keys))], height=1)])
        self._seated, self._tv = seated, tv
        self._big = bigtable.layout(self)
        small = self._text(self._too_small_text, wrap_lines=True)

        def body():
            if self.too_small():
                return small
            if self._table_body() is tv and bigtable.fits(self.size()):
                return self._big
            return self._table_body()

        body = DynamicContainer(body)
        return FloatContainer(body, floats=[
            self._overlay(Condition(lambda: self.round_screen and not self.help), self._round_text),
            self._overlay(Condition(lambda: (self.results or bool(model.aborted) or (
                self.seat is None and model.over is not None)) and not self.help), self._over_text),
            self._overlay(Condition(lambda: self.help), self._help_text),
            self._overlay(Condition(lambda: self.confirm_quit), self._quit_question),
        ])

    def _quit_question(self) -> str:
        return _("Close the replay? (y / n)") if self.replay is not None else _("Leave the game? (y / n)")

    def _tv_prompt(self):
        if self.replay is not None:
            return [("class:status", self.replay())]
        if self.seat is None and self.model.over is not None and not self.model.aborted:
            # a TV's results come up by themselves (the seat's "press Enter to see the results" said otherwise):
            # what comes next
            return [("class:status", _("Game over: a rematch the host offers comes up here by itself; q leaves."))]
        return widgets.prompt_lines(self.model, "", None)

    def _table_body(self):
        return self._tv if self.model.spectator or self.seat is None else self._seated

    def _names(self) -> int:
        """The width of the players' name column: more than 9 when the screen has room for longer names."""
        spare = 0 if getattr(self, "_measuring", False) else self.size().columns - MIN_WIDTH
        return widgets.name_width(self.model, spare)

    def _players_width(self) -> D:
        return D.exact(widgets.PLAYERS_WIDTH + self._names() - widgets.NAME_WIDTH)

    def _message_height(self, width: int) -> D:
        """One line, more when there is room for a long message or several takes (each on lines of its own)."""
        lines = len(self._message_lines(width))
        return D(min=1, preferred=lines, max=max(lines, 1))

    def _message_lines(self, width: int) -> list[str]:
        """The latest warning, else who took which row in the last turn: wrapped between words, an event a line."""
        model = self.model
        if model.message:
            return wrap(model.message, width)
        return [line for take in model.takes for line in wrap(take, width)]

    def _overlay(self, when, text) -> Float:
        body = Frame(Window(FormattedTextControl(text), style="class:overlay"), style="class:overlay")
        return Float(ConditionalContainer(body, filter=when & ~Condition(self.too_small)))

    def _title(self):
        model = self.model
        if self.replay is not None:  # where the replay is: the line under the table says it, step by step
            return f" {self.title}"
        name = model.players[model.seat].name if model.players and model.seat is not None else None
        # A person who gave no name plays as "you" (cli): the title says "you", not "you: you".
        who = (_("spectator") if model.spectator else "" if name is None
               else _("you") if name == _("you") else _("you: {name}").format(name=name))
        where = (_("round {round}  turn {turn}/{turns}").format(  # the evening's round: a game that carries counts on
            round=model.round_no(model.round), turn=min(model.turn, HAND_SIZE - 1) + 1, turns=HAND_SIZE)
            if model.players else _("waiting for the game"))
        return f" {self.title}   {where}   {who}"

    def _message(self, width: int):
        lines = self._message_lines(width)
        if not any(lines):
            return ""
        return [("class:warn" if self.model.message else "class:status", "\n".join(lines))]

    def _footer(self) -> str:
        """The keys line: the game's keys while it runs; once it is over, only what still does something."""
        if self.model.aborted:
            return _("Enter / q: leave")
        if self.model.over is not None:
            again = _("r: play again") + "  " if self.again is not None and not self.model.spectator else ""
            return again + (_("Enter / q: leave") if self.results else _("Enter: the results  q: leave"))
        return (_("?: help  q: leave  ←/→ digits Enter: play  1-4: row  a: stand-in") + "  "
                + (_("m: unmute") if self.muted else _("m: mute")))

    def _log(self):
        # each entry broken between words to the width inside the frame, its further lines indented: the TV's log (a
        # spectator's, a replay's) beside the players, the seated log the screen's width (a take, a replay's commits,
        # a void round's reason, German's longer words were cut at the frame)
        seated = self._table_body() is not self._tv
        width = self.size().columns - 2 - (0 if seated else 1 + self._players_width().preferred)
        lines = []
        for entry in self.model.log:
            first = wrap(entry, width)  # (a blank line followed every entry of a TV's log: the rest of one that fits)
            rest = " ".join(first[1:])
            lines += first[:1] + (["  " + line for line in wrap(rest, width - 2)] if rest else [])
        text = "\n".join(lines) or _("(nothing yet)")
        self._log_last = text.count("\n")
        return text

    def _log_end(self):
        return Point(0, getattr(self, "_log_last", 0))

    def _too_small_text(self):
        """Our own too-small screen (never prompt_toolkit's): short lines, wrapped, and the quit question in it."""
        size, (width, height) = self.size(), self.needed()
        lines = [_("The terminal is too small: {columns}x{rows}.").format(columns=size.columns, rows=size.rows),
                 _("This table needs at least {columns}x{rows}.").format(columns=width, rows=height), "",
                 _("Enlarge the window."),
                 _("q: close the replay") if self.replay is not None else _("q: leave the game")]
        if self.confirm_quit:  # the overlays are not drawn on this screen: the question is asked here
            lines = [self._quit_question(), "", *lines]
        return "\n".join(lines)

    def _help_text(self) -> str:
        return "\n\n".join(_(part) for part in self.help_text)

    def _round_text(self):
        return widgets.round_text(self.model, rows=self.size().rows - 2)  # within the frame's two borders

    def _over_text(self):
        # A spectator's screen follows the host's rematch by itself: nothing to press for it.
        return widgets.over_text(self.model, again=self.again is not None and not self.model.spectator,
                                 rows=self.size().rows - 2)


def screen_text(ui: TableApp, width: int = 80, height: int = 24) -> str:
    """What the app draws at this size, as plain text (for tests and screenshots)."""
    screen = Screen(default_char=None, initial_width=width, initial_height=height)
    ui.app.render_counter += 1  # controls cache their text per render
    with set_app(ui.app):
        ui.app.layout.container.write_to_screen(screen, MouseHandlers(), WritePosition(0, 0, width, height),
                                                "", False, None)
        screen.draw_all_floats()
    return "\n".join("".join(screen.data_buffer[y][x].char for x in range(width)).rstrip() for y in range(height))


def NodeSeat(node) -> Seat:  # noqa: N802 - reads as the seat it makes
    """A seated Node's intents, for the full-screen app and a browser's page; leaving ends the node's game and,
    from then, it signs nothing on its own (Node.quit)."""
    from .local import SessionSeat

    return SessionSeat(lambda: node.session, node.act, node.quit, node.present)
