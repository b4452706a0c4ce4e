"""Who may hold a connection to the page's server, and for how long (a slow or idle client must not take the
process's open files: the game's port needs them).

Every connection is counted at accept, before a byte is read, in one count for every page server of the process:
PER_SOURCE from one address at most, and TOTAL in all, never more than a quarter of the process's open-file
limit (raised to its hard limit first, where the system allows). One over its address's bound is closed at once;
with every place taken, the newest connection takes the place of the oldest from the address that holds the most
(unless that is its own), except a seat's page's socket, which is never shed. An address that showed a page's
token (a link's `?t=`: it was given the page) is known: while addresses that never did hold places, the newest
connection takes the oldest place of the one of them holding the most, from a known address whatever that one
holds, from any other when it holds as many as the newcomer's address would (red team, session 35: a stranger
holding one connection from each of TOTAL addresses, each kept alive by asking for a static file, kept every new
page out, the TV's and a phone's; benchmarks/attacks/web_spread.py). A connection that has not sent a
whole request IDLE seconds after it opened, or after its last answer, is closed (aiohttp's keep-alive timer,
which runs from the connect); an open page's socket that answers none of SILENT pings in a row, sent HEARTBEAT
seconds apart, is closed (`keep_alive`: a pong that comes late does not end a page that is there).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
from collections.abc import Callable, Iterator
from typing import Any

from aiohttp import WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError

from ..quietlog import QuietLog

PER_SOURCE = 24  # connections from one address (a browser opens up to six, and a socket per tab)
TOTAL = 256  # connections in all, at most (and a quarter of the open-file limit at most)
IDLE = 5.0  # seconds a connection may take to send a whole request (from its connect, or its last answer)
# asyncio accepts up to its backlog of connections at once, each an open file before the Gate sees it: so few.
BURST = 16
KNOWN = 1024  # addresses remembered for having shown a page's token (the oldest forgotten first)
HEARTBEAT = 6.0  # seconds between the pings of an open page's socket
SILENT = 3  # pings in a row that nothing came back for (no pong, no message) before a page's socket is closed


def raise_open_files() -> int:
    """Raise this process's soft limit of open files to its hard limit where the system allows; the soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and want > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass  # not allowed here: the bounds below follow the limit as it is
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


