"""A malicious relay for the phone page's tests (issue 26): it serves the phone page itself and passes the page's
tunnel on to a node's real relay (web.relay), but tampers with what goes to the page. Each channel's bytes are
cut into the mesh's frames (net.connection); once the game has started it

- flips a byte of a relayed copy of a message (a message its link's peer did not sign: the page has the
  sender's own copy too, so the game goes on) -> the page must name a bad signature;
- sends a message its link's peer signed and sent a second time (a replay) -> the page must name a replay;
- injects a message signed by a key that is not at the table -> the page must name an unknown sender;
- withholds a message its link's peer signed (passes nothing of it on) -> nothing to name (a lost frame looks the
  same): the page gets it elsewhere (another peer's copy, or its pull) and the game goes on;
- then closes the page's WebSocket once, in the middle of the game -> the page connects again (through this relay
  again) and goes on with the same seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import ClientSession, WSMsgType, web

from p2pnimmt.net.connection import frame
from p2pnimmt.protocol.codec import decode
from p2pnimmt.protocol.envelope import open_envelope, seal
from p2pnimmt.protocol.identity import Identity, peer_id
from p2pnimmt.web.relay import DATA, header, unbatched
from p2pnimmt.web.server import HEADERS, PHONE_HEADERS, static_files


@dataclass
class Channel:
    buffer: bytes = b""
    peer: bytes | None = None  # the link's peer, from its hello


@dataclass
class Plan:
    """What the relay did, in order (the test checks the page named each)."""

    done: list[str] = field(default_factory=list)
    started: bool = False
    cut: bool = False  # close the page's WebSocket now
    flipped: bytes | None = None  # the sender of the message flipped (the page may lack its chain for a while)
    kept: tuple[bytes, int, bytes] | None = None  # (sender, seq, frame) of a message to send again later


def whole_frames(buffer: bytes) -> tuple[list[bytes], bytes]:
    """The whole frames (4-byte length, then its bytes) off the front of `buffer`, each with its length; what is
    left."""
    whole = []
    while len(buffer) >= 4 and len(buffer) >= 4 + int.from_bytes(buffer[:4], "big"):
        size = int.from_bytes(buffer[:4], "big")
        whole.append(buffer[:4 + size])
        buffer = buffer[4 + size:]
    return whole, buffer


class PageRelay:
    """A relay in front of a node's real one, for the phone page's tests: it serves the phone page itself and passes
    each of its tunnels on to the real relay (`tunnel_url`) both ways (`_relay`, the one pump), through hooks a
    subclass changes: `opened` (a tunnel's own state: its channels by number), `upward` and `downward` (what goes on
    for one WebSocket message of the page's, of the real relay's), `said` (the real relay's text), `cut_off` (close
    the page's WebSocket now) and `ended` (awaited once the real relay's side is over, before the page's closes)."""

    autoclose = True  # whether the page's close is answered at once (aiohttp's), or only as the tunnel ends

    def __init__(self, real_phone_url: str) -> None:
        self.real = real_phone_url  # http://127.0.0.1:PORT/phone?t=TOKEN, perhaps with #SEATKEY
        self.origin = real_phone_url.split("/phone")[0]
        self.token, hash_, seat_key = real_phone_url.split("t=", 1)[1].partition("#")
        self.fragment = hash_ + seat_key  # the seat key stays in the page's link (protocol.md 14): the page proves it
        self.files = static_files()
        self.runner: web.AppRunner | None = None
        self.url = ""
        self.handlers: list[asyncio.Task] = []  # the tunnels' handlers, cancelled at `close`

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/phone", self._page)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/relay", self._relay)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}/phone?t={self.token}{self.fragment}"

    async def close(self) -> None:
        for task in self.handlers:
            task.cancel()
        if self.runner is not None:
            await self.runner.cleanup()

    async def _page(self, request: web.Request) -> web.Response:
        body, kind = self.files["phone.html"]
        return web.Response(body=body, content_type=kind, charset="utf-8", headers=PHONE_HEADERS)  # as the real server serves the page

    async def _static(self, request: web.Request) -> web.Response:
        body, kind = self.files[request.match_info["name"]]
        return web.Response(body=body, content_type=kind, headers=HEADERS)

    async def _relay(self, request: web.Request) -> web.StreamResponse:
        """One tunnel of the page's, passed on to the real relay both ways through the hooks, until either side
        ends it (or `cut_off`); then the page's WebSocket is closed."""
        self.handlers.append(asyncio.current_task())  # type: ignore[arg-type]
        channels = self.opened(request)
        page = web.WebSocketResponse(max_msg_size=1 << 20, autoclose=self.autoclose)
        await page.prepare(request)
        async with ClientSession() as session, session.ws_connect(self.tunnel_url(request), origin=self.origin,
                                                                   max_msg_size=1 << 20) as real:

            async def up() -> None:
                async for message in page:
                    if message.type != WSMsgType.BINARY:
                        break
                    for out in self.upward(channels, message.data):
                        with contextlib.suppress(ConnectionError):
                            await real.send_bytes(out)
                await real.close()

            uplink = asyncio.ensure_future(up())
            try:
                async for message in real:
                    if message.type == WSMsgType.TEXT:
                        self.said(message.data)
                        await page.send_str(message.data)
                    elif message.type == WSMsgType.BINARY:
                        for out in self.downward(channels, message.data):
                            await page.send_bytes(out)
                        if self.cut_off():
                            break
                    else:
                        break
                await self.ended()
            finally:
                uplink.cancel()
                await page.close()
        return page

    def opened(self, request: web.Request) -> dict[int, Any]:
        """A new tunnel's state, passed to `upward` and `downward`: its channels by number (none yet)."""
        return {}

    def upward(self, channels: dict[int, Any], data: bytes) -> list[bytes]:
        """What goes to the real relay for one WebSocket message of the page's: unchanged."""
        return [data]

    def downward(self, channels: dict[int, Any], data: bytes) -> list[bytes]:
        """What goes to the page for one WebSocket message of the real relay's: unchanged."""
        return [data]

    def said(self, text: str) -> None:
        """The real relay's text message (the tunnel's game, port and claim), passed on to the page as it is."""

    def cut_off(self) -> bool:
        """Whether to close the page's WebSocket now (asked after each message passed down)."""
        return False

    async def ended(self) -> None:
        """Awaited once the real relay's side is over (or cut off), before the page's WebSocket is closed."""

    def tunnel_url(self, request: web.Request) -> str:
        """The real relay's WebSocket URL for the tunnel `request` asked for (its port, claim and batch)."""
        asked = "".join(f"&{k}={request.query.get(k, '')}" for k in ("port", "claim", "batch"))
        return self.origin.replace("http://", "ws://") + f"/relay?t={self.token}{asked}"


