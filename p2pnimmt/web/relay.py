"""A phone page that is a peer: the node that served it only relays its bytes (issue 26).

The page (static/phone.html, web/peer/src/page.ts) holds its own Ed25519 key and runs its own session; it
speaks the mesh's protocol itself (handshake, frames, join, msg, heads) over TCP connections that this relay
opens and accepts for it and pipes, byte for byte, over the page's one WebSocket. So the relay never has the
page's key (the handshake and every message are signed in the page) and, with the sealed deal, cannot read
its hand; what it drops, delays or changes the page's session sees as any peer's fault or absence.

On the WebSocket: first a text message from the relay, {"game": hex game id, "host": [address, port] of the game's
host, "port": the port the relay listens on for the page, "claim": a random token for that port, "drop_after": the
node's drop time in seconds (the page votes out an absent seat after it too, as the node does), "batch": true,
"keyed": whether the node holds its game's seat key (protocol.md 14, "The seat key"; never the key itself, which the
page's link carries after `#`: a page whose link has none says so rather than joining to be refused)}; then
binary messages, an op byte, a 4-byte channel number and the rest: the page sends DIAL (rest: JSON [address, port]),
DATA and CLOSE; the relay sends OPENED, ACCEPTED (a peer dialled the page's port), DATA and CLOSE (rest: why, UTF-8;
a dial to an address where nothing listens: `refused: …`, REFUSED). Either side may put several of these in one
binary message, BATCH (channel 0; the rest: each message as a 4-byte length and its bytes, in order; never a BATCH
in a BATCH): the relay sends what its connections gave in one pass of its event loop as one message, the page what
one step of its session sent, so a turn costs the browser a few WebSocket messages, not one a frame. Each sends
BATCHes only where the other takes them: the relay where the page asked with `batch=1`, the page where the hello
says `"batch": true` (a page and a relay node of different versions still talk). The relay dials only the addresses
of the game's players and its host (never an open proxy: no spectator's, no loopback address a member named), and
opens at most CHANNELS at once; for a page that holds no seat, at a bounded rate and at most OPENING opening at one
address (web.dialbound: the host's door never resets, nor shuts out, this member's address for a stranger's dials).
A node that leaves because its host left the lobby closes the WebSocket with HOST_GONE (Tunnel.farewell): the page
stops there.

Who may hold a tunnel (issue 22 item 3: the phone's link is on the TV, in its QR code, for anyone to read): a
tunnel whose page holds a player's seat (a player of the game listens at the tunnel's port) always has room and is
never cut; the others (pages not seated yet, and strangers) have at most PER_SOURCE tunnels from one address and
`spare` in all (TUNNELS, fewer when the process may open few files: each tunnel can hold 2 x CHANNELS + 1). Past
that a new one cuts the oldest unseated tunnel of the address that holds the most, when that address holds more
than the newcomer's would; else it is refused (503). A seat's tunnel is kept by the page server's connection
bound too (web.guard), an unseated one is not. A page that comes back (a reload, a closed WebSocket) asks for
its port again with its claim (`?port=P&claim=C`): only the claim this relay gave for P gets P back; any other ask
listens at a port of the system's choice, so nobody who reads the phone's link can take a seat's port (and with
it the seat's room, and the connections its peers dial there).

No single laptop to lose (issue 26, item 4): the node tells its game where this relay is (protocol.md 14, a
member's `relay`), so a page whose own relay node left opens its tunnel at another node's relay, from that node's
origin; the page server takes a tunnel from the origin of any relay the game's members named (`origins`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import resource
import secrets
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Protocol

from aiohttp import WSCloseCode, WSMsgType, web

from ..protocol.bucket import Bucket
from ..protocol.codec import encode
from ..quietlog import quiet
from . import guard
from .dialbound import OPENING, OPENING_DIALS, TUNNEL_BURST, TUNNEL_RATE, DialRates, Knocks
from .guard import Page, keep_alive, opened
from .relaydoor import RelayDoor, Watch

log = logging.getLogger("p2pnimmt.web")

DIAL, DATA, CLOSE, OPENED, ACCEPTED, BATCH = 1, 2, 3, 4, 5, 6
CHANNELS = 24  # TCP connections one page may have dialled through its relay (a full mesh of 10 and redials)
INBOUND = 24  # connections accepted on the page's port at once; a new one past it cuts one (Tunnel.accepted)
HOST_GONE = 4001  # the WebSocket's close code when the node leaves because its host left the lobby (farewell)
# The close code of a tunnel whose page came back on a new one with its claim (Relay.take_back): that one has its port.
TAKEN_BACK = 4002
REFUSED = "refused:"  # how a dial's CLOSE begins when its address refused (web/peer/src/page_node.ts: REFUSED)


def host_gone_reason(how: str) -> str:
    """The reason of a HOST_GONE close: `host gone: bye` or `host gone: refused` (`how`), words a page reads
    (protocol.md 14, "Words a page reads": normative)."""
    return f"host gone: {how}"
# A dial's CLOSE where the peer's first bytes were no p2pnimmt hello (relaydoor.Watch: the page's bytes never went on)
NOT_A_PEER = "not a p2pnimmt peer: the phone relay passes nothing to a service that says no p2pnimmt hello first"
MAX_BUFFERED = 1024 * 1024  # bytes the page sent on a channel not yet taken by its peer: past it, it is closed
MAX_TUNNEL_MESSAGE = 256 * 1024  # a session frame is at most about 66 KiB
MAX_BATCH = 128 * 1024  # bytes of the messages a BATCH gathers (one larger goes alone)
READ = 64 * 1024
DIAL_TIMEOUT = 5.0
TUNNELS = 16  # tunnels of pages that hold no seat (yet), all addresses together (fewer with few open files)
PER_SOURCE = 3  # of them from one address (a phone whose old tunnel the relay has not seen close yet)
CLAIMS = 256  # claims of ports kept (those of seats and open tunnels always)
ORIGINS = 64  # origins of the game's other relays remembered (a page one of them served may come here)
ORIGINS_PER_SOURCE = 4  # of them named by members the host saw at one address


class Member(Protocol):
    role: str
    host: str
    port: int
    relay: tuple[str, int, str] | None

    def dial_at(self) -> list[str]: ...


class Node(Protocol):
    """What the relay reads of the node whose game it relays (web/ is a front: it never imports net/)."""

    game_id: bytes | None
    is_host: bool
    interface: str | None
    port: int
    host_address: tuple[str, int] | None
    drop_after: float
    seat_key: str | None  # the game's seat key (protocol.md 14): the relay says only whether there is one
    done: asyncio.Event

    @property
    def members(self) -> Mapping[bytes, Member]: ...

    def seat_of_start(self, peer: bytes) -> bool: ...

    def host_decides_links(self) -> bool: ...

    def signed_addresses(self) -> list[tuple[str, int]]: ...


def wanted_port(text: str) -> int:
    """The port a page asks to listen on again (its port before a reload: the peers that dial it redial there);
    0 (any) for none or one that is not a port above 1023."""
    return int(text) if text.isdigit() and 1024 <= int(text) <= 65535 else 0


def origin_of(relay: tuple[str, int, str]) -> str:
    """The origin of the pages a relay at (address, port, token) serves: http://address:port."""
    address, port, _ = relay
    return f"http://[{address}]:{port}" if ":" in address else f"http://{address}:{port}"


