"""web.guard with real sockets on 127.0.0.x: connections bounded per address and in all, the newest taking the
place of the oldest from the address that holds the most, a seat's page's socket never shed, idle ones closed."""

from __future__ import annotations

import asyncio

import aiohttp
from deadlines import OUTER

from p2pnimmt.web.guard import Gate
from p2pnimmt.web.server import WebServer
from p2pnimmt.web.view import View


async def until(condition, what: str) -> None:
    end = asyncio.get_running_loop().time() + OUTER
    while not condition():
        assert asyncio.get_running_loop().time() < end, f"no {what} within {OUTER} s"
        await asyncio.sleep(0.02)


async def connect(port: int, ip: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(ip, 0))


async def test_connections_are_bounded_by_address_and_in_all_and_a_seat_is_never_shed() -> None:
    server = WebServer("127.0.0.1", 0)
    server.gate = gate = Gate(per_source=3, total=5)
    seat = server.add(View(lambda: {"kind": "seat"}, lambda intent: asyncio.sleep(0)))
    await server.start()
    writers = []
    try:
        for _ in range(5):
            writers.append((await connect(server.port, "127.0.0.2"))[1])
        await until(lambda: gate.refused == 2, "two refused")
        assert len(gate.open["127.0.0.2"]) == 3  # the address's bound
        for _ in range(2):
            writers.append((await connect(server.port, "127.0.0.3"))[1])
        await until(lambda: gate.count == 5, "every place taken")
        # Every place taken: the seat's page (another address) takes the place of the oldest of 127.0.0.2.
        async with aiohttp.ClientSession() as http:
            ws = await http.ws_connect(f"ws://127.0.0.1:{server.port}/ws?t={seat}",
                                       headers={"Origin": f"http://127.0.0.1:{server.port}"})
            assert (await ws.receive_json(timeout=OUTER)) == {"kind": "seat"}
            assert len(gate.open["127.0.0.2"]) == 2 and gate.count == 5
            # More newcomers shed the biggest address's oldest, never the seat's socket.
            for ip in ("127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7"):
                writers.append((await connect(server.port, ip))[1])
            await until(lambda: "127.0.0.2" not in gate.open, "127.0.0.2 shed")
            assert gate.count <= 5 and [c.kept for c in gate.open["127.0.0.1"]] == [True]
            await ws.send_str("{}")
            assert (await ws.receive_json(timeout=OUTER)) == {"kind": "seat"}  # still served
            await ws.close()
    finally:
        for writer in writers:
            writer.close()
        await server.close()


async def test_an_idle_connection_is_closed_and_its_place_freed() -> None:
    server = WebServer("127.0.0.1", 0)
    await server.start()
    try:
        reader, writer = await connect(server.port, "127.0.0.77")
        await until(lambda: "127.0.0.77" in server.gate.open, "its place taken")
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
        assert await asyncio.wait_for(reader.read(), OUTER) == b""  # closed by the server
        await until(lambda: "127.0.0.77" not in server.gate.open, "its place freed")
        writer.close()
    finally:
        await server.close()


async def pings_until_closed(ws, answer) -> int:
    """Read the page's socket as a page would, answering the server's pings for which `answer(n)` (n: 1 for the
    first) says so; the count of pings when the server closed it (or when `answer` returned None: stop reading)."""
    pings = 0
    while True:
        message = await ws.receive(timeout=OUTER)
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING,
                            aiohttp.WSMsgType.ERROR):
            return pings
        if message.type == aiohttp.WSMsgType.PING:
            pings += 1
            said = answer(pings)
            if said is None:
                return pings
            if said:
                await ws.pong(message.data)


async def test_a_page_that_misses_a_pong_keeps_its_socket_and_a_silent_one_is_closed(monkeypatch) -> None:
    """A pong that does not come in time (a page, or this process, held up on a loaded machine) does not end the
    page's socket: the next ping's pong keeps it (before, aiohttp's heartbeat closed it half a HEARTBEAT after the
    ping, and what the person did meanwhile was lost: session 36). A page that answers none of SILENT pings in a row
    is closed."""
    from p2pnimmt.web import guard

    monkeypatch.setattr(guard, "HEARTBEAT", 0.2)  # pings 0.2 s apart: the test counts them, it never waits on time
    server = WebServer("127.0.0.1", 0)
    seat = server.add(View(lambda: {"kind": "seat"}, lambda intent: asyncio.sleep(0)))
    await server.start()
    url, own = f"ws://127.0.0.1:{server.port}/ws?t={seat}", {"Origin": f"http://127.0.0.1:{server.port}"}
    try:
        async with aiohttp.ClientSession() as http:
            late = await http.ws_connect(url, headers=own, autoping=False)
            # Every other pong missed, for ten pings: the socket is still open (and still answers an intent).
            assert await pings_until_closed(late, lambda n: None if n > 10 else n % 2 == 0) == 11
            await late.send_str("{}")
            assert (await late.receive_json(timeout=OUTER)) == {"kind": "seat"}
            assert not late.closed
            await late.close()
            silent = await http.ws_connect(url, headers=own, autoping=False)
            assert await pings_until_closed(silent, lambda n: False) >= guard.SILENT  # closed: no pong ever came
            assert silent.closed or (await silent.receive(timeout=OUTER)).type in (aiohttp.WSMsgType.CLOSED,
                                                                                   aiohttp.WSMsgType.ERROR)
    finally:
        await server.close()
