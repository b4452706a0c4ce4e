"""One round: the deal, the hands, ten turns, and the bull heads each seat took.

`Round` is mutable on purpose: bots roll rounds out thousands of times per
move, so turns change lists in place instead of rebuilding tuples. Callers
that need a value (a UI, a state hash) take `snapshot()`; rollouts take `copy()`.
"""

from __future__ import annotations

from collections.abc import Sequence, Set as AbstractSet
from dataclasses import dataclass

from .cards import BULL_HEADS, HAND_SIZE, MAX_PLAYERS, ROW_COUNT, check_players
from .table import Placed, RowChoice, check_card, check_rows, chooser, place_turn


@dataclass(frozen=True, slots=True)
class RoundState:
    """An immutable picture of a round: rows, hands by seat, cards taken by seat, turns played."""

    rows: tuple[tuple[int, ...], ...]
    hands: tuple[tuple[int, ...], ...]
    taken: tuple[tuple[int, ...], ...]
    turn: int


SEATS = range(MAX_PLAYERS)
HIDDEN = 0  # a card in a hand this node cannot see (the sealed deal); it becomes a card when revealed
INT_ONLY = {int}  # a deal holds ints only: True == 1 and 5.0 == 5 must not pass for cards


class Round:
    """The table, the hands and the bull-head piles of one round."""

    __slots__ = ("rows", "hands", "taken", "played")

    def __init__(self, hands: Sequence[Sequence[int]], rows: Sequence[Sequence[int]]) -> None:
        check_players(len(hands))
        check_rows(rows)
        if len({len(hand) for hand in hands}) != 1:
            raise ValueError(f"every hand must hold the same number of cards, got {[len(h) for h in hands]}")
        on_table = {c for row in rows for c in row}
        in_hands = [c for hand in hands for c in hand]
        for card in in_hands:
            check_card(card, "hand")
        if len(set(in_hands)) != len(in_hands) or on_table.intersection(in_hands):
            raise ValueError("a card is dealt twice (in two hands, or in a hand and on a row)")
        self.hands = list(map(sorted, hands))
        self.rows = list(map(list, rows))
        self.taken: list[list[int]] = [[] for _ in hands]
        self.played: list[tuple[int, ...]] = []  # each resolved turn's cards, by seat (public)

    @classmethod
    def deal(cls, order: Sequence[int], players: int, deck: AbstractSet[int] | None = None) -> Round:
        """Deal from a deck order: seat s gets order[10s:10s+10]; the next 4 cards start the rows, sorted.

        ValueError unless the first 10 * players + 4 cards are distinct (and in `deck`, if given).
        """
        check_players(players)
        needed = HAND_SIZE * players + ROW_COUNT
        dealt = order[:needed]
        cards = set(dealt)
        if set(map(type, dealt)) != INT_ONLY:
            raise ValueError(f"a deck order holds whole-number cards only, got {list(order)!r}")
        if len(cards) != needed:
            raise ValueError(f"a deal for {players} players needs {needed} distinct cards, got {list(order)!r}")
        if deck is not None and not cards <= deck:
            raise ValueError(f"cards {sorted(cards - deck)} are not in the deck")
        rnd = cls.__new__(cls)
        rnd.hands = [sorted(dealt[s : s + HAND_SIZE]) for s in range(0, HAND_SIZE * players, HAND_SIZE)]
        rnd.rows = [[c] for c in sorted(dealt[HAND_SIZE * players :])]
        rnd.taken = [[] for _ in range(players)]
        rnd.played = []
        return rnd

    @classmethod
    def sealed(cls, hands: Sequence[Sequence[int] | None], rows: Sequence[int]) -> Round:
        """A freshly dealt round where some hands are hidden (None): they hold HIDDEN until cards are revealed.

        `rows` are the four row cards (laid out sorted). ValueError for cards that are not cards or dealt twice.
        """
        check_players(len(hands))
        known = [c for hand in hands if hand is not None for c in hand] + list(rows)
        for card in known:
            check_card(card, "deal")
        if len(set(known)) != len(known) or len(rows) != ROW_COUNT:
            raise ValueError("a card is dealt twice, or there are not four row cards")
        if any(hand is not None and len(hand) != HAND_SIZE for hand in hands):
            raise ValueError(f"every hand holds {HAND_SIZE} cards")
        rnd = cls.__new__(cls)
        rnd.hands = [sorted(hand) if hand is not None else [HIDDEN] * HAND_SIZE for hand in hands]
        rnd.rows = [[c] for c in sorted(rows)]
        rnd.taken = [[] for _ in hands]
        rnd.played = []
        return rnd

    def reveal(self, seat: int, card: int) -> None:
        """A hidden card of `seat` turns out to be `card` (it is about to be played); ValueError if impossible."""
        check_card(card, "revealed card")
        hand = self.hands[seat]
        if HIDDEN not in hand:
            raise ValueError(f"seat {seat} has no hidden card left")
        if card in self.seen or any(card in h for h in self.hands):
            raise ValueError(f"{card} is on the table, in a pile or in a known hand")
        hand[hand.index(HIDDEN)] = card

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def turn(self) -> int:
        """Turns played so far (0..10)."""
        return HAND_SIZE - len(self.hands[0])

    @property
    def seen(self) -> set[int]:
        """Cards every seat has seen: the row cards of the deal and every card revealed since.

        Each of them now lies on a row or in someone's bull-head pile.
        """
        return set().union(*self.rows, *self.taken)

    @property
    def penalties(self) -> list[int]:
        """Bull heads each seat has taken so far this round."""
        return [sum(map(BULL_HEADS.__getitem__, pile)) for pile in self.taken]

    @property
    def over(self) -> bool:
        """True once every hand is empty."""
        return not self.hands[0]

    def chooser(self, cards: Sequence[int]) -> int | None:
        """The seat that must choose a row if `cards` (by seat) are played now; None if nobody."""
        return chooser(self.rows, min(cards), cards.index(min(cards)))

    def play_turn(self, cards: Sequence[int], row_choice: RowChoice[int] = None) -> list[Placed[int]]:
        """Play one card per seat (cards[s] from seat s); return (seat, card, row, taken) per placement.

        `row_choice` is the row the chooser takes (rule 4), or a callable
        asked with the chooser's seat only when a choice is needed. Raises
        RowChoiceRequired when a choice is needed and none is given, and
        ValueError for a card not in its seat's hand or a row choice out of
        place; both change nothing.
        """
        hands = self.hands
        if len(cards) != len(hands):
            raise ValueError(f"expected one card for each of {len(hands)} seats, got {list(cards)!r}")
        for card in cards:  # cards are ints: True == 1 and 5.0 == 5 must not pass for cards
            if type(card) is not int:
                break
        else:
            card = None
        if card is not None or not all(map(list.__contains__, hands, cards)):
            seat = next(s for s, card in enumerate(cards) if type(card) is not int or card not in hands[s])
            raise ValueError(f"seat {seat} played {cards[seat]!r}, which is not in its hand")
        order = sorted(zip(cards, SEATS))
        placed = place_turn(self.rows, order, row_choice, self.taken)  # raises before changing anything
        for _ in map(list.remove, hands, cards):
            pass
        self.played.append(tuple(cards))
        return placed

    def copy(self) -> Round:
        """An independent copy (for rollouts)."""
        other = Round.__new__(Round)
        other.rows = [list(r) for r in self.rows]
        other.hands = [list(h) for h in self.hands]
        other.taken = [list(t) for t in self.taken]
        other.played = list(self.played)
        return other

    def snapshot(self) -> RoundState:
        """An immutable picture of the round now."""
        return RoundState(
            rows=tuple(tuple(r) for r in self.rows),
            hands=tuple(tuple(h) for h in self.hands),
            taken=tuple(tuple(t) for t in self.taken),
            turn=self.turn,
        )
