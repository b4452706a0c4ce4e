"""The outer deadlines of the tests' waits.

A wait ends as soon as its condition holds; its deadline only bounds how long a broken feature takes to
fail. On a loaded machine (two suites at once, a game or a bot tournament beside the tests, parallel
workers on two cores) a step can take many times its quiet duration, so no helper's wait (a process's
output, a tmux screen, a page's next step, a condition on the test's loop) gives up before OUTER seconds,
whatever shorter time a test asked for. What a test wants to be quick is measured by a benchmark, never
asserted by a deadline.
"""

from __future__ import annotations

OUTER = 90.0  # seconds


def outer(timeout: float) -> float:
    """The deadline a wait really uses: the one asked for, but never less than OUTER."""
    return max(timeout, OUTER)
