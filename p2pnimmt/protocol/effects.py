"""What the parts of a session ask it to do (effects): only the Session applies them.

A deal component, a game step or the slot store never sends, faults or
drops anything itself: it yields these values, and the session applies
each one before the part goes on (so the part then sees its effect, as
a generator that is resumed).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .events import Event
from .phase import Step


@dataclass(frozen=True)
class Send:
    """Sign a message of ours (kind, body), accept it here, and send it to everyone."""

    kind: str
    body: dict[str, Any]


@dataclass(frozen=True)
class Fatal:
    """Seat `seat` signed something that breaks a rule; `evidence` proves it. Once the game started, the seat
    is expelled for a fault of table.EXPELS (protocol.md 12); otherwise, or when `final`, the game is aborted."""

    seat: int
    code: str
    detail: str
    evidence: tuple[bytes, ...] = ()
    final: bool = False


@dataclass(frozen=True)
class Suspect:
    """A fault of seat `seat` that does not abort the game (recorded, reported)."""

    seat: int
    code: str
    detail: str
    evidence: tuple[bytes, ...] = ()


@dataclass(frozen=True)
class DropSeat:
    """From `step` on, the stand-in plays seat `seat` and nothing the seat says counts."""

    seat: int
    step: Step


@dataclass(frozen=True)
class Rewind:
    """Every seat active at `step` but `seat` signed DROP(seat, step), and this node is past that step:
    rebuild the table from the accepted messages with `seat` dropped there (protocol.md 11.1)."""

    seat: int
    step: Step


@dataclass(frozen=True)
class StandInMove:
    """Every other seat asked: make our owed move of this turn by the stand-in's rule (marked auto)."""


@dataclass(frozen=True)
class KeepSecret:
    """Write this secret record to the journal (the part that made it keeps the value itself)."""

    record: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Emit:
    """Tell the driver: this event happened (a move is needed, a turn resolved...)."""

    event: Event


Effect = Send | Fatal | Suspect | DropSeat | Rewind | StandInMove | KeepSecret | Emit
T = TypeVar("T")
Effects = Generator[Effect, None, T]
