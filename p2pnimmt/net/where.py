"""Where a player listens, in its own words (protocol.md 14, "Where a member listens"; red team, session 40): each
member signs its port and addresses with its identity key, bound to the game id (a `where` record). The host
forwards a member's record in its lobby frames but cannot forge it; the seats pass the records they hold to each
other over their links (a `where` frame), so a host that withholds one from some is routed around by any one
honest link; and a node dials a seat at the port of its latest record, never dropping one because a later lobby
frame leaves it out.

A record is [serial, port, addresses, signature]: serial an integer (the reference: the wall clock in milliseconds
as it signs; a later record of one member replaces one with a lower serial), port 1..65535, at most MAX_ADDRESSES
IP addresses as text (no zone ID), and the Ed25519 signature of the member's key over where_bytes.
"""

from __future__ import annotations

import logging
import struct
import time
from dataclasses import dataclass
from typing import Any

from ..protocol.identity import Identity, fingerprint, peer_id, verify
from ..protocol.where_body import MAX_SERIAL as MAX_SERIAL, record_shape  # (MAX_SERIAL: as before, for its importers)
from ..quietlog import quiet
from .connection import Connection
from .members import is_ip

log = logging.getLogger("p2pnimmt.net")

KIND = "where"
DOMAIN = b"p2pnimmt/where/v1"
MAX_RECORDS = 20  # records a book holds (protocol.md 14, Bounds): 10 seats twice, for a lobby's comings and goings


def where_bytes(game_id: bytes, key: bytes, serial: int, port: int, addresses: list[str] | tuple[str, ...]) -> bytes:
    """What a member signs: the domain, the game id (16), its public key (32), the serial (8, big-endian), the port
    (2, big-endian), the number of addresses (1), then each address as its length (1) and its ASCII text."""
    out = [DOMAIN, game_id, key, struct.pack(">QHB", serial, port, len(addresses))]
    for address in addresses:
        text = address.encode("ascii")
        out.append(bytes([len(text)]) + text)
    return b"".join(out)


@dataclass(frozen=True)
class Where:
    """A member's signed word on where it listens, and the game it is signed for (its signature checked for)."""

    key: bytes
    serial: int
    port: int
    addresses: tuple[str, ...]
    signature: bytes
    game: bytes

    def record(self) -> list[Any]:
        """As a `join`, a lobby member and a `where` frame carry it."""
        return [self.serial, self.port, list(self.addresses), self.signature]


_last_serial = 0  # the serial of the last record this process signed without one given


def sign_where(identity: Identity, game_id: bytes, port: int, addresses: list[str],
               serial: int | None = None) -> Where:
    """Our own record for `game_id` (serial: now, in milliseconds, unless given; past the last one signed, so a
    second record in the same millisecond, or after the clock stepped back, is still the newer)."""
    global _last_serial
    if serial is None:
        serial = _last_serial = max(int(time.time() * 1000), _last_serial + 1)
    signature = identity.sign(where_bytes(game_id, identity.public_key, serial, port, addresses))
    return Where(identity.public_key, serial, port, tuple(addresses), signature, game_id)


def serial_past(serial: int) -> None:
    """A record of ours with `serial` exists (a seat holds it, checked: our own signed word): the next we sign goes
    past it. A node resumed after the wall clock stepped back signed serials below those of its records from before,
    which every seat kept as the newer, at the port it listened on then (red team, session 43)."""
    global _last_serial
    _last_serial = max(_last_serial, serial)


def where_from(value: Any, key: bytes, game_id: bytes) -> Where | None:
    """`key`'s record for `game_id` as it came, checked: its form and its signature; None for anything else."""
    if not (record_shape(value) and isinstance(key, bytes) and len(key) == 32):  # the form a message body holds too
        return None
    serial, port, addresses, signature = value
    if not all(is_ip(a) and "%" not in a for a in addresses):  # no zone ID (fe80::1%eth0)
        return None
    if not verify(key, signature, where_bytes(game_id, key, serial, port, addresses)):
        return None
    return Where(key, serial, port, tuple(addresses), signature, game_id)