class Gate:
    """The count of open connections by address, and the decision on each new one."""

    def __init__(self, per_source: int = PER_SOURCE, total: int | None = None) -> None:
        self.per_source = per_source
        self.total = total if total is not None else min(TOTAL, raise_open_files() // 4)
        self.open: dict[str, list[Gated]] = {}  # by address, oldest first
        self.count = 0
        self.refused = 0  # connections closed at accept (over a bound), or shed for a newer one
        self.known: dict[str, None] = {}  # addresses that showed a page's token, the least lately first

    def admit(self, conn: Gated) -> bool:
        mine = self.open.get(conn.source, [])
        if len(mine) >= self.per_source:
            self.refused += 1
            return False
        if self.count >= self.total:
            unknown = [held for source, held in self.open.items() if source not in self.known]
            biggest = max(unknown or self.open.values(), key=len)
            shed = next((c for c in biggest if not c.kept), None)
            room = (1 if conn.source in self.known else len(mine) + 1) if unknown else len(mine) + 2
            if shed is None or len(biggest) < room:
                self.refused += 1
                return False
            self.refused += 1
            self.release(shed)
            assert shed.transport is not None
            shed.transport.abort()
        self.open.setdefault(conn.source, []).append(conn)
        self.count += 1
        return True

    def release(self, conn: Gated) -> None:
        mine = self.open.get(conn.source)
        if mine is not None and conn in mine:
            mine.remove(conn)
            self.count -= 1
            if not mine:
                del self.open[conn.source]

    def know(self, transport) -> None:
        """The connection of `transport` showed a page's token: its address is known (see the module's docstring)."""
        source = _source(transport)
        self.known.pop(source, None)
        self.known[source] = None
        if len(self.known) > KNOWN:
            del self.known[next(iter(self.known))]

    def keep(self, transport) -> None:
        """The connection of `transport` serves a seat's page: it is never shed for a newer one."""
        for conn in self.open.get(_source(transport), []):
            if conn.transport is transport:
                conn.kept = True


_shared: list[Gate] = []


def shared_gate() -> Gate:
    """The process's Gate: every page server of this process (the table's, a guest's) counts against one total."""
    if not _shared:
        _shared.append(Gate())
    return _shared[0]


def _source(transport) -> str:
    peer = transport.get_extra_info("peername") if transport is not None else None
    return str(peer[0]) if peer else "?"


class Gated(asyncio.Protocol):
    """One accepted connection: counted by the Gate, then handed to aiohttp's own protocol (or closed at once)."""

    def __init__(self, gate: Gate, make: Callable[[], asyncio.Protocol]) -> None:
        self.gate = gate
        self.make = make
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.source = "?"
        self.kept = False

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.source = _source(transport)
        if not self.gate.admit(self):
            transport.abort()  # at once, before anything is read: its file is free again
            return
        self.inner = self.make()
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def connection_lost(self, exc: Exception | None) -> None:
        self.gate.release(self)
        if self.inner is not None:
            self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()


async def opened(ws: web.WebSocketResponse, request: web.Request) -> None:
    """Open the WebSocket `ws` of `request` (its 101); a connection that ended meanwhile (the tab closed, this
    module shed it for a newer one) is no error of ours: refused quietly (before, its traceback went to the log)."""
    try:
        await ws.prepare(request)
    except ConnectionError:  # aiohttp: 'Cannot write to closing transport'
        raise web.HTTPServiceUnavailable(text="the connection closed before its socket opened") from None


class Page:
    """An open page's WebSocket as keep_alive watches it (made with autoping off, so every frame comes to its
    reader): when the page was last heard from, whether one of its messages is being handled (no pong is read
    meanwhile: the page counts as heard), and its connection, ended at once when it answers no ping."""

    def __init__(self, ws: web.WebSocketResponse, transport: asyncio.Transport | None) -> None:
        self.ws, self.transport = ws, transport
        self.loop = asyncio.get_running_loop()
        self.last, self.busy = self.loop.time(), False

    def heard(self) -> float:
        """The loop time the page was last heard from (now while one of its messages is being handled)."""
        return self.loop.time() if self.busy else self.last

    async def control(self, message: Any) -> bool:
        """Note a frame that came from the page; True when it was a ping (answered here) or a pong: nothing more to
        do with it."""
        self.last = self.loop.time()
        if message.type == WSMsgType.PING:
            await self.ws.pong(message.data)
            return True
        return bool(message.type == WSMsgType.PONG)

    @contextlib.contextmanager
    def handling(self) -> Iterator[None]:
        """While a message of the page's is handled: the page counts as heard."""
        self.busy = True
        try:
            yield
        finally:
            self.busy, self.last = False, self.loop.time()

    def drop(self) -> None:
        """End the page's connection at once (it answered no ping)."""
        if self.transport is not None:
            self.transport.abort()


async def keep_alive(page: Page, *, first: float = 0.0) -> None:
    """Ping the page's socket every HEARTBEAT seconds until it closes; drop it once SILENT pings in a row got
    nothing back (page.heard: the loop time the last pong or message came).

    One pong that does not come in time is no dead page (a page's browser, or this process, held up on a loaded
    machine: CI's load was 18 on two cores in session 36), and a ping counts as unanswered only when this process
    itself was awake for its wait (held up past it, it may not have read the pong that came). aiohttp's own
    heartbeat closed a socket whose pong it had not read half a HEARTBEAT after its ping, and the page lost what
    the person did while it reconnected. The seat pages' sockets (web.server) and the phone pages' tunnels
    (web.relay: a busy node relaying cut a live phone off; their first ping `first` seconds after the tunnel's
    hello, as aiohttp's was) are kept alive by it.
    """
    ws, loop = page.ws, page.loop
    missed = 0
    pings: set[asyncio.Future] = set()
    await asyncio.sleep(first)  # the first ping's delay
    try:
        while not ws.closed:
            pinged = loop.time()
            ping = asyncio.ensure_future(ws.ping())  # not awaited: a page that reads nothing holds its writes
            pings.add(ping)
            ping.add_done_callback(pings.discard)
            ping.add_done_callback(lambda done: done.cancelled() or done.exception())  # a closed socket's: nothing
            await asyncio.sleep(HEARTBEAT)
            if page.heard() >= pinged:
                missed = 0
            elif loop.time() - pinged < HEARTBEAT * 1.5:  # awake on time: its pong would have been read
                missed += 1
            if missed >= SILENT:
                page.drop()
                return
    finally:
        for pending in list(pings):
            pending.cancel()


class ServerLog:
    """aiohttp's server logger, for the page's server: a request a client got wrong (bad HTTP) is one line per
    address, then a count (p2pnimmt.quietlog), never a traceback; anything else, a bug of ours, keeps its traceback
    and is as quiet."""

    def __init__(self) -> None:
        self.quiet = QuietLog(logging.getLogger("p2pnimmt.web"))

    def debug(self, *args: Any, **kw: Any) -> None:
        pass  # aiohttp's debug lines: what a stranger sends that is not even HTTP (a TLS hello, garbage)

    def exception(self, msg: str, *args: Any, exc_info: Any = None, **kw: Any) -> None:
        source = args[0] if args else "?"
        if isinstance(exc_info, HttpProcessingError):
            self.quiet.warning(source, "bad HTTP request", "refused a bad HTTP request from %s: %d %s", source,
                               exc_info.code, " ".join(str(exc_info.message).split())[:200])
        else:
            self.quiet.log(logging.ERROR, source, "page server error", msg, *args, exc_info=exc_info or True)


class GatedSite(web.BaseSite):
    """aiohttp's TCP site, with every connection through `gate` first."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, gate: Gate, backlog: int = BURST) -> None:
        super().__init__(runner, backlog=backlog)
        self.host, self.wanted_port, self.gate = host, port, gate
        self.server: asyncio.AbstractServer | None = None

    @property
    def name(self) -> str:
        return f"http://{self.host}:{self.wanted_port}"

    async def start(self) -> None:
        await super().start()
        make = self._runner.server
        assert make is not None
        self.server = self._server = await asyncio.get_running_loop().create_server(
            lambda: Gated(self.gate, make), self.host, self.wanted_port, backlog=self._backlog)

    @property
    def port(self) -> int:
        assert isinstance(self.server, asyncio.base_events.Server)
        return self.server.sockets[0].getsockname()[1]
