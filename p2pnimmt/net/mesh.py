"""One node's links: the dials (spaced per address), the connections it accepts, the wait until a link's peer
is a member, each link's reader with its pings and redials, and the players' full mesh after START.

Links are members' only: a link counts once its peer is the host we joined, a seat of the START, or one the
host admitted (net.lobby). The lower peer id dials; a link that breaks is redialled by the side that dialled.
A link that carries garbage is cut (net.frames counts it); a seat's key is then spaced at that link's address (its
handshakes from there refused for a while, longer after each cut); any other key is not refused for it (a link's
frames are nobody's signed word: a phone relay could put garbage in its page's name), its later links only cut at
their first bad message, and a spectator is removed from the lobby (it may join again). A key whose link went over a
cap is refused at that link's address only (net.trouble).
Mesh reads and writes only the node's public state (its identity, game id, session, links, members, host).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

from ..protocol.identity import fingerprint, peer_id
from ..quietlog import quiet
from .connection import Connection, ConnectionFailed, Refused, Unanswered, Unwelcome
from .frames import MAX_LINK_FAULTS, on_frame
from .members import this_machine
from .seatdoor import join_with_proof
from .seen import Seen
from .trouble import Trouble, source

log = logging.getLogger("p2pnimmt.net")  # what strangers can repeat goes through quietlog's `quiet`

# Bounds (protocol.md section 14, "Membership and bounds"): over a cap, the source is cut off with one log line.
MAX_PENDING = 128  # connections not (yet) a member's: in the handshake, or authenticated and not joined
MEMBER_WAIT = 10.0  # seconds a link may stay without becoming a member's (a host: without a join)
DIAL_BACKOFF = (0.1, 5.0)  # the spacing of dials to one address doubles from the first to the second
STABLE_LINK = 10.0  # a link that lasted this long resets its address's dial spacing
MAX_DIAL_TABLE = 256  # addresses whose dial spacing is remembered
# Links cut for bad messages (net.frames) and keys cut off over a cap are remembered in one record per key
# (net.trouble), each at the address of the link: a seat's key is spaced there for bad messages (nobody else's refused
# for them), a key over a cap refused there (not elsewhere: a phone relay could have sent it in its page's name).
# A seat of the START with a lower peer id, whose own signed record we hold (net.where), that has had no link with us
# this long is dialled by us too (protocol.md 14, "In the START and the START_ACKs": a host that withheld our record
# from it leaves it nowhere to dial us). Of two links of one pair, the one the lower peer id dialled is kept.
REVERSE_AFTER = 1.0
# Past MAX_PENDING, the first this many connections from this machine or a member's address go last.
SPARED_UP_TO = 2


def _as_expected(expect: bytes, address: str, key: bytes) -> str | None:
    """Mesh.dial's question to the key that answered at `address`: None where it is the peer id we dial."""
    answered = peer_id(key)
    if answered == expect:
        return None
    return f"{address} now answers as {fingerprint(answered)}, not {fingerprint(expect)}"


def _from_here(writer: asyncio.StreamWriter, address: str) -> bool:
    """Whether a connection comes from this machine: from the address it was dialled at (our phone relay, our bots)."""
    own = writer.get_extra_info("sockname")
    return bool(own) and source(own[0]) == source(address)


def _spared(waiting: list[asyncio.StreamWriter], sources: dict[asyncio.StreamWriter, str],
            here: set[asyncio.StreamWriter], members: set[str]) -> set[asyncio.StreamWriter]:
    """Of the connections waiting (oldest first), the first SPARED_UP_TO from each address where a member is or from
    this machine (`here`); IPv4-mapped forms as IPv4."""
    at_members = {source(m) for m in members}
    each: Counter[str] = Counter()
    spared: set[asyncio.StreamWriter] = set()
    seen: dict[str, str] = {}  # each address read once (a flood's connections come from a few addresses, or one each)
    for w in waiting:
        raw = sources.get(w, "?")
        at = seen.get(raw) or seen.setdefault(raw, source(raw))
        if at in at_members or w in here:
            each[at] += 1
            if each[at] <= SPARED_UP_TO:
                spared.add(w)
    return spared


