"""`p2pnimmt play --lines`: the person's seat at a LocalTable, line by line; cards, rows and picks typed.

The game runs through the same in-memory Sessions as the full-screen table
(ui.local.LocalTable), so one seed gives the same game in both. This front
only prints what its session reports and sends what the person types.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

from ..engine import BULL_HEADS, HAND_SIZE
from ..i18n import N_, _, said
from ..neutral import neutral
from ..protocol.events import (
    Event,
    GameAborted,
    GameOver,
    PickNeeded,
    PlayNeeded,
    Revealed,
    RoundEnded,
    RoundStarted,
    RowChoiceNeeded,
    TurnResolved,
)
from .words import addressed, bull_heads, n_points

STAND_IN_ROW = N_(" (the stand-in chose the row)")  # a row choice the stand-in made, in everyone's lines


class InputClosed(Exception):
    """The player's input ended before the game did."""


def card_text(card: int) -> str:
    """A card with its bull heads, e.g. '55*7'."""
    return f"{card}*{BULL_HEADS[card]}"


def turn_lines(event: Revealed | TurnResolved, names: Sequence[str], me: int | None = None) -> list[str]:
    """A turn in lines: the cards revealed (lowest first), then who took which row (`me`: our seat, 'you')."""
    if isinstance(event, Revealed):
        order = sorted(range(len(event.cards)), key=event.cards.__getitem__)
        marks = {s: _(" (stand-in)") for s in event.stand_in}  # the stand-in played it, in everyone's lines
        return ["  " + _("revealed: {cards}").format(
            cards=", ".join(f"{names[s]} {event.cards[s]}{marks.get(s, '')}" for s in order))]
    who = {seat: _("you") if seat == me else names[seat] for seat in range(len(names))}
    return ["  " + (_("{who} take row {row} with {card}: {heads}") if addressed(who[seat])
                    else _("{who} takes row {row} with {card}: {heads}")).format(
                who=who[seat], row=row + 1, card=card, heads=bull_heads(sum(BULL_HEADS[c] for c in taken)))
            + _(STAND_IN_ROW) * (seat in event.stand_in)
            for seat, card, row, taken in event.placements if taken]


def turn_title(round_index: int, turn: int) -> str:
    """'Round 2, turn 5/10' (from the 0-based round and turn)."""
    return _("Round {round}, turn {turn}/{turns}").format(round=round_index + 1, turn=turn + 1, turns=HAND_SIZE)


def below_every_row(card: int, heads: Sequence[int]) -> list[str]:
    """The lines that ask for a row: the card, then each row's bull heads."""
    return [_("Your {card} is below every row: you take a row of your choice.").format(card=card),
            "  " + "  ".join(_("row {n}:").format(n=i + 1) + " " + bull_heads(h) for i, h in enumerate(heads))]


def not_in_hand(text: str, hand: Sequence[int]) -> str:
    """What to say of `text` typed for a card; an empty line (Enter alone) names no card: what to type."""
    if not text.strip():
        return _("type a card of your hand: {cards}").format(cards=" ".join(map(str, hand)))
    return _("'{text}' is not a card in your hand; type one of: {cards}").format(
        text=text, cards=" ".join(map(str, hand)))


def not_a_row(text: str) -> str:
    if not text.strip():
        return _("type the row you take: 1, 2, 3 or 4")
    return _("'{text}' is not a row; type 1, 2, 3 or 4").format(text=text)


def not_open(text: str) -> str:
    return _("'{text}' is not an open card").format(text=text)


def table_text(rows: Sequence[Sequence[int]]) -> list[str]:
    """The four rows, each with its bull-head total and free slots; the sixth slot shows as '!'."""
    lines = []
    for i, row in enumerate(rows):
        cards = " ".join(f"{card_text(c):>6}" for c in row)
        free = " ".join("     ." for _slot in range(5 - len(row)))
        heads = sum(BULL_HEADS[c] for c in row)
        lines.append("  " + _("row {n}:").format(n=i + 1) + f" {cards} {free}      ! ({bull_heads(heads)})")
    return lines


