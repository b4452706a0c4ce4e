"""What a Session tells its caller: bytes to send (a named tuple), and events (frozen dataclasses)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class Outgoing(NamedTuple):
    """Send `wire` to peer `to`, or to every peer when `to` is None, except the peers in `skip`.

    With `watchers_only`, send it only to peers that have no seat (spectators).

    A named tuple (one is made for every message a session accepts: its relay): read-only like the events, at a
    third of a frozen dataclass's constructor.
    """

    wire: bytes
    to: bytes | None = None
    skip: tuple[bytes, ...] = ()
    watchers_only: bool = False


class Event:
    """Base of everything a session reports."""


@dataclass(frozen=True, slots=True)
class Fault(Event):
    """A detected fault: who is at fault, a code from protocol.md "Faults", and what exactly happened.

    `fatal` faults (a signed message that breaks the rules) abort the game;
    the others (bytes nobody signed, replays) only drop the offending bytes.
    """

    peer: bytes | None
    code: str
    detail: str
    fatal: bool
    evidence: tuple[bytes, ...] = ()

    def describe(self, names: dict[bytes, str] | None = None) -> str:
        if self.peer is None:
            who = "unknown peer"
        else:
            who = (names or {}).get(self.peer, self.peer.hex() if self.peer else "unknown peer")
        return f"{self.code}: {self.detail} (peer at fault: {who})"


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    names: tuple[str, ...]
    seat: int | None  # this peer's seat; None for a spectator


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    round: int
    rows: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class PickNeeded(Event):
    """Draft variant: this peer's seat picks an open card now (call Session.pick)."""

    round: int
    pick: int


@dataclass(frozen=True, slots=True)
class Picked(Event):
    """Draft variant: `seat` took `card` from the open cards as the round's pick number `pick` (the draft's cards
    lie open: every node learns each pick). A screen shows the open cards and the hands change with it, and a
    seat's own pick ends the ask of its PickNeeded."""

    round: int
    pick: int
    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class PlayNeeded(Event):
    """This peer's seat chooses a card for the turn now (call Session.play)."""

    round: int
    turn: int


@dataclass(frozen=True, slots=True)
class Committed(Event):
    seat: int
    round: int
    turn: int


@dataclass(frozen=True, slots=True)
class Revealed(Event):
    round: int
    turn: int
    cards: tuple[int, ...]  # by seat
    stand_in: tuple[int, ...] = ()  # the seats whose card the stand-in played (its reveal says auto, or dropped)


@dataclass(frozen=True, slots=True)
class RowChoiceNeeded(Event):
    """`seat` played `card`, below every row end, and chooses a row (Session.choose_row if it is ours)."""

    round: int
    turn: int
    seat: int
    card: int
    cards: tuple[int, ...] = ()  # the turn's cards by seat (a bot's choose_row wants them)


@dataclass(frozen=True, slots=True)
class TurnResolved(Event):
    round: int
    turn: int
    placements: tuple[tuple[int, int, int, tuple[int, ...]], ...]  # (seat, card, row, taken) in placing order
    rows: tuple[tuple[int, ...], ...]
    stand_in: tuple[int, ...] = ()  # the seat whose row the stand-in chose (it was dropped, or its choice says auto)


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    round: int
    penalties: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: int


@dataclass(frozen=True, slots=True)
class GameAborted(Event):
    fault: Fault


@dataclass(frozen=True, slots=True)
class SeatDropped(Event):
    """Every other player voted: `seat` is dropped from (round, step) on; the stand-in plays its hand."""

    seat: int
    round: int
    step: int


@dataclass(frozen=True, slots=True)
class SeatBack(Event):
    """`seat`, dropped, asked for its seat back, and more than half of the players listed its ask at the round end:
    from `round` on it plays again (its score so far stays its own; dealt open if it forfeited, protocol.md 17.9)."""

    seat: int
    round: int


@dataclass(frozen=True, slots=True)
class SeatAway(Event):
    """`seat`'s last three cards were played by the stand-in (`away`), or it played a card itself again."""

    seat: int
    away: bool


@dataclass(frozen=True, slots=True)
class RoundVoided(Event):
    """The round cannot be finished (a sealed deal lost a seat that shuffled): it scores nothing. `reason` is the
    protocol's words (the transcript's summary says them); `absent` the seat whose drop voided it (it stopped before
    sending its part after it shuffled: the fronts say a seat that said bye left the game), None when an audit did."""

    round: int
    reason: str
    absent: int | None = None


# Local events: made by a node's turn clock (net/clock.py), not by the session; no other node sees them.


@dataclass(frozen=True, slots=True)
class ClockWarning(Event):
    """Our own move's clock has `seconds_left` seconds left."""

    seconds_left: int


@dataclass(frozen=True, slots=True)
class ClockRan(Event):
    """Our own clock ran out (or our seat is away): our node made the stand-in's move for us."""

    round: int
    turn: int
