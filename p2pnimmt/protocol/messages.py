"""Message kinds and the exact fields of their bodies (protocol.md, "Messages")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import DEALS, MAX_PLAYERS, VARIANTS, Settings
from ..engine.game import MAX_CLOCK
from .carry_body import carry_fits, carry_shape
from .codec import bytes_of_size
from .identity import KEY_SIZE
from .names import is_name, skeleton
from .printable import text_repr, value_repr
from .where_body import record_shape

HASH = 32
POINT = 32  # a Curve25519 point (u-coordinate) or scalar, 32 bytes little-endian
MAX_POINTS = 104  # the largest deck


class BodyError(ValueError):
    """A message body that does not have the fields its kind requires."""


def is_count(v: Any) -> bool:
    """A count of the protocol: an int from 0 below 2^32 (a seq, a round, a turn)."""
    return type(v) is int and 0 <= v < 2**32


def is_hash(v: Any) -> bool:
    """A SHA-256 hash: 32 bytes."""
    return isinstance(v, bytes) and len(v) == HASH


def _counts(v: Any) -> bool:
    return isinstance(v, list) and len(v) <= MAX_PLAYERS and all(is_count(x) for x in v)


def _asks(v: Any) -> bool:
    """ROUND_END's `back`: [seat, seq of its REJOIN] pairs, by seat ascending, at least one."""
    return isinstance(v, list) and 0 < len(v) <= MAX_PLAYERS and \
        all(isinstance(p, list) and len(p) == 2 and is_count(p[0]) and is_count(p[1]) for p in v) and \
        all(a[0] < b[0] for a, b in zip(v, v[1:]))


def _opt_count(v: Any) -> bool:
    return v is None or (is_count(v) and v > 0)


def _settings(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and set(v) - {"clock"} == {"variant", "point_limit", "max_rounds", "deal"}
        and ("clock" not in v or type(v["clock"]) is int and 1 <= v["clock"] <= MAX_CLOCK)
        and v["variant"] in VARIANTS
        and _opt_count(v["point_limit"])
        and _opt_count(v["max_rounds"])
        and (v["point_limit"] is not None or v["max_rounds"] is not None)
        and v["deal"] in DEALS
        and (v["deal"] == "open" or v["variant"] != "draft")
    )


def _seat(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and set(v) == {"key", "name", "bot"}
        and isinstance(v["key"], bytes)
        and len(v["key"]) == KEY_SIZE
        and is_name(v["name"])
        and isinstance(v["bot"], bool)
    )


def _points(v: Any) -> bool:
    return isinstance(v, list) and 0 < len(v) <= MAX_POINTS and (
        bytes_of_size(v, POINT) or all(isinstance(x, bytes) and len(x) == POINT for x in v))


def _roster(v: Any) -> bool:
    """Seats in order; no two names look alike (protocol.md 9, **Names**)."""
    return isinstance(v, list) and 2 <= len(v) <= MAX_PLAYERS and all(_seat(s) for s in v) \
        and len({skeleton(s["name"]) for s in v}) == len(v)


FIELDS: dict[str, dict[str, Callable[[Any], bool]]] = {
    "START": {"salt": lambda v: isinstance(v, bytes) and len(v) == 16, "settings": _settings, "roster": _roster},
    "START_ACK": {"start": is_hash},
    "SEED_COMMIT": {"round": is_count, "commit": is_hash},
    "SEED_REVEAL": {"round": is_count, "contribution": is_hash, "nonce": is_hash},
    "DRAFT_PICK": {"round": is_count, "pick": is_count, "card": is_count},
    "PLAY_COMMIT": {"round": is_count, "turn": is_count, "commit": is_hash, "state": is_hash},
    "PLAY_REVEAL": {"round": is_count, "turn": is_count, "card": is_count, "nonce": is_hash, "commits": is_hash},
    "SEALED_SHUFFLE": {"round": is_count, "deck": _points, "commit": is_hash},
    "SEALED_UNLOCK": {"round": is_count, "values": _points},
    "SEALED_KEYS": {"round": is_count, "key": is_hash, "seed": is_hash, "nonce": is_hash,
                    "alarm": lambda v: isinstance(v, bool)},
    "ROW_CHOICE": {"round": is_count, "turn": is_count, "row": is_count},
    "ROUND_END": {"round": is_count, "penalties": _counts, "scores": _counts, "state": is_hash},
    "DROP": {"round": is_count, "step": is_count, "seat": is_count},
    "KEEP": {"round": is_count, "step": is_count, "seat": is_count},
    "REJOIN": {"round": is_count},
    "STANDIN": {"round": is_count, "turn": is_count, "seat": is_count},
    "GAME_END": {"rounds": is_count, "scores": _counts, "winners": _counts, "state": is_hash},
}


