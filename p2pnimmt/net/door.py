"""A node's listener (its door): every connection a peer dials to us is counted by address the moment it is
accepted, before a transport, a stream, a task or our hello is made for it (red team, session 29: a stranger
opening connections as fast as one core can kept every joiner out, the accept loop too slow for the flood).

From one address at most PER_ADDRESS connections wait to become a member's (in the handshake, or authenticated
and not joined); one more from there is closed at once (a reset: it holds nothing here, not even a closing
state) and counted, in one log line that names the address (p2pnimmt.quietlog: the first, then a count). A
connection stops counting once it is a member's link (Door.settled): a process of many bots, or a phone relay
carrying several pages, links as often as it likes once its peers are members. The bound over all addresses is
net.mesh's MAX_PENDING. The listen queue holds BACKLOG connections the door has not taken yet (asyncio's 100
filled at once under a flood, and the kernel dropped a joiner's dial).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
from collections.abc import Awaitable, Callable

from ..quietlog import quiet

log = logging.getLogger("p2pnimmt.net")

PER_ADDRESS = 16  # connections from one address not (yet) a member's (a table is 10 seats at most)
BACKLOG = 1024  # connections the kernel holds for the door (capped by the system's somaxconn)
BURST = 256  # connections taken at one wake of the door before the loop's other work goes on
_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close() resets the connection, no state is kept

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
        self._loop = asyncio.get_running_loop()
        self._closed = False
        self._loop.add_reader(sock.fileno(), self._take)

    @classmethod
    async def listen(cls, accepted: Accepted, host: str, port: int = 0, per_address: int = PER_ADDRESS) -> Door:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.create_server((host, port), family=family, backlog=BACKLOG)
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
                continue
            self.waiting[source] = held + 1
            conn.setblocking(False)
            asyncio.ensure_future(self._let_in(conn, source))

    async def _let_in(self, conn: socket.socket, source: str) -> None:
        entry = _Entry(self, source)
        try:
            await self._loop.connect_accepted_socket(lambda: entry, conn)
        except OSError:
            if entry.transport is None:  # else its end uncounts it
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