class Book:
    """One node's records of where the players are (by peer id): each the latest (highest serial) it checked, from
    the host's lobby frames or the seats' `where` frames; kept for the players of the lobby and the seats of the
    START only, and never dropped because a later lobby frame leaves one out."""

    def __init__(self, node) -> None:
        self.node = node
        self.records: dict[bytes, Where] = {}  # peer -> its latest record held (each says the game it was checked for)
        self._ours: Where | None = None  # our own as we last told the seats (it comes back from them)
        self._told: dict[bytes, tuple[Connection, int]] = {}  # seat -> (its link, what we last told it there)
        self._start: Any = None  # the START whose messages' records we looked at (from_start)
        self._looked: set[bytes] = set()  # the hashes of those messages (the START and its START_ACKs)

    def _player(self, peer: bytes) -> bool:
        """A player of the lobby or a seat of the START: the only ones a node dials."""
        node = self.node
        session = node.session
        member = node.members.get(peer)
        return ((member is not None and member.role == "player")
                or (session is not None and session.start is not None and peer in session.keys))

    def of(self, peer: bytes) -> Where | None:
        return self.records.get(peer)

    def take(self, where: Where) -> bool:
        """Keep `where` if it is a player's and newer than what we hold: True if it is news."""
        peer = peer_id(where.key)
        held = self.records.get(peer)
        if peer == self.node.identity.peer:
            return self._ours_again(where)
        if not self._player(peer) or (held is not None
                                                                           and held.serial >= where.serial):
            return False
        self.records[peer] = where
        if len(self.records) > MAX_RECORDS:  # players who left the lobby before the START: theirs go first
            self.records = {p: w for p, w in self.records.items() if self._player(p)}
        log.info("%s listens at port %d%s (its own signed word)", fingerprint(peer), where.port,
                 f" and {', '.join(where.addresses)}" if where.addresses else "")
        return True

    def _ours_again(self, where: Where) -> bool:
        """A seat holds `where`, a record of ours (checked): where it is as new as the one we sign now or newer (we
        signed it before the wall clock stepped back, then resumed), ours is signed again past it, and the seats are
        told (True). Else nothing (False)."""
        own = self.node.own_where()
        if own is None or where.serial < own.serial or where == own:
            return False
        serial_past(where.serial)
        self.node.sign_own_where_again()
        log.info("a seat holds a record of ours with serial %d, past ours (%d): signed ours again past it",
                 where.serial, own.serial)
        return True

    def from_start(self) -> None:
        """The records the START and the START_ACKs we accepted carry (protocol.md 14, "In the START and the
        START_ACKs"; session 41): each its signer's, taken as a lobby frame's are (checked: one that is not its
        signer's signed word is not taken, in one line; the message stands). Each message is looked at once."""
        node = self.node
        session = node.session
        if session is None or session.start is None or node.game_id is None:
            return
        start = session.start
        if self._start is not start:
            self._start, self._looked = start, set()
        table = session.table
        acks = table.slot("START_ACK", 0)
        if len(self._looked) == len(acks) + 1:
            return  # (the common case, each message we take: nothing new)
        news = False
        for env in [start, *acks.values()]:
            if env.hash in self._looked:
                continue
            self._looked.add(env.hash)
            record = env.body.get("where")
            if record is None or env.sender == node.identity.peer:
                continue
            where = where_from(record, session.keys[env.sender], node.game_id)
            if where is None:
                quiet.warning(fingerprint(env.sender), "where record ignored",
                              "ignored the where record in %s's %s: it is not its signed word for this game",
                              fingerprint(env.sender), env.kind)
                continue
            news = self.take(where) or news
        if news:
            self.taken()
            if not node.is_host:  # a seat we now know where to dial, whatever the lobby frames said (protocol.md 14)
                node.mesh.dial_mesh()

    def taken(self) -> None:
        """Records came: diallers waiting for somewhere to dial look again, and linked seats hear of them."""
        self.node.mesh.members_updated()
        self.tell()

    def _seat(self, peer: bytes) -> bool:
        session = self.node.session
        return session is not None and session.start is not None and peer in session.keys

    def frame(self) -> list[Any]:
        """Ours to the seats: [public key, record] for each record of a seat of the START we hold, our own too,
        sorted (never more entries than the START has seats)."""
        own = self.node.own_where()
        found = [[w.key, w.record()] for peer, w in self.records.items() if self._seat(peer)]
        if own is not None:
            found.append([own.key, own.record()])
            self._ours = own
        return sorted(found)

    def tell(self, conn: Connection | None = None) -> None:
        """Every linked seat gets what we hold when it changed; `conn` (a new link, one we ping) gets it anyway. Only
        a seat tells, and only seats."""
        node = self.node
        if node.role != "player" or not self._seat(node.identity.peer):
            return
        frame = self.frame()
        mark = sum(record[0] for _key, record in frame) + len(frame)
        for peer, link in list(node.links.items()):
            if self._seat(peer) and not link.closed and (link is conn or self._told.get(peer) != (link, mark)):
                self._told[peer] = (link, mark)
                link.send_nowait(KIND, frame)

    def learn(self, conn: Connection, payload: Any) -> None:
        """A seat's `where` frame: the records it holds (one that is not as above, or that holds a record whose
        signature does not hold, is ignored whole, in one line; a record of no seat is left out)."""
        node = self.node
        session = node.session
        if session is None or session.start is None or node.game_id is None:
            return  # before the START we cannot tell a seat: it comes again with a ping
        if not self._seat(conn.peer):
            return self._ignore(conn, "only a seat of the game tells where the players are")
        if not isinstance(payload, list) or len(payload) > len(session.keys):
            return self._ignore(conn, f"a where frame is a list of at most {len(session.keys)} records")
        if not all(isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], bytes) for entry in payload):
            return self._ignore(conn, "each entry is [a seat's public key, its record]")
        if len({entry[0] for entry in payload}) < len(payload):  # a key's latest record only, seen before any check:
            return self._ignore(conn, "it names a seat twice")  # ten of one key were ten checks a frame (session 42)
        wheres = []  # every entry is checked before any is taken: a frame with one bad entry is ignored whole
        for entry in payload:
            where = self._held(entry[0], entry[1]) or where_from(entry[1], entry[0], node.game_id)
            if where is None:
                return self._ignore(conn, f"the record of {fingerprint(peer_id(entry[0]))} is not one it signed")
            wheres.append(where)
        news = False
        for where in wheres:
            news = self.take(where) or news
        if news:
            self.taken()

    def _held(self, key: bytes, record: Any) -> Where | None:
        """The record of `key` we hold, or sent as ours, if `record` is exactly it, checked for this game: not
        checked again (a seat passes on the records it holds at each change and ping; before the session-42 review
        each of them was one signature check, up to a seat's every record a frame, 20 frames a second), else None."""
        peer = peer_id(key)
        held = self._ours if peer == self.node.identity.peer else self.records.get(peer)
        if held is None or held.game != self.node.game_id or held.key != key or not record_shape(record):
            return None
        return held if record == held.record() else None

    def _ignore(self, conn: Connection, why: str) -> None:
        if KIND not in conn.warned:
            conn.warned.add(KIND)
            quiet.warning(conn.address, "where frame ignored", "ignored a where frame from %s: %s",
                          fingerprint(conn.peer), why)
