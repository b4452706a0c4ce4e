"""The phone relay's bounds (issue 26, review): a stranger who opens many connections to a page's port cuts only
its own oldest, never the page's own dials; a channel is taken before its dial's wait (a second DIAL of it is
refused); a peer that takes nothing is cut once a megabyte waits for it. Real TCP and a real WebSocket on
127.0.0.1, the relay's own aiohttp route."""

from __future__ import annotations

import asyncio
import json

import aiohttp
from aiohttp import WSMsgType, web
from relaygame import Game

from p2pnimmt.web.relay import ACCEPTED, CHANNELS, CLOSE, DATA, DIAL, INBOUND, OPENED, Relay, header


async def started(handler) -> tuple[asyncio.base_events.Server, int]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def relay_for(game: Game) -> tuple[web.AppRunner, str]:
    app = web.Application()
    app.router.add_get("/relay", Relay(lambda: game, "127.0.0.1").serve)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}/relay"


async def frames(ws, until, timeout: float = 30.0) -> list[tuple[int, int, bytes]]:
    """The relay's binary messages (op, channel, rest) up to and including the first for which until(...)."""
    got = []
    while True:
        message = await ws.receive(timeout=timeout)
        assert message.type == WSMsgType.BINARY, message
        data = message.data
        got.append((data[0], int.from_bytes(data[1:5], "big"), data[5:]))
        if until(*got[-1]):
            return got


async def test_a_flood_on_the_pages_port_cuts_its_own_and_the_page_still_dials() -> None:
    done = asyncio.Event()

    async def host(reader, writer) -> None:  # takes nothing: it only holds its connections, until the end
        await done.wait()
        writer.close()

    host_server, host_port = await started(host)
    runner, url = await relay_for(Game(host_port))
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(url)
        hello = json.loads((await ws.receive(timeout=10)).data)
        assert hello["host"] == ["127.0.0.1", host_port]
        flood = [await asyncio.open_connection("127.0.0.1", hello["port"]) for _ in range(INBOUND + 6)]
        count = {"accepted": 0}

        def all_accepted(op: int, channel: int, rest: bytes) -> bool:
            count["accepted"] += op == ACCEPTED
            return count["accepted"] == INBOUND + 6

        seen = await frames(ws, all_accepted)
        seen += await drain(ws)  # the last cut may follow the last ACCEPTED
        cuts = [ch for op, ch, rest in seen if op == CLOSE and rest.startswith(b"cut")]
        accepted = [ch for op, ch, _ in seen if op == ACCEPTED]
        assert len(accepted) == INBOUND + 6 and cuts == accepted[:6], (cuts, accepted[:8])
        for reader, _writer in flood[:6]:  # the oldest six were cut: they read the end of the stream
            assert await asyncio.wait_for(reader.read(), 10) == b""
        # The page's own dials have their own budget: the flood took none of it.
        for channel in (1, 2):
            await ws.send_bytes(header(DIAL, channel) + json.dumps(["127.0.0.1", host_port]).encode())
        opened = await frames(ws, lambda op, ch, rest: op == OPENED and ch == 2)
        assert {ch for op, ch, _ in opened if op == OPENED} == {1, 2}, opened
        # One channel number, dialled twice at once: the second is refused, not a second connection.
        await ws.send_bytes(header(DIAL, 7) + json.dumps(["127.0.0.1", host_port]).encode())
        await ws.send_bytes(header(DIAL, 7) + json.dumps(["127.0.0.1", host_port]).encode())
        answers = await frames(ws, lambda op, ch, rest: ch == 7 and op == CLOSE)
        assert [(op, ch) for op, ch, _ in answers if ch == 7][-1] == (CLOSE, 7)
        assert f"at most {CHANNELS} connections".encode() in answers[-1][2]
        # A peer that takes nothing: past a megabyte waiting for it, the channel is closed (no memory held).
        chunk = header(DATA, 1) + bytes(200_000)
        closed = None
        for _ in range(400):  # up to 80 MB: more than any socket buffer here
            await ws.send_bytes(chunk)
            with_close = [m for m in await drain(ws) if m[0] == CLOSE and m[1] == 1]
            if with_close:
                closed = with_close[0]
                break
        assert closed is not None and b"does not take" in closed[2], closed
        await ws.close()
        for _reader, writer in flood:
            writer.close()
    done.set()
    await runner.cleanup()
    host_server.close()
    await host_server.wait_closed()


async def drain(ws) -> list[tuple[int, int, bytes]]:
    """Whatever the relay has sent by now (without waiting for more)."""
    got = []
    while True:
        try:
            message = await ws.receive(timeout=0.05)
        except TimeoutError:
            return got
        if message.type != WSMsgType.BINARY:
            return got
        data = message.data
        got.append((data[0], int.from_bytes(data[1:5], "big"), data[5:]))