class EvilRelay(PageRelay):
    def __init__(self, real_phone_url: str) -> None:
        super().__init__(real_phone_url)
        self.plan = Plan()
        self.game: bytes | None = None

    def said(self, text: str) -> None:
        self.game = bytes.fromhex(json.loads(text)["game"])

    def cut_off(self) -> bool:
        cut, self.plan.cut = self.plan.cut, False
        return cut

    def downward(self, channels: dict[int, Channel], data: bytes) -> list[bytes]:
        """What goes to the page for one message from the real relay (each of a batch's, one by one)."""
        return [out for one in unbatched(data) or () for out in self.tamper_one(channels, one)]

    def tamper_one(self, channels: dict[int, Channel], data: bytes) -> list[bytes]:
        op, number = data[0], int.from_bytes(data[1:5], "big")
        if op != DATA:
            return [data]
        channel = channels.setdefault(number, Channel())
        whole, channel.buffer = whole_frames(channel.buffer + data[5:])
        return [header(DATA, number) + f for raw in whole for f in self.frames(channel, raw)]

    def frames(self, channel: Channel, raw: bytes) -> list[bytes]:
        value = decode(raw[4:], 1 << 20)
        if isinstance(value, list) and len(value) == 5 and value[0] == "p2pnimmt-hello":
            channel.peer = peer_id(value[3])
        if not (isinstance(value, list) and len(value) == 2 and value[0] == "msg" and isinstance(value[1], bytes)):
            return [raw]
        wire = value[1]
        env = open_envelope(wire)
        if env.kind == "START":
            self.plan.started = True
            return [raw]
        done = self.plan.done
        if not self.plan.started or env.kind == "DROP":
            return [raw]
        if "flip" not in done and channel.peer is not None and env.sender != channel.peer and env.seq > 0:
            done.append("flip")
            self.plan.flipped = env.sender
            at = wire.index(env.prev)  # a byte of the signed part (its previous hash): still a message, not its signer's
            return [frame(["msg", wire[:at] + bytes([wire[at] ^ 1]) + wire[at + 1:]])]
        if "replay" not in done and "flip" in done and env.sender == channel.peer and env.sender != self.plan.flipped:
            # A message its sender delivered, sent again three of its messages later on the same link: by then the
            # page has taken it (what came before it came on this link, in order), so the copy is a replay. (Sent
            # twice at once, the first copy might still wait for an earlier message, and the second be no replay.)
            if self.plan.kept is None:
                self.plan.kept = (env.sender, env.seq, raw)
            elif self.plan.kept[0] == env.sender and env.seq >= self.plan.kept[1] + 3:
                done.append("replay")
                return [raw, self.plan.kept[2]]
            return [raw]
        if "inject" not in done and "replay" in done and self.game is not None:
            done.append("inject")
            forged = seal(Identity.generate(), self.game, 0, bytes(32), "ROUND_END",
                          {"round": 0, "penalties": [0], "scores": [0], "state": bytes(32)})
            return [raw, frame(["msg", forged.wire])]
        if "withhold" not in done and "inject" in done and env.sender == channel.peer and env.kind == "PLAY_COMMIT":
            # A message its link's peer signed, never passed on: as a lost frame is, until another peer's copy of it
            # or the page's own pull (heads) brings it.
            done.append("withhold")
            return []
        if "cut" not in done and "withhold" in done and env.kind == "PLAY_REVEAL":
            done.append("cut")
            self.plan.cut = True
            return []  # and the page's tunnel is closed: this copy is lost with it
        return [raw]