# Fields a kind may carry: PLAY_REVEAL names the deck position of its card in a sealed deal (and only there);
# a reveal or a row choice the player's own node made by the stand-in's rule (its clock ran out, or every other
# seat asked for it) says so with auto = true (absent: false).
OPTIONAL: dict[str, dict[str, Callable[[Any], bool]]] = {
    "PLAY_REVEAL": {"position": lambda v: type(v) is int and 0 <= v < MAX_POINTS, "auto": lambda v: v is True},
    "ROW_CHOICE": {"auto": lambda v: v is True},
    # a round end lists the dropped seats that asked for their seats back (protocol.md 11.3)
    "ROUND_END": {"back": lambda v: _asks(v)},
    # a drop vote (or a KEEP) at a step with places names the place: the pick at a draft's step 0, and at
    # step 32 0 for a sealed deal's SEALED_KEYS or 1 for ROUND_END (protocol.md 11.1)
    "DROP": {"place": lambda v: is_count(v)},
    "KEEP": {"place": lambda v: is_count(v)},
    # a rematch names the game it follows (protocol.md 9 and 14, "Rematch"): that game's id
    "START": {"previous": lambda v: isinstance(v, bytes) and len(v) == 16,
              # a game that continues the evening of one a seat's equivocation ended (protocol.md 9, 14)
              "carry": carry_shape,
              # the host's own signed word on where it listens (protocol.md 14, "In the START and the START_ACKs")
              "where": record_shape},
    # and each seat's whenever it listens (its form only: protocol.md 9, **Types**)
    "START_ACK": {"where": record_shape},
}


_ALLOWED = {kind: frozenset(fields) | frozenset(OPTIONAL.get(kind, {})) for kind, fields in FIELDS.items()}
_NONE: dict[str, Callable[[Any], bool]] = {}


def check_body(kind: str, body: dict[str, Any]) -> None:
    """Raise BodyError naming the first field that is missing, extra or of the wrong type."""
    fields = FIELDS[kind]
    for name, ok in OPTIONAL.get(kind, _NONE).items():
        if name in body and not ok(body[name]):
            raise BodyError(f"{kind} field {text_repr(name)} is invalid: {value_repr(body[name]):.80}")
    if not body.keys() <= _ALLOWED[kind]:  # (compared, not subtracted: no set made for a sound body)
        raise BodyError(f"{kind} has unknown fields {value_repr(sorted(body.keys() - _ALLOWED[kind]))}")
    for name, ok in fields.items():
        if name not in body:
            raise BodyError(f"{kind} lacks field {text_repr(name)}")
        if not ok(body[name]):
            raise BodyError(f"{kind} field {text_repr(name)} is invalid: {value_repr(body[name]):.80}")
    if kind == "START" and "carry" in body and (problem := carry_fits(body)) is not None:
        raise BodyError(f"START field 'carry' does not fit: {problem}")


def settings_body(settings: Settings) -> dict[str, Any]:
    body: dict[str, Any] = {
        "variant": settings.variant,
        "point_limit": settings.point_limit,
        "max_rounds": settings.max_rounds,
        "deal": settings.deal,
    }
    if settings.clock is not None:
        body["clock"] = settings.clock  # absent when there is no clock (the games before clocks read the same)
    return body


def settings_from_body(body: dict[str, Any], players: int) -> Settings:
    return Settings(
        players=players, variant=body["variant"], point_limit=body["point_limit"], max_rounds=body["max_rounds"],
        deal=body["deal"], clock=body.get("clock"),
    )
