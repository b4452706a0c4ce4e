"""The rules of 6 nimmt!, pure and deterministic: no I/O, no clock, no global random.

Library use::

    from p2pnimmt.engine import bull_heads, resolve_turn, RowChoiceRequired
"""

from .cards import (
    BULL_HEADS,
    DEALS,
    HAND_SIZE,
    HIGHEST_CARD,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROW_COUNT,
    ROW_LIMIT,
    VARIANTS,
    bull_heads,
    deck,
)
from .draft import Draft, pick_order
from .game import DEFAULT_POINT_LIMIT, Game, Settings
from .round import Round, RoundState
from .shuffle import shuffle
from .table import Placement, RowChoiceRequired, TurnResult, resolve_turn
from .view import PlayerView

__all__ = [
    "BULL_HEADS",
    "DEALS",
    "DEFAULT_POINT_LIMIT",
    "HAND_SIZE",
    "HIGHEST_CARD",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "ROW_COUNT",
    "ROW_LIMIT",
    "VARIANTS",
    "Draft",
    "Game",
    "Placement",
    "PlayerView",
    "Round",
    "RoundState",
    "RowChoiceRequired",
    "Settings",
    "TurnResult",
    "bull_heads",
    "deck",
    "pick_order",
    "resolve_turn",
    "shuffle",
]
