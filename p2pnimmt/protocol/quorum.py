"""Dropping several seats gone at once: the quorum rule of protocol.md 11.1.

One seat is dropped at a position once every other active seat voted it out there (`Table.complete_votes`,
the unanimous rule). Two seats gone together can never be dropped that way (each drop needs the other's
vote), so a *set* of two or more seats is dropped together once every active seat outside the set voted out
each of its seats, counting of each voter only the first `most_named` seats it named at that position (in the
order it signed them). That cap keeps the seats a voter did not name (itself among them) more than half of
the table, so two sets voted out by two sides of a cut network would need a seat on both sides: a cut-off
minority never votes out the majority.

A voter holds back its later messages until its votes are decided (`undecided`): every seat it named is
dropped there, or every way of dropping it is void (`set_void`) — a seat outside the set that never names one
of its seats went on from that seat's message.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Protocol

from ..engine import MAX_PLAYERS
from .envelope import Envelope
from .phase import Step


class Table(Protocol):
    """What the quorum rule reads of the table (protocol.table.Table; a view, so that the two do not import
    each other)."""

    @property
    def players(self) -> int: ...
    @property
    def dropped(self) -> Mapping[int, Step]: ...
    @property
    def absences(self) -> Mapping[int, list[tuple[Step, int]]]: ...
    @property
    def drop_targets(self) -> Mapping[Step, set[int]]: ...
    @property
    def slots(self) -> Mapping[tuple[str, int, int], Mapping[int, Envelope]]: ...
    @property
    def expelled(self) -> Mapping[int, int]: ...

    def active_at(self, round_index: int, step: int, place: int = 0) -> tuple[int, ...]: ...
    def went_on(self, seat: int, at: Step, target: int) -> bool: ...
    def vote_void(self, at: Step, target: int) -> bool: ...
    def voters(self, at: Step, target: int) -> set[int]: ...


def vote_slot(at: Step, seat: int) -> int:
    """DROP and KEEP are kept per (round, position, seat named): one per voter for each seat at each position."""
    return at.slot * MAX_PLAYERS + seat


def seated_before(table: Table, at: Step) -> list[int]:
    """The seats active at `at` counting no drop made at `at` itself: the table a quorum is part of."""
    if not table.dropped and not table.absences:
        return list(range(table.players))
    return [s for s in range(table.players)
            if not (s in table.dropped and table.dropped[s] < at)
            and not any(gone < at < Step(back, 0) for gone, back in table.absences.get(s, ()))]


def most_named(table: Table, at: Step) -> int:
    """How many of a voter's DROPs at `at` count towards dropping a set: the seats it does not name stay more
    than half of those seated before `at` (0 below five seats: there, only the unanimous rule drops)."""
    return (len(seated_before(table, at)) - 1) // 2


def names(table: Table, voter: int, at: Step) -> list[int]:
    """The seats `voter`'s DROPs at `at` name, in the order it signed them."""
    signed = []
    for target in table.drop_targets.get(at, ()):
        env = table.slots.get(("DROP", at.round, vote_slot(at, target)), {}).get(voter)
        if env is not None:
            signed.append((env.seq, target))
    return [target for _, target in sorted(signed)]


def votes_at(table: Table, seat: int, at: Step) -> bool:
    """`seat` signed a DROP or a KEEP at `at`: it was there, alive, while the game waited."""
    return any(seat in table.slots.get((kind, at.round, vote_slot(at, target)), {})
               for kind in ("DROP", "KEEP") for target in range(table.players))


def counted(table: Table, voter: int, at: Step) -> set[int]:
    """The seats `voter` named at `at` that count towards dropping a set: the first `most_named`."""
    return set(names(table, voter, at)[:most_named(table, at)])


def dropped_together(table: Table, at: Step) -> set[int]:
    """The largest set of two or more seats active at `at` that every other active seat voted out there with
    its counted names (empty if there is none), an expelled seat that did not go on excused (`excused`), one
    seat outside at least naming them all. Sets that qualify are closed under union, so the largest is found by
    removing, until nothing changes, every seat some voter outside the set did not name."""
    targets = table.drop_targets.get(at, ())
    if len(targets) < 2 or most_named(table, at) < 2:
        return set()
    active = table.active_at(*at)
    group = {t for t in targets if t in active}
    known: dict[int, set[int]] = {}
    while len(group) >= 2:
        rest = [s for s in active if s not in group]
        mine = {v: known.setdefault(v, counted(table, v, at)) for v in rest}
        kept = {d for d in group if all(d in mine[v] or excused(table, v, at, d) for v in rest)}
        if kept == group:  # (and some seat outside voted them all out: a drop needs a DROP)
            return group if any(group <= mine[v] for v in rest) else set()
        group = kept
    return set()


def excused(table: Table, seat: int, at: Step, target: int) -> bool:
    """`seat` is expelled and did not go on from `target`'s message at `at` by its messages up to the one that
    expelled it: it is not needed to drop `target` there, alone or in a set (protocol.md 11.1, "An expelled
    seat")."""
    return seat in table.expelled and not table.went_on(seat, at, target)


def never_names(table: Table, seat: int, at: Step, target: int) -> bool:
    """`seat` will never have a counted DROP of `target` at `at`, and is needed: it has none, and it went on from
    `target`'s message there (a DROP after that is `unexpected`), or its counted names are all used. An expelled
    seat is needed only where it went on (by its messages up to the one that expelled it: `excused`)."""
    if target in counted(table, seat, at):
        return False
    if seat in table.expelled:
        return table.went_on(seat, at, target)
    return table.went_on(seat, at, target) or len(names(table, seat, at)) >= most_named(table, at)


def set_void(table: Table, at: Step, group: set[int]) -> bool:
    """The set can never be dropped together at `at`: a seat active there, outside it, never names one of its
    seats."""
    return any(never_names(table, w, at, d) for w in table.active_at(*at) if w not in group for d in group)


def open_sets(table: Table, at: Step, named: list[int]) -> bool:
    """Some set of two or more of these seats (a voter's counted names still active) may yet be dropped."""
    return any(not set_void(table, at, set(group))
               for size in range(2, len(named) + 1) for group in combinations(named, size))


def undecided(table: Table, voter: int, at: Step) -> bool:
    """`voter` named a seat at `at` that may yet be dropped there, alone or in a set: it holds back (it does not
    use that seat's messages there), and a node holds back its later messages."""
    active = table.active_at(*at)
    named = [t for t in names(table, voter, at) if t in active]
    if any(not table.vote_void(at, t) for t in named):
        return True
    if len(named) < 2:
        return False
    return open_sets(table, at, [t for t in named if t in counted(table, voter, at)])


def may_drop(table: Table, at: Step, target: int) -> bool:
    """`target` may yet be dropped at `at`, alone or in a set with other seats some voter of it named."""
    if not table.vote_void(at, target):
        return True
    active = table.active_at(*at)
    for voter in table.voters(at, target):
        mine = [t for t in counted(table, voter, at) if t in active]
        if target in mine and any(not set_void(table, at, set(group)) for size in range(2, len(mine) + 1)
                                  for group in combinations(mine, size) if target in group):
            return True
    return False
