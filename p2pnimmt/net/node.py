"""A peer on the network: one identity, one Session, a listener, and an authenticated link to each other peer.

Lobby (before START), over the same authenticated links: a joiner dials
the host and sends ["join", {name, role, bot, port}]; the host answers
["lobby", {...}] to every member on each change, or ["refuse", reason].
When the seats are full the host signs START and sends ["peers", [...]]
(keys and addresses); players then complete the full mesh, the lower peer
id dialling. Spectators keep their link to the host, which relays every
message to them. During the game frames are ["msg", wire] (session
messages), ["heads", [[sender, count], ...]] on every (re)connect so each
side resends what the other lacks, ["ping", nil], and ["bye", nil] when a
peer's game is over. After it, a rematch: ["again", bool] from a seat to
the host, ["rematch", {game, port, seats, wait}] from the host to everyone
(net.rematch; protocol.md 14).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..bots import NEEDED, Bot, bot_move
from ..engine import Settings
from ..protocol.delivery import meant_for
from ..protocol.events import Event, Fault, GameAborted, GameOver, GameStarted, Outgoing, SeatDropped
from ..protocol.identity import SALT_SIZE, Identity, fingerprint, game_id_for, peer_id
from ..protocol.session import Journal, LocalError, Session
from .clock import MoveClock
from .connection import PING_EVERY, Connection, ConnectionFailed
from .discovery import game_code
from .members import Member, member_from
from .rematch import RematchLinks

log = logging.getLogger("p2pnimmt.net")

MAX_LINK_FAULTS = 20  # bad messages over one link before we hang up on it
# Bounds (protocol.md section 14, "Membership and bounds"): over a cap, the source is cut off with one log line.
MAX_SPECTATORS = 32  # spectators a host admits at once (each key one; they are removed when they leave)
MAX_PENDING = 128  # connections not (yet) a member's: in the handshake, or authenticated and not joined
MEMBER_WAIT = 10.0  # seconds a link may stay without becoming a member's (a host: without a join)
DIAL_BACKOFF = (0.1, 5.0)  # the spacing of dials to one address doubles from the first to the second
STABLE_LINK = 10.0  # a link that lasted this long resets its address's dial spacing
MAX_DIAL_TABLE = 256  # addresses whose dial spacing is remembered
PULL_EVERY = 0.5  # while waiting, ask peers for missing messages this often
BYE_WAIT = 5.0  # after game over, how long to wait for the other peers' bye before leaving


EventListener = Callable[["Node", Event], None]
LobbyListener = Callable[["Node"], None]


class Node:
    """One peer: runs its session over TCP links; a host also runs the lobby and starts the game.

    A front drives it through public methods (host, join, resume, act, kick,
    start_now, change_settings, spawn, close, linger; for a rematch's lobby
    hold_seats and release_seat; after the game, `rematch`: net.rematch.RematchLinks)
    and listens with watch_events and watch_lobby; it reads session, members,
    players(), linked, settings, seats, lobby_state, done and refused.
    """

    def __init__(self, identity: Identity, *, name: str, role: str = "player", bot: Bot | None = None,
                 interface: str | None = None, journal_for: Callable[[bytes], Journal] | None = None,
                 on_event: EventListener | None = None, drop_after: float = 60.0,
                 bot_delay: float = 0.0) -> None:
        self.identity = identity
        self.name = name
        self.role = role
        self.bot = bot
        self.interface = interface
        self.journal_for = journal_for  # game id -> where to record the transcript
        self._event_listeners: list[EventListener] = [on_event] if on_event is not None else []
        self._lobby_listeners: list[LobbyListener] = []
        self.session: Session | None = None
        self.game_id: bytes | None = None
        self.port = 0
        self.server: asyncio.AbstractServer | None = None
        self.links: dict[bytes, Connection] = {}
        self.members: dict[bytes, Member] = {}  # lobby, by peer id (the host's view, mirrored to all)
        self.settings: Settings | None = None
        self.seats = 0
        self.is_host = False
        self.lobby_state = "lobby"
        self.done = asyncio.Event()
        self.byes: set[bytes] = set()
        self.tasks: set[asyncio.Task] = set()
        self.dialing: set[bytes] = set()
        self.refused: str | None = None
        self.host_peer: bytes | None = None  # a joiner: the peer that answered our join (the host's link)
        self._join_frame: dict[str, Any] | None = None  # what we asked the host, sent again on every redial
        self._pending: dict[asyncio.StreamWriter, str] = {}  # connections not (yet) a member's -> why closed
        self._members_changed = asyncio.Event()  # set and replaced whenever who is a member may have changed
        self._dial_spacing: dict[tuple[str, int], tuple[float, float]] = {}  # address -> (next dial at, spacing)
        self._cut_off: set[bytes] = set()  # peers cut off for going over a cap (logged once each)
        self.drop_after = drop_after  # seconds waited on one player before voting to drop it (0: never)
        self.bot_delay = bot_delay  # seconds a bot waits before each move (so people can follow)
        self.clock = MoveClock(lambda: self.session, self._feed, self._event, self.spawn)  # a person's turn clock
        # A rematch (protocol.md 14, "Rematch"): over the links of the finished game (net.rematch), and the
        # new game's lobby with its seats held for the finished game's players.
        self.host_address: tuple[str, int] | None = None  # a joiner: the address it reached the host at
        self.rematch = RematchLinks(self)
        self.previous: bytes | None = None  # a host: the game this one is a rematch of (START's `previous`)
        self.held: dict[bytes, int] = {}  # a host: peer id -> seat held for a player of the previous game
        self.seat_order: dict[bytes, int] = {}  # a host: peer id -> its seat in the previous game (roster order)
        self._holding = False  # a host of a rematch whose held seats are not all answered yet

    # ----------------------------------------------------------------- for fronts

    def spawn(self, coro) -> asyncio.Task:
        """Run `coro` as a task of this node: kept referenced, and cancelled by close()."""
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def watch_events(self, listener: EventListener) -> Callable[[], None]:
        """Call `listener(node, event)` on every event of the game; returns what stops it."""
        self._event_listeners.append(listener)
        return lambda: self._event_listeners.remove(listener) if listener in self._event_listeners else None

    def watch_lobby(self, listener: LobbyListener) -> Callable[[], None]:
        """Call `listener(node)` whenever the lobby changes (members, settings, state); returns what stops it."""
        self._lobby_listeners.append(listener)
        return lambda: self._lobby_listeners.remove(listener) if listener in self._lobby_listeners else None

    @property
    def linked(self) -> frozenset[bytes]:
        """The peers this node has a live link to now."""
        return frozenset(self.links)

    def players(self) -> list[Member]:
        """The lobby's members that take a seat, in the order they joined."""
        return [m for m in self.members.values() if m.role == "player"]

    def change_settings(self, settings: Settings) -> None:
        """Host, in the lobby: the settings the game will start with."""
        self.settings = settings

    # ----------------------------------------------------------------- setup

    async def listen(self, port: int = 0) -> None:
        self.server = await asyncio.start_server(self._accepted, host=self.interface or "0.0.0.0", port=port)
        self.port = self.server.sockets[0].getsockname()[1]

    def _new_session(self, game_id: bytes) -> None:
        self.game_id = game_id
        journal = self.journal_for(game_id) if self.journal_for is not None else None
        self.session = Session(self.identity, game_id=game_id, journal=journal)
        self.spawn(self._watch_waiting())

    async def _watch_waiting(self) -> None:
        """While the game waits on someone: ask the peers for what we lack (each relays only part of the
        traffic, so a broken link can leave a gap), and after `drop_after` seconds vote to drop the absent."""
        loop = asyncio.get_running_loop()
        since: dict[tuple, float] = {}
        gone: dict[tuple, float] = {}  # waited on, with no link to us, since
        while not self.done.is_set():
            await asyncio.sleep(PULL_EVERY)
            session = self.session
            assert session is not None  # this task is spawned once the node has its session
            if session.start is None or session.phase in ("over", "aborted"):
                continue
            now = loop.time()
            waiting = {(session.round, session.step_now(), seat)
                       for seat in session.waiting_for() if seat != session.seat}
            since = {key: since.get(key, now) for key in waiting}
            if any(now - start >= PULL_EVERY for start in since.values()):
                heads = session.heads()
                for conn in list(self.links.values()):
                    conn.send_nowait("heads", heads)
            # Only an absent peer is dropped: one with no link to us. A person thinking is linked: its own clock
            # (protocol.md 11.2) or the others' request for the stand-in moves the game on, so a linked seat is
            # dropped only when its node does not do what an honest one would: move within its clock, or
            # within --drop-after of every other seat asking for the stand-in.
            linked = self.linked
            clock = session.game.settings.clock if session.game is not None else None
            stalled = {key for key in waiting if session.roster[key[2]] not in linked
                       or clock is not None and now - since[key] >= clock
                       or session.phase == "turn" and self._stand_in_asked(session, key[2])}
            gone = {key: gone.get(key, now) for key in stalled}
            if self.drop_after <= 0 or session.phase == "starting":
                continue
            for key, start in gone.items():
                if now - start >= self.drop_after:
                    why = ("no link to it" if session.roster[key[2]] not in linked else
                           "its node did not move when its clock ran out" if clock is not None else
                           "its node did not move when everyone asked for the stand-in")
                    try:
                        self._feed(session.drop(key[2]))
                        log.warning("voted to drop seat %d (%s): %s, for %.0f s", key[2], session.names[key[2]],
                                    why, now - start)
                    except LocalError:
                        pass

    @staticmethod
    def _stand_in_asked(session: Session, seat: int) -> bool:
        """Every other seat asked the stand-in for `seat`'s move in this turn."""
        table = session.table
        step = session.step_now()
        return step is not None and table.stand_in_asked(seat, table.round, table.turn, step)

    async def host(self, settings: Settings) -> None:
        """Open a lobby for a new game with this node in seat 0."""
        self.is_host = True
        self.settings = settings
        self.seats = settings.players
        self.salt = secrets.token_bytes(SALT_SIZE)
        self._new_session(game_id_for(self.identity.public_key, self.salt))
        self.members[self.identity.peer] = Member(self.identity.public_key, self.name, "player", self.bot is not None,
                                                  self.interface or "", self.port)

    async def join(self, host: str, port: int, game_id: bytes | None = None, code: str | None = None,
                   expect: bytes | None = None) -> None:
        """Dial the host of a game and ask for a seat (or to watch).

        `code`: the game code the person gave; when the game at that address has another, nothing is asked of
        its host and ConnectionFailed says so (an address given by hand can hold another game). `expect`: the
        peer id the host must have (a rematch: the host of the finished game), else ConnectionFailed.
        """
        self.game_id = game_id if self.session is None else self.session.game_id
        conn = await self._dial(host, port)
        if code is not None and game_code(conn.game_id) != code.upper():
            conn.close()
            raise ConnectionFailed(f"the game at {host}:{port} has code {game_code(conn.game_id)}, not {code.upper()}")
        if expect is not None and conn.peer != expect:
            conn.close()
            raise ConnectionFailed(f"{host}:{port} answers as {fingerprint(conn.peer)}, not as the host of the "
                                   f"finished game ({fingerprint(expect)})")
        self.host_address = (host, port)
        if self.session is None:
            self._new_session(conn.game_id)
        self.host_peer = conn.peer
        self._join_frame = {"name": self.name, "role": self.role, "bot": self.bot is not None, "port": self.port}
        self._link(conn)  # the join goes first, then our heads (the host reads nothing else before a join)
        self.spawn(self._serve(conn, redial=(host, port)))

    def resume(self, session: Session, wires: list[bytes], secrets: list[dict], *, as_host: bool = False) -> None:
        """Take up a game after a restart: rebuild the session from our transcript, then do what is owed.

        `as_host`: this node hosted the game (it answers joins again; the lobby is over).
        """
        self.session = session
        outputs = session.replay(wires, secrets)
        self.game_id = session.game_id  # known once the replay has taken the START (links need it)
        self._feed(outputs)
        self.take_seat_back()  # restarted after the others dropped us: we are back at the keys
        self.spawn(self._watch_waiting())
        if as_host:
            self.is_host = True
            self.lobby_state = "playing"
            if session.game is not None:  # what the lobby frame shows to spectators who join again
                self.settings = session.game.settings
                self.seats = session.players

    async def close(self) -> None:
        self.done.set()
        for conn in list(self.links.values()):
            conn.close()
        if self.server is not None:
            self.server.close()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    # ----------------------------------------------------------------- links

    async def _dial(self, host: str, port: int) -> Connection:
        """Dial an address (ours by discovery or the command line, or one a member gave us), never in a tight
        loop: dials to one address are spaced DIAL_BACKOFF[0] apart, doubling up to DIAL_BACKOFF[1], until
        a link to it lasts STABLE_LINK seconds."""
        loop = asyncio.get_running_loop()
        key = (host, port)
        at, spacing = self._dial_spacing.get(key, (0.0, 0.0))
        if at > loop.time():
            await asyncio.sleep(at - loop.time())
        spacing = min(DIAL_BACKOFF[1], max(DIAL_BACKOFF[0], spacing * 2))
        if len(self._dial_spacing) >= MAX_DIAL_TABLE and key not in self._dial_spacing:
            now = loop.time()
            self._dial_spacing = {k: v for k, v in self._dial_spacing.items() if v[0] > now}
        self._dial_spacing[key] = (loop.time() + spacing, spacing)
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 5.0)
        except TimeoutError:
            raise ConnectionFailed(f"cannot reach {host}:{port}: no answer within 5 s") from None
        except OSError as exc:
            why = f"{os.strerror(exc.errno)} (errno {exc.errno})" if exc.errno else (str(exc) or type(exc).__name__)
            raise ConnectionFailed(f"cannot reach {host}:{port}: {why}") from None
        conn = await Connection.open(reader, writer, self.identity, self.game_id, dialer=True)
        conn.dialed = key
        conn.opened_at = loop.time()
        return conn

    def _link_ended(self, conn: Connection) -> None:
        """A link we dialled lasted long enough: dial its address again at once if need be."""
        if conn.dialed is not None and asyncio.get_running_loop().time() - conn.opened_at >= STABLE_LINK:
            self._dial_spacing.pop(conn.dialed, None)

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None  # a server callback runs as a task
        self.tasks.add(task)  # so that close() ends it too
        task.add_done_callback(self.tasks.discard)
        address = writer.get_extra_info("peername")
        if self.game_id is None:
            writer.close()
            return
        waiting = [w for w, why in self._pending.items() if not why]  # in the order they came
        if len(waiting) >= MAX_PENDING:  # the oldest is cut off: a flood of idle ones cannot keep joiners out
            oldest = waiting[0]
            self._pending[oldest] = (f"cut off: {MAX_PENDING} connections were waiting to become a member's "
                                     "and this was the oldest")
            oldest.close()
            self._members_updated()  # wakes it if it waits to become a member
        self._pending[writer] = ""
        conn: Connection | None = None
        try:
            try:
                conn = await Connection.open(reader, writer, self.identity, self.game_id, dialer=False)
                member = await self._membership(conn)
            except ConnectionFailed as exc:
                why = self._pending.get(writer) or str(exc)
                log.warning("refused a connection from %s%s: %s", address,
                            f" ({fingerprint(conn.peer)})" if conn is not None else "", why)
                return
            finally:
                self._pending.pop(writer, None)
            if member:
                await self._serve(conn)
        except asyncio.CancelledError:
            writer.close()  # the node is closing; asyncio would log a server callback that ends cancelled

    def _is_member(self, peer: bytes) -> bool:
        """An authenticated member of this game: the host we joined, a seat of the START, or one the host
        admitted (a host: by its join; anyone else: as the host's lobby frame says)."""
        session = self.session
        return (peer == self.host_peer or peer in self.members
                or (session is not None and session.start is not None and peer in session.keys))

    async def _membership(self, conn: Connection) -> bool:
        """Before a link counts, its peer must be a member. A host reads only a join (or ping) from a
        non-member, for MEMBER_WAIT seconds; anyone else reads nothing from it and waits that long for
        the host to name it (a player's mesh dial can come before the host's lobby frame). Raises
        ConnectionFailed with the reason when the peer is not a member in time; False if it was refused."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + MEMBER_WAIT
        while not self._is_member(conn.peer):
            if conn.closed:
                return False  # refused (and told why)
            if conn.writer.is_closing():
                raise ConnectionFailed("closed")  # cut off as the oldest waiting (the reason is in _pending)
            if loop.time() >= deadline:
                conn.close()
                raise ConnectionFailed(f"not a member of this game after {MEMBER_WAIT:.0f} s"
                                       + (" (no join)" if self.is_host else ""))
            if self.is_host:
                try:
                    async with asyncio.timeout(deadline - loop.time()):
                        kind, payload = await conn.receive()
                except TimeoutError:
                    continue
                if kind == "join":
                    self._join(conn, payload)
                elif kind != "ping":
                    conn.close()
                    raise ConnectionFailed(f"sent {kind[:40]!r} before joining (a non-member may send only a join)")
            else:
                changed = self._members_changed
                try:
                    await asyncio.wait_for(changed.wait(), max(0.0, deadline - loop.time()))
                except TimeoutError:
                    pass
        return not conn.closed

    def _members_updated(self) -> None:
        changed, self._members_changed = self._members_changed, asyncio.Event()
        changed.set()

    def _link(self, conn: Connection) -> None:
        if self.links.get(conn.peer) is conn:
            return
        old = self.links.get(conn.peer)
        if old is not None:
            old.close()
        self.links[conn.peer] = conn
        assert self.session is not None  # links are served once the node has its session
        if conn.peer == self.host_peer and self._join_frame is not None:
            conn.send_nowait("join", self._join_frame)
        conn.send_nowait("heads", self.session.heads())

    async def _serve(self, conn: Connection, redial: tuple[str, int] | None = None) -> None:
        """Read frames from one member's link until it breaks; the dialling side then redials."""
        while True:
            self._link(conn)
            pinger = self.spawn(self._ping(conn))
            try:
                while not conn.closed:
                    kind, payload = await conn.receive()
                    self._frame(conn, kind, payload)
            except ConnectionFailed as exc:
                if not self.done.is_set():
                    log.info("link to %s (%s) ended: %s", fingerprint(conn.peer), conn.address, exc)
            finally:
                pinger.cancel()
                conn.close()
                self._link_ended(conn)
                if self.links.get(conn.peer) is conn:
                    del self.links[conn.peer]
                    self._left(conn.peer)
            if redial is None or self.done.is_set():
                return
            again = await self._redial(conn.peer, *redial)
            if again is None:
                return
            conn = again

    def _left(self, peer: bytes) -> None:
        """A member's link is gone: a host removes a spectator who left (it may join again); fronts hear of it."""
        member = self.members.get(peer)
        if self.is_host and member is not None and member.role == "spectator" and not self.done.is_set():
            del self.members[peer]
            self._announce()
        self._lobby_changed()  # who is linked changed: the lobby's "connected" and the table's "left"

    async def _redial(self, peer: bytes, host: str, port: int) -> Connection | None:
        """Dial `peer` at its address until it answers (spaced by _dial), the other side gets through, or
        the game ends."""
        while not self.done.is_set():
            if peer in self.links:  # the other side got through first
                return None
            try:
                conn = await self._dial(host, port)
            except ConnectionFailed as exc:
                log.info("redial %s:%d failed: %s", host, port, exc)
                continue
            if conn.peer != peer:
                log.warning("%s:%d now answers as %s, not %s", host, port, fingerprint(conn.peer), fingerprint(peer))
                conn.close()
                continue
            if self.done.is_set() or peer in self.links:
                conn.close()
                return None
            return conn
        return None

    async def _ping(self, conn: Connection) -> None:
        while not conn.closed:
            await asyncio.sleep(PING_EVERY)
            conn.send_nowait("ping", None)

    def _dial_mesh(self) -> None:
        """Players dial every player with a higher peer id they are not linked to yet."""
        if self.role != "player":
            return
        me = self.identity.peer
        for peer, member in self.members.items():
            if member.role == "player" and peer > me and peer not in self.links and peer not in self.dialing:
                self.dialing.add(peer)
                self.spawn(self._mesh_link(peer, member))

    async def _mesh_link(self, peer: bytes, member: Member) -> None:
        conn = await self._redial(peer, member.host, member.port)
        self.dialing.discard(peer)
        if conn is not None:
            await self._serve(conn, redial=(member.host, member.port))

    # ----------------------------------------------------------------- frames

    def _frame(self, conn: Connection, kind: str, payload: Any) -> None:
        """One frame from a member's link (links are members' only: see _membership)."""
        session = self.session
        assert session is not None  # frames come over links, which _link gave our heads (of the session)
        if kind == "msg":
            if isinstance(payload, bytes):
                conn.sent.add(payload)  # it has this one: never send it back on this link
                outputs = session.receive(payload, via=conn.peer)
                conn.faults += sum(1 for item in outputs if isinstance(item, Fault) and item.peer == conn.peer)
                self._feed(outputs)
                for peer, what in session.inbox.overflowed().items():
                    self._cut(peer, what)
            else:
                conn.faults += 1
                log.warning("%s sent a msg frame without bytes", fingerprint(conn.peer))
            if conn.faults > MAX_LINK_FAULTS and not conn.closed:
                log.warning("closing the link to %s: %d bad messages", fingerprint(conn.peer), conn.faults)
                conn.close()
        elif kind == "heads":
            for wire in session.missing_for(payload):
                conn.send_message(wire)
        elif kind == "join" and self.is_host:
            self._join(conn, payload)
        elif kind in ("lobby", "refuse"):
            if self.is_host or conn.peer != self.host_peer:  # only the host we joined speaks for the lobby
                if kind not in conn.warned:
                    conn.warned.add(kind)
                    log.warning("ignored a %s frame from %s: only the host's link may send one", kind,
                                fingerprint(conn.peer))
            elif kind == "lobby":
                self._lobby(payload)
            elif session.start is None or session.seat is None:  # after START the host has no special power
                self.refused = str(payload)[:200]
                self.done.set()
        elif kind == "bye":
            self.byes.add(conn.peer)
        elif kind in ("rematch", "again"):
            self.rematch.frame(conn, kind, payload)
        elif kind != "ping":
            log.warning("%s sent an unknown frame kind %r", fingerprint(conn.peer), kind[:40])

    # ----------------------------------------------------------------- a rematch (protocol.md 14, "Rematch")

    def hold_seats(self, previous: bytes, seats: list[bytes], wait: float) -> None:
        """Host of a rematch: the START names `previous`; the seats are held for these keys (in this seat order)
        for `wait` seconds, or until each has joined or declined; then the game starts with those present."""
        self.previous = previous
        self.seat_order = {peer_id(key): i for i, key in enumerate(seats)}
        self.held = {peer_id(key): i for i, key in enumerate(seats) if key != self.identity.public_key}
        self._holding = True

        async def expire() -> None:
            await asyncio.sleep(wait)
            if self.held:
                log.info("the seats held for %d player(s) of the previous game are released (%.0f s)",
                         len(self.held), wait)
            for peer in list(self.held):
                self.release_seat(peer)

        self.spawn(expire())
        self._check_held()

    def release_seat(self, peer: bytes) -> None:
        """A held seat's player declined (or did not answer in time): its seat is no longer held."""
        if self.held.pop(peer, None) is not None:
            self._check_held()

    def _check_held(self) -> None:
        """Once no seat is held any more, a rematch starts with the players present (2 or more)."""
        for peer in [p for p in self.held if p in self.members and self.members[p].role == "player"]:
            del self.held[peer]  # joined
        if self.held or not self._holding or self.lobby_state != "lobby":
            return
        self._holding = False  # from now on an ordinary lobby: it starts when its seats are full
        players = len(self.players())
        if players == self.seats:
            self._start()
        elif players >= 2:
            self.start_now()
        self._lobby_changed()

    def _cut(self, peer: bytes, what: str) -> None:
        """`peer` went over a cap: close its link; a spectator is removed (and not admitted again)."""
        conn = self.links.get(peer)
        member = self.members.get(peer)
        spectator = member is not None and member.role == "spectator"
        if peer not in self._cut_off:
            self._cut_off.add(peer)
            log.warning("cut off %s%s: it sent %s", fingerprint(peer), " (a spectator, removed)" if spectator else "",
                        what)
        if conn is not None:
            conn.close()
        if spectator and self.is_host:
            del self.members[peer]
            self._announce()

    def _join(self, conn: Connection, payload: Any) -> None:
        if not isinstance(payload, dict):
            self._refuse(conn, "a join must be a map")
            return
        host = conn.address[0] if conn.address else ""
        fields = {k: payload.get(k) for k in ("name", "role", "bot", "port")}
        member = member_from({"key": conn.key, "host": host, **fields})
        if member is None:
            self._refuse(conn, "malformed join: name, role (player|spectator), bot, port")
            return
        session = self.session
        seated = session is not None and session.start is not None and conn.peer in session.keys
        known = self.members.get(conn.peer)
        if conn.peer in self._cut_off and not seated:  # a seat keeps its seat (its link was closed, that is all)
            self._refuse(conn, "cut off: you went over a limit of this node")
            return
        if member.role == "player" and not seated and (known is None or known.role != "player") and (
                len(self.players()) >= self.seats or self.lobby_state != "lobby"):
            self._refuse(conn, "the table is full" if self.lobby_state == "lobby" else "the game has started")
            return
        if member.role == "player" and conn.peer not in self.held and (known is None or known.role != "player") \
                and len(self.players()) + len(self.held) >= self.seats:
            self._refuse(conn, "the seats are held for the players of the previous game")
            return
        if member.role == "spectator" and seated:
            member = replace(member, role="player")  # a seat stays a seat
        if member.role == "spectator" and known is None:
            spectators = sum(1 for m in self.members.values() if m.role == "spectator")
            if spectators >= MAX_SPECTATORS:
                log.warning("refused %s as a spectator: %d are watching already", fingerprint(conn.peer),
                            MAX_SPECTATORS)
                self._refuse(conn, f"too many spectators ({MAX_SPECTATORS})")
                return
        self.members[conn.peer] = member
        self._link(conn)
        self._announce()
        if self._holding:
            self._check_held()
        elif self.lobby_state == "lobby" and len(self.players()) == self.seats:
            self._start()

    def _refuse(self, conn: Connection, reason: str) -> None:
        """Tell a would-be member why not, and hang up (it gets nothing of the game)."""
        conn.send_nowait("refuse", reason)
        if self.links.get(conn.peer) is conn:
            del self.links[conn.peer]
        conn.close()

    def kick(self, peer: bytes) -> None:
        """Host: remove someone from the lobby."""
        if self.is_host and self.lobby_state == "lobby" and peer in self.members and peer != self.identity.peer:
            del self.members[peer]
            conn = self.links.get(peer)
            if conn is not None:
                self._refuse(conn, "removed by the host")
            self._announce()

    def start_now(self) -> None:
        """Host: start with the players in the lobby now (the seats not taken are dropped from the table)."""
        players = len(self.players())
        if not self.is_host or self.lobby_state != "lobby" or players < 2:
            raise ValueError("only the host can start, in the lobby, with at least 2 players")
        assert self.settings is not None  # a host has them from host() (a resumed host is past the lobby)
        self.settings = replace(self.settings, players=players)
        self.seats = players
        self._start()

    def _lobby_body(self) -> dict[str, Any]:
        s = self.settings
        assert s is not None  # the host's, from host()
        return {"state": self.lobby_state, "seats": self.seats, "members": [m.as_dict() for m in self.members.values()],
                "settings": {"variant": s.variant, "point_limit": s.point_limit, "max_rounds": s.max_rounds,
                             "deal": s.deal, "clock": s.clock}}

    def _announce(self) -> None:
        body = self._lobby_body()
        for conn in self.links.values():
            conn.send_nowait("lobby", body)
        self._members_updated()
        self._lobby_changed()

    def _lobby(self, payload: Any) -> None:
        if not isinstance(payload, dict) or not isinstance(payload.get("members"), list):
            return
        members = [member_from(m) for m in payload["members"][:MAX_SPECTATORS + 10]]
        self.members = {m.peer: m for m in members if m is not None}
        self._members_updated()
        seats = payload.get("seats")
        self.seats = seats if type(seats) is int else self.seats
        state = payload.get("state")
        self.lobby_state = state if state in ("lobby", "playing") else self.lobby_state
        settings = payload.get("settings")
        if isinstance(settings, dict):  # shown to people only: the signed START is what counts
            try:
                variant: Any = settings.get("variant")  # as sent: Settings rejects what is not a variant
                self.settings = Settings(players=max(2, min(10, self.seats)), variant=variant,
                                         point_limit=settings.get("point_limit"), max_rounds=settings.get("max_rounds"),
                                         deal=settings.get("deal", "sealed"), clock=settings.get("clock"))
            except (ValueError, TypeError):
                pass
        self._lobby_changed()
        if self.lobby_state == "playing":
            self._dial_mesh()

    def _lobby_changed(self) -> None:
        for listener in list(self._lobby_listeners):
            try:
                listener(self)
            except Exception:  # a display problem must not break the link or the lobby
                log.exception("lobby listener failed")

    def _start(self) -> None:
        self.lobby_state = "playing"
        order = self.seat_order  # a rematch: the seats of the previous game keep their order, newcomers after
        players = sorted(self.players(), key=lambda m: order.get(m.peer, len(order)))
        roster = [(m.key, m.name, m.bot) for m in players]
        self._announce()
        assert self.session is not None and self.settings is not None  # both set by host()
        self._feed(self.session.host(self.salt, self.settings, roster, previous=self.previous))

    # ----------------------------------------------------------------- the session

    def _feed(self, outputs: list) -> None:
        for item in outputs:
            if isinstance(item, Outgoing):
                seated = self.session.keys if self.session is not None else {}
                for peer, conn in list(self.links.items()):
                    if meant_for(item, peer, seated):
                        conn.send_message(item.wire)
            else:
                if isinstance(item, GameStarted):
                    self._members_updated()  # the START's roster are members
                self._event(item)

    def _event(self, event: Event) -> None:
        for listener in list(self._event_listeners):
            try:
                listener(self, event)
            except Exception:  # a display problem must not break the link or the game
                log.exception("event handler failed on %r", event)
        if self.bot is None:
            self.clock.on_event(event)
        if self.bot is not None and isinstance(event, SeatDropped) and self.session is not None \
                and event.seat == self.session.seat:
            self.take_seat_back()  # a bot is always there: it asks for its seat back at once
        if (self.bot is not None and self.session is not None and self.session.seat is not None
                and isinstance(event, NEEDED)):
            if self.bot_delay > 0:
                asyncio.get_running_loop().call_later(self.bot_delay, self._bot_move, event)
            else:
                self._bot_move(event)
        if isinstance(event, (GameOver, GameAborted)):
            self.done.set()
            for conn in self.links.values():
                conn.send_nowait("bye", None)
            self.rematch.game_over()  # an offer that came before our own end is taken now
        elif isinstance(event, Fault):
            log.warning("fault: %s", event.detail)

    def _bot_move(self, event: Event) -> None:
        """Let this node's bot answer what the game asks of its seat."""
        assert self.bot is not None  # only called when this node has a bot
        try:
            self._feed(bot_move(self.session, self.bot, event))
        except LocalError as exc:
            log.info("the bot's move was refused: %s", exc)

    def act(self, outputs: list) -> None:
        """Carry out what a local intent (session.play, choose_row, pick) returned."""
        self._feed(outputs)

    def present(self) -> None:
        """The person at this seat pressed a key: if the seat was away, the stand-in stops playing for it; if
        the others dropped it, it asks for the seat back (protocol.md 11.3)."""
        self.clock.present()
        self.take_seat_back()

    def take_seat_back(self) -> bool:
        """If our seat is dropped and has not asked yet, ask for it back from a next round (REJOIN)."""
        session = self.session
        if session is None or session.seat is None or session.seat not in session.dropped \
                or session.phase in ("over", "aborted") or session.table.asked_back(session.seat, session.round):
            return False
        self._feed(session.rejoin())
        log.info("asked for our seat back: we play again from a next round once every player has the ask")
        return True

    async def linger(self) -> None:
        """After the game: give the other peers our last messages and wait (briefly) for their bye."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BYE_WAIT
        while loop.time() < deadline:
            if all(peer in self.byes for peer in self.links):
                break
            await asyncio.sleep(0.05)
        for conn in list(self.links.values()):
            try:
                await asyncio.wait_for(conn.writer.drain(), 1.0)
            except (OSError, TimeoutError):
                pass
