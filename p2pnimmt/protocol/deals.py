"""Choosing a game's deal component from its settings."""

from __future__ import annotations

from ..engine import Settings
from .deal import Deal, DraftDeal, OpenDeal
from .sealed_deal import SealedDeal

__all__ = ["Deal", "DraftDeal", "OpenDeal", "SealedDeal", "deal_for"]


def deal_for(settings: Settings) -> Deal:
    """A fresh deal component for a game with these settings: the draft's, the sealed or the open deal."""
    if settings.variant == "draft":
        return DraftDeal()
    return SealedDeal() if settings.deal == "sealed" else OpenDeal()
