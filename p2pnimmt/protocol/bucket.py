"""A burst, then a rate (protocol.md 14, "Bounds"): the one bucket every bound of the project counts with.

A link's asks and joins (net.connection.Asks), the wrong seat keys of an address (protocol.seatkey.WrongKeys) and a
phone relay's dials and knocks (web.dialbound) each hold one. It is full at first (`burst`), fills at `rate` a
second up to `burst`, and each one taken empties it by one. Time is the caller's: every method takes `now`, in
seconds on one monotonic clock (time.monotonic(), or a test's own numbers), so that this module stays pure."""

from __future__ import annotations


class Bucket:
    """`burst` at first, filled at `rate` a second up to `burst`; `take` is whether one more may go now (counted if
    so). Made without `now` it is full until the first time it is asked (as one made then would be)."""

    __slots__ = ("burst", "rate", "level", "at")

    def __init__(self, burst: float, rate: float, now: float | None = None) -> None:
        self.burst = float(burst)
        self.rate = rate
        self.level = float(burst)
        self.at = now  # when it was last filled; None: not yet

    def fill(self, now: float) -> float:
        """What it holds at `now` (filled for the time since it was last asked)."""
        if self.at is not None:
            self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        return self.level

    def has(self, now: float) -> bool:
        """Whether one more may go at `now` (nothing taken)."""
        return self.fill(now) >= 1.0

    def take(self, now: float) -> bool:
        """One more at `now`, if there is one: True (and it is counted), else False (and nothing is)."""
        if self.fill(now) < 1.0:
            return False
        self.level -= 1.0
        return True

    def spend(self, now: float) -> None:
        """One more at `now`, counted whatever it holds: below one it goes into debt, paid back at `rate` (the wrong
        seat keys of an address checked while it had none left are charged all the same)."""
        self.level = self.fill(now) - 1.0

    def full(self, now: float) -> bool:
        """Whether it holds its whole burst again at `now` (nothing changed): forgetting it then gives nothing, as
        one made anew is full."""
        return self.at is None or self.level + (now - self.at) * self.rate >= self.burst
