"""The seat key at the door (protocol.md 14, "The seat key"): a joiner's `join` proves it on each link; a host
admits no join without that proof, but from a seat of its START, and bounds the wrong ones per address.

The key itself never crosses a link: only HMACs bound to one link's handshake nonces (protocol.seatkey)."""

from __future__ import annotations

import time
from typing import Any

from ..protocol.identity import fingerprint
from ..protocol.seatkey import WRONG_BURST, WRONG_EVERY, WrongKeys, join_proof, proof_holds, seat_secret
from ..quietlog import quiet
from .connection import Connection

__all__ = ["MISSING", "TOO_MANY", "WRONG", "WRONG_BURST", "WRONG_EVERY", "SeatDoor", "join_with_proof"]

MISSING = ("the seat key is missing: type the code as the host's screen shows it, with its seat key (CODE-KEY), "
           "or open its invite link")
WRONG = ("wrong seat key: type the code as the host's screen shows it, with its seat key (CODE-KEY), or open its "
         "invite link")
TOO_MANY = "too many wrong seat keys from this address: wait, then type the code as the host's screen shows it"


def join_with_proof(node: Any, conn: Connection, frame: dict[str, Any]) -> dict[str, Any]:
    """Our `join` for this link: `frame` with the proof of our seat key bound to its handshake (none without a key:
    the host then refuses it, saying the key is missing)."""
    if node.seat_key is None or conn.game_id is None:
        return frame
    ours, theirs = conn.nonces
    secret = seat_secret(conn.game_id, node.seat_key)
    return {**frame, "proof": join_proof(secret, conn.game_id, ours, theirs, node.identity.public_key)}


class SeatDoor:
    """A host's check of the seat key in each join, and its count of wrong ones per address.

    Only a proof that does not hold is charged (a join without one guesses nothing), and the host's own seats (its
    bots, its guest seats: `trusted`, made in its process) are never turned away unchecked, so that a stranger who
    spends an address's tries (one the host itself dials from) cannot keep them out; a phone relay checks its pages'
    joins itself (web.relaydoor), so no wrong proof comes from a relay node's address. The count is
    the evening's, as the key is: a rematch's door takes the finished game's (`tries`), so a new game is no new
    burst of guesses."""

    def __init__(self, node: Any) -> None:  # net.node.Node (not imported: it imports us through net.lobby)
        self.node = node
        self.tries = WrongKeys()  # per address
        self.trusted: set[bytes] = set()  # peer ids of the host's own seats, made in its process
        self.refused = 0  # joins refused for the key, in all

    def why_not(self, conn: Connection, payload: dict[str, Any]) -> str | None:
        """Why this join may not be admitted for the seat key (None: its proof holds, or the host has no key)."""
        node = self.node
        if node.seat_key is None or node.game_id is None:
            return None
        address = conn.address[0] if conn.address else ""
        now = time.monotonic()
        if conn.peer not in self.trusted and self.tries.spent(address, now):
            return self._refused(conn, address, TOO_MANY)  # not checked: guessing is bounded per address
        proof = payload.get("proof")
        ours, theirs = conn.nonces
        if proof is not None and proof_holds(proof, seat_secret(node.game_id, node.seat_key), node.game_id, theirs,
                                             ours, conn.key):
            return None
        if proof is None:  # no guess: nothing charged
            return self._refused(conn, address, MISSING)
        self.tries.charge(address, now)
        return self._refused(conn, address, WRONG)

    def _refused(self, conn: Connection, address: str, why: str) -> str:
        self.refused += 1
        quiet.warning(address, "refused a join for the seat key", "refused a join from %s at %s: %s",
                      fingerprint(conn.peer), address, why.split(":", 1)[0])
        return why
