"""One page's view of the game: the TableModel (and the lobby) as the page's state, and the page's intents.

The page reads the same TableModel the terminal reads. A turn's cards are placed one by one on
a timer here (ui.placing, the terminal's Placer too), so the page only draws what it is sent.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from ..i18n import _, ngettext
from ..protocol.events import Event, GameStarted
from ..ui import placing
from ..ui.model import DROPPED, TableModel, heads
from .qr import qr_uri
from .state import lobby_state, table_state
from .view import View

PLACE_DELAY = 0.8  # seconds between the cards of a turn as they are placed (P2PNIMMT_PLACE_DELAY overrides)
Command = Callable[[list[str]], Awaitable[str]]
# What a page may ask for; anything else is refused with a message on that page (the connection stays).
INTENTS = ("play", "row", "pick", "lobby", "guest", "leave", "present", "stand_in", "back", "again")


class Placer(placing.Placer):
    """Places each turn's cards one by one on `model`, `delay` seconds apart (0: all at once; None: PLACE_DELAY,
    or P2PNIMMT_PLACE_DELAY); it listens to the model before the views, so they see the placement shown."""

    def __init__(self, model: TableModel, delay: float | None = None) -> None:
        super().__init__(model, placing.place_delay(PLACE_DELAY) if delay is None else delay)


class TvModel(TableModel):
    """The TV page's table: what a spectator of the game sees, whichever node serves it. It is fed the node's
    events with the node's own seat taken out (its GameStarted names no seat), so nothing only that seat knows
    (its hand, the card it committed, what its page did, its clock's warnings) ever enters it: a page the whole
    room looks at shows what every seat shows everyone, and no more."""

    def update(self, session, event: Event) -> None:
        if isinstance(event, GameStarted) and event.seat is not None:
            event = dataclasses.replace(event, seat=None)
        super().update(session, event)


def feed(*models: TableModel) -> Callable[[Any, Event], None]:
    """One node's events to several models (a seat's and its TV's): an `on_event` for them all."""
    def update(session, event: Event) -> None:
        for model in models:
            model.update(session, event)
    return update


class Page:
    """What one page shows: the table (as a seat or as the TV), the lobby while there is one, the game code and QR.

    `seat` (a ui Seat) makes the page act for that seat; None: read-only, and then `model` is a TvModel. `node`
    gives the lobby (duck-typed: members, players(), settings, lobby_state); `command` runs the host's lobby
    commands (app.lobby).
    """

    def __init__(self, model: TableModel, *, seat=None, tv: bool = False, title: str = "p2pnimmt",
                 node=None, code: str | None = None, command: Command | None = None,
                 on_leave: Callable[[], None] | None = None, join_text: Callable[[], str | None] | None = None,
                 extra: Callable[[], dict[str, Any]] | None = None,
                 offer_guest: Callable[[], Awaitable[str]] | None = None,
                 phone_url: Callable[[], str | None] | None = None,
                 invite: Callable[[], str | None] | None = None) -> None:
        if (tv or seat is None) and not isinstance(model, TvModel):
            raise TypeError("a read-only page shows a TvModel: the model of a seat holds what only that seat knows")
        self.model = model
        self.seat = None if tv else seat
        self.tv = tv
        self.title = title
        self.node = node
        self.code = code
        self.command = None if tv else command
        self.on_leave = on_leave
        self.join_text = join_text
        self.phone_url = phone_url  # the phone page's link (web.relay): what the QR code says, when there is one
        self.invite = invite  # the host's invite link (net.invite), shown with its QR in the lobby's corner
        self.extra = extra
        self.offer_guest = None if tv else offer_guest
        self.lobby_message = ""
        self.refused: str | None = None  # why the page's last action was refused (ill-formed or unknown)
        self.stand_in_asked: tuple[int, int, frozenset[str]] = (-1, -1, frozenset())  # (round, turn, names asked)
        self.back_asked = False  # we asked for our dropped seat back (also read from the session: a reload keeps it)
        self.left = asyncio.Event()
        # At game over, "again": a rematch (the host offers it, a player asks for or accepts it), as the
        # terminal's `r`; set by the front that follows rematches (app.web). Returns what to say, or None.
        self.again: Callable[[], str | None] | None = None
        acts = self.seat is not None or self.command is not None or self.offer_guest is not None
        self.view = View(self.state, self.act if acts else None)
        model.listeners.append(self.view.changed)
        if node is not None:
            node.watch_lobby(lambda _node: self.view.changed())

    def state(self) -> dict[str, Any]:
        state = table_state(self.model, tv=self.tv)
        state["title"] = self.title
        state["code"] = self.code
        join = self.join_text() if self.join_text is not None else None
        state["join"] = join
        phone = self.phone_url() if self.phone_url is not None else None
        state["phone"] = phone
        state["qr"] = qr_uri(phone or join) if phone or join else None
        node = self.node
        if node is not None and node.lobby_state == "lobby" and not self.model.players:
            state["kind"] = "lobby"
            state["lobby"] = lobby_state(node, self.code or "", self.command is not None)
            state["lobby"]["message"] = self.lobby_message
            link = self.invite() if self.invite is not None else None
            state["lobby"]["invite"] = {"link": link, "qr": qr_uri(link)} if link else None
        state["view"] = "tv" if self.seat is None else "seat"  # in the lobby too, before the game gives a seat
        state["left"] = self.left.is_set()
        state["refused"] = self.refused
        state["can_again"] = self.seat is not None and self.again is not None and self.model.over is not None
        if self.seat is not None:
            state["stand_in"] = self.stand_in_names()
            if not state.get("dropped_me"):
                self.back_asked = False  # back in the game (SeatBack), or never dropped: a next drop asks anew
            state["asked_back"] = bool(state.get("dropped_me")) and self.asked_back()
        if self.extra is not None:
            state.update(self.extra())
        return state

    def stand_in_names(self) -> list[str]:
        """Whom the "ask the stand-in" button asks for: as the terminal's `a`, the other seats this turn waits on,
        offered only while no clock runs (a clock plays a stalled seat by itself) and not yet asked in this turn."""
        model = self.model
        if self.seat is None or model.over is not None or model.aborted or model.clock is not None:
            return []
        rnd, turn, asked = self.stand_in_asked
        done = asked if (rnd, turn) == (model.round, model.turn) else frozenset()
        return [name for name in model.waiting_names() if name not in done]

    def asked_back(self) -> bool:
        """Our dropped seat asked to be back (REJOIN): as the session has it when it can tell, else as we asked."""
        if self.back_asked:
            return True
        session = self._session()
        asked = getattr(getattr(session, "table", None), "asked_back", None)
        seat = getattr(session, "seat", None)
        try:
            return bool(callable(asked) and seat is not None and asked(seat, session.round))
        except Exception:  # a session of another shape: what we asked ourselves is all we know
            return False

    def _session(self):
        try:
            return self.seat.session() if callable(getattr(self.seat, "session", None)) else None
        except Exception:
            return None

    @property
    def _seat(self) -> Any:
        """The seat, for the intents act() passes on only when there is one."""
        assert self.seat is not None
        return self.seat

    def refuse(self, why: str) -> None:
        self.refused = _("refused: {why}").format(why=why)

    async def act(self, intent: dict[str, Any]) -> None:
        """One intent from the page: play, row, pick, lobby, guest, leave, present, stand_in, back.

        A game move the game does not take is shown as the model's message; an ill-formed or unknown action
        (or one this page may not do) is refused with a message on this page only (`refused`).
        """
        do = intent.get("do")
        if not isinstance(do, str) or do not in INTENTS:
            shown = do[:40] if isinstance(do, str) else None
            return self.refuse(_("unknown action {action}").format(action=repr(shown)) if shown is not None
                               else _("an action is a JSON object with \"do\" naming it"))
        self.refused = None
        if do in ("lobby", "guest"):
            return await self._lobby(do, intent)
        if do == "again":
            if self.seat is None or self.again is None or self.model.over is None:
                return self.refuse(_("again: no rematch to ask for here (only a seat's page, at game over)"))
            said = self.again()
            self.model.rematch = said if said is not None else _("on to the rematch: its lobby follows")
            self.model.changed()
            return
        if do == "leave":
            model = self.model
            if self.seat is not None and model.over is None:
                self.seat.leave()
            self.left.set()
            if self.on_leave is not None:
                self.on_leave()
            return
        if self.seat is None:
            return self.refuse(_("{action}: this page has no seat").format(action=do))
        if do == "present":
            return self._present()
        if do == "stand_in":
            return self._ask_stand_in()
        if do == "back":
            return self._take_seat_back()
        number = intent.get("card" if do in ("play", "pick") else "row")
        if type(number) is not int:
            return self.refuse((_("{action} needs a whole number (card)") if do in ("play", "pick")
                                else _("{action} needs a whole number (row)")).format(action=do))
        self._move(do, number)

    async def _lobby(self, do: str, intent: dict[str, Any]) -> None:
        if do == "lobby":
            words = intent.get("words")
            if self.command is None:
                return self.refuse(_("lobby: only the host's page runs lobby commands"))
            if not (isinstance(words, list) and 0 < len(words) <= 4
                    and all(isinstance(w, str) and len(w) <= 40 for w in words)):
                return self.refuse(_("lobby needs \"words\": 1 to 4 words of up to 40 characters"))
            try:
                self.lobby_message = await self.command(words)
            except ValueError as exc:
                self.lobby_message = _("not done: {why}").format(why=exc)
            return
        if self.offer_guest is None:
            return self.refuse(_("guest: this page cannot offer a guest seat"))
        try:
            self.lobby_message = await self.offer_guest()
        except ValueError as exc:
            self.lobby_message = _("not done: {why}").format(why=exc)

    def _present(self) -> None:
        """The person at our away seat is back (a button, a key or a click on the hand): as the terminal's key."""
        model = self.model
        if model.here:
            return  # not away: nothing to end (every key on the page sends this while away, so this is common)
        model.back()
        try:
            self._seat.present()
        except Exception as exc:  # a network problem: a message, never a traceback
            model.warn(f"{type(exc).__name__}: {exc}")

    def _ask_stand_in(self) -> None:
        """Ask the stand-in for the other seats this turn waits on (the terminal's `a`: Seat.ask_stand_in)."""
        model = self.model
        if not self.stand_in_names():
            return self.refuse(_("nobody to ask the stand-in for: the turn waits on no one else, a clock runs, "
                                 "or you asked"))
        try:
            asked = self._seat.ask_stand_in()
        except Exception as exc:  # a network or protocol problem: a message, never a traceback
            return model.warn(_("not accepted: {why}").format(why=f"{type(exc).__name__}: {exc}"))
        names = [model.players[s].name for s in asked if 0 <= s < len(model.players)]
        rnd, turn, before = self.stand_in_asked
        before = before if (rnd, turn) == (model.round, model.turn) else frozenset()
        # Asked or not (a seat already asked is skipped by the session), the button is done for this turn.
        self.stand_in_asked = (model.round, model.turn, before | set(model.waiting_names()))
        if names:
            model.message = _("asked the stand-in to play for {names} in this turn").format(names=", ".join(names))
        else:
            model.message = _("nobody to ask the stand-in for: the turn waits on no one else (or you asked)")
        model.say(model.message)
        model.changed()

    def _take_seat_back(self) -> None:
        """Our dropped seat asks to be back from a next round (REJOIN: node.take_seat_back, else present())."""
        model = self.model
        me = model.seat
        if me is None or not 0 <= me < len(model.players) or model.players[me].status != DROPPED:
            return self.refuse(_("back: your seat is not dropped"))
        session = getattr(self.node, "session", None)  # at game-end, before the last GAME_END: over too (11.3)
        if model.over is not None or model.aborted or getattr(session, "phase", None) in ("game-end", "over"):
            return self.refuse(_("back: the game is over"))
        try:
            take = getattr(self.node, "take_seat_back", None)
            if callable(take):
                take()
            else:
                self._seat.present()
        except Exception as exc:  # a network problem: a message, never a traceback
            return model.warn(f"{type(exc).__name__}: {exc}")
        self.back_asked = True
        model.say(_("You asked for your seat back: you play again from the round after more than half of the players "
                    "have your ask"))
        model.changed()

    def _move(self, do: str, number: int) -> None:
        model = self.model
        self._present()  # a move from the person at an away seat: they are back, as any key at the terminal
        if do == "play" and model.asked == "card":
            model.committed, model.asked = number, None
            model.say(_("You commit {card}").format(card=number))
            if not self._intent(lambda seat: seat.play(number)):
                model.committed, model.asked = None, "card"
        elif do == "row" and model.asked == "row" and 0 <= number < 4:
            heads_now = heads(model.rows[number])
            if self._intent(lambda seat: seat.choose_row(number)):
                model.say(_("You take row {row} ({heads})").format(
                    row=number + 1, heads=ngettext("{n} bull head", "{n} bull heads", heads_now).format(n=heads_now)))
        elif do == "pick" and model.asked == "pick":
            self._intent(lambda seat: seat.pick(number))
        model.changed()

    def _intent(self, intent) -> bool:
        """Send an intent to the seat (TableModel.intent): False if it was refused, with a message on the page."""
        return self.model.intent(lambda: intent(self.seat))
