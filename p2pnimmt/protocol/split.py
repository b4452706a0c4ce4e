"""A split commit: the one equivocation that costs its signer its seat, not the others their game (protocol.md 12).

Seat X signs two different PLAY_COMMITs for one turn, with one `seq`, one `prev` and one `state` (they differ
in `commit` alone), and shows each to other peers. Every other proof of equivocation stays fatal. A split commit
cannot have moved any honest game apart: no node resolves the turn until every seat's PLAY_REVEAL names the
commit set it holds, the seats shown the two versions name two sets, and the one check before the reveals (the
`state`) gives both versions the same result. So the turn's reveals decide, the same on every node:
- the seats other than X name sets with two versions of X's commit: X is expelled from that `seq`
  (dropped at the turn's commit step, the stand-in plays its card), and a reveal naming the commit set with
  any version of X's commit agrees;
- they all name the set with one version: that version is the game's; X keeps its seat (it showed the other
  to no seat). A node that accepted the other version cannot follow the game: for it alone the fault is fatal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product
from typing import NamedTuple

from .codec import DecodeError
from .commitments import commit_set_digest
from .envelope import Envelope, open_envelope
from .messages import BodyError, check_body

# What two versions of a split commit share: they differ in `commit` alone. Another `state` is no split commit but a
# fatal proof: the turn's `state` check, which runs before any reveal, would give the versions different results, so
# what a node did there would depend on which version it took first (protocol.md 12, chaos seed 52).
SAME = ("round", "turn", "state")


def split_versions(evidence: Sequence[bytes]) -> tuple[Envelope, ...] | None:
    """The PLAY_COMMITs an equivocation's proof shows, if it may be a split commit; None if it is fatal.

    Two messages with one seq: both PLAY_COMMITs of one round and turn on one state, with one prev. A fork (a message
    whose prev is not the hash of the sender's message before it, held here): that held message is a
    PLAY_COMMIT, whose other version (the one the fork names) may be a PLAY_COMMIT of the same turn.
    """
    if len(evidence) != 2:
        return None
    try:
        first, second = (open_envelope(wire) for wire in evidence)
        if first.kind != "PLAY_COMMIT" or first.sender != second.sender:
            return None
        check_body(first.kind, first.body)
    except (DecodeError, BodyError):
        return None
    if second.seq == first.seq + 1:
        return (first,)  # a fork on a held commit: the version it builds on may come, relayed
    if second.seq != first.seq or second.kind != "PLAY_COMMIT" or second.prev != first.prev:
        return None
    try:
        check_body(second.kind, second.body)
    except BodyError:
        return None
    if tuple(first.body[f] for f in SAME) != tuple(second.body[f] for f in SAME):
        return None
    return first, second


def commit_sets(seats: Sequence[int], commits: Mapping[int, Envelope],
                versions: Mapping[int, Mapping[bytes, Envelope]]) -> dict[bytes, dict[int, bytes]]:
    """Each commit set a reveal may name -> the version of each split seat in it.

    `seats`: the seats in the set, in seat order (the committers, and a split seat expelled at this turn's
    commit step); a seat with versions may be in the set with any of them, every other with its commit."""
    split = [s for s in seats if len(versions.get(s, {})) > 1]
    options: dict[bytes, dict[int, bytes]] = {}
    for choice in product(*(sorted(versions[s]) for s in split)):
        picked = dict(zip(split, choice))
        digest = commit_set_digest([picked[s] if s in picked else commits[s].hash for s in seats])
        options[digest] = picked
    return options


class Held(NamedTuple):
    """A proof of equivocation against seat `seat` held unjudged (above_split.py): the lowest seq of the seat's
    messages in it (`low`), and the (round, turn) of the seat's commit below it that waits to be decided (`turn`),
    None while this node's chain of the seat has not reached it."""

    seat: int
    low: int
    turn: tuple[int, int] | None
    code: str
    detail: str
    evidence: tuple[bytes, ...]
