"""A rematch over the links of a finished game (protocol.md 14, "Rematch"): the host's offer, the seats' answers.

After GAME_END the links of the finished game stay up while people choose (RematchLinks, one per node).
A seat tells the host ["again", true] (I want to play again / I accept) or ["again", false] (I leave);
the host sends every member (seats and spectators) ["rematch", {game, port, seats, wait}]: the id of the
new game it hosts, the port it listens on, the keys of the seats held for the finished game's players (in
seat order) and how long they are held. Only the host of the finished game may offer (taken once that game
is over at the receiver), only its seats answer; anything else is ignored with one log line naming the peer.
The same offer, taken while the receiver's game is still starting, is a new start (app.anew): the host abandoned
a game that a seat left before acknowledging its START, and hosts a new one without that seat.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..protocol.identity import KEY_SIZE, fingerprint
from ..quietlog import quiet
from .discovery import game_code
from .waiting import refused_acks

log = logging.getLogger("p2pnimmt.net")

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


def left_out(session, seats: list[bytes]) -> list[int]:
    """The seats of the START whose keys an offer's `seats` leave out (a new start leaves out at least one: the seat
    gone before its START_ACK, or its key where a new bot of the host's takes that seat)."""
    return [seat for seat, peer in enumerate(session.roster) if session.keys[peer] not in seats]


def no_new_start(session, host: bytes, payload: dict[str, Any]) -> str:
    """Why an offer taken while starting that leaves out no seat is refused: it names the host and what it sent."""
    return (f"{session.names[session.roster.index(host)]} offered a new start of game {game_code(session.game_id)} "
            f"(game {game_code(payload['game'])} on port {payload['port']}) that leaves out no seat of it: a new start "
            "leaves out the seat gone before its START_ACK, so this is none")


def host_moved(session) -> bool:
    """The host signed a message of the game after its START (its deal's first, most often): its own game started,
    so it held every seat's START_ACK (protocol.md 11: a host signs nothing of a round before)."""
    start = session.start
    return start is not None and session.inbox.head(start.sender)[0] > start.seq + 1


def not_without_us(session, host: bytes, payload: dict[str, Any]) -> str:
    """Why an offer that leaves out our seat while our game is on, from a host that played in it, is refused
    (protocol.md 14, "A new start"): it names the host and what it sent."""
    return (f"{session.names[session.roster.index(host)]} offered a new start of game {game_code(session.game_id)} "
            f"(game {game_code(payload['game'])} on port {payload['port']}) without this seat after it signed messages "
            "of the game after its START: its game started, so it had this seat's START_ACK")


def offer_body(game_id: bytes, port: int, seats: list[bytes], wait: int) -> dict[str, Any]:
    return {"game": game_id, "port": port, "seats": list(seats), "wait": wait}


Listener = Callable[[Any, "Offer | Answer"], None]