class LinesTable:
    """Shows the person's session as lines and asks for its moves; `play(table)` runs the table's game.

    `names` are the names to print, by seat (a bot's with its kind).
    """

    def __init__(self, names: Sequence[str], read: Callable[[str], str], out: TextIO) -> None:
        self.names = names
        self.read = read
        self.out = out
        self.asked: Event | None = None  # what the session asks of the person now
        self.draft = None  # the draft being picked (kept: the game lets go of it when it is done)
        self.picks_shown = 0

    def say(self, *lines: str) -> None:
        for line in lines:
            print(line, file=self.out)

    # ------------------------------------------------------------ the game, as it happens

    def on_event(self, session, event: Event) -> None:
        """For LocalTable(on_event=...): print what happened; keep what is asked for play() to ask."""
        names = self.names
        if isinstance(event, (PlayNeeded, PickNeeded)) or (
                isinstance(event, RowChoiceNeeded) and event.seat == session.seat):
            self.asked = event
        if isinstance(event, (PickNeeded, RoundStarted)):
            self._show_picks()
        if isinstance(event, (Revealed, TurnResolved)):
            self.say(*turn_lines(event, names, session.seat))
        elif isinstance(event, RoundEnded):
            self.say("", _("End of round {round}:").format(round=event.round + 1) + " "
                     + ", ".join(f"{names[s]} +{p}" for s, p in enumerate(event.penalties)),
                     _("Scores:") + " " + ", ".join(f"{names[s]} {p}" for s, p in enumerate(event.scores)))
        elif isinstance(event, GameOver):
            low = event.scores[event.winners[0]]
            won = (_("Winners: {names} with {points}.") if len(event.winners) > 1
                   else _("Winner: {names} with {points}."))
            self.say(_("Game over.") + " " + ", ".join(f"{names[s]} {p}" for s, p in enumerate(event.scores)),
                     won.format(names=", ".join(names[s] for s in event.winners), points=n_points(low)))
        elif isinstance(event, GameAborted):
            self.say(_("Game aborted: {why}").format(
                why=said(neutral(event.fault.describe(dict(zip(session.roster, names)))))))
        game = session.game
        if game is not None and game.draft is not None and game.draft is not self.draft:
            self.draft, self.picks_shown = game.draft, 0
            self.say(_("Draft: the cards lie open; pick your hand in turn."))
            self._show_picks()

    def _show_picks(self) -> None:
        """The bots' picks of the draft since the last shown, in the order they were made."""
        draft = self.draft
        if draft is None:
            return
        while self.picks_shown < draft.picks:
            seat = draft.order[self.picks_shown]
            card = draft.hands[seat][draft.order[:self.picks_shown].count(seat)]
            self.picks_shown += 1
            if seat != 0:
                self.say("  " + _("{name} picks {card}").format(name=self.names[seat], card=card_text(card)))

    # ------------------------------------------------------------ the person's moves

    def play(self, table) -> None:
        """Start the table's game and answer what it asks of the person until nothing is asked (game over)."""
        table.start()
        while self.asked is not None:
            asked, self.asked = self.asked, None
            session = table.session
            if isinstance(asked, PlayNeeded):
                outputs = session.play(self.ask_card(session))
            elif isinstance(asked, RowChoiceNeeded):
                outputs = session.choose_row(self.ask_row(session.game.round.rows, asked.card))
            else:
                outputs = session.pick(self.ask_pick(session.game.draft.open_cards))
            table.act(table.me, outputs)

    def ask(self, prompt: str, valid: Callable[[str], int | None], hint: Callable[[str], str]) -> int:
        while True:
            try:
                answer = self.read(prompt).strip()
            except EOFError:
                raise InputClosed from None
            value = valid(answer)
            if value is not None:
                return value
            self.say(hint(answer))

    def ask_card(self, session) -> int:
        rnd = session.game.round
        hand = list(rnd.hands[session.seat])
        self.say("", turn_title(session.round, session.turn), *table_text(rnd.rows))
        self.say("  " + _("your hand: {cards}").format(cards=" ".join(card_text(c) for c in hand)))

        def valid(text: str) -> int | None:
            return int(text) if text.isascii() and text.isdigit() and int(text) in hand else None

        return self.ask(_("your card> "), valid, lambda text: not_in_hand(text, hand))

    def ask_row(self, rows: Sequence[Sequence[int]], card: int) -> int:
        heads = [sum(BULL_HEADS[c] for c in row) for row in rows]
        self.say(*below_every_row(card, heads))

        def valid(text: str) -> int | None:
            return int(text) - 1 if text in ("1", "2", "3", "4") else None

        return self.ask(_("take row (1-4)> "), valid, not_a_row)

    def ask_pick(self, open_cards: Sequence[int]) -> int:
        cards = list(open_cards)
        self.say("  " + _("open: {cards}").format(cards=" ".join(card_text(c) for c in cards)))

        def valid(text: str) -> int | None:
            return int(text) if text.isascii() and text.isdigit() and int(text) in cards else None

        return self.ask(_("pick> "), valid, not_open)
