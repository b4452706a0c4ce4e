"""The Bot interface: artificial players that see only their own PlayerView."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from ..engine import PlayerView


class Bot(Protocol):
    """An artificial player. Deterministic given the seed it was built with."""

    name: str

    def choose_card(self, view: PlayerView) -> int:
        """The card to play this turn; must be in `view.hand`."""

    def choose_row(self, view: PlayerView, plays: Sequence[int]) -> int:
        """The row (0..3) to take: this seat's card is below every row end. `plays` are the turn's cards by seat."""

    def choose_pick(self, view: PlayerView) -> int:
        """Draft variant: the open card to take into the hand; must be in `view.open_cards`."""


class SeededBot(Bot):
    """Common base of the bots: a name and a private random.Random built from the bot's own seed."""

    name = "bot"

    def __init__(self, seed: int | str | bytes = 0) -> None:
        self.rng = random.Random(seed)
        self.random = self.rng.random  # a float in [0, 1), bound once: bots call it in hot loops
