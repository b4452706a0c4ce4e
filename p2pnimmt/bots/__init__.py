"""Artificial players. Each sees only its own PlayerView and is deterministic given its seed."""

from __future__ import annotations

from .base import Bot, SeededBot
from .heuristic import HeuristicBot
from .random_bot import RandomBot

BOTS: dict[str, type[SeededBot]] = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(name: str, seed: int | str | bytes = 0) -> Bot:
    """A new bot of kind `name`; ValueError naming the known kinds if there is no such bot."""
    try:
        kind = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(sorted(BOTS))}") from None
    return kind(seed)


__all__ = ["BOTS", "Bot", "HeuristicBot", "RandomBot", "SeededBot", "make_bot"]
