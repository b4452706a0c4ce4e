"""Who an Outgoing is for: the one test every carrier of session messages applies (node, local table, harness)."""

from __future__ import annotations

from collections.abc import Container, Iterable

from .events import Outgoing


def meant_for(out: Outgoing, peer: bytes, seated: Container[bytes]) -> bool:
    """True if `out` goes to `peer` (`seated`: the peers with a seat; a watchers-only message skips them)."""
    return (out.to is None or out.to == peer) and peer not in out.skip and not (out.watchers_only and peer in seated)


def recipients(out: Outgoing, sender: bytes, peers: Iterable[bytes], seated: Container[bytes]) -> list[bytes]:
    """The peers, in the order given, that `out` from `sender` goes to (never back to the sender)."""
    return [peer for peer in peers if peer != sender and meant_for(out, peer, seated)]
