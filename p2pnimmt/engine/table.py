"""The four rows and how played cards are placed on them (rules 1-4).

`place_turn` is the one implementation of placement. `resolve_turn` is its
validated, copying front door for library users; `Round.play_turn` calls it
on the round's own lists so that rollouts stay fast.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias, TypeVar

from .cards import BULL_HEADS, HIGHEST_CARD, ROW_COUNT, ROW_LIMIT

ROW_INDEXES = tuple(range(ROW_COUNT))
P = TypeVar("P", bound=Hashable)  # who plays a card: a seat in a Round, any hashable in resolve_turn
_P_contra = TypeVar("_P_contra", contravariant=True)
RowChoice: TypeAlias = int | Callable[[P], int] | None  # a row 0..3, or who-chooses -> row
Placed: TypeAlias = tuple[P, int, int, tuple[int, ...]]  # (player, card, row, cards taken)


class Piles(Protocol[_P_contra]):
    """Each player's pile of taken cards: a list by seat, or a mapping by player."""

    def __getitem__(self, player: _P_contra, /) -> list[int]: ...


class RowChoiceRequired(Exception):
    """The lowest card of the turn is below every row end: `player` must choose a row (rule 4)."""

    def __init__(self, player: Hashable, card: int) -> None:
        super().__init__(f"player {player!r} played {card}, below every row end, and must choose a row to take")
        self.player = player
        self.card = card


@dataclass(frozen=True, slots=True)
class Placement:
    """One card placed: by whom, on which row (0..3), and the cards it took (empty if none)."""

    player: Hashable
    card: int
    row: int
    taken: tuple[int, ...]

    @property
    def bull_heads(self) -> int:
        """Bull heads the player took with this placement."""
        return sum(BULL_HEADS[c] for c in self.taken)


@dataclass(frozen=True, slots=True)
class TurnResult:
    """The rows after a turn, the cards each player took, and every placement in order."""

    rows: tuple[tuple[int, ...], ...]
    taken: Mapping[Hashable, tuple[int, ...]]
    placements: tuple[Placement, ...]

    @property
    def penalties(self) -> dict[Hashable, int]:
        """Bull heads taken this turn, per player who took any."""
        return {p: sum(BULL_HEADS[c] for c in cards) for p, cards in self.taken.items()}


def chooser(rows: Sequence[Sequence[int]], low_card: int, player: P) -> P | None:
    """`player` if its `low_card`, the lowest of the turn, is below every row end (rule 4); else None."""
    return player if all(low_card < row[-1] for row in rows) else None


def place_turn(rows: list[list[int]], order: Sequence[tuple[int, P]], row_choice: RowChoice[P],
               piles: Piles[P]) -> list[Placed[P]]:
    """Place `order` ((card, player), ascending, checked) onto `rows` in place.

    Returns (player, card, row, taken) per card.

    Cards a player takes are added to `piles[player]` (a list).
    `row_choice` is the row the lowest card takes when it is below every row
    end (rule 4), or a callable asked with that card's player. Raises
    RowChoiceRequired when a choice is needed and missing, and ValueError
    when it is out of 0..3 or given though nobody chooses; both change nothing.
    """
    ends = [rows[0][-1], rows[1][-1], rows[2][-1], rows[3][-1]]  # ROW_COUNT == 4, unrolled: the hot path
    low_card, low_player = order[0]
    placed: list[Placed[P]] = []
    rest = order
    if low_card < min(ends):  # rule 4: the lowest card takes the row its player chooses
        if row_choice is None:
            raise RowChoiceRequired(low_player, low_card)
        if callable(row_choice):
            row_choice = row_choice(low_player)
        if type(row_choice) is not int or not 0 <= row_choice < ROW_COUNT:
            raise ValueError(f"row_choice must be a row 0..{ROW_COUNT - 1}, got {row_choice!r}")
        taken = tuple(rows[row_choice])
        piles[low_player].extend(taken)
        placed.append((low_player, low_card, row_choice, taken))
        rows[row_choice] = [low_card]
        ends[row_choice] = low_card
        rest = order[1:]
    elif row_choice is not None and not callable(row_choice):
        raise ValueError(f"row_choice {row_choice!r} given, but card {low_card} fits a row: nobody chooses this turn")
    # Each later card joins the row with the highest end below it (rules 1, 2).
    # That keeps the row ends in the same sorted order, so one sort per turn suffices.
    by_end = sorted(ROW_INDEXES, key=ends.__getitem__)
    ends.sort()
    for card, player in rest:
        k = bisect_left(ends, card) - 1
        # At most one row choice per turn: once the lowest card has started a row, every higher card fits one.
        assert k >= 0, f"card {card} is below every row end, but only the lowest card of a turn can be"
        ends[k] = card
        i = by_end[k]
        row = rows[i]
        if len(row) == ROW_LIMIT:  # rule 3: the sixth card takes the five
            taken = tuple(row)
            piles[player].extend(taken)
            placed.append((player, card, i, taken))
            rows[i] = [card]
        else:
            row.append(card)
            placed.append((player, card, i, ()))
    return placed