class Mesh:
    """The links of one node (`node.links`, by peer id): dialled, accepted, served, redialled."""

    def __init__(self, node) -> None:
        self.node = node
        self.dialing: set[bytes] = set()  # players we are dialling for the mesh
        self.join_frame: dict[str, Any] | None = None  # a joiner: what we asked the host, sent again on every redial
        self._pending: dict[asyncio.StreamWriter, str] = {}  # connections not (yet) a member's -> why closed
        self._sources: dict[asyncio.StreamWriter, str] = {}  # the address each of them came from
        self._spoke: set[asyncio.StreamWriter] = set()  # those of them whose hello came (a key named)
        self._here: set[asyncio.StreamWriter] = set()  # those of them from this machine (_from_here)
        self._members_changed = asyncio.Event()  # set and replaced whenever who is a member may have changed
        self._dial_spacing: dict[tuple[str, int], tuple[float, float]] = {}  # address -> (next dial at, spacing)
        self.trouble = Trouble(self._seated)  # keys cut off, spent or spaced: one record each (net.trouble)
        self.seen = Seen(node)  # where other members reached the players, or saw them come from
        self._reverse_watching = False  # a _reverse_watch task runs

    async def dial(self, host: str, port: int, expect: bytes | None = None) -> Connection:
        """Dial an address (ours by discovery or the command line, or one a member gave us), never in a tight
        loop: dials to one address are spaced DIAL_BACKOFF[0] apart, doubling up to DIAL_BACKOFF[1], until
        a link to it lasts STABLE_LINK seconds. `expect`: the peer id we dial; whoever answers there with another
        key is refused (Unwelcome) before we sign the handshake, so it never takes the dial for a link of ours (a
        member's record can name another's port: that one would close its live link to us for it; protocol.md 14,
        "Where a member listens"), and our hello goes only once the listener's came and holds (a service that is
        no p2pnimmt peer gets nothing of ours: Connection.open's `heard_first`)."""
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
            raise Unanswered(f"cannot reach {host}:{port}: no answer within 5 s") from None
        except OSError as exc:
            why = f"{os.strerror(exc.errno)} (errno {exc.errno})" if exc.errno else (str(exc) or type(exc).__name__)
            failed = Refused if isinstance(exc, ConnectionRefusedError) else \
                Unanswered if isinstance(exc, ConnectionResetError) else ConnectionFailed  # reset: a door's bound
            raise failed(f"cannot reach {host}:{port}: {why}") from None
        admit = None if expect is None else partial(_as_expected, expect, f"{host}:{port}")
        conn = await Connection.open(reader, writer, self.node.identity, self.node.game_id, dialer=True, admit=admit,
                                     heard_first=expect is not None, link_timeout=self.node.link_timeout)
        conn.dialed = key
        conn.opened_at = loop.time()
        return conn

    def _link_ended(self, conn: Connection) -> None:
        """A link we dialled lasted long enough: dial its address again at once if need be."""
        if conn.dialed is not None and asyncio.get_running_loop().time() - conn.opened_at >= STABLE_LINK:
            self._dial_spacing.pop(conn.dialed, None)

    async def accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """The listener's callback: one connection a peer dialled to us."""
        node = self.node
        task = asyncio.current_task()
        assert task is not None  # a server callback runs as a task
        node.tasks.add(task)  # so that close() ends it too
        task.add_done_callback(node.tasks.discard)
        address = writer.get_extra_info("peername")
        if node.game_id is None:
            writer.close()
            return
        source = address[0] if address else "?"
        waiting = [w for w, why in self._pending.items() if not why]  # in the order they came
        if len(waiting) >= MAX_PENDING:  # the oldest of the address holding the most is cut off: a flood of idle
            # ones, however fast, cuts its own; and one that has not said its hello goes before one that has (a
            # flood of connects from many addresses, each holding one or two, cut a joiner mid-way before); and one
            # from a stranger's address before one from this machine or a member's while that holds SPARED_UP_TO or
            # fewer (a phone page's join comes from its relay's: a flood of hellos, which cost nothing, from many
            # addresses cut it mid-way; session 42). Not past that: anyone with the seat key can be a spectator naming
            # a relay, from as many addresses as it likes, and it would spare its own floods (review, session 42).
            # The first SPARED_UP_TO of such an address are spared, not all or none (review of session 42: anyone
            # with the seat key can have an honest relay dial us for several pages at once, and would unspare it).
            spared = _spared(waiting, self._sources, self._here, node.member_hosts())
            waiting = [w for w in waiting if w not in spared] or waiting
            waiting = [w for w in waiting if w not in self._spoke] or waiting
            held = Counter(self._sources.get(w, "?") for w in waiting)
            most = max(held, key=lambda s: (held[s], s == source))
            oldest = next(w for w in waiting if self._sources.get(w, "?") == most)
            self._pending[oldest] = (f"cut off: {MAX_PENDING} connections were waiting to become a member's "
                                     f"and this was the oldest of the address holding the most ({most})")
            oldest.close()
            self.members_updated()  # wakes it if it waits to become a member
        self._pending[writer] = ""
        self._sources[writer] = source
        if _from_here(writer, source):
            self._here.add(writer)
        conn: Connection | None = None
        try:
            try:
                conn = await Connection.open(reader, writer, node.identity, node.game_id, dialer=False,
                                             admit=partial(self._admit, said_by=writer), link_timeout=node.link_timeout)
                member = await self._membership(conn)
            except Unwelcome as exc:  # said once, at the cut; a flood of redials is not a flood of lines
                quiet.info(address, "refused a connection (unwelcome)", "refused a connection from %s: %s",
                           address, exc)
                return
            except ConnectionFailed as exc:
                why = self._pending.get(writer) or str(exc)
                quiet.warning(address, "refused a connection", "refused a connection from %s%s: %s", address,
                              f" ({fingerprint(conn.peer)})" if conn is not None else "", why)
                return
            finally:
                self._pending.pop(writer, None)
                self._sources.pop(writer, None)
                self._here.discard(writer)
                self._spoke.discard(writer)
                if node.server is not None:  # a member's link, or one closing: its address's door count is freed
                    node.server.settled(writer.transport)
            if member:
                await self.serve(conn)
        except asyncio.CancelledError:
            writer.close()  # the node is closing; asyncio would log a server callback that ends cancelled

    # ----------------------------------------------------------------- links that carry garbage

    def _seated(self, peer: bytes) -> bool:
        """A seat of the START, or the host we joined: cut for bad messages, it is spaced, never shut out."""
        session = self.node.session
        return peer == self.node.host_peer or (session is not None and session.start is not None
                                               and peer in session.keys)

    def spaced_for(self, peer: bytes, address: str) -> float:
        """Seconds until `peer`'s key may link to us again from or at `address` (0: it may now)."""
        return self.trouble.spaced(peer, address, asyncio.get_running_loop().time())[1]

    def _admit(self, key: bytes, said_by: asyncio.StreamWriter | None = None) -> str | None:
        """Connection.open's question once a dialer's hello names its key (on the connection of `said_by`): why
        not now, or None. A key cut off at this address is let through once more, to be told why (net.lobby refuses
        its join); after that it is refused here in the handshake, as cheaply as a stranger. A seat whose link from
        this address was cut for bad messages is refused here for a while (net.trouble)."""
        if said_by is not None and said_by in self._pending:
            self._spoke.add(said_by)
        peer = peer_id(key)
        address = self._sources.get(said_by, "?") if said_by is not None else "?"
        if self.trouble.is_cut_off(peer, address) and not self._seated(peer) and self.trouble.told(peer, address):
            return f"{fingerprint(peer)} was cut off at {address} (and told so): it is not admitted again from there"
        cuts, left = self.trouble.spaced(peer, address, asyncio.get_running_loop().time())
        if left > 0:
            return (f"{fingerprint(peer)}'s link from {address} was cut for bad messages ({cuts} "
                    f"time{'s' if cuts > 1 else ''}): its key is refused from there for {left:.1f} s more")
        return None

    def fault_budget(self, conn: Connection) -> int:
        """Bad messages `conn` may carry before it is cut: MAX_LINK_FAULTS, none once a link of its key was cut (a
        seat's: at this link's address, or the one we dialled it at; net.trouble)."""
        at = [conn.address[0] if conn.address else "?"] + ([conn.dialed[0]] if conn.dialed is not None else [])
        return 0 if any(self.trouble.spent(conn.peer, address) for address in at) else MAX_LINK_FAULTS

    def cut_for_bad_messages(self, conn: Connection) -> None:
        """`conn` carried more bad messages than its budget: one WARNING line, the link closed, and its key spent
        (its later links cut at their first bad message); a seat's spaced at the link's address instead (its later
        links there cut at their first), a spectator removed from the lobby (free to join again)."""
        node = self.node
        peer = conn.peer
        said = f"closing the link to {fingerprint(peer)}: {conn.faults} bad messages (the first: {conn.first_fault})"
        if self._seated(peer):
            address = conn.address[0] if conn.address else "?"
            now = asyncio.get_running_loop().time()
            spacing = self.trouble.space(peer, address, now)
            if conn.dialed is not None and source(conn.dialed[0]) != source(address):
                self.trouble.space(peer, conn.dialed[0], now)  # dialled by name: our redials there wait too
            quiet.warning(conn.address, "link cut for bad messages",
                          "%s; its key is refused for %.0f s from %s (that link's address), and its next link from "
                          "there is cut at its first bad message", said, spacing, address)
            conn.close()
        else:
            quiet.warning(conn.address, "link cut for bad messages",
                          "%s; its next link is cut at its first bad message", said)
            self.trouble.spend(peer)
            conn.close()
            node.lobby.remove_spectator(peer)

    # ----------------------------------------------------------------- membership

    def _is_member(self, peer: bytes) -> bool:
        """An authenticated member of this game: the host we joined, a seat of the START, or one the host
        admitted (a host: by its join; anyone else: as the host's lobby frame says)."""
        node = self.node
        session = node.session
        return (peer == node.host_peer or peer in node.members
                or (session is not None and session.start is not None and peer in session.keys))

    async def _membership(self, conn: Connection) -> bool:
        """Before a link counts, its peer must be a member. A host reads only a join (or ping) from a
        non-member, for MEMBER_WAIT seconds; anyone else reads nothing from it and waits that long for
        the host to name it (a player's mesh dial can come before the host's lobby frame). Raises
        ConnectionFailed with the reason when the peer is not a member in time; False if it was refused."""
        node = self.node
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
                                       + (" (no join)" if node.is_host else ""))
            if node.is_host:
                try:
                    async with asyncio.timeout(deadline - loop.time()):
                        kind, payload = await conn.receive()
                except TimeoutError:
                    continue
                if kind == "join":
                    node.lobby.join(conn, payload)
                elif kind == "ping":
                    conn.heard_ping(payload)  # its link timeout
                else:
                    conn.close()
                    raise ConnectionFailed(f"sent {kind[:40]!r} before joining (a non-member may send only a join)")
            else:
                changed = self._members_changed
                try:
                    await asyncio.wait_for(changed.wait(), max(0.0, deadline - loop.time()))
                except TimeoutError:
                    pass
        return not conn.closed

    def joining(self) -> int:
        """Connections on their way to membership now: in the handshake, or waiting for their join (a host) or
        for the host to name their peer (anyone else)."""
        return sum(1 for why in self._pending.values() if not why)

    def members_updated(self) -> None:
        """Who is a member may have changed: links waiting to count look again."""
        changed, self._members_changed = self._members_changed, asyncio.Event()
        changed.set()

    def link(self, conn: Connection) -> None:
        """`conn` is the link to its peer from now on (an older one is closed); it is given our heads."""
        node = self.node
        if node.links.get(conn.peer) is conn:
            return
        old = node.links.get(conn.peer)
        if old is not None and not old.closed and self._reversed(conn) and not self._reversed(old):
            conn.close()  # the pair's usual link is up: ours beside it goes (the same at both ends)
            return
        if old is not None:
            old.close()
        node.links[conn.peer] = conn
        conn.before_write = node.write_held  # a message leaves only once its record is written
        node.byes.discard(conn.peer)  # it is back (resumed): its game goes on
        node.unreachable.discard(conn.peer)  # it answers again
        assert node.session is not None  # links are served once the node has its session
        if conn.peer == node.host_peer and self.join_frame is not None:
            conn.send_nowait("join", join_with_proof(node, conn, self.join_frame))
        conn.send_nowait("heads", node.session.heads())
        self.seen.tell(conn)
        node.book.tell(conn)  # where the players listen, in their own signed words (net.where)
        node.rematch.linked(conn)  # a host that offered a rematch or new start tells it to a link that came later

    async def serve(self, conn: Connection, redial: tuple[str, int] | None = None) -> None:
        """Read frames from one member's link until it breaks; the dialling side (`redial`: the address it
        reached the peer at) then redials: there first, then at every other address it knows for a player."""
        node = self.node
        while True:
            self.link(conn)
            if node.links.get(conn.peer) is not conn:  # not taken (a reverse link beside the usual one): none to serve
                conn.close()
                return
            pinger = node.spawn(self._ping(conn))
            try:
                await conn.serve(partial(on_frame, node, conn), node.burst)
            except ConnectionFailed as exc:
                if not node.done.is_set():
                    log.info("link to %s (%s) ended: %s", fingerprint(conn.peer), conn.address, exc)
            finally:
                pinger.cancel()
                conn.close()
                self._link_ended(conn)
                if node.links.get(conn.peer) is conn:
                    del node.links[conn.peer]
                    node.lobby.left(conn.peer)
            if redial is None or node.done.is_set():
                return
            again = await self.reach(conn.peer, partial(self._redial_at, conn.peer, redial))
            if again is None:
                return
            conn, redial = again, again.dialed

    def _redial_at(self, peer: bytes, first: tuple[str, int]) -> list[tuple[str, int]]:
        """A lost link's addresses: where we had reached the peer, then (a player) every other we know."""
        return [first, *self.player_addresses(peer)]

    async def redial(self, peer: bytes, host: str, port: int) -> Connection | None:
        """Dial `peer` at one address until it answers (spaced by dial), the other side gets through, or the
        game ends."""
        return await self.reach(peer, lambda: [(host, port)])

    async def reach(self, peer: bytes, addresses: Callable[[], list[tuple[str, int]]]) -> Connection | None:
        """Dial `peer` at each of `addresses()` in turn, round after round (each address spaced by dial: the
        backoff), until one answers with its key; None when the other side got through first or the game
        ended. The addresses are asked again each round: those learned meanwhile are tried too."""
        node = self.node
        while not node.done.is_set():
            round_ = list(dict.fromkeys(addresses()))
            if not round_:  # nowhere to dial yet: until someone tells us where
                await self._members_change(DIAL_BACKOFF[1])
            for host, port in round_:
                if peer in node.links or node.done.is_set():  # the other side got through first
                    return None
                left = self.spaced_for(peer, host)
                if left > 0:  # cut for bad messages at this address: not before its key may link there again
                    await asyncio.sleep(left)
                conn = await self._dial_as(peer, host, port)
                if conn is None:
                    continue
                old = node.links.get(peer)
                # the other side got through first; but a reverse link beside our usual one is link()'s to close, at
                # both ends alike (Mesh.link): closing ours here would leave the pair with neither
                if node.done.is_set() or (old is not None and not (self._reversed(old) and not self._reversed(conn))):
                    conn.close()
                    return None
                return conn
        return None

    async def _dial_as(self, peer: bytes, host: str, port: int) -> Connection | None:
        """One dial of `peer` at `host:port`: the link, or None (said in a log line) when nobody there answers
        with its key."""
        try:
            conn = await self.dial(host, port, expect=peer)
        except Unwelcome as exc:  # another peer answers there (a member's record may name its port): said, left
            quiet.warning(f"{host}:{port}", "answers as another peer", "dialling %s failed: %s", fingerprint(peer),
                          exc)
            return None
        except ConnectionFailed as exc:
            log.info("dialling %s at %s:%d failed: %s", fingerprint(peer), host, port, exc)
            session = self.node.session
            if isinstance(exc, Refused) and peer == self.node.host_peer and session is not None \
                    and session.start is None:  # the lobby's host is gone (net.spectator.host_gone_before_start)
                self.node.unreachable.add(peer)
            return None
        if conn.peer != peer:
            log.warning("%s:%d now answers as %s, not %s", host, port, fingerprint(conn.peer), fingerprint(peer))
            conn.close()
            return None
        return conn

    async def _members_change(self, timeout: float) -> None:
        """Wait until who is a member, or where one is, may have changed (at most `timeout` seconds)."""
        try:
            await asyncio.wait_for(self._members_changed.wait(), timeout)
        except TimeoutError:
            pass

    async def _ping(self, conn: Connection) -> None:
        """Ping `conn` every quarter of the shorter of our link timeout and its peer's (its first ping went as the
        handshake ended), sooner once the peer's pings say a shorter one."""
        loop = asyncio.get_running_loop()
        while not conn.closed:
            left = conn.pinged_at + conn.ping_every - loop.time()
            if left > 0:
                conn.paced.clear()
                try:
                    await asyncio.wait_for(conn.paced.wait(), left)
                except TimeoutError:
                    pass
                continue
            conn.ping()
            self.seen.tell(conn)  # with each ping: a report that came before its receiver had the START is not lost
            self.node.book.tell(conn)  # and the signed records (net.where), likewise

    # ----------------------------------------------------------------- the players' mesh

    def dial_mesh(self) -> None:
        """Players dial every player with a higher peer id they are not linked to yet."""
        node = self.node
        if node.role != "player":
            return
        me = node.identity.peer
        session = node.session
        seats = session.keys if session is not None and session.start is not None else ()
        host = self._start_host()
        if node.is_host or me == host:  # a host dials none of its seats: they dial it (a resumed one too, which takes
            return                      # its START before it knows it hosts: it listens on its game's port again)
        players = [peer for peer, member in node.members.items() if member.role == "player"]
        for peer in dict.fromkeys([*players, *seats]):  # a seat of the START is dialled whatever a lobby frame says
            if peer > me and peer not in node.links and peer not in self.dialing and peer not in (node.host_peer,
                                                                                                   host):
                self.dialing.add(peer)
                node.spawn(self._mesh_link(peer))
        if seats and not self._reverse_watching:
            # and a lower seat we hold a signed record of, should it not reach us (protocol.md 14): one watcher
            self._reverse_watching = True
            node.spawn(self._reverse_watch())

    def _start_host(self) -> bytes | None:
        """The peer id of the START's signer (our game's host), or None before a START. Asked of the START, not of
        node.is_host or node.host_peer: a node resuming a game takes its START before either is set."""
        session = self.node.session
        return session.start.sender if session is not None and session.start is not None else None

    def _reversed(self, conn: Connection) -> bool:
        """`conn` was dialled by the higher peer id of its pair (a reverse link, _reverse_watch), between two seats
        neither of which is our host (the links of a host and its joiners are never reverse links: they go as
        before)."""
        node = self.node
        me = node.identity.peer
        host = self._start_host()
        if node.is_host or me == host or conn.peer in (node.host_peer, host) or not self._seated(conn.peer):
            return False
        return (conn.dialed is not None) == (conn.peer < me)

    async def _reverse_watch(self) -> None:
        """Dial a seat of the START with a lower peer id (not the host), whose own signed record we hold, once it
        has had no link with us for REVERSE_AFTER seconds, at the addresses of its record (a host that withheld ours
        from it, and cut it, left it none to dial us; protocol.md 14, "In the START and the START_ACKs"); again
        whenever it stays unlinked so, until the game ends. One task a node, waking twice a second."""
        node = self.node
        loop = asyncio.get_running_loop()
        unlinked: dict[bytes, float] = {}  # lower seat -> since when it has had no link with us
        try:
            while not node.done.is_set():
                session = node.session
                me, host, now = node.identity.peer, self._start_host(), loop.time()
                seats = session.keys if session is not None and session.start is not None else ()
                for peer in seats:
                    if peer >= me or peer in (host, node.host_peer) or peer in node.links or peer in self.dialing:
                        unlinked.pop(peer, None)
                        continue
                    since = unlinked.setdefault(peer, now)
                    if now - since >= REVERSE_AFTER and node.book.of(peer) is not None:
                        unlinked.pop(peer, None)
                        self.dialing.add(peer)
                        node.spawn(self._reverse_dial(peer))
                await self._members_change(REVERSE_AFTER / 2)
        finally:
            self._reverse_watching = False

    async def _reverse_dial(self, peer: bytes) -> None:
        """One reverse link to `peer` (_reverse_watch): dialled at its record's addresses and served till it ends."""
        try:
            conn = await self.reach(peer, lambda: self.player_addresses(peer))
            if conn is not None:
                await self.serve(conn, redial=None)
        finally:
            self.dialing.discard(peer)

    def player_addresses(self, peer: bytes) -> list[tuple[str, int]]:
        """Where a player may be, in the order we dial it: where the host saw it, the addresses it gave, then
        those other members reached it at or saw it come from (net.seen), each at its port. A player whose own
        signed record we hold (net.where) is dialled at the record's port and addresses (and where the host and the
        seats saw it), never at a port or address the host's word alone gives: the host forwards it, it cannot
        forge it (protocol.md 14, "Where a member listens"; session 40)."""
        node = self.node
        if peer == node.host_peer:
            return []
        member = node.members.get(peer)
        where = node.book.of(peer)
        if where is not None:
            seen = [member.host] if member is not None and member.host else []
            signed = [a for a in where.addresses if not this_machine(a)]
            return [(host, where.port) for host in dict.fromkeys([*seen, *signed, *self.seen.addresses_of(peer)])]
        if member is None:
            return []
        hosts = dict.fromkeys([*member.dial_at(), *self.seen.addresses_of(peer)])
        return [(host, member.port) for host in hosts]

    async def _mesh_link(self, peer: bytes) -> None:
        """Dial a player at each address it may be at, in turn (another network's may be the one we reach,
        issue 27), until one answers as it; serve the link and redial it when it is lost."""
        conn = await self.reach(peer, lambda: self.player_addresses(peer))
        self.dialing.discard(peer)
        if conn is not None:
            await self.serve(conn, redial=conn.dialed)
