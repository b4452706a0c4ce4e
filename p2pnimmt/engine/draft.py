"""The draft ("logic"/pro) variant: the 10n+4 cards lie open and the seats pick their hands.

Pick order (protocol.md, "Draft"): snake order starting at seat
(round index mod n). In lap L (0..9) the seats pick in order
start, start+1, ..., start+n-1 (mod n) when L is even and in the reverse
order when L is odd, so whoever picks first in a lap picks last in the next.
The four cards nobody picked start the rows.
"""

from __future__ import annotations

from functools import cache

from .cards import HAND_SIZE, check_players, deck
from .round import Round


@cache
def pick_order(players: int, round_index: int) -> tuple[int, ...]:
    """The seat making each of the 10 * players picks of a draft round (asked for every pick a node takes)."""
    check_players(players)
    start = round_index % players
    forward = [(start + k) % players for k in range(players)]
    order: list[int] = []
    for lap in range(HAND_SIZE):
        order.extend(forward if lap % 2 == 0 else reversed(forward))
    return tuple(order)


class Draft:
    """The open cards of a draft round and the hands picked so far."""

    __slots__ = ("open_cards", "hands", "order", "picks")

    def __init__(self, players: int, round_index: int) -> None:
        self.open_cards = list(deck("draft", players))
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.order = pick_order(players, round_index)
        self.picks = 0

    @property
    def done(self) -> bool:
        return self.picks == len(self.order)

    @property
    def to_move(self) -> int | None:
        """The seat that picks next; None when every hand is full."""
        return None if self.done else self.order[self.picks]

    def pick(self, seat: int, card: int) -> None:
        """Seat `seat` takes `card` from the open cards; ValueError if it is not its pick or not open."""
        if self.done:
            raise ValueError("the draft is over: every hand is full")
        if seat != self.order[self.picks]:
            raise ValueError(f"seat {seat} picked out of turn: seat {self.order[self.picks]} picks now")
        if type(card) is not int or card not in self.open_cards:
            raise ValueError(f"seat {seat} picked {card!r}, which is not among the open cards")
        self.open_cards.remove(card)
        self.hands[seat].append(card)
        self.picks += 1

    def deal(self) -> Round:
        """The round that the finished draft sets up: picked hands, the 4 left-over cards as rows."""
        if not self.done:
            raise ValueError(f"the draft is not over: {len(self.order) - self.picks} picks left")
        return Round(self.hands, [[c] for c in sorted(self.open_cards)])
