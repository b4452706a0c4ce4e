"""The heuristic bot: play the card with the lowest expected bull heads on this turn.

For each card in hand it finds the row the card would join on today's
table. A card below every row end costs the cheapest row. Otherwise the
card is safe unless enough opponents' cards land between that row's end
and it to fill the row first: the number that do is estimated as Poisson
with mean (unseen cards in the gap) x (share of unseen cards in
opponents' hands) / (cards per hand), and the cost is that chance times
the row's bull heads (plus the filler cards' own).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence

from ..engine import BULL_HEADS, ROW_LIMIT, PlayerView
from .base import SeededBot


def poisson_at_least(k: int, mean: float) -> float:
    """P(X >= k) for X ~ Poisson(mean)."""
    if k <= 0:
        return 1.0
    term = math.exp(-mean)
    below = term
    for i in range(1, k):
        term *= mean / i
        below += term
    return max(0.0, 1.0 - below)


def row_heads(row: Sequence[int]) -> int:
    return sum(BULL_HEADS[c] for c in row)


class HeuristicBot(SeededBot):
    """Minimizes the expected bull heads of the current turn; takes the cheapest row."""

    name = "heuristic"

    def card_costs(self, view: PlayerView) -> dict[int, float]:
        """Expected bull heads for playing each card of the hand now."""
        hand = view.hand
        rows = view.rows
        unseen = sorted(view.unseen)
        opponents = view.players - 1
        held = opponents * len(hand)  # unseen cards that sit in opponents' hands
        share = held / len(unseen) if unseen else 0.0
        cheapest = min(row_heads(r) for r in rows)
        costs = {}
        for card in hand:
            target = max((r for r in rows if r[-1] < card), key=lambda r: r[-1], default=None)
            if target is None:
                costs[card] = float(cheapest)
                continue
            heads = row_heads(target)
            slots = ROW_LIMIT - len(target)
            gap = bisect_left(unseen, card) - bisect_left(unseen, target[-1])
            mean = min(gap * share / len(hand), opponents)
            chance = poisson_at_least(slots, mean)
            filler = 1.3 * min(slots, mean)  # the fillers' own bull heads, about 1.3 each
            costs[card] = chance * (heads + filler) + 0.01 * gap / max(len(unseen), 1)
        return costs

    def choose_card(self, view: PlayerView) -> int:
        costs = self.card_costs(view)
        return min(costs, key=lambda c: (costs[c], c))

    def choose_row(self, view: PlayerView, plays: Sequence[int]) -> int:
        rows = view.rows
        return min(range(len(rows)), key=lambda i: (row_heads(rows[i]), -len(rows[i]), i))

    def choose_pick(self, view: PlayerView) -> int:
        cards = view.open_cards
        middle = cards[len(cards) // 2]
        return min(cards, key=lambda c: (BULL_HEADS[c], abs(c - middle), c))
