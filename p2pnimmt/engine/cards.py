"""Cards, bull heads and the decks of each variant."""

from __future__ import annotations

from functools import cache

HIGHEST_CARD = 104
HAND_SIZE = 10
ROW_COUNT = 4
ROW_LIMIT = 5  # a row holds five cards; the sixth card takes them
MIN_PLAYERS = 2
MAX_PLAYERS = 10

VARIANTS = ("standard", "tactical", "draft")
DEALS = ("sealed", "open")  # how a networked game deals (protocol.md): hidden hands, or a shared seed


def bull_heads(card: int) -> int:
    """Bull heads on `card`: 55 -> 7, other doubles -> 5, tens -> 3, fives -> 2, else 1."""
    if type(card) is not int or not 1 <= card <= HIGHEST_CARD:
        raise ValueError(f"card {card!r} is not a card (1..{HIGHEST_CARD})")
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


# BULL_HEADS[card] for card in 1..104; index 0 is unused. The hot path reads this table.
BULL_HEADS: tuple[int, ...] = (0,) + tuple(bull_heads(c) for c in range(1, HIGHEST_CARD + 1))


def check_players(players: int) -> None:
    """Raise ValueError unless 2..10 players can sit at the table."""
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {players!r}")


@cache
def deck(variant: str, players: int) -> tuple[int, ...]:
    """The cards in play for `variant` with `players` seats, ascending.

    standard: 1..104.  tactical and draft: only the cards needed,
    1..(10 * players + 4).
    """
    check_players(players)
    if variant == "standard":
        return tuple(range(1, HIGHEST_CARD + 1))
    if variant in ("tactical", "draft"):
        return tuple(range(1, HAND_SIZE * players + ROW_COUNT + 1))
    raise ValueError(f"unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")