def check_rows(rows: Sequence[Sequence[int]]) -> None:
    """Raise ValueError unless `rows` is 4 ascending rows of 1..5 distinct cards."""
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) or len(rows) != ROW_COUNT:
        raise ValueError(f"rows must be {ROW_COUNT} sequences of cards, got {rows!r}")
    seen: set[int] = set()
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not isinstance(row, Sequence):
            raise ValueError(f"row {i} must be a sequence of cards, got {row!r}")
        if not 1 <= len(row) <= ROW_LIMIT:
            raise ValueError(f"row {i} must hold 1..{ROW_LIMIT} cards, holds {len(row)}")
        for card in row:
            check_card(card, f"row {i}")
            if card in seen:
                raise ValueError(f"card {card} lies on the table twice")
            seen.add(card)
        if any(a >= b for a, b in zip(row, row[1:])):
            raise ValueError(f"row {i} is not ascending: {list(row)}")


def check_card(card: object, where: str) -> None:
    """Raise ValueError unless `card` is an int 1..104."""
    if type(card) is not int or not 1 <= card <= HIGHEST_CARD:
        raise ValueError(f"{where}: {card!r} is not a card (1..{HIGHEST_CARD})")


def resolve_turn(
    rows: Sequence[Sequence[int]], plays: Mapping[Hashable, int], row_choice: int | None = None
) -> TurnResult:
    """Place every card of one turn; raise RowChoiceRequired (changing nothing) if a choice is needed but not given."""
    check_rows(rows)
    if not isinstance(plays, Mapping) or not plays:
        raise ValueError(f"plays must be a non-empty mapping of player to card, got {plays!r}")
    on_table = {c for row in rows for c in row}
    played: dict[int, Hashable] = {}
    for player, card in plays.items():
        check_card(card, f"player {player!r}")
        if card in on_table:
            raise ValueError(f"player {player!r} played {card}, which already lies on the table")
        if card in played:
            raise ValueError(f"card {card} played twice, by {played[card]!r} and {player!r}")
        played[card] = player
    if row_choice is not None and (type(row_choice) is not int or not 0 <= row_choice < ROW_COUNT):
        raise ValueError(f"row_choice must be a row 0..{ROW_COUNT - 1}, got {row_choice!r}")
    order = sorted(played.items(), key=lambda cp: cp[0])
    work = [list(row) for row in rows]
    piles: defaultdict[Hashable, list[int]] = defaultdict(list)
    placed = place_turn(work, order, row_choice, piles)
    return TurnResult(
        rows=tuple(tuple(row) for row in work),
        taken={player: tuple(cards) for player, cards in piles.items()},
        placements=tuple(Placement(player=p, card=c, row=r, taken=t) for p, c, r, t in placed),
    )