class RematchLinks:
    """One node's part of a rematch over the finished game's links: it takes the host's offer (a member) or the
    seats' answers (the host), and sends ours. It reads only the node's public state: its session, host, links."""

    def __init__(self, node) -> None:
        self.node = node
        self.offer: Offer | None = None  # the host's rematch offer we took (once the game was over here)
        self.anew = False  # the offer was taken while our game was still starting: a new start (app.anew)
        # as we took the offer: whom we had a link to, and who had said `bye` (app.anew: why the host left seats out;
        # the seat left out leaves a moment later, as it takes the offer too)
        self.linked_then: frozenset[bytes] = frozenset()
        self.byes_then: frozenset[bytes] = frozenset()
        self.answers: dict[bytes, bool] = {}  # a host: each seat's latest answer (again or not)
        self.offered: dict[str, Any] | None = None  # a host: the offer we sent (told to a link that comes later)
        self.proof: tuple[bytes, ...] = ()  # a host: the signed proof of the equivocation our new start leaves out
        self._early: tuple[Any, Any] | None = None  # (link, payload) of an offer that came before our game was over
        self._listeners: list[Listener] = []

    def watch(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(node, Offer | Answer)` when the host offers a rematch or a seat answers ours."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def frame(self, conn, kind: str, payload: Any) -> None:
        """A `rematch` or `again` frame from a member's link."""
        if kind == "rematch":
            self._offered(conn, payload)
        else:
            self._answered(conn, payload)

    def game_over(self) -> None:
        """Our game is over: an offer that came before is taken now."""
        if self._early is not None:
            conn, payload = self._early
            self._early = None
            self._offered(conn, payload)

    def ask_again(self, again: bool) -> None:
        """A seat, after the game: tell the host we want to play again (or that we leave)."""
        node = self.node
        conn = node.links.get(node.host_peer) if node.host_peer is not None else None
        if conn is not None and not node.is_host:
            conn.send_nowait("again", again)

    def offer_to_all(self, game_id: bytes, port: int, seats: list[bytes], wait: int, proof: tuple[bytes, ...] = ()) \
            -> None:
        """Host, after the game: offer every member (seats and spectators) the rematch we host; one whose link comes
        back later is told too (linked). `proof`: a new start after a seat's equivocation (protocol.md 14): its signed
        proof goes before the offer on each link (a member that lacks it aborts its game on it, and then takes the
        offer; one that has it is sent nothing twice)."""
        self.offered = offer_body(game_id, port, seats, wait)
        self.proof = proof
        for conn in list(self.node.links.values()):
            self._tell(conn)

    def _tell(self, conn) -> None:
        for wire in self.proof:
            conn.send_message(wire)
        conn.send_nowait("rematch", self.offered)

    def linked(self, conn) -> None:
        """Host: a member's link came (back) after our offer: it is told the offer too. A seat that a new start left
        out (it had no link to us as we chose) learns so here, not from a game that never moves again."""
        if self.offered is not None and self.node.is_host:
            self._tell(conn)

    def _ignore(self, conn, kind: str, why: str) -> None:
        """A frame that does not count: one log line naming the peer (per link and reason)."""
        key = f"{kind}:{why}"
        if key not in conn.warned:
            conn.warned.add(key)
            quiet.warning(conn.address, f"{kind} frame ignored", "ignored a %s frame from %s: %s", kind,
                          fingerprint(conn.peer), why)

    def _offered(self, conn, payload: Any) -> None:
        """The host of the finished game offers a rematch: taken once, when the game is over here."""
        node = self.node
        session = node.session
        start = session.start if session is not None else None
        if node.is_host or conn.peer != node.host_peer or start is None or start.sender != conn.peer:
            return self._ignore(conn, "rematch", "only the host of the finished game may offer a rematch")
        problem = offer_problem(payload, session.game_id)
        if problem is not None:
            return self._ignore(conn, "rematch", f"not an offer: {problem}")
        if self.offer is not None:
            if payload["game"] == self.offer.game_id:
                return None  # the same offer again (told once more on a link that came back: linked)
            return self._ignore(conn, "rematch", "a rematch was offered already")
        # aborted on a START_ACK equivocation of a seat the offer leaves out (protocol.md 14): taken as a new start
        anew = session.phase == "starting" or session.phase == "aborted" and bool(refused_acks(session)) and \
            set(refused_acks(session)) <= set(left_out(session, payload["seats"]))
        if anew and not left_out(session, payload["seats"]):
            return self._ignore(conn, "rematch", no_new_start(session, conn.peer, payload))
        # the host left our game for a new start without our seat, though the game started here (our START_ACK and
        # the others' came to us, ours never to the host): a rematch holds every seat, so this is that new start
        without_us = session.phase not in ("over", "starting", "aborted") and node.role == "player" \
            and node.identity.public_key not in payload["seats"]
        if without_us and not session.table.held_proofs and host_moved(session):
            # a host whose game started (it signed on after its START) had our START_ACK: no new start leaves us out
            # (red team, session 39: a host pushed an honest seat out of a game under way, at any turn)
            return self._ignore(conn, "rematch", not_without_us(session, conn.peer, payload))
        if session.phase != "over" and not anew and not without_us:  # starting: a new start (app.anew)
            if session.phase == "aborted":
                return self._ignore(conn, "rematch", "the game was aborted")
            self._early = (conn, payload)  # taken at our game over (the host may be over first)
            return
        assert node.host_address is not None  # a joiner: set by Node.join()
        self.offer = Offer(payload["game"], node.host_address[0], payload["port"], tuple(payload["seats"]),
                           payload["wait"], session.game_id)
        self.anew = session.phase != "over"  # followed as such though the last START_ACK comes a moment later
        self.linked_then, self.byes_then = node.linked, frozenset(node.byes)
        log.info("the host offers a %s: game %s on port %d", "rematch" if session.phase == "over" else "new start",
                 payload["game"].hex()[:8], payload["port"])
        self._changed(self.offer)

    def _answered(self, conn, payload: Any) -> None:
        """A seat of the finished game answers its host after the game: again (true) or leaving (false)."""
        node = self.node
        session = node.session
        if not node.is_host:
            return self._ignore(conn, "again", "only the host of the game takes answers to a rematch")
        if session is None or session.start is None or conn.peer not in session.roster \
                or conn.peer == node.identity.peer:
            return self._ignore(conn, "again", "only a seat of the game answers a rematch")
        if session.phase == "aborted" and not refused_acks(session):  # else our new start's (protocol.md 14)
            return self._ignore(conn, "again", "the game was aborted")
        if not isinstance(payload, bool):
            return self._ignore(conn, "again", "its answer is not true or false")
        if self.answers.get(conn.peer) == payload:
            return  # the answer it gave already: nothing new to say (protocol.md 14, "Rematch")
        self.answers[conn.peer] = payload  # one that comes before our own game is over is kept as well
        if session.phase == "over":
            self._changed(Answer(conn.peer, payload))

    def _changed(self, what: Offer | Answer) -> None:
        for listener in list(self._listeners):
            try:
                listener(self.node, what)
            except Exception:  # a display problem must not break the link
                log.exception("rematch listener failed")
