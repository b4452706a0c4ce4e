"""Test and benchmark helpers for the sealed deal: whole deals in one process, and which card a point is.

Production code never needs these (every seat does its own steps, and a
point is read through `card_table`), so they live with the tests;
benchmarks/sealed_bench.py imports them from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from p2pnimmt.protocol.sealed import (
    Layout,
    RoundSecrets,
    after_unlock,
    check_shuffle,
    deck_order,
    initial_deck,
    shuffle_step,
    unlock_start,
    unlock_step,
)
from p2pnimmt.protocol.sealed_group import card_table

# deck_order stays in p2pnimmt/protocol/sealed.py: the round-end audit uses it; re-exported here for the tests.
__all__ = ["DealRecord", "card_of", "deck_order", "simulate_deal"]


def card_of(point: object) -> int | None:
    """k if point is C_k, else None."""
    return card_table().get(point) if isinstance(point, bytes) else None


@dataclass(frozen=True, slots=True)
class DealRecord:
    """What one round's deal published: shuffle outputs and unlocks by seat, and the dealt positions at the end."""

    seats: tuple[int, ...]
    shuffles: dict[int, list[bytes]]
    unlocks: dict[int, list[bytes]]
    final: list[bytes]


def simulate_deal(cards: Sequence[int], players: int, secrets: Mapping[int, RoundSecrets]) -> DealRecord:
    """Every shuffling seat's steps in one process, each output checked once as on receipt."""
    layout = Layout(players, len(cards))
    seats = layout.check_seats(sorted(secrets))
    shuffles, unlocks = {}, {}
    previous = initial_deck(cards)
    for s in seats:
        previous = shuffles[s] = check_shuffle(previous, shuffle_step(secrets[s].key.e, secrets[s].seed, previous))
    current = unlock_start(layout, previous)
    for s in seats:
        unlocks[s] = unlock_step(layout, s, secrets[s].key.d, current)
        current = after_unlock(layout, s, current, unlocks[s])
    return DealRecord(seats, shuffles, unlocks, current)
