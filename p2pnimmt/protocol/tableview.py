"""The read-only view of the table that a deal component sees (it never sees the Session)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from ..engine import Game
from .envelope import Envelope
from .phase import Step


class TableView(Protocol):
    """What a deal may read: who sits where, the round and turn, the accepted messages, who is still playing."""

    @property
    def seat(self) -> int | None: ...  # our seat (None for a spectator)
    @property
    def players(self) -> int: ...
    @property
    def roster(self) -> Sequence[bytes]: ...  # peer id by seat
    @property
    def game_id(self) -> bytes: ...
    @property
    def game(self) -> Game: ...  # the engine (the deal starts rounds and reveals hidden cards through it)
    @property
    def round(self) -> int: ...
    @property
    def turn(self) -> int: ...
    @property
    def replaying(self) -> bool: ...  # rebuilding from our own transcript: sign nothing, make no new secret
    @property
    def entropy(self) -> Callable[[int], bytes]: ...
    @property
    def dropped(self) -> Mapping[int, Step]: ...
    @property
    def forfeits(self) -> Mapping[int, int]: ...  # seat -> the round it forfeited in (protocol.md 17.9)

    def slot(self, kind: str, round_index: int, step: int = 0) -> Mapping[int, Envelope]: ...
    def active_at(self, round_index: int, step: int, place: int = 0) -> tuple[int, ...]: ...
    def playing(self, seat: int | None, round_index: int, step: int, place: int = 0) -> bool: ...
    def held_back(self, step: int, place: int = 0) -> bool: ...
    def who(self, peer: bytes | None) -> str: ...
    def who_seat(self, seat: int) -> str: ...
