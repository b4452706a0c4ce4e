"""Errors a session raises to its own driver (not faults of peers: those are Fault events)."""

from __future__ import annotations


class LocalError(ValueError):
    """This peer asked for something the rules do not allow now (a card not in hand, not its turn...)."""