def header(op: int, channel: int) -> bytes:
    return bytes([op]) + channel.to_bytes(4, "big")


def hello_text(game_id: bytes, host: tuple[str, int], port: int, claim: str, address: str, drop_after: float,
               keyed: bool) -> str:
    """The relay's first message on a tunnel (protocol.md 14, "The relay tunnel"; tunnel-vectors)."""
    return json.dumps({"game": game_id.hex(), "host": list(host), "port": port, "claim": claim, "address": address,
                       "drop_after": drop_after, "batch": True, "keyed": keyed})


def batches(messages: list[bytes]) -> list[bytes]:
    """Tunnel messages (op, channel, rest) as the fewest WebSocket messages, in order: one alone as itself, more
    in BATCHes whose (length, message) pairs hold at most MAX_BATCH bytes (protocol.md 14, "The relay tunnel";
    before session 45 a pair's 4-byte length was left out of the count as it was added: up to 4 bytes over)."""
    out: list[bytes] = []
    group: list[bytes] = []
    size = 0

    def close_group() -> None:
        if len(group) == 1:
            out.append(group[0])
        elif group:
            out.append(header(BATCH, 0) + b"".join(len(m).to_bytes(4, "big") + m for m in group))

    for message in messages:
        if group and size + 4 + len(message) > MAX_BATCH:
            close_group()
            group, size = [], 0
        group.append(message)
        size += 4 + len(message)
    close_group()
    return out


