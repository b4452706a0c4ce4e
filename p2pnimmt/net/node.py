"""A peer on the network: one identity, one Session, a listener, and an authenticated link to each other peer.

Lobby (before START), over the same authenticated links: a joiner dials
the host and sends ["join", {name, role, bot, port}]; the host answers
["lobby", {...}] to every member on each change, or ["refuse", reason].
When the seats are full the host signs START and sends ["peers", [...]]
(keys and addresses); players then complete the full mesh, the lower peer
id dialling. Spectators keep their link to the host, which relays every
message to them; when the host is gone, a spectator watches through any seat
(net.spectator). During the game frames are ["msg", wire] (session
messages), ["heads", [[sender, count], ...]] on every (re)connect so each
side resends what the other lacks, ["ping", our link timeout], and ["bye", nil] when a
peer's game is over. After it, a rematch: ["again", bool] from a seat to
the host, ["rematch", {game, port, seats, wait}] from the host to everyone
(net.rematch; protocol.md 14).

Node is the facade fronts drive; its parts live beside it: net.mesh (the links: dials, accepted
connections, each link's reader, redials, the players' mesh), net.frames (where a frame from a link goes),
net.lobby (the host's door and a joiner's mirror of the lobby), net.held (the seats a rematch's host holds),
net.waiting (pulling what we lack, voting to drop the absent), net.clock (this seat's turn clock),
net.spectator (a spectator's link: through the host, else through any seat).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from ..bots import NEEDED, Bot, bot_move
from ..engine import Settings
from ..neutral import PLAIN
from ..protocol.delivery import meant_for
from ..protocol.events import Event, Fault, GameAborted, GameOver, GameStarted, Outgoing, SeatDropped
from ..protocol.identity import SALT_SIZE, Identity, fingerprint, game_id_for
from ..protocol.seatkey import new_link_secret, new_seat_key, seat_secret
from ..protocol.session import Journal, LocalError, Session
from .clock import MoveClock
from .connection import IDLE_TIMEOUT, Connection, ConnectionFailed, msg_frame, say_bye
from .discovery import game_code
from .door import Door
from .frames import BAD_MESSAGE_CODES, MAX_LINK_FAULTS
from .held import HeldSeats
from .invite import link_addresses
from .lobby import MAX_SPECTATORS, Lobby
from .members import MAX_ADDRESSES, Member, this_machine
from .mesh import MAX_PENDING, MEMBER_WAIT, Mesh
from .rematch import RematchLinks
from .seatdoor import join_with_proof
from .spectator import watch_through
from .waiting import left, refused_acks, watch_waiting
from .where import Book, Where, sign_where

log = logging.getLogger("p2pnimmt.net")

__all__ = ["BYE_WAIT", "MAX_LINK_FAULTS", "MAX_PENDING", "MAX_SPECTATORS", "MEMBER_WAIT", "EventListener",
           "LobbyListener", "Node"]

BYE_WAIT = 5.0  # after game over, how long to wait for the other peers' bye before leaving
BYE_READ = 2.0  # on leaving, how long to wait for each peer to read our bye and end its side of the link
# A relay waits at most this long for its link's next write (our own next message, most often, or any frame): the
# seats it goes to have the message from its sender already, unless a link between them is down, and a frame that
# comes with another costs its reader no read, no wake of its own. 0.2 s, under a pull's PULL_EVERY (net.waiting),
# outlasts the gap between a turn's messages of a table of bots on a busy machine: at 50 ms (sessions 38-40) the
# wait ran out about once a turn at 10 seats, each time about five writes of relays alone, each a read and a wake for
# a seat that held the message already (session 41, benchmarks/turn_io_bench.py).
RELAY_WAIT = 0.2

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
                 bot_delay: float = 0.0, link_timeout: float = IDLE_TIMEOUT) -> None:
        self.identity = identity
        self.name = name
        self.role = role
        self.bot = bot
        self.resumed = False  # taken up again from our transcript (resume): asks its seat back when dropped
        self.interface = interface
        self.journal_for = journal_for  # game id -> where to record the transcript
        self._event_listeners: list[EventListener] = [on_event] if on_event is not None else []
        self.session: Session | None = None
        # a node following a new start: checks the new START (its carry) before it takes it (app.anew)
        self.start_check: Callable[[dict[str, Any]], str | None] | None = None
        self.game_id: bytes | None = None
        self.port = 0
        self.server: Door | None = None  # our listener (net.door)
        self.links: dict[bytes, Connection] = {}
        self.members: dict[bytes, Member] = {}  # lobby, by peer id (the host's view, mirrored to all)
        self.settings: Settings | None = None
        self.seats = 0
        self.is_host = False
        self.lobby_state = "lobby"
        self.done = asyncio.Event()
        self.leaving = False  # its person left (leave): the node signs nothing on its own any more
        self.byes: set[bytes] = set()
        # a spectator's: seats whose address refused its last dial (net.spectator); a player's: its host, when it
        # refused a redial before the START (net.mesh)
        self.unreachable: set[bytes] = set()
        self.tasks: set[asyncio.Task] = set()
        self.refused: str | None = None
        self.host_peer: bytes | None = None  # a joiner: the peer that answered our join (the host's link)
        # when this node took the START (time.monotonic(); the host's grace for the START_ACKs counts from it:
        # app.nodes), and a joiner's link to its host then (an offer leaving our seat out over that same link: no cut)
        self.started_at: float | None = None
        self.host_link_at_start: Connection | None = None
        self.relay: tuple[str, int, str] | None = None  # where this node relays phone pages (offer_relay), if it does
        # the evening's seat key (protocol.md 14, "The seat key"): a host's, drawn when it starts; a joiner's, typed
        # with the code (CODE-KEY) or read from its link or its secrets; shown only where a person reads it
        self.seat_key: str | None = None
        # the evening's link secret (protocol.md 14, "The link secret"): a host's, drawn with its seat key and carried
        # by its invite link and phone links; a joiner's, read from such a link (or its secrets): proven beside the key
        self.link_secret: bytes | None = None
        self.drop_after = drop_after  # seconds waited on one player before voting to drop it (0: never)
        self.bot_delay = bot_delay  # seconds a bot waits before each move (so people can follow)
        self.link_timeout = link_timeout  # a link silent this long has ended (pings every quarter of it)
        # a person's turn clock (none once the person left: Node.leave)
        self.clock = MoveClock(lambda: None if self.leaving else self.session, self._feed, self._event, self.spawn)
        self._relays_due: asyncio.TimerHandle | None = None  # when the relays waiting are written (_relays)
        self.mesh = Mesh(self)  # the links: dials, accepted connections, readers, redials (net.mesh)
        self.book = Book(self)  # where the players listen, each in its own signed word (net.where; session 40)
        self._own_where: Where | None = None  # ours, signed once per game id, port and addresses
        # the host's latest lobby frame carried our own signed `where` record: a host of session 40 or later, which
        # decides a join's `link_proof` (a phone relay passes such a join on unchecked only then: host_decides_links)
        self.where_forwarded = False
        self.lobby = Lobby(self)  # the lobby on the wire: a host's door, a joiner's mirror (net.lobby)
        # A rematch (protocol.md 14, "Rematch"): over the links of the finished game (net.rematch), and the
        # new game's lobby with its seats held for the finished game's players (net.held).
        self.host_address: tuple[str, int] | None = None  # a joiner: the address it reached the host at
        self.rematch = RematchLinks(self)
        self.held_seats = HeldSeats(self)

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
        return self.lobby.watch(listener)

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

    @property
    def held(self) -> dict[bytes, int]:
        """A host of a rematch's lobby: peer id -> seat held for a player of the previous game."""
        return self.held_seats.held

    @property
    def seat_order(self) -> dict[bytes, int]:
        """A host of a rematch: peer id -> its seat in the previous game (roster order)."""
        return self.held_seats.seat_order

    @property
    def previous(self) -> bytes | None:
        """A host of a rematch: the game this one is a rematch of (START's `previous`)."""
        return self.held_seats.previous

    @property
    def dialing(self) -> set[bytes]:
        """The players we are dialling for the mesh."""
        return self.mesh.dialing

    # ----------------------------------------------------------------- setup

    async def listen(self, port: int = 0) -> None:
        self.server = await Door.listen(self.mesh.accepted, self.interface or "0.0.0.0", port)
        self.server.spared = self.members_at
        self.port = self.server.port

    def members_at(self, address: str) -> bool:
        """Whether a member whose dials this node must take is at `address` (its door never shuts it out, net.door):
        the host it joined, a player, or a member that relays phone pages (the pages of a TV's watcher). Not any
        spectator's: anyone with the seat key may watch, from as many addresses as it likes."""
        return address in self.member_hosts()

    def member_hosts(self) -> set[str]:
        """The addresses of members_at: the host we joined, and where the host saw each player and each member that
        relays phone pages (not the addresses it names: anyone's)."""
        found = {member.host for member in self.members.values() if member.role == "player" or member.relay is not None}
        if self.host_address is not None:
            found.add(self.host_address[0])
        return found

    def may_sit(self, peer: bytes) -> bool:
        """Whether `peer` can be a seat of the game offered: the host we joined, or a player of the lobby (ours at a
        host, the host's latest lobby frame at a joiner). The START alone says who sits; this is a hint for what is
        held before it (protocol.md 14, "Held before START")."""
        member = self.members.get(peer)
        return peer == self.host_peer or (member is not None and member.role == "player")

    def _new_session(self, game_id: bytes) -> None:
        self.game_id = game_id
        journal = self.journal_for(game_id) if self.journal_for is not None else None
        self.session = Session(self.identity, game_id=game_id, journal=journal)
        self.session.on_signed = self._send  # a message we sign leaves at once (issue 24)
        self.session.inbox.start_check = self.start_check  # a new start's carry, checked (app.anew; protocol.md 14)
        self.session.inbox.may_sit = self.may_sit  # over what is held before START, strangers go first (protocol.md 14)
        self.session.table.own_where = self._own_record  # our record in our START or START_ACK (protocol.md 14)
        self.spawn(watch_waiting(self))

    async def host(self, settings: Settings) -> None:
        """Open a lobby for a new game with this node in seat 0."""
        self.is_host = True
        self.settings = settings
        self.seats = settings.players
        self.salt = secrets.token_bytes(SALT_SIZE)
        self._new_session(game_id_for(self.identity.public_key, self.salt))
        if self.seat_key is None:  # no door without a key: one is drawn (an evening's next game keeps the first's)
            self.seat_key = new_seat_key()
        if self.link_secret is None:  # and the links' secret beside it (protocol.md 14, "The link secret")
            self.link_secret = new_link_secret()
        assert self.game_id is not None
        await asyncio.to_thread(seat_secret, self.game_id, self.seat_key)  # drawn once per game, off the loop
        self.members[self.identity.peer] = Member(self.identity.public_key, self.name, "player", self.bot is not None,
                                                  self.interface or "", self.port, relay=self.relay,
                                                  where=self.own_where())

    async def join(self, host: str, port: int, game_id: bytes | None = None, code: str | None = None,
                   expect: bytes | None = None, salt: bytes | None = None, host_key: str | None = None,
                   expected_as: str = "the host of the finished game") -> None:
        """Dial the host of a game and ask for a seat (or to watch).

        `code`: the game code the person gave; when the game at that address has another, nothing is asked of
        its host and ConnectionFailed says so (an address given by hand can hold another game). `expect`: the
        peer id the host must have (a rematch: the host of the finished game; a resumed seat: the START's signer),
        else ConnectionFailed, saying it answered not as `expected_as`. `salt`: the
        salt its advertisement gave: the game id must be the one bound to the key the handshake proved (section
        8), else it is not the game advertised (a copy of another's advertisement) and it learns nothing of us,
        not even our name. `host_key`: the fingerprint the person was told to expect (the host's screen, XXXX-XXXX,
        or an invite link's long one): checked first, before anything is sent.
        """
        self.game_id = game_id if self.session is None else self.session.game_id
        conn = await self.mesh.dial(host, port)
        why = None
        if host_key is not None and not fingerprint(conn.peer, long=True).startswith(host_key):
            why = (f"{host}:{port} answers with host key {fingerprint(conn.peer, long=True)[:len(host_key)]}, "
                   f"not {host_key}: it is not the host you were sent to")
        elif code is not None and game_code(conn.game_id) != code.upper():
            why = f"the game at {host}:{port} has code {game_code(conn.game_id)}, not {code.upper()}"
        elif expect is not None and conn.peer != expect:
            why = f"{host}:{port} answers as {fingerprint(conn.peer)}, not as {expected_as} ({fingerprint(expect)})"
        elif salt is not None and game_id_for(conn.key, salt) != conn.game_id:
            why = (f"{host}:{port} is not the game it advertised: its key {fingerprint(conn.peer)} does not hold "
                   "that game id (a copy of another host's advertisement)")
        if why is not None:
            conn.close()
            raise ConnectionFailed(why)
        self.host_address = (host, port)
        if self.session is None:
            self._new_session(conn.game_id)
        self.host_peer = conn.peer
        if self.seat_key is not None:  # K for this game, drawn off the loop before our join proves it
            await asyncio.to_thread(seat_secret, conn.game_id, self.seat_key)
        self.mesh.join_frame = {"name": self.name, "role": self.role, "bot": self.bot is not None, "port": self.port,
                                "addresses": self.own_addresses()}
        own = self.own_where()
        if own is not None:  # where we listen in our own signed word: the host forwards it, it cannot forge it
            self.mesh.join_frame["where"] = own.record()
        if self.relay is not None:
            self.mesh.join_frame["relay"] = list(self.relay)
        self.mesh.link(conn)  # the join goes first, then our heads (the host reads nothing else before a join)
        if self.role == "spectator":  # through the host, and through any seat once the host is gone
            self.spawn(watch_through(self, conn, (host, port)))
        else:
            self.spawn(self.mesh.serve(conn, redial=(host, port)))

    def seat_of_start(self, peer: bytes) -> bool:
        """Whether `peer` holds a seat of this node's START: a member, whatever its join proves (protocol.md 14, "The
        seat key"; a phone relay passes such a page's join on unchecked, as the host admits it: web.relaydoor)."""
        session = self.session
        return session is not None and session.start is not None and peer in session.keys

    def offer_relay(self, relay: tuple[str, int, str]) -> None:
        """This node serves phone pages' relay at `relay` (address, port, token: web.relay): the members learn it
        from the lobby (protocol.md 14, a member's `relay`), so that a phone page whose relay node leaves goes on
        through this one (issue 26). The host puts it in its own entry; a joiner asks the host again with it."""
        self.relay = relay
        me = self.members.get(self.identity.peer)
        if self.is_host and me is not None:
            self.members[self.identity.peer] = replace(me, relay=relay)
            self.lobby.announce()
        elif self.mesh.join_frame is not None:
            self.mesh.join_frame["relay"] = list(relay)
            conn = self.links.get(self.host_peer) if self.host_peer is not None else None
            if conn is not None:
                conn.send_nowait("join", join_with_proof(self, conn, self.mesh.join_frame))

    def signed_addresses(self) -> list[tuple[str, int]]:
        """Where a phone relay lets its pages dial the players whose own signed `where` record we hold (net.where,
        web.relay): where the host saw each and the record's addresses but this machine's, at the record's port.
        Never an address only a seat's `seen` report names (unsigned, and it may be loopback), nor a loopback one a
        record names: a page could make the relay reach a service listening on this machine only (session 40)."""
        found = []
        for peer, where in self.book.records.items():
            member = self.members.get(peer)
            if peer == self.host_peer or not ((member is not None and member.role == "player")
                                              or self.seat_of_start(peer)):
                continue
            hosts = [member.host] if member is not None and member.host else []
            hosts += [a for a in where.addresses if not this_machine(a)]
            found += [(host, where.port) for host in dict.fromkeys(hosts)]
        return found

    def host_decides_links(self) -> bool:
        """Whether our game's host decides a join's `link_proof` (protocol.md 14, "The link secret"): we host it, or
        its lobby frames carry our own signed `where` record (a host of session 40 or later forwards the records joins
        gave it; an older one does not, and reads only `proof`, charging each wrong one to the address it came from)."""
        return self.is_host or self.where_forwarded

    def own_where(self) -> Where | None:
        """Our own `where` record for this game (protocol.md 14, "Where a member listens"): our port and addresses,
        signed with our key and bound to the game id; None before we listen or know the game."""
        if self.game_id is None or not 1 <= self.port <= 65535:
            return None
        addresses = self.own_addresses()
        own = self._own_where
        if (own is None or own.port != self.port or list(own.addresses) != addresses
                or own.game != self.game_id):
            own = self._own_where = sign_where(self.identity, self.game_id, self.port, addresses)
        return own

    def sign_own_where_again(self) -> None:
        """Our next own_where is signed anew (net.where: a seat holds a record of ours past it)."""
        self._own_where = None

    def _own_record(self) -> list[Any] | None:
        """Our own record as the START or our START_ACK carries it (protocol.md 14, "In the START and the START_ACKs"),
        or None: we do not listen yet."""
        own = self.own_where()
        return None if own is None else own.record()

    def own_addresses(self) -> list[str]:
        """Where this node listens, as a join tells the host (a player's may be dialled at any of them): the
        --interface one, else every address of the machine but loopback, overlays first (net.invite)."""
        addresses = link_addresses(self.interface)
        return [a for a in addresses if not a.startswith("127.")][:MAX_ADDRESSES]

    def resume(self, session: Session, wires: list[bytes], secrets: list[dict], *, as_host: bool = False,
               seen: Callable[[Node, Event], None] | None = None) -> None:
        """Take up a game after a restart: rebuild the session from our transcript, then do what is owed.

        `as_host`: this node hosted the game (it answers joins again; the lobby is over). `seen(node, event)`:
        each event of the game so far, as the replay rebuilds it (a screen that shows the game up to now).
        A resumed seat's person is at the keys: a drop learned from now on is answered with an ask at once.
        """
        self.session = session
        self.resumed = True
        session.on_signed = self._send  # (set after the replay's start: nothing is signed while replaying)
        session.table.own_where = self._own_record  # (a START_ACK still owed carries it, as a new one's does)
        outputs = session.replay(wires, secrets, None if seen is None else partial(seen, self))
        self.game_id = session.game_id  # known once the replay has taken the START (links need it)
        if session.start is not None and self.started_at is None:
            self.started_at = time.monotonic()  # the grace for the START_ACKs counts from the restart (app.nodes)
        self._feed(outputs)
        self.take_seat_back()  # restarted after the others dropped us: we are back at the keys
        self.spawn(watch_waiting(self))
        if as_host:
            self.is_host = True
            self.lobby_state = "playing"
            if session.game is not None:  # what the lobby frame shows to spectators who join again
                self.settings = session.game.settings
                self.seats = session.players

    def leave(self) -> None:
        """Our person leaves (Ctrl-C, a closed window): from now on this node signs nothing on its own (no move of its
        bot or clock, no vote of its own timer, no ask for its seat back), before our `bye` is said (protocol.md 14,
        `bye`). A process holding several seats (a host and its bots) calls this on each of them first. Until it closes,
        its session still takes in what comes (and signs a KEEP it owes, as any seat; it joins no vote: protocol.md
        11.1), and it still dials the players it has no link to yet, so that its `bye` reaches them (with `done` set
        here, a bot that had not linked the last joiner yet as the game started never did, and that joiner waited for
        it: tests/net/test_leaving.py)."""
        self.leaving = True

    def left_seats(self) -> frozenset[int]:
        """The seats of our game whose players left it on purpose (said `bye`, not linked again: waiting.left): the
        fronts say their going as leaving, not as a fault."""
        session = self.session
        if session is None:
            return frozenset()
        return frozenset(seat for seat, peer in enumerate(session.roster) if left(self, peer))

    def quit(self) -> None:
        """Our person leaves the game at its front (a quit key, Ctrl-C at the table, the screen or the page closed,
        the input closed): from now on this node signs nothing on its own (leave), and whoever waits for its game
        to end goes on (done: the app then closes the node, which says bye)."""
        self.leave()
        self.done.set()

    async def close(self) -> None:
        """Leave: every link is told `bye` (this node's game is over: a peer that leaves before the end is not
        waited for, protocol.md 14), then our end of the stream; each link is closed once its peer ended its side
        (it read our bye) or after BYE_READ s, so that no bye is lost to a reset (Connection.end_writing). The relays
        still waiting go with the bye (end_writing writes what is queued): their timer is cancelled, none is left in
        the loop."""
        self.leave()
        self.done.set()
        if self._relays_due is not None:
            self._relays_due.cancel()
            self._relays_due = None
        if self.server is not None:  # first: a peer that redials while we say bye finds nobody (no link again)
            self.server.close()
        await say_bye(list(self.links.values()), BYE_READ)
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    # ----------------------------------------------------------------- the lobby (net.lobby, net.held)

    def kick(self, peer: bytes) -> None:
        """Host: remove someone from the lobby."""
        self.lobby.kick(peer)

    def start_now(self) -> None:
        """Host: start with the players in the lobby now (the seats not taken are dropped from the table)."""
        self.lobby.start_now()

    def hold_seats(self, previous: bytes | None, seats: list[bytes], wait: float, carry_from=None) -> None:
        """Host of a rematch: the START names `previous`; the seats are held for these keys (in this seat order)
        for `wait` seconds, or until each has joined or declined; then the game starts with those present."""
        self.held_seats.hold(previous, seats, wait, carry_from)

    def release_seat(self, peer: bytes) -> None:
        """A held seat's player declined (or did not answer in time): its seat is no longer held."""
        self.held_seats.release(peer)

    async def _redial(self, peer: bytes, host: str, port: int) -> Connection | None:
        """Dial `peer` at its address until it answers (net.mesh.Mesh.redial)."""
        return await self.mesh.redial(peer, host, port)

    # ----------------------------------------------------------------- the session

    def burst(self) -> _Burst:
        """Frames read together from a link are handled inside this: the transcript records they lead to are
        written in one piece when the last is handled (Connection.serve), before anything they led to is sent."""
        return _Burst(self.session.journal if self.session is not None else None)

    def write_held(self) -> None:
        """Write the transcript records held so far (a link is about to put bytes on its socket)."""
        if self.session is not None:
            self.session.journal.write_held()

    def _feed(self, outputs: list) -> None:
        """Carry out a session's outputs: its messages onto the links first, then its events to the listeners.

        A message for every peer (one we signed, or a proof we spread; a relay skips its sender) is written at
        once, with whatever its links queued before it, before any event is handled and not at the event loop's
        next turn: the others wait for it (a reveal, a turn's last commit), while our listeners and the rest of the
        loop's turn (often the frames of several other links to check) can wait. Its transcript record is written
        first (Connection.before_write). A relay waits for its link's next write, RELAY_WAIT at most (the seats it
        goes to had the message from its sender). A message we sign inside a session's input left already, as it
        was signed (Session.on_signed: _send)."""
        self._send(outputs)
        self.book.from_start()  # the records the START and START_ACKs carry (net.where; protocol.md 14, session 41)
        for item in outputs:
            if not isinstance(item, Outgoing):
                if isinstance(item, GameStarted):
                    self.started_at = time.monotonic()
                    self.host_link_at_start = self.links.get(self.host_peer) if self.host_peer is not None else None
                    self.mesh.members_updated()  # the START's roster are members
                self._event(item)

    def _send(self, outputs: list) -> None:
        """The messages of these outputs onto the links: each for every peer written at once, a relay queued for its
        link's next write (see _feed)."""
        ours: dict[Connection, None] = {}  # the links a message for every peer was queued on, in order
        for item in outputs:
            if isinstance(item, Outgoing):
                seated = self.session.keys if self.session is not None else {}
                framed = None  # made once for every link it goes to, if any (most relays go to spectators only)
                # (a relay to spectators only is not asked of every seat's link: most tables have no spectator)
                links = [(peer, conn) for peer, conn in self.links.items() if peer not in seated] \
                    if item.watchers_only else list(self.links.items())
                for peer, conn in links:
                    if meant_for(item, peer, seated):
                        if framed is None:
                            framed = msg_frame(item.wire)
                        if item.skip:  # a relay: with the link's next write, RELAY_WAIT at most from now
                            conn.send_message(item.wire, framed, later=True)
                            if self._relays_due is None:
                                self._relays_due = asyncio.get_running_loop().call_later(RELAY_WAIT, self._relays)
                        else:  # written below, at once: no flush called soon as well (a loop's handle a link)
                            conn.send_message(item.wire, framed, later=True)
                            ours[conn] = None
        for conn in ours:
            conn.flush()  # after the transcript's records the node holds (Connection.before_write)

    def _relays(self) -> None:
        """The relays still waiting go now (RELAY_WAIT after the first of them)."""
        self._relays_due = None
        for conn in list(self.links.values()):
            if conn.queued:
                conn.flush()

    def _event(self, event: Event) -> None:
        for listener in list(self._event_listeners):
            try:
                listener(self, event)
            except Exception:  # a display problem must not break the link or the game
                log.exception("event handler failed on %r", event)
        if self.bot is None:
            self.clock.on_event(event)
        if (self.bot is not None or self.resumed) and isinstance(event, SeatDropped) and self.session is not None \
                and event.seat == self.session.seat:
            self.take_seat_back()  # a bot is always there, a resumed seat's person too: it asks back at once
        if (self.bot is not None and self.session is not None and self.session.seat is not None
                and isinstance(event, NEEDED)):
            if self.bot_delay > 0:
                asyncio.get_running_loop().call_later(self.bot_delay, self._bot_move, event)
            else:
                self._bot_move(event)
        if isinstance(event, GameAborted) and refused_acks(self.session):
            # a START_ACK equivocation after our start: no bye, we wait for the host's new start (app.nodes.stalled);
            # one offered before our game aborted is taken now
            self.rematch.game_over()
        elif isinstance(event, (GameOver, GameAborted)):
            self.done.set()
            for conn in self.links.values():
                conn.send_nowait("bye", None)
            self.rematch.game_over()  # an offer that came before our own end is taken now
        elif isinstance(event, Fault):
            # Bytes nobody signed are counted per link (net.frames): the link's cut is the line that says so.
            garbage = not event.fatal and event.code in BAD_MESSAGE_CODES
            if event.code == "absent" and event.peer is not None and self.session is not None \
                    and left(self, event.peer):
                # it said bye: a player who left, no fault to warn of (the void round it leaves is said on screen)
                log.warning("%s left the game (it said bye) after it shuffled: its round is void",
                            self.session.table.who(event.peer))
            elif self.role == "spectator" and not garbage:  # a spectator's screen: a plain line, no log warning
                log.warning("the game stops: %s" if event.fatal else
                            "ignored bad data (kept in the transcript for `verify`): %s", event.detail, extra=PLAIN)
            else:
                log.log(logging.INFO if garbage else logging.WARNING, "fault: %s", event.detail)

    def _bot_move(self, event: Event) -> None:
        """Let this node's bot answer what the game asks of its seat."""
        assert self.bot is not None  # only called when this node has a bot
        if self.leaving:
            return
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
        if self.leaving or session is None or session.seat is None or session.seat not in session.dropped \
                or session.phase in ("game-end", "over", "aborted") \
                or session.table.asked_back(session.seat, session.round):
            return False
        self._feed(session.rejoin())
        log.info("asked for our seat back: we play again from a next round once more than half of the players have "
                 "the ask")
        return True

    async def linger(self) -> None:
        """After the game: give the other peers our last messages and wait (briefly) for their bye. A node that
        leaves before the game has ended (its lobby, a game in play) waits for no bye: the others play on, and
        learn of its leaving from its own bye, said as it closes.

        Within the same wait, a connection still on its way to membership is waited for too: a spectator whose
        join comes as the game ends (a short game, a slow machine) is admitted, the heads exchange brings it the
        whole game, and its bye ends the wait; closed unread, it had nothing (issue 26)."""
        loop = asyncio.get_running_loop()
        session = self.session
        ended = session is not None and (session.phase in ("over", "aborted") or session.fault is not None)
        deadline = loop.time() + (BYE_WAIT if ended else 0.0)
        while loop.time() < deadline:
            if all(peer in self.byes for peer in self.links) and not self.mesh.joining():
                break
            await asyncio.sleep(0.05)
        for conn in list(self.links.values()):
            try:
                await asyncio.wait_for(conn.writer.drain(), 1.0)
            except (OSError, TimeoutError):
                pass


class _Burst:
    """Holds a journal's records over the frames of one read (Node.burst)."""

    __slots__ = ("journal",)

    def __init__(self, journal: Journal | None) -> None:
        self.journal = journal

    def __enter__(self) -> None:
        if self.journal is not None:
            self.journal.hold()

    def __exit__(self, *exc: object) -> None:
        if self.journal is not None:
            self.journal.flush()
