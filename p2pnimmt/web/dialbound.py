"""How fast and how much a phone relay dials for its pages (protocol.md 14, Bounds: "dials a phone relay makes for
its pages"; red team, session 35).

The relay's token is read by anyone (the lobby frames are not encrypted, the TV shows the phone's QR code), and its
dials reach the game's host and players from the relay node's address: a member's. Unbounded, a stranger with the
token made the relay dial the host as fast as the page's WebSocket carried its DIALs; the host's door (net.door)
counted them at the relay node's address, reset the 17th waiting one, and after 256 resets within 2 s shut that
address out for 60 s in the kernel: the relay node's own player and every page behind that relay were kept out.

So the dials of pages that hold no seat (strangers are among them; a seat's page is a member's) are bounded here:

- a rate, each a burst then a steady rate: per tunnel, per page address (the WebSocket's peer) and over all the
  relay's unseated pages. The last is what the host's door sees at most: ALL_BURST + 2 x ALL_RATE = 192 dials in
  its window of 2 s, under its 256 refusals (and none is refused, below). A seat's page has its tunnel's rate only.
- at most OPENING of them still opening (connecting, or read by the relay's door until the page's join is decided)
  at one address and port at once: half the door's 16 waiting connections of one address, so the host never resets
  the relay node's connections for them. Past it, a new dial cuts the oldest opening one of the page address that
  holds the most, when it holds more than the newcomer's would (as web.guard and Relay.room do), else it is refused:
  a stranger keeping its connections open only cuts its own.

A refused dial is a CLOSE in words the page shows (translated: p2pnimmt/locale, the page's `_`).

And the other way (Knocks): a connection dialled to a page's own port at the relay costs the page a signature and a
verification in its one JavaScript thread once its hello names a member's key (the host's is said to anyone), so a
stranger dialling it again and again slowed a throttled phone's game 1.5-fold
(benchmarks/attacks/phone_port_flood.py).
From an address where no player of the game nor its host is (as the lobby says), at most a burst of KNOCK_BURST then
KNOCK_RATE a second reach the pages, and KNOCKS_BURST then KNOCKS_RATE from all such addresses together; one past
that is closed at once, before the page hears of it. A member's address is not bounded so (its links are the game's;
INBOUND still holds), nor this machine's own."""

from __future__ import annotations

import time

from ..i18n import N_
from ..protocol.bucket import Bucket

TUNNEL_BURST, TUNNEL_RATE = 32, 4.0  # an honest page dials 10 at most at once (the host, 9 players), then redials
SOURCE_BURST, SOURCE_RATE = 64, 8.0  # a page address: a phone's tunnels (3 at most), a few phones behind one NAT
ALL_BURST, ALL_RATE = 128, 32.0  # all the unseated pages of this relay: 192 within the host door's 2 s, under 256
OPENING = 8  # dials of unseated pages opening at one address and port at once: half the door's PER_ADDRESS of 16
SOURCES = 1024  # page addresses whose rate is remembered (those with a full burst are forgotten first)

TUNNEL_DIALS = N_("too many dials from this page through the phone relay: wait a moment")
SOURCE_DIALS = N_("too many dials from this address through the phone relay: wait a moment")
ALL_DIALS = N_("too many dials through the phone relay from all its pages: wait a moment")
KNOCK_BURST, KNOCK_RATE = 8, 1.0  # connections to the pages' ports from one address that is no member's
KNOCKS_BURST, KNOCKS_RATE = 32, 4.0  # from all such addresses together

OPENING_DIALS = N_("too many connections still opening through the phone relay: wait a moment")


class DialRates:
    """The relay's rates over its unseated pages: per page address, and over all of them."""

    def __init__(self) -> None:
        self.sources: dict[str, Bucket] = {}
        self.all = Bucket(ALL_BURST, ALL_RATE)

    def why_not(self, source: str, tunnel: Bucket, seated: bool) -> str | None:
        """None if a page (at `source`, its tunnel's bucket `tunnel`) may dial now (counted), else why not. A seat's
        page is bounded by its tunnel's rate only."""
        now = time.monotonic()
        if not tunnel.has(now):
            return TUNNEL_DIALS
        if not seated:
            mine = bucket_of(self.sources, source, now, SOURCE_BURST, SOURCE_RATE)
            if not mine.has(now):
                return SOURCE_DIALS
            if not self.all.take(now):
                return ALL_DIALS
            mine.take(now)
        tunnel.take(now)
        return None


def bucket_of(sources: dict[str, Bucket], source: str, now: float, burst: int, rate: float) -> Bucket:
    """The bucket of page address `source` among `sources`: a new full one (`burst`, then `rate` a second) if it has
    none yet, room made for it first."""
    mine = sources.get(source)
    if mine is None:
        make_room(sources, now)
        mine = sources[source] = Bucket(burst, rate, now)
    return mine


def make_room(sources: dict[str, Bucket], now: float) -> None:
    """Past SOURCES addresses: forget those whose burst is whole again (no different from new), then the oldest
    (the bound over all of them still holds)."""
    if len(sources) >= SOURCES:
        kept = {s: b for s, b in sources.items() if not b.full(now)}
        sources.clear()
        sources.update(kept)
    while len(sources) >= SOURCES:
        del sources[next(iter(sources))]


class Knocks:
    """The rates of connections to the relay's page ports from addresses that are no member's."""

    def __init__(self) -> None:
        self.sources: dict[str, Bucket] = {}
        self.all = Bucket(KNOCKS_BURST, KNOCKS_RATE)

    def let_in(self, source: str) -> bool:
        """Whether one more connection from `source` (no member's address) reaches a page now (counted if so)."""
        now = time.monotonic()
        mine = bucket_of(self.sources, source, now, KNOCK_BURST, KNOCK_RATE)
        if not mine.has(now) or not self.all.take(now):
            return False
        mine.take(now)
        return True
