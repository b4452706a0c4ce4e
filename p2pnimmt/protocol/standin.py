"""The stand-in: how every node plays for a dropped seat, identically (protocol.md, "Dropping a player").

Deliberately simple and exactly specified, so another implementation
computes the same moves: the lowest card of the hand; the row with the
fewest bull heads (the lowest row number among equals); the lowest open
card in a draft.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import BULL_HEADS


def stand_in_card(hand: Sequence[int]) -> int:
    return min(hand)


def stand_in_row(rows: Sequence[Sequence[int]]) -> int:
    return min(range(len(rows)), key=lambda i: (sum(BULL_HEADS[c] for c in rows[i]), i))


def stand_in_pick(open_cards: Sequence[int]) -> int:
    return min(open_cards)
