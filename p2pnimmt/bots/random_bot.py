"""The random bot: any legal move, uniformly."""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import ROW_COUNT, PlayerView
from .base import SeededBot


class RandomBot(SeededBot):
    """Plays a uniformly random card of its hand, takes a random row, picks a random open card."""

    name = "random"

    def choose_card(self, view: PlayerView) -> int:
        hand = view.hand
        return hand[int(self.random() * len(hand))]

    def choose_row(self, view: PlayerView, plays: Sequence[int]) -> int:
        return int(self.random() * ROW_COUNT)

    def choose_pick(self, view: PlayerView) -> int:
        cards = view.open_cards
        return cards[int(self.random() * len(cards))]
