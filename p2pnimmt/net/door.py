"""A node's listener (its door): every connection a peer dials to us is counted by address the moment it is
accepted, before a transport, a stream, a task or our hello is made for it (red team, session 29: a stranger
opening connections as fast as one core can kept every joiner out, the accept loop too slow for the flood).

From one address at most PER_ADDRESS connections wait to become a member's (in the handshake, or authenticated
and not joined); one more from there is closed at once (a reset: it holds nothing here, not even a closing
state) and counted, in one log line that names the address (p2pnimmt.quietlog: the first, then a count). A
connection stops counting once it is a member's link (Door.settled): a process of many bots, or a phone relay
carrying several pages, links as often as it likes once its peers are members. A connection from this machine
itself (from the address it was dialled at: the node's own phone relay, the bots of its process) is not counted
here: no stranger comes from there, and net.mesh's MAX_PENDING bounds it as any. The bound over all addresses is
net.mesh's MAX_PENDING. The listen queue holds BACKLOG connections the door has not taken yet (asyncio's 100
filled at once under a flood, and the kernel dropped a joiner's dial).

An address refused SHUT_AFTER times within SHUT_WINDOW seconds is a flood: for SHUT_FOR seconds the kernel drops
its connection attempts before they reach the listen queue (a socket filter on the listening socket, Linux; where
it cannot be set, the door goes on resetting them one by one). Resetting costs the door a little for each attempt,
and the queue fills meanwhile; shut out, the flood's attempts no longer fill the queue, so a joiner's dial finds
room in it at once (the figures: docs/lan-and-browser.md, "Holes a red team found").

Never the address of a member the node names (`spared`: its host, its players, a member that relays phone pages;
since session 35): shut out, that member's own dials (its redials, the pages its relay dials for) would be dropped
with the flood's for SHUT_FOR seconds, and a stranger who shares its address (one NAT in front of both, or a page at
its relay) could so lock a member out of the game. Its connections over the bound are reset one by one instead, as
where no filter can be set: slower for the door, but the member's dials are taken as soon as a place is free.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import socket
import struct
import time
from collections.abc import Awaitable, Callable

from ..quietlog import quiet

log = logging.getLogger("p2pnimmt.net")

PER_ADDRESS = 16  # connections from one address not (yet) a member's (a table is 10 seats at most)
BACKLOG = 1024  # connections the kernel holds for the door (capped by the system's somaxconn)
BURST = 256  # connections taken at one wake of the door before the loop's other work goes on
_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close() resets the connection, no state is kept
SHUT_AFTER = 256  # connections refused from one address within SHUT_WINDOW seconds: it is shut out
SHUT_WINDOW = 2.0
SHUT_FOR = 60.0  # seconds an address is shut out (then the door counts it afresh)
MAX_SHUT = 1024  # addresses shut out at once (the filter is one comparison for each; the kernel takes 4096)
SO_ATTACH_FILTER = 26  # Linux's socket option for a classic BPF filter

Accepted = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Door:
    """A listening socket served by the loop's reader callback (listen): `accepted(reader, writer)` runs for each
    connection let in, as asyncio.start_server's callback would. `sockets`, `close()`: as an asyncio Server's."""

    def __init__(self, sock: socket.socket, accepted: Accepted, per_address: int = PER_ADDRESS) -> None:
        self.sock = sock
        self.accepted = accepted
        self.per_address = per_address
        self.waiting: dict[str, int] = {}  # address -> connections from it not (yet) a member's
        self.refused = 0  # connections closed at the door (over their address's bound)
        self._entries: dict[asyncio.BaseTransport, _Entry] = {}  # the connections counted in `waiting`
        self.refusals: dict[str, tuple[float, int]] = {}  # address -> (its window's start, refused in it)
        self.shut_out: dict[str, asyncio.TimerHandle] = {}  # address -> when it is let in again
        self._letting: set[asyncio.Future] = set()
        self._filter: ctypes.Array | None = None  # the socket filter's instructions (kept while the kernel uses them)
        self.spared: Callable[[str], bool] = lambda source: False  # a member's address: never shut out (the node's)
        self._loop = asyncio.get_running_loop()
        self._closed = False
        self._loop.add_reader(sock.fileno(), self._take)

    @classmethod
    async def listen(cls, accepted: Accepted, host: str, port: int = 0, per_address: int = PER_ADDRESS) -> Door:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        try:
            sock = socket.create_server((host, port), family=family, backlog=BACKLOG)
        except OSError as exc:  # as asyncio.start_server said it (cli names the options to check)
            why = os.strerror(exc.errno).lower() if exc.errno else str(exc)
            raise OSError(exc.errno, f"cannot listen on {host}:{port}: {why}") from None
        sock.setblocking(False)
        return cls(sock, accepted, per_address)

    @property
    def sockets(self) -> list[socket.socket]:
        return [] if self._closed else [self.sock]

    @property
    def port(self) -> int:
        return self.sock.getsockname()[1]

    def close(self) -> None:
        """Take no more connections (those let in go on)."""
        if not self._closed:
            self._closed = True
            for timer in self.shut_out.values():
                timer.cancel()
            self.shut_out.clear()
            self._loop.remove_reader(self.sock.fileno())
            self.sock.close()

    def _take(self) -> None:
        """The listening socket is readable: take what the kernel holds (BURST at most), each counted first."""
        for _ in range(BURST):
            try:
                conn, address = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # out of open files, say: the kernel keeps the connection queued
                quiet.warning("door", "accept failed", "could not accept a connection: %s", exc)
                return
            source = str(address[0]) if address else "?"
            if _own(conn, source):  # from this machine (its phone relay, its bots): no stranger; MAX_PENDING bounds it
                conn.setblocking(False)
                self._start(conn, "")
                continue
            held = self.waiting.get(source, 0)
            if held >= self.per_address:
                self.refused += 1
                try:
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
                finally:
                    conn.close()
                quiet.warning(source, "connections over the door's bound",
                              "refused connections from %s: %d of its connections were already waiting to become a "
                              "member's (a flood?)", source, held)
                self._refused_from(source)
                continue
            self.waiting[source] = held + 1
            conn.setblocking(False)
            self._start(conn, source)

    def _start(self, conn: socket.socket, source: str) -> None:
        task = asyncio.ensure_future(self._let_in(conn, source))
        self._letting.add(task)  # referenced until its stream is made
        task.add_done_callback(self._letting.discard)

    def _refused_from(self, source: str) -> None:
        """Count a refusal of `source`; SHUT_AFTER of them within SHUT_WINDOW seconds shut it out."""
        now = time.monotonic()
        since, count = self.refusals.get(source, (now, 0))
        if now - since > SHUT_WINDOW:
            since, count = now, 0
        self.refusals[source] = (since, count + 1)
        if count + 1 >= SHUT_AFTER and source not in self.shut_out and self.spared(source):
            quiet.warning(source, "member's address not shut out", "not shutting out %s: %d of its connections were "
                          "refused within %.0f s (a flood), but a member of the game is at that address; they are "
                          "reset one by one", source, count + 1, SHUT_WINDOW)
        elif count + 1 >= SHUT_AFTER and source not in self.shut_out and len(self.shut_out) < MAX_SHUT \
                and self.sock.family == socket.AF_INET:
            self.shut_out[source] = self._loop.call_later(SHUT_FOR, self._let_back, source)
            if self._set_filter():
                quiet.warning(source, "address shut out", "shut out %s for %.0f s: %d of its connections were "
                              "refused within %.0f s (a flood); the system drops its dials meanwhile", source,
                              SHUT_FOR, count + 1, SHUT_WINDOW)
            else:
                self.shut_out.pop(source).cancel()
        if len(self.refusals) > 4 * MAX_SHUT:  # forget the addresses whose window is over
            self.refusals = {a: v for a, v in self.refusals.items() if now - v[0] <= SHUT_WINDOW}

    def _let_back(self, source: str) -> None:
        self.shut_out.pop(source, None)
        self.refusals.pop(source, None)
        if not self._closed:
            self._set_filter()

    def _set_filter(self) -> bool:
        """The listening socket's filter: drop what comes from an address shut out; whether the system took it."""
        addresses = [struct.unpack("!I", socket.inet_aton(a))[0] for a in self.shut_out]
        program = _drop_from(addresses)
        instructions = (ctypes.c_ubyte * len(program)).from_buffer_copy(program)
        fprog = struct.pack("HL", len(program) // 8, ctypes.addressof(instructions))
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
        except OSError as exc:
            log.info("cannot shut an address out at the door (%s): its connections are reset one by one", exc)
            return False
        self._filter = instructions
        return True

    async def _let_in(self, conn: socket.socket, source: str) -> None:
        """Make the stream of a connection let in; `source`: the address it counts at ("" for this machine's)."""
        entry = _Entry(self, source)
        try:
            await self._loop.connect_accepted_socket(lambda: entry, conn)
        except OSError:
            if entry.transport is None and source:  # else its end uncounts it
                self._uncount(source)
            conn.close()

    def settled(self, transport: asyncio.BaseTransport) -> None:
        """The connection of `transport` is a member's link now (or is closing): it no longer counts."""
        entry = self._entries.pop(transport, None)
        if entry is not None:
            self._uncount(entry.source)

    def _uncount(self, source: str) -> None:
        left = self.waiting.get(source, 0) - 1
        if left > 0:
            self.waiting[source] = left
        else:
            self.waiting.pop(source, None)


def _own(conn: socket.socket, source: str) -> bool:
    """Whether a connection comes from this machine: from the very address it was dialled at."""
    try:
        return conn.getsockname()[0] == source
    except OSError:
        return False


def _drop_from(addresses: list[int]) -> bytes:
    """A classic BPF socket filter (struct sock_filter: code, jt, jf, k) that drops an IPv4 packet whose source is
    one of `addresses` and passes any other: A = the network header's source address, one comparison each."""
    net_source = -0x100000 + 12  # SKF_NET_OFF: from the network header, whatever layer the socket sees
    ld_abs_w, jeq_k, ret_k = 0x20, 0x15, 0x06
    n = len(addresses)
    program = [struct.pack("HBBI", ld_abs_w, 0, 0, net_source & 0xFFFFFFFF)]
    for i, address in enumerate(addresses):  # equal: jump to the drop (after the other comparisons and the pass)
        program.append(struct.pack("HBBI", jeq_k, n - i, 0, address))
    program.append(struct.pack("HBBI", ret_k, 0, 0, 0xFFFFFFFF))  # pass it whole
    program.append(struct.pack("HBBI", ret_k, 0, 0, 0))  # drop
    return b"".join(program)


class _Entry(asyncio.Protocol):
    """One connection let in: counted at its address until it settles or ends, its bytes handed to a stream
    (asyncio.StreamReaderProtocol, which runs the door's `accepted` as a task, as start_server does)."""

    def __init__(self, door: Door, source: str) -> None:
        self.door = door
        self.source = source
        self.transport: asyncio.BaseTransport | None = None
        reader = asyncio.StreamReader()
        self.inner = asyncio.StreamReaderProtocol(reader, door.accepted)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        if self.source:  # counted at its address until it settles
            self.door._entries[transport] = self
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is not None:
            self.door.settled(self.transport)
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()
