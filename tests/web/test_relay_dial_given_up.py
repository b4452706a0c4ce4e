"""A dial the page gave up is not held by the relay (red team, session 44): the page's CLOSE for a channel whose dial
is still opening (the page waits DIAL_WITHIN, web/peer/src/tunnel.ts, then closes it) ends that dial, and the relay
keeps no connection to the member for nobody. Before, the CLOSE found no connection yet and was dropped; the dial
opened after it and its connection to the host was held (and piped to a page that ignored it) for as long as the
tunnel lasted. Real TCP and a real WebSocket on 127.0.0.1, the relay's own aiohttp route."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
from deadlines import OUTER
from relaygame import Game
from test_relay_bounds import HOST_HELLO, frames, relay_for, started

from p2pnimmt.web.relay import CLOSE, DIAL, OPENED, batches, header


async def test_a_dial_the_page_closed_before_it_opened_holds_no_connection() -> None:
    open_now: set[asyncio.StreamWriter] = set()
    done = asyncio.Event()

    async def host(reader, writer) -> None:  # a member that says its hello and holds each connection till its end
        open_now.add(writer)
        writer.write(HOST_HELLO)
        await reader.read()  # (until the relay closes it)
        open_now.discard(writer)
        writer.close()

    host_server, host_port = await started(host)
    runner, url = await relay_for(Game(host_port))
    dial = json.dumps(["127.0.0.1", host_port]).encode()
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(url + "?batch=1")
        json.loads((await ws.receive(timeout=OUTER)).data)
        # The page dials channel 1 and gives it up at once (as it does past DIAL_WITHIN), then dials channel 2.
        for message in batches([header(DIAL, 1) + dial, header(CLOSE, 1)]):
            await ws.send_bytes(message)
        await ws.send_bytes(header(DIAL, 2) + dial)
        seen = await frames(ws, lambda op, channel, rest: op == OPENED and channel == 2)
        assert (OPENED, 1) not in [(op, channel) for op, channel, _ in seen], seen
        deadline = time.monotonic() + OUTER
        while len(open_now) != 1 and time.monotonic() < deadline:  # channel 2's only (on main: 1's too, for ever)
            await asyncio.sleep(0.05)
        assert len(open_now) == 1, f"{len(open_now)} connections to the host held, for 1 dial the page kept"
        await ws.close()
    done.set()
    await runner.cleanup()
    host_server.close()
    await host_server.wait_closed()
