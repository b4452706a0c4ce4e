"""Lines about what others send us, kept few: one line per source and kind, then a count.

Whatever a stranger can repeat at will (a connection refused, a frame ignored, a link cut) is logged
through `quiet`: the first time a source (an address) does a kind of thing, the full line; after that,
nothing more for that source and kind but a count, told in one line EVERY seconds while it goes on
("... 2,318 more from 10.0.0.7 in the last 30 s"). A quiet spell of EVERY seconds forgets the source,
so its next one is a full line again. Sources are counted apart up to MAX_SOURCES at once; beyond that
the others share one count. A flood of any size is then a few lines a minute, never one per message.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import time
import weakref
from dataclasses import dataclass, field

EVERY = float(os.environ.get("P2PNIMMT_LOG_EVERY", "30"))  # seconds between two lines of one source and kind
MAX_SOURCES = 256  # (source, kind) pairs counted apart at once
OTHERS = "other addresses"


@dataclass
class Tally:
    since: float
    level: int
    count: int = 0  # said since the last line, not logged
    last: str = ""  # the last of them, as it would have been logged
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)


class QuietLog:
    """A logger's lines keyed by (source, kind): the first logged, the rest counted (module docstring)."""

    def __init__(self, logger: logging.Logger, every: float = EVERY, max_sources: int = MAX_SOURCES) -> None:
        self.logger = logger
        self.every = every
        self.max_sources = max_sources
        self.tallies: dict[tuple[str, str], Tally] = {}
        _every_one.add(self)

    def warning(self, source: object, kind: str, msg: str, *args: object) -> None:
        self.log(logging.WARNING, source, kind, msg, *args)

    def info(self, source: object, kind: str, msg: str, *args: object) -> None:
        self.log(logging.INFO, source, kind, msg, *args)

    def log(self, level: int, source: object, kind: str, msg: str, *args: object, exc_info: object = None) -> None:
        if not self.logger.isEnabledFor(level):
            return
        now = time.monotonic()
        key = (address_of(source), kind)
        if key not in self.tallies and len(self.tallies) >= self.max_sources:
            key = (OTHERS, kind)
        tally = self.tallies.get(key)
        if tally is not None and now - tally.since >= self.every:  # no loop to time it (or a late one): now
            self._tell(key, now)
            tally = self.tallies.get(key)
        if tally is None:
            self.tallies[key] = tally = Tally(now, level)
            line = (msg % args) if args else msg
            if key[0] not in line:
                line += f" (from {key[0]})"  # the line names its source, as its count will
            self.logger.log(level, "%s", line, exc_info=exc_info)  # type: ignore[arg-type]
            self._time(key)
            return
        tally.count += 1
        tally.last = (msg % args) if args else msg

    def _time(self, key: tuple[str, str]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # told at the next line of this key instead
        tally = self.tallies[key]
        tally.timer = loop.call_later(self.every, self._tell, key, None)

    def _tell(self, key: tuple[str, str], now: float | None) -> None:
        """EVERY seconds after a key's line: its count in one line, or the key forgotten if none came."""
        tally = self.tallies.get(key)
        if tally is None:
            return
        if tally.timer is not None:
            tally.timer.cancel()
        now = time.monotonic() if now is None else now
        if not tally.count:
            del self.tallies[key]
            return
        source, kind = key
        self.logger.log(tally.level, "%s: %d more from %s in the last %.0f s (the last: %s)", kind, tally.count,
                        source, now - tally.since, tally.last[:300])
        self.tallies[key] = Tally(now, tally.level)
        self._time(key)

    def forget(self) -> None:
        """Every source forgotten, its counts untold (a process that starts afresh: the test suite's each test)."""
        for tally in self.tallies.values():
            if tally.timer is not None:
                tally.timer.cancel()
        self.tallies.clear()

    def flush(self) -> None:
        """Every count not told yet, told now (at exit: a flood's count is never lost)."""
        for key in list(self.tallies):
            self._tell(key, None)


def address_of(source: object) -> str:
    """The address of a source: a peername tuple's host, or the source as text."""
    if isinstance(source, tuple) and source:
        return str(source[0])
    return str(source) if source is not None else "?"


_every_one: weakref.WeakSet[QuietLog] = weakref.WeakSet()
quiet = QuietLog(logging.getLogger("p2pnimmt.net"))  # every net line a stranger can repeat goes through it


@atexit.register
def _flush_all() -> None:
    for each in list(_every_one):
        each.flush()


def forget_all() -> None:
    """Every quiet log's sources forgotten (QuietLog.forget)."""
    for each in list(_every_one):
        each.forget()
