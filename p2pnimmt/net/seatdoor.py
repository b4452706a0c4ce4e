"""The seat key at the door (protocol.md 14, "The seat key"): a joiner's `join` proves it on each link; a host
admits no join without that proof, but from a seat of its START, and bounds the wrong ones per address.

The key itself never crosses a link: only HMACs bound to one link's handshake nonces (protocol.seatkey)."""

from __future__ import annotations

import time
from typing import Any

from ..protocol.identity import fingerprint
from ..protocol.seatkey import (
    WRONG_ADDRESSES,
    WRONG_BURST,
    WRONG_EVERY,
    Refusals,
    WrongKeys,
    join_proof,
    link_proof,
    seat_refusal,
    seat_secret,
)
from ..quietlog import quiet
from .connection import Connection

__all__ = ["MISSING", "TOO_MANY", "TOO_MANY_ADDRESSES", "WRONG", "WRONG_ADDRESSES", "WRONG_BURST", "WRONG_EVERY",
           "WRONG_LINK", "SeatDoor", "join_with_proof"]

MISSING = ("the seat key is missing: type the code as the host's screen shows it, with its seat key (CODE-KEY), "
           "or open its invite link")
WRONG = ("wrong seat key: type the code as the host's screen shows it, with its seat key (CODE-KEY), or open its "
         "invite link")
TOO_MANY = ("too many wrong seat keys from this address: open the host's invite link or scan its QR code (a stranger "
            "may be guessing), or wait, then type the code as the host's screen shows it")
TOO_MANY_ADDRESSES = ("too many wrong seat keys from too many addresses: open the host's invite link or scan its QR "
                      "code (a stranger may be guessing), or wait, then type the code as the host's screen shows it")
WRONG_LINK = ("wrong link secret: open the host's invite link whole, or scan the QR code it shows now (or type the "
              "code as its screen shows it)")
# A host refuses a join without a proof (so the joiner says what is missing), and a host without a key checks none.
SAYS = Refusals(too_many=TOO_MANY, too_many_addresses=TOO_MANY_ADDRESSES, wrong=WRONG, missing=MISSING, keyless=None,
                wrong_link=WRONG_LINK)


def join_with_proof(node: Any, conn: Connection, frame: dict[str, Any]) -> dict[str, Any]:
    """Our `join` for this link: `frame` with the proof of our seat key bound to its handshake (none without a key:
    the host then refuses it, saying the key is missing), and of the link secret where we hold it (protocol.md 14,
    "The link secret": a host of before session 40 reads only the first)."""
    if node.seat_key is None or conn.game_id is None:
        return frame
    ours, theirs = conn.nonces
    secret = seat_secret(conn.game_id, node.seat_key)
    joined = {**frame, "proof": join_proof(secret, conn.game_id, ours, theirs, node.identity.public_key)}
    if getattr(node, "link_secret", None) is not None:
        joined["link_proof"] = link_proof(node.link_secret, conn.game_id, ours, theirs, node.identity.public_key)
    return joined


class SeatDoor:
    """A host's check of the seat key in each join, and its count of wrong ones per address.

    Only a proof that does not hold is charged (a join without one guesses nothing), and the host's own seats (its
    bots, its guest seats: `trusted`, made in its process) and the keys it admitted already (`_known`) are never turned
    away unchecked, so that a stranger who spends an address's tries (one the host itself dials from, or a member's)
    cannot keep them out; a phone relay checks its pages' joins itself (web.relaydoor), so no wrong proof comes from a
    relay node's address. The count is
    the evening's, as the key is: a rematch's door takes the finished game's (`tries`), so a new game is no new
    burst of guesses."""

    def __init__(self, node: Any) -> None:  # net.node.Node (not imported: it imports us through net.lobby)
        self.node = node
        self.tries = WrongKeys()  # per address
        self.trusted: set[bytes] = set()  # peer ids of the host's own seats, made in its process
        self.refused = 0  # joins refused for the key, in all

    def count_on(self, finished: SeatDoor) -> None:
        """A rematch's or a new start's door: it goes on with the finished game's count of wrong keys (every address's,
        and the one the addresses past those counted apart share), the evening's as the key is."""
        self.tries = finished.tries

    def why_not(self, conn: Connection, payload: dict[str, Any], seated: bool = False) -> str | None:
        """Why this join may not be admitted for the seat key (None: its proof holds, the host has no key, or it is
        `seated`: a seat of the START, a member already), in the order of protocol.seatkey.seat_refusal."""
        node = self.node
        keyless = node.seat_key is None or node.game_id is None
        secret = None if keyless else seat_secret(node.game_id, node.seat_key)  # drawn when the game was (Node)
        address = conn.address[0] if conn.address else ""
        ours, theirs = conn.nonces
        why = seat_refusal(SAYS, self.tries, address, time.monotonic(), seated=seated, known=self._known(conn.peer),
                           keyless=keyless, proof=payload.get("proof"), secret=secret,
                           link=(node.game_id or b"", theirs, ours, conn.key), link_proved=payload.get("link_proof"),
                           link_secret=node.link_secret)
        return None if why is None else self._refused(conn, address, why)

    def _known(self, peer: bytes) -> bool:
        """A key that is never refused unchecked (its proof is still checked): the host's own seats, and a key it
        admitted with the seat key already this evening (a member whose link came back, a seat held for a rematch).
        Before (session 35) a member whose address a stranger had spent (a phone relay's) was refused on its next
        link, and a joiner stops at a refusal: the START then seated a player who had gone."""
        node = self.node
        return peer in self.trusted or peer in node.members or peer in node.held_seats.seat_order

    def _refused(self, conn: Connection, address: str, why: str) -> str:
        self.refused += 1
        quiet.warning(address, "refused a join for the seat key", "refused a join from %s at %s: %s",
                      fingerprint(conn.peer), address, why.split(":", 1)[0])
        return why
