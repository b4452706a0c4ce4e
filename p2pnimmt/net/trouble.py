"""What a node remembers of the keys whose links went wrong: one record per key (protocol.md 14, "Bounds").

A key's record says what it cost the key, by kind:
- cut off: a link of it went over a cap (net.lobby.cut): never admitted again from that link's address unless seated
  (told why once, then refused in the handshake, as cheaply as a stranger; since session 42 from that address only);
- spent: one of its links was cut for bad messages (net.frames): each later link of it is cut at its first one (a
  seat's: each later link from or to an address it is spaced or cut off at, read off those; a key's links cut while
  it held no seat spend it wherever, and so do its spacings once it holds none);
- spaced: a seat (of the START, or the host we joined) so cut: its handshakes and our dials to it are refused for a
  while, BAD_LINK_BACKOFF[0] seconds after its first cut, doubling with each further one up to BAD_LINK_BACKOFF[1],
  but only from and to the address that link came from or went to (since session 42).

A link's frames after the handshake are nobody's signed word: a phone relay can put garbage in its page's name, or
more than a cap allows. So bad messages refuse no key but a seat's (session 41), and a seat's, or a key over a cap,
only at the address that carried them (session 42): a seat that loops sending garbage itself is spaced at its own
address, and a page framed by one relay links anew at once through another (another address), with a whole budget
of bad messages there. A seat spread over many addresses gains nothing a stranger with a new key lacks: each of its
links from a new address may carry MAX_LINK_FAULTS bad messages before it is cut, as a new key's may.

Bounded: at most MAX_KEYS records (the oldest of a key that holds no seat forgotten first, a seat's never: a key cut
off so forgotten may join again), and at most MAX_ADDRESSES addresses a key is cut off or spaced at (the oldest
forgotten).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field

BAD_LINK_BACKOFF = (1.0, 60.0)  # a seat's spacing after its first cut, and at the longest
MAX_KEYS = 1024  # records (a seat's among them: never forgotten)
MAX_ADDRESSES = 8  # addresses a key is cut off at, and a seat's spaced at, each on its own


@dataclass
class Record:
    """One key's trouble."""

    cut_off: dict[str, bool] = field(default_factory=dict)  # over a cap: address -> told why since (came back once)
    spent: bool = False  # a link of it, then no seat's, was cut for bad messages (a seat's: `spaced`, by address)
    spaced: dict[str, tuple[int, float]] = field(default_factory=dict)  # a seat: address -> (cuts, refused until)


def source(address: str) -> str:
    """An address as a record keys it: an IPv4-mapped IPv6 address is its IPv4 address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    return str(getattr(ip, "ipv4_mapped", None) or ip)


class Trouble:
    """The records of one node, by peer id; `seated(peer)` says whether a key is a seat's now (never forgotten)."""

    def __init__(self, seated: Callable[[bytes], bool]) -> None:
        self._seated = seated
        self._records: dict[bytes, Record] = {}  # oldest first

    def _record(self, peer: bytes) -> Record:
        """`peer`'s record, made the newest (a new one made, and the oldest that holds no seat forgotten past
        MAX_KEYS)."""
        record = self._records.pop(peer, None) or Record()
        self._records[peer] = record
        looks = len(self._records)  # (one look, and one more for each seat's record in the way: a few at most)
        while len(self._records) > MAX_KEYS and looks > 0:
            looks -= 1
            oldest = next(iter(self._records))
            kept = self._records.pop(oldest)
            if oldest == peer or self._seated(oldest):
                self._records[oldest] = kept  # a seat's is never forgotten: the newest now, and the next looked at
        return record

    # ----------------------------------------------------------------- over a cap

    def cut_off(self, peer: bytes, address: str) -> bool:
        """A link of `peer` at `address` went over a cap: True the first time (say it), False if it was already."""
        record = self._record(peer)
        at = source(address)
        if at in record.cut_off:
            return False
        record.cut_off[at] = False
        if len(record.cut_off) > MAX_ADDRESSES:
            del record.cut_off[next(iter(record.cut_off))]
        return True

    def is_cut_off(self, peer: bytes, address: str) -> bool:
        record = self._records.get(peer)
        return record is not None and source(address) in record.cut_off

    def told(self, peer: bytes, address: str) -> bool:
        """A key cut off at `address` comes back there: True if it was told why before (refuse it now), else False
        (it is told now)."""
        record = self._records.get(peer)
        at = source(address)
        if record is None or at not in record.cut_off:
            return False
        was, record.cut_off[at] = record.cut_off[at], True
        return was

    # ----------------------------------------------------------------- bad messages

    def spent(self, peer: bytes, address: str) -> bool:
        """A link of `peer` was cut for bad messages, or `peer` was cut off: its links are cut at their first. A
        seat's at the addresses it is spaced or cut off at only (since the session-42 review: a relay that framed a
        seated page once left the page's honest link through another relay cut at its first bad message, and the key
        spaced there too)."""
        record = self._records.get(peer)
        if record is None:
            return False
        if self._seated(peer):
            at = source(address)
            return at in record.spaced or at in record.cut_off
        return record.spent or bool(record.cut_off) or bool(record.spaced)

    def spend(self, peer: bytes) -> None:
        """A link of `peer`, not a seat's, was cut for bad messages."""
        self._record(peer).spent = True

    def space(self, peer: bytes, address: str, now: float) -> float:
        """A seat's link at `address` was cut for bad messages: its key is refused there for the seconds returned."""
        record = self._record(peer)
        at = source(address)
        cuts, _until = record.spaced.pop(at, (0, 0.0))
        spacing = min(BAD_LINK_BACKOFF[1], BAD_LINK_BACKOFF[0] * 2 ** cuts)
        record.spaced[at] = (cuts + 1, now + spacing)
        if len(record.spaced) > MAX_ADDRESSES:
            del record.spaced[next(iter(record.spaced))]
        return spacing

    def spaced(self, peer: bytes, address: str, now: float) -> tuple[int, float]:
        """`peer`'s cuts at `address`, and the seconds until its key may link there again (0: it may now)."""
        record = self._records.get(peer)
        cuts, until = record.spaced.get(source(address), (0, 0.0)) if record is not None else (0, 0.0)
        return cuts, max(0.0, until - now)
