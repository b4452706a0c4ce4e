"""START's optional `carry` as a body holds it (protocol.md 9): its shape and its fit with the START's own settings and
roster. What it carries, and each seat's check against its own record, is carry.py's (which needs the table: this
module must not, since the body checks of messages.py come below the table)."""

from __future__ import annotations

from typing import Any

from .envelope import GAME_ID_SIZE


def carry_shape(v: Any) -> bool:
    """START's optional `carry`: a map of exactly `game` bin(16), `rounds` count >= 1, `scores` array of counts."""
    return isinstance(v, dict) and set(v) == {"game", "rounds", "scores"} \
        and isinstance(v["game"], bytes) and len(v["game"]) == GAME_ID_SIZE \
        and type(v["rounds"]) is int and 1 <= v["rounds"] < 2**32 \
        and isinstance(v["scores"], list) and all(type(x) is int and 0 <= x < 2**32 for x in v["scores"])


def carry_fits(body: dict[str, Any]) -> str | None:
    """Why a START's carry does not fit its own settings and roster (None: it fits, or there is none): one score per
    seat, rounds left to play, and no carried total at the points end already (G would have ended there)."""
    carry = body.get("carry")
    if carry is None:
        return None
    settings, roster = body["settings"], body["roster"]
    if len(carry["scores"]) != len(roster):
        return f"its carry has {len(carry['scores'])} scores for {len(roster)} seats"
    if settings["max_rounds"] is not None and carry["rounds"] >= settings["max_rounds"]:
        return f"its carry has {carry['rounds']} rounds played of {settings['max_rounds']}: none left to play"
    if settings["point_limit"] is not None and max(carry["scores"]) >= settings["point_limit"]:
        return f"its carry has a score at the points end ({settings['point_limit']}): the game was over there"
    return None