def unbatched(data: bytes) -> list[bytes] | None:
    """The tunnel messages of one WebSocket message, in order (a BATCH's, else itself); None if it is not well
    formed (shorter than an op and a channel, a BATCH whose lengths do not add up, or one in a BATCH)."""
    if len(data) < 5:
        return None
    if data[0] != BATCH:
        return [data]
    found = []
    at = 5
    while at < len(data):
        if at + 4 > len(data):
            return None
        size = int.from_bytes(data[at:at + 4], "big")
        message = data[at + 4:at + 4 + size]
        if size < 5 or len(message) != size or message[0] == BATCH:
            return None
        found.append(message)
        at += 4 + size
    return found


class Relay:
    """The relay of one node for its phone pages: `node()` is the node of the game now (a rematch: the next)."""

    def __init__(self, node: Callable[[], Node | None], interface: str, *, spare: int | None = None,
                 per_source: int = PER_SOURCE, host_gone: Callable[[Node], str | None] = lambda node: None) -> None:
        self.node = node
        self.host_gone = host_gone  # how the node's host left the lobby, if it did (net.spectator.host_gone_how)
        self.interface = interface
        if spare is None:
            soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
            soft = soft if soft != resource.RLIM_INFINITY else 1 << 20
            spare = max(2, min(TUNNELS, soft // (8 * (2 * CHANNELS + 1))))  # an eighth of the files at most
        self.spare = spare
        self.per_source = per_source
        self.tunnels: list[Tunnel] = []  # open, oldest first
        self.claims: dict[int, str] = {}  # port -> the claim given with it (a page asks for it back with that)
        self.closing: set[asyncio.Task] = set()  # tunnels being cut
        self.known: dict[str, str] = {}  # origins of the game's relays, oldest first -> where the host saw its member
        self.door = RelayDoor()  # the pages' joins, checked here: no wrong seat key comes from this node's address
        self.rates = DialRates()  # how fast unseated pages have this node dial (web.dialbound)
        self.knocks = Knocks()  # how fast others' connections reach the pages' ports from no member's address

    def remember(self) -> None:
        """Keep the origins of the relays the game's members name (protocol.md 14, a member's `relay`): a page one of
        them served may open its tunnel here once its own relay left (issue 26), even after that member is gone
        from the lobby (a spectator is removed when its link ends). At most ORIGINS, the newest, and at most
        ORIGINS_PER_SOURCE of members the host saw at one address: a stranger joining to watch again and again, a
        made-up relay each time, cannot push out the origin of a relay that left (the TV's, whose phones come here)
        without as many addresses (red team, session 29)."""
        node = self.node()
        for member in node.members.values() if node is not None else ():
            if member.relay is not None:
                origin = origin_of(member.relay)
                self.known.pop(origin, None)
                mine = [o for o, source in self.known.items() if source == member.host]
                for old in mine[:max(0, len(mine) - ORIGINS_PER_SOURCE + 1)]:  # one address: its newest few only
                    del self.known[old]
                self.known[origin] = member.host
        while len(self.known) > ORIGINS:
            del self.known[next(iter(self.known))]

    def origins(self) -> set[str]:
        """The origins of the pages of this game's relays (this one's own is the server's to add)."""
        self.remember()
        return set(self.known)

    def seated_ports(self) -> set[int]:
        """The ports the game's players listen at on this relay's address (a tunnel listening at one of them is a
        seat's page; a player elsewhere at a port a stranger could take here is none)."""
        node = self.node()
        if node is None:
            return set()
        anywhere = self.interface in ("", "0.0.0.0", "::")
        return {member.port for member in node.members.values()
                if member.role == "player" and (anywhere or self.interface in member.dial_at())}

    def seated(self, tunnel: Tunnel) -> bool:
        return tunnel.port is not None and tunnel.port in self.seated_ports()

    def claimed(self, port: int, claim: str) -> int:
        """`port` if `claim` is the one this relay gave with it, else 0 (any port)."""
        given = self.claims.get(port)
        return port if port and given is not None and hmac.compare_digest(given, claim) else 0

    def claim(self, port: int) -> str:
        """The claim of `port` (a new one unless the port has one); claims of ports neither a seat's nor a
        tunnel's are forgotten past CLAIMS."""
        if port not in self.claims:
            if len(self.claims) >= CLAIMS:
                keep = self.seated_ports() | {t.port for t in self.tunnels}
                self.claims = {p: c for p, c in self.claims.items() if p in keep}
            self.claims[port] = secrets.token_hex(16)
        return self.claims[port]

    def take_back(self, port: int, source: str) -> None:
        """The page that holds `port`'s claim comes back from `source`: a tunnel from there still listening at the port
        is one it left (a phone that lost the network closed nothing, and its tunnel waits for the pings it misses:
        web.guard.SILENT; a reload or a relay left and taken again may come before the old WebSocket's close is read; or
        the page is open in a second tab): closed now, its port free for the new one (red team, session 44: the page
        came back at another port, which its peers learn only from its next join or record, and dialled the old one
        meanwhile). One from another address keeps its port (the claim is the page's own, never shown: one that came
        from elsewhere is not taken on its word alone)."""
        for old in [t for t in self.tunnels if t.port == port and t.source == source]:
            old.port = None
            if old.server is not None:
                old.server.close()
            for writer in old.writers.values():  # its peers' links at the port, and its dials: the page left them
                writer.close()
            self._cut(old, b"taken back: this page opened a new connection", TAKEN_BACK)

    def room(self, source: str, port: int) -> None:
        """Make room for one more tunnel from `source` that asks to listen at `port`, or refuse it (503)."""
        seats = self.seated_ports()
        held = {t.port for t in self.tunnels}
        coming_back = port in seats and port not in held  # a seat's page again, at its port: always room
        unseated = [t for t in self.tunnels if t.port not in seats]
        mine = [t for t in unseated if t.source == source]
        if not coming_back and len(mine) >= self.per_source:
            raise web.HTTPServiceUnavailable(text=f"the phone page is open {self.per_source} times from {source} "
                                             "already")
        if len(unseated) < self.spare:
            return
        count = Counter(t.source for t in unseated)
        most = max(count, key=lambda s: (count[s], s == source))
        if not coming_back and count[most] <= len(mine) + 1:
            raise web.HTTPServiceUnavailable(text=f"the phone page is open {self.spare} times already")
        self._cut(next(t for t in unseated if t.source == most), b"cut: the phone page is open too many times")

    def _cut(self, tunnel: Tunnel, why: bytes, code: int = WSCloseCode.OK) -> None:
        """Cut `tunnel` for a newer one (room, take_back): out of the relay's tunnels, its page told `why` with
        `code` as its WebSocket closes (the close is kept in `closing` until it is done)."""
        self.tunnels.remove(tunnel)
        tunnel.cut = True
        if tunnel.ws.prepared:
            task = asyncio.ensure_future(tunnel.ws.close(code=code, message=why))
            self.closing.add(task)
            task.add_done_callback(self.closing.discard)

    def allowed(self) -> set[tuple[str, int]]:
        """The addresses a page may have dialled: the game's host and its players (as the host's lobby says), each
        at its port. Never a spectator's (a page dials none; anyone may join to watch, naming any port), nor a
        loopback address a member gave (Member.dial_at: a stranger's service on this laptop's 127.0.0.1)."""
        node = self.node()
        if node is None:
            return set()
        found = {self.host_address(node)}
        for member in node.members.values():
            if member.role != "player" or not 1 <= member.port <= 65535:
                continue
            for address in member.dial_at():
                found.add((address, member.port))
        found.update(node.signed_addresses())  # a player's own signed word on where it listens (protocol.md 14)
        return found

    def opening(self, target: tuple[str, int]) -> list[tuple[float, Tunnel, int]]:
        """The dials of unseated pages to `target` still opening (connecting, or read until the page's join is
        decided): (when it began, its tunnel, its channel), oldest first (web.dialbound: OPENING)."""
        seats = self.seated_ports()
        found = [(began, tunnel, channel) for tunnel in self.tunnels if tunnel.port not in seats
                 for channel, (to, began) in tunnel.targets.items() if to == target and tunnel.opening(channel)]
        return sorted(found, key=lambda f: f[0])

    def room_to_dial(self, tunnel: Tunnel, target: tuple[str, int]) -> bool:
        """Make room for one more opening dial of an unseated page to `target`, or say it has none: past OPENING,
        the oldest connected one of the page address holding the most goes, if it holds more than the newcomer's
        would (web.dialbound)."""
        found = self.opening(target)
        if len(found) < OPENING:
            return True
        count = Counter(t.source for _, t, _ in found)
        most = max(count, key=lambda s: (count[s], s == tunnel.source))
        if count[most] <= count[tunnel.source] + 1:
            return False
        for _, oldest, channel in found:
            if oldest.source == most and channel in oldest.writers:
                oldest.cut_dial(channel)
                return True
        return False

    def members_at(self) -> set[str]:
        """The addresses of the game's host and players (as the host's lobby says): their connections to a page's
        port are the game's, not bounded by Knocks."""
        node = self.node()
        if node is None:
            return set()
        found = {self.host_address(node)[0]}
        for member in node.members.values():
            if member.role == "player":
                found.update((member.host, *member.dial_at()))
        return found

    def host_address(self, node: Node) -> tuple[str, int]:
        """Where the game's host listens: this node, or the host it joined. A host listening on every interface
        is dialled at the relay's own address, so that it (and, through it, the others) sees the page at an
        address they can reach, not at 127.0.0.1."""
        if node.is_host or node.host_address is None:
            own = self.interface if self.interface not in ("", "0.0.0.0", "::") else "127.0.0.1"
            return (node.interface or own, node.port)
        return node.host_address

    async def serve(self, request: web.Request, keep: Callable[[], None] = lambda: None) -> web.WebSocketResponse:
        """One page's tunnel, until its WebSocket closes (then every connection of it is closed). `keep()` tells the
        page server's connection bound that this connection is a seat's (never shed), once it is."""
        node = self.node()
        if node is None or node.game_id is None:
            raise web.HTTPServiceUnavailable(text="no game here yet")
        port = self.claimed(wanted_port(request.query.get("port", "")), request.query.get("claim", ""))
        source = request.remote or "?"
        if port:
            self.take_back(port, source)
        self.room(source, port)
        # Pings and pongs come to Tunnel.run (autoping off): any frame from the page shows it is there, and a pong
        # read late (this node busy) does not end a live page's tunnel (web.guard.keep_alive).
        ws = web.WebSocketResponse(max_msg_size=MAX_TUNNEL_MESSAGE, autoping=False)
        tunnel = Tunnel(self, ws, source, keep)
        tunnel.batching = request.query.get("batch") == "1"
        self.tunnels.append(tunnel)
        try:
            await opened(ws, request)
            tunnel.page = Page(ws, request.transport)
            if tunnel.cut:  # cut meanwhile for a newer one: closed at once
                await ws.close(message=b"cut: the phone page is open too many times")
            else:
                await tunnel.run(node, port)
        finally:
            if tunnel in self.tunnels:
                self.tunnels.remove(tunnel)
        return ws


class Tunnel:
    """The channels of one page's WebSocket: TCP connections dialled for it or accepted on its port."""

    def __init__(self, relay: Relay, ws: web.WebSocketResponse, source: str = "?",
                 keep: Callable[[], None] = lambda: None) -> None:
        self.relay = relay
        self.ws = ws
        self.source = source  # the address the page came from
        self.port: int | None = None  # where it listens for the page (once it does)
        self.keep = keep
        self.kept = False  # a seat's page: told to the page server's connection bound
        self.looked = 0.0  # when we last looked whether the page holds a seat
        self.cut = False  # cut for a newer tunnel (Relay._cut: room, take_back)
        self.writers: dict[int, asyncio.StreamWriter] = {}
        self.dialling: set[int] = set()  # channels the page asked to dial, not yet connected
        self.asked: dict[int, asyncio.Task] = {}  # the dials the page asked for, until connected or failed
        self.inbound: dict[int, str] = {}  # channels accepted on the page's port, oldest first -> their source
        self.watches: dict[int, Watch] = {}  # channels dialled, read until the page's join is decided (relaydoor)
        self.targets: dict[int, tuple[tuple[str, int], float]] = {}  # channels dialled -> (where, when)
        self.dials = Bucket(TUNNEL_BURST, TUNNEL_RATE)  # this page's rate of dials (web.dialbound)
        self.tasks: set[asyncio.Task] = set()
        self.next_inbound = 1 << 31  # channels the relay numbers (accepted); the page numbers below this
        self.server: asyncio.base_events.Server | None = None
        self.outbox: list[bytes] = []  # messages for the page, sent as one batch by `flush`
        self.sent: asyncio.Future[None] | None = None  # done when the outbox's batch went (or the page is gone)
        self.sending = asyncio.Lock()  # one flush sends at a time, in the order they took their messages (FIFO)
        self.batching = False  # the page takes BATCHes (it asked with batch=1)
        self.page: Page | None = None  # the WebSocket as web.guard.keep_alive watches it, once it is open

    def spawn(self, coro) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def run(self, node: Node, port: int = 0) -> None:
        try:
            self.server = await asyncio.start_server(self.accepted, self.relay.interface, port)
        except OSError:  # taken meanwhile: any port (the peers learn it from the page's join, via the host)
            port = 0
            self.server = await asyncio.start_server(self.accepted, self.relay.interface, 0)
        for _ in range(8):  # a port of the system's choice that is a seat's: not for a page without its claim
            if port or self.server.sockets[0].getsockname()[1] not in self.relay.seated_ports():
                break
            self.server.close()
            self.server = await asyncio.start_server(self.accepted, self.relay.interface, 0)
        try:
            port = self.port = self.server.sockets[0].getsockname()[1]
            self.seat_check()
            host = self.relay.host_address(node)
            assert node.game_id is not None  # checked by Relay.serve
            try:
                await self.ws.send_str(hello_text(node.game_id, host, port, self.relay.claim(port),
                                                  self.relay.interface, node.drop_after, node.seat_key is not None))
            except ConnectionError:  # the page went (or was cut) at once: nothing to relay, nothing to log
                return
            self.spawn(self.farewell(node))
            page = self.page
            assert page is not None  # Relay.serve opened the socket before it runs its tunnel
            # Closed only after web.guard.SILENT pings in a row got nothing back, each counted only where this process
            # was awake for its wait: aiohttp's heartbeat closed a live page's tunnel when its pong, there in time,
            # was read late (this node busy: its turn's checks, a sealed deal) and the page had to come back. While a
            # message of the page's is being handled no pong is read: the page counts as heard.
            self.spawn(keep_alive(page, first=guard.HEARTBEAT))
            async for message in self.ws:
                if await page.control(message):
                    continue
                found = unbatched(message.data) if message.type == WSMsgType.BINARY else None
                if found is None:
                    break
                with page.handling():
                    for data in found:
                        await self.on_message(data)
        finally:
            self.server.close()
            for writer in self.writers.values():
                writer.close()
            for task in list(self.tasks):
                task.cancel()

    async def farewell(self, node: Node) -> None:
        """The node leaves because its host left the lobby before the START (net.spectator.host_gone_before_start:
        it says so in its own line and exits): the page is told so as its tunnel closes (HOST_GONE, reason
        "host gone: bye" or "host gone: refused"), and stops there, dialling no other relay (web/peer/src/page.ts)."""
        await node.done.wait()
        how = self.relay.host_gone(node)
        if how is not None:
            with contextlib.suppress(Exception):
                await self.ws.close(code=HOST_GONE, message=host_gone_reason(how).encode())

    def seat_check(self) -> None:
        """Once the page holds a seat, its connection is a seat's page's for the page server (never shed)."""
        now = time.monotonic()
        if not self.kept and now - self.looked >= 1.0:
            self.looked = now
            if self.relay.seated(self):
                self.kept = True
                self.keep()

    async def on_message(self, data: bytes) -> None:
        self.seat_check()
        op, channel, rest = data[0], int.from_bytes(data[1:5], "big"), data[5:]
        if op == DATA:
            watch = self.watches.get(channel)
            if watch is not None and channel in self.writers:
                rest = await self.checked(channel, watch, rest)
                if watch.stranger:  # it sent more than a hello before its peer said one: no link of ours
                    await self.unheard(channel)
                    return
            writer = self.writers.get(channel)
            if writer is not None and rest:
                writer.write(rest)
                if writer.transport.get_write_buffer_size() > MAX_BUFFERED:  # its peer takes nothing: cut it
                    self.writers.pop(channel, None)
                    writer.close()
                    await self.tell(CLOSE, channel, b"the peer does not take what is sent")
        elif op == CLOSE:
            writer = self.writers.pop(channel, None)
            watch = self.watches.pop(channel, None)
            if writer is not None:
                if watch is not None:  # the bytes it held for a frame still to come whole: a pipe keeps them
                    writer.write(watch.unread())
                writer.close()
            dialling = self.asked.pop(channel, None)
            if dialling is not None:  # a dial the page gave up (web/peer/src/tunnel.ts: DIAL_WITHIN): not opened
                dialling.cancel()  # (red team, session 44: opened later, its connection was held for nobody)
                self.targets.pop(channel, None)
        elif op == DIAL:
            task = self.spawn(self.dial(channel, rest))
            if channel not in self.asked:  # (a second DIAL of a channel dialling: refused by `dial`, not kept)
                self.asked[channel] = task
                task.add_done_callback(lambda done: self.asked.pop(channel, None) if self.asked.get(channel) is done
                                       else None)

    async def checked(self, channel: int, watch: Watch, data: bytes) -> bytes:
        """What of the page's bytes on a channel it dialled goes on: its first join only once the relay's door let it
        (protocol.md 14, "The seat key": a phone relay checks its pages' joins). A refused join goes nowhere: the page
        gets a `refuse` frame after the peer's whole frames, and the connection is closed both ways."""
        out = watch.up(data)  # (once it reads no more, `pump` passes what of the peer's it held, and forgets it)
        if not watch.waiting:
            return out
        why = await self.relay.door.why_not(self.relay.node(), self.source, watch)
        if why is None:
            return out + watch.passed()
        watch.refuse()
        writer = self.writers.pop(channel, None)
        if writer is not None:
            writer.close()
            refusal = encode(["refuse", why])
            await self.tell(DATA, channel, len(refusal).to_bytes(4, "big") + refusal)
            await self.tell(CLOSE, channel, b"closed by the phone relay: the join was refused")
        return b""

    async def tell(self, op: int, channel: int, rest: bytes = b"") -> None:
        """Send a message to the page with the others of this pass of the event loop (one batch), and wait until
        it went: a connection whose bytes the page does not take waits, as its sender's does."""
        if self.ws.closed:
            return
        self.outbox.append(header(op, channel) + rest)
        sent = self.sent
        if sent is None:
            sent = self.sent = asyncio.get_running_loop().create_future()
            self.spawn(self.flush(sent))
        await asyncio.wait([sent])  # not cancelled with a teller: the others wait on it too

    async def flush(self, sent: asyncio.Future[None]) -> None:
        try:
            await asyncio.sleep(0)  # the connections this pass has woken put theirs in too
            self.sent = None
            messages, self.outbox = self.outbox, []
            async with self.sending:  # a send may pause for the page: a later flush must not overtake it
                for data in batches(messages) if self.batching else messages:
                    if self.ws.closed:
                        break
                    with contextlib.suppress(ConnectionError, RuntimeError):
                        await self.ws.send_bytes(data)
        finally:
            if self.sent is sent:
                self.sent = None
            if not sent.done():
                sent.set_result(None)

    async def dial(self, channel: int, rest: bytes) -> None:
        try:
            address, port = json.loads(rest)
            target = (str(address), int(port))
        except (ValueError, TypeError, RecursionError, OverflowError):  # a page's bytes (anyone's who reads its link):
            # deep nesting or a port of 1e400 ended the task with a traceback in the log, unanswered (session 32)
            await self.tell(CLOSE, channel, b"a dial names [address, port]")
            return
        dialled = len(self.writers) - len(self.inbound) + len(self.dialling)
        if channel >= 1 << 31 or channel in self.writers or channel in self.dialling or dialled >= CHANNELS:
            await self.tell(CLOSE, channel, f"at most {CHANNELS} connections, numbered below 2^31".encode())
            return
        if target not in self.relay.allowed():
            await self.tell(CLOSE, channel, b"not an address of this game's members")
            return
        seated = self.relay.seated(self)
        why = self.relay.rates.why_not(self.source, self.dials, seated)
        if why is None and not seated and not self.relay.room_to_dial(self, target):
            why = OPENING_DIALS
        if why is not None:
            quiet.warning(self.source, f"dials: {why}", "refused a dial through the phone relay for the page at %s: %s",
                          self.source, why)
            await self.tell(CLOSE, channel, why.encode())
            return
        self.dialling.add(channel)  # taken before the wait: a second DIAL of it, or past the cap, is refused
        self.targets[channel] = (target, time.monotonic())
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(*target), DIAL_TIMEOUT)
        except ConnectionRefusedError as exc:  # nothing listens there (a host gone: the page stops, page_node.ts)
            self.targets.pop(channel, None)
            await self.tell(CLOSE, channel, f"{REFUSED} nothing listens at {target[0]}:{target[1]} ({exc.strerror})"
                            .encode()[:200])
            return
        except (OSError, TimeoutError) as exc:
            self.targets.pop(channel, None)
            await self.tell(CLOSE, channel, f"cannot connect: {exc}".encode()[:200])
            return
        finally:
            self.dialling.discard(channel)
            if self.asked.get(channel) is asyncio.current_task():
                del self.asked[channel]  # connected or failed: a CLOSE now is a channel's, not a dial's
        if self.ws.closed:  # the page went while we dialled: nothing to pipe it to
            writer.close()
            self.targets.pop(channel, None)
            return
        self.writers[channel] = writer
        self.watches[channel] = Watch()
        await self.tell(OPENED, channel)
        await self.pump(channel, reader, writer)

    async def unheard(self, channel: int) -> None:
        """Close a channel the page dialled whose peer said no p2pnimmt hello first (relaydoor.Watch.stranger)."""
        writer = self.writers.pop(channel, None)
        self.watches.pop(channel, None)
        self.targets.pop(channel, None)
        if writer is not None:
            writer.close()
            await self.tell(CLOSE, channel, NOT_A_PEER.encode())

    def opening(self, channel: int) -> bool:
        """Whether a channel the page dialled is still opening: connecting, or read until its join is decided."""
        if channel in self.dialling:
            return True
        watch = self.watches.get(channel)
        return watch is not None and watch.reading and channel in self.writers

    def cut_dial(self, channel: int) -> None:
        """Close a channel the page dialled that is still opening, for a newer dial of another page (OPENING)."""
        writer = self.writers.pop(channel, None)
        self.watches.pop(channel, None)
        self.targets.pop(channel, None)
        if writer is not None:
            writer.close()  # (told to the page on its own: another page's WebSocket need not wait on this one)
            self.spawn(self.tell(CLOSE, channel, b"cut: too many connections still opening through the phone relay"))

    async def accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A peer dialled the page's port. Nobody can lock the page out: past INBOUND a new connection cuts the
        oldest of the address that holds the most (as web.guard does for pages), so one who opens many cuts
        only its own, and the page's own dials have a budget of their own (CHANNELS)."""
        peer = writer.get_extra_info("peername")
        source = str(peer[0]) if peer else "?"
        own = writer.get_extra_info("sockname")
        if (not own or source != str(own[0])) and source not in self.relay.members_at() \
                and not self.relay.knocks.let_in(source):  # closed before the page hears of it (web.dialbound)
            quiet.warning(source, "knocks at a page's port", "closed a connection to the port of the phone page at %s "
                          "from %s: too many from an address where no player of the game is", self.source, source)
            writer.transport.abort()
            return
        if len(self.inbound) >= INBOUND:
            held = Counter(self.inbound.values())
            most = max(held, key=lambda s: (held[s], s == source))
            oldest = next(c for c, s in self.inbound.items() if s == most)
            self.inbound.pop(oldest)
            cut = self.writers.pop(oldest, None)
            if cut is not None:
                cut.close()
                await self.tell(CLOSE, oldest, b"cut: too many connections to the page's port")
        channel = self.next_inbound
        self.next_inbound += 1
        self.inbound[channel] = source
        self.writers[channel] = writer
        await self.tell(ACCEPTED, channel)
        await self.pump(channel, reader, writer)

    async def pump(self, channel: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """The connection's bytes to the page, as they come, until either side closes it."""
        why = "closed"
        try:
            while True:
                data = await reader.read(READ)
                if not data:
                    break
                watch = self.watches.get(channel)
                if watch is not None:  # whole frames only, while the page's join is not decided (relaydoor)
                    if watch.refused:
                        break
                    heard = watch.heard
                    data = watch.down(data)
                    if watch.stranger:  # its first bytes are no p2pnimmt hello: not one byte either way
                        why = NOT_A_PEER
                        break
                    if watch.heard and not heard:  # the page's bytes held till now go on
                        held = await self.checked(channel, watch, b"")
                        if watch.refused or watch.stranger or self.writers.get(channel) is not writer:
                            break  # (refused, or cut meanwhile: told to the page already)
                        if held:
                            writer.write(held)
                    if not watch.reading:
                        self.watches.pop(channel, None)
                if data:
                    await self.tell(DATA, channel, data)
        except (ConnectionError, OSError) as exc:
            why = str(exc)
        finally:
            self.inbound.pop(channel, None)
            self.watches.pop(channel, None)
            self.targets.pop(channel, None)
            if self.writers.pop(channel, None) is not None:
                writer.close()
                await self.tell(CLOSE, channel, why.encode()[:200])
