"""A rematch over the links of a finished game (protocol.md 14, "Rematch"): the host's offer, the seats' answers.

After GAME_END the links of the finished game stay up while people choose. A seat tells the host
["again", true] (I want to play again / I accept) or ["again", false] (I leave); the host sends every
member (seats and spectators) ["rematch", {game, port, seats, wait}]: the id of the new game it hosts, the
port it listens on, the keys of the seats held for the finished game's players (in seat order) and how long
they are held. Only the host of the finished game may offer, only its seats answer, and only once that
game is over at the receiver; anything else is ignored with one log line naming the peer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..protocol.identity import KEY_SIZE

MAX_WAIT = 600  # the longest a host may hold the seats of a rematch (seconds)
GAME_ID_SIZE = 16


@dataclass(frozen=True)
class Offer:
    """The host's offer of a rematch, as a member took it: where the new game is and who is seated in it."""

    game_id: bytes  # the new game's id (bound to the host's key by its salt, as any game id)
    host: str  # the address this member reached the host at (never an address from the offer)
    port: int
    seats: tuple[bytes, ...]  # the public keys of the seats held, in the new game's seat order
    wait: int  # seconds the seats are held
    previous: bytes  # the finished game's id


@dataclass(frozen=True)
class Answer:
    """A seat of the finished game answered its host: again (True) or leaving (False)."""

    peer: bytes
    again: bool


def offer_problem(payload: Any, game_id: bytes) -> str | None:
    """Why a rematch frame's payload is not an offer for a new game (None: it is one)."""
    if not isinstance(payload, dict) or set(payload) != {"game", "port", "seats", "wait"}:
        return "a rematch offer is a map of exactly game, port, seats, wait"
    game, port, seats, wait = payload["game"], payload["port"], payload["seats"], payload["wait"]
    if not isinstance(game, bytes) or len(game) != GAME_ID_SIZE:
        return "its game is not a game id (16 bytes)"
    if game == game_id:
        return "it names the finished game itself"
    if type(port) is not int or not 0 < port < 65536:
        return "its port is not 1..65535"
    if not isinstance(seats, list) or not 1 <= len(seats) <= 10 or \
            not all(isinstance(k, bytes) and len(k) == KEY_SIZE for k in seats) or len(set(seats)) != len(seats):
        return "its seats are not 1..10 distinct keys"
    if type(wait) is not int or not 0 < wait <= MAX_WAIT:
        return f"its wait is not 1..{MAX_WAIT} seconds"
    return None


def offer_body(game_id: bytes, port: int, seats: list[bytes], wait: int) -> dict[str, Any]:
    return {"game": game_id, "port": port, "seats": list(seats), "wait": wait}
