"""A phone page's tunnel in Python, for the relay's tests: a WebSocket to a node's relay from a loopback address of
the test's choice (another machine comes from another address), a DIAL of the game's host through it, the real
handshake over that channel with a fresh key, and a `join` proving a seat key as the page does
(web/peer/src/page_node.ts), or a wrong one, or none: what a stranger who read the relay's token off the LAN (a
member's `relay` in the host's lobby frames) can do. No p2pnimmt code runs on its side but the framing and the
seat key's arithmetic (protocol.seatkey).

    page = await TunnelPage.open(phone_url, "127.0.0.2")   # http://127.0.0.1:P/phone?t=TOKEN (the fragment dropped)
    kind, payload = await page.join("7Q2K")                # ("lobby", frame) or ("refuse", why) or ("closed", why)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from typing import Any

import aiohttp
from aiohttp import WSMsgType

from p2pnimmt.net.connection import FRAME_LIMIT, HELLO, frame, transcript_of
from p2pnimmt.protocol.codec import decode
from p2pnimmt.protocol.gamecode import CODE_ALPHABET
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.seatkey import join_proof, seat_secret
from p2pnimmt.web.relay import CLOSE, DATA, DIAL, OPENED, header, unbatched

WAIT = 30.0


def wrong_key(right: str, n: int = 0) -> str:
    """A seat key that is not `right` (the n-th of the alphabet that differs in its first character)."""
    others = [ch for ch in CODE_ALPHABET if ch != right[0]]
    return others[n % len(others)] + right[1:]


class TunnelPage:
    """One tunnel (WebSocket) to a node's phone relay; each `join` dials the game's host on a channel of its own."""

    def __init__(self, http: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse, hello: dict) -> None:
        self.http = http
        self.ws = ws
        self.hello = hello  # the relay's: game, host, port, ...
        self.game = bytes.fromhex(hello["game"])
        self.channel = 0
        self.waiting: list[tuple[int, int, bytes]] = []  # messages read, not yet taken

    @classmethod
    async def open(cls, phone_url: str, source: str) -> TunnelPage:
        """A tunnel at the relay of `phone_url` (its fragment, the seat key, is never sent: dropped here too)."""
        assert source.startswith("127."), source
        origin, query = phone_url.split("#")[0].split("/phone?", 1)
        token = dict(p.split("=", 1) for p in query.split("&"))["t"]
        http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(source, 0)))
        try:
            ws = await http.ws_connect(f"{origin.replace('http', 'ws', 1)}/relay?t={token}",
                                       headers={"Origin": origin})
            message = await ws.receive(timeout=WAIT)
            assert message.type == WSMsgType.TEXT, message
        except BaseException:
            await http.close()
            raise
        return cls(http, ws, json.loads(message.data))

    async def close(self) -> None:
        await self.ws.close()
        await self.http.close()

    async def _next(self, channel: int) -> tuple[int, bytes]:
        """The relay's next message on `channel`: (op, rest)."""
        while True:
            for found in self.waiting:
                if found[1] == channel:
                    self.waiting.remove(found)
                    return found[0], found[2]
            message = await self.ws.receive(timeout=WAIT)
            assert message.type == WSMsgType.BINARY, message
            self.waiting += [(m[0], int.from_bytes(m[1:5], "big"), m[5:]) for m in unbatched(message.data) or ()]

    async def join(self, seat_key: str | None, name: str = "mallory", identity: Identity | None = None,
                   then: tuple[bytes, ...] = (), until: str = "") -> tuple[str, Any]:
        """Dial the game's host through the relay, shake hands as `identity` (a fresh key), and join as player `name`
        proving `seat_key` (none: no proof). The answer: ("lobby", frame), ("refuse", why), or ("closed", why) when
        the channel closed first. Given `then` (frames) and `until` (a frame kind): once the lobby frame came, those
        frames are sent, and the answer is the first frame of kind `until`, or ("closed", why)."""
        me = identity or Identity.generate()
        secret = await asyncio.to_thread(seat_secret, self.game, seat_key) if seat_key is not None else None
        self.channel += 1
        channel = self.channel
        await self.ws.send_bytes(header(DIAL, channel) + json.dumps(self.hello["host"]).encode())
        op, rest = await self._next(channel)
        if op == CLOSE:
            return "closed", rest.decode()
        assert op == OPENED, (op, rest)
        buffer = b""
        frames: list[Any] = []

        async def read() -> Any:
            nonlocal buffer
            while not frames:
                op, rest = await self._next(channel)
                if op == CLOSE:
                    raise EOFError(rest.decode())
                assert op == DATA, op
                buffer += rest
                while len(buffer) >= 4 and len(buffer) >= 4 + int.from_bytes(buffer[:4], "big"):
                    size = int.from_bytes(buffer[:4], "big")
                    frames.append(decode(buffer[4:4 + size], FRAME_LIMIT))
                    buffer = buffer[4 + size:]
            return frames.pop(0)

        try:
            _, _, game, their_key, their_nonce = await read()  # the listener speaks first
            nonce = secrets.token_bytes(16)
            signed = transcript_of(game, nonce, their_nonce, me.public_key, their_key)
            data = frame([HELLO, 1, game, me.public_key, nonce]) + frame(["auth", me.sign(signed)])
            await self.ws.send_bytes(header(DATA, channel) + data)
            auth = await read()
            assert auth[0] == "auth", auth
            join: dict[str, Any] = {"name": name, "role": "player", "bot": False, "port": self.hello["port"],
                                    "addresses": []}
            if secret is not None:
                join["proof"] = join_proof(secret, game, nonce, their_nonce, me.public_key)
            await self.ws.send_bytes(header(DATA, channel) + frame(["join", join]) + frame(["heads", []]))
            while True:
                kind, payload = await read()
                if kind == "lobby" and until:
                    await self.ws.send_bytes(header(DATA, channel) + b"".join(then))
                    while kind != until:
                        kind, payload = await read()
                if kind in ("refuse", "lobby", until):
                    return kind, payload
        except EOFError as closed:
            return "closed", str(closed)
        finally:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self.ws.send_bytes(header(CLOSE, channel))
