"""Levels for players: `easy`, `medium` and `hard`.

- easy: random-ish. Half of its cards are the heuristic's choice, the
  other half a uniformly random card of its hand; it takes the cheapest
  row and picks like the heuristic in a draft.
- medium: the heuristic bot (the expected bull heads of this turn).
- hard: the `mcs` search with a time budget per decision (HARD_BUDGET
  seconds of CPU time, and never more than twice that of wall-clock time
  on a busy machine); as many deals as fit, so its play depends on the
  speed of the machine. Give it `rollouts=N` (or set
  P2PNIMMT_BOT_ROLLOUTS) for play that depends only on its seed.
"""

from __future__ import annotations

from ..engine import PlayerView
from .heuristic import HeuristicBot
from .mcs import MCSBot

EASY_RANDOM_SHARE = 0.5
HARD_BUDGET = 0.6  # seconds of CPU time per decision (at most twice that of wall-clock time)


class EasyBot(HeuristicBot):
    """Random-ish: a random card of its hand half of the time, the heuristic's card otherwise."""

    name = "easy"

    def choose_card(self, view: PlayerView) -> int:
        hand = view.hand
        if self.random() < EASY_RANDOM_SHARE:
            return hand[int(self.random() * len(hand))]
        return super().choose_card(view)


class MediumBot(HeuristicBot):
    """The heuristic bot under its level name."""

    name = "medium"


class HardBot(MCSBot):
    """The search bot with a time budget per decision (HARD_BUDGET seconds unless told otherwise)."""

    name = "hard"
    default_rollouts = None
    default_budget = HARD_BUDGET
