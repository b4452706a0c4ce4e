"""Artificial players. Each sees only its own PlayerView and is deterministic given its seed.

Kinds: `random`, `heuristic`, `mcs100` (flat Monte-Carlo with random playouts, a baseline),
`mcs` (search with a fixed number of deals),
and the levels `easy`, `medium`, `hard` (`hard` searches with a time budget:
its play also depends on the speed of the machine, unless a fixed number
of deals is set).
"""

from __future__ import annotations

from .base import Bot, SeededBot
from .drive import NEEDED, bot_move
from .flat import FlatMCBot
from .heuristic import HeuristicBot
from .levels import EasyBot, HardBot, MediumBot
from .mcs import MCSBot
from .random_bot import RandomBot

BOTS: dict[str, type[SeededBot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "mcs100": FlatMCBot,
    "mcs": MCSBot,
    "easy": EasyBot,
    "medium": MediumBot,
    "hard": HardBot,
}
LEVELS = ("easy", "medium", "hard")


def searches(name: str) -> bool:
    """True for the kinds that search (they take `rollouts` and `budget`)."""
    return issubclass(BOTS[name], MCSBot)


def make_bot(name: str, seed: int | str | bytes = 0, **options) -> Bot:
    """A new bot of kind `name`; ValueError naming the known kinds if there is no such bot.

    `options` (rollouts=N, budget=seconds) go to the search bots (`mcs`, `hard`);
    TypeError if given to another kind.
    """
    try:
        kind = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(sorted(BOTS))}") from None
    if options and not issubclass(kind, MCSBot):
        raise TypeError(f"bot {name!r} takes no options, got {', '.join(sorted(options))}")
    return kind(seed, **options)


__all__ = [
    "BOTS",
    "LEVELS",
    "NEEDED",
    "Bot",
    "EasyBot",
    "FlatMCBot",
    "HardBot",
    "HeuristicBot",
    "MCSBot",
    "MediumBot",
    "RandomBot",
    "SeededBot",
    "bot_move",
    "make_bot",
    "searches",
]
