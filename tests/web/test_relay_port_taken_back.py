"""A page that comes back to its relay with its port's claim gets that port back even while its old tunnel is still
open there (red team, session 44): a phone that lost the network closed nothing, and the relay holds its tunnel until
the pings it misses end it (web.guard.SILENT); a reload, or a relay the page left and takes again, may come before
the old WebSocket's close is read; the page may be open in a second tab. Before, the new tunnel listened at another
port, which the page's peers learn only from its next join or record: they dialled the old one meanwhile. Now the old
tunnel is closed (TAKEN_BACK: the page there says it plays elsewhere), and so are the connections it held. Real TCP
and real WebSockets on 127.0.0.1, the relay's own aiohttp route."""

from __future__ import annotations

import asyncio
import json

import aiohttp
from aiohttp import WSMsgType
from deadlines import OUTER
from relaygame import Game
from test_relay_bounds import frames, relay_for, started

from p2pnimmt.web.relay import ACCEPTED, TAKEN_BACK


async def test_a_page_back_with_its_claim_gets_its_port_while_its_old_tunnel_is_open() -> None:
    host_server, host_port = await started(lambda reader, writer: None)
    runner, url = await relay_for(Game(host_port))
    async with aiohttp.ClientSession() as http:
        old = await http.ws_connect(url + "?batch=1")
        hello = json.loads((await old.receive(timeout=OUTER)).data)
        # a peer of the page's links to it at its port (through the old tunnel)
        _reader, writer = await asyncio.open_connection("127.0.0.1", hello["port"])
        await frames(old, lambda op, channel, rest: op == ACCEPTED)
        # the page comes back (the old WebSocket not closed: its phone lost the network, or it is a second tab)
        new = await http.ws_connect(url + f"?batch=1&port={hello['port']}&claim={hello['claim']}")
        again = json.loads((await new.receive(timeout=OUTER)).data)
        assert again["port"] == hello["port"], (again["port"], hello["port"])  # on main: another port
        assert again["claim"] == hello["claim"]
        end = await old.receive(timeout=OUTER)  # the old tunnel is told why it ends
        while end.type == WSMsgType.BINARY:  # (what it was sent before)
            end = await old.receive(timeout=OUTER)
        assert (end.type, end.data, end.extra) == (WSMsgType.CLOSE, TAKEN_BACK, "taken back: this page opened a new "
                                                   "connection"), end
        assert await asyncio.wait_for(_reader.read(), OUTER) == b""  # its peer's link at the old tunnel: closed
        writer.close()
        # the port is the new tunnel's: a peer's link there reaches it
        _reader2, writer2 = await asyncio.open_connection("127.0.0.1", hello["port"])
        await frames(new, lambda op, channel, rest: op == ACCEPTED)
        writer2.close()
        await new.close()
    await runner.cleanup()
    host_server.close()
    await host_server.wait_closed()
