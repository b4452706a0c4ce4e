"""Room for the phone page's tunnels (issue 22 item 3 on the relay of issue 26): the phone's link is on the TV, in
its QR code, so anyone in the room can open tunnels. Strangers hold a bounded number, from one address and in
all; a page that holds a seat (a player of the game listens at its tunnel's port) always has room and is never
cut, whether it comes back at its port or became a seat on a tunnel it already had. Real WebSockets and TCP on
127.0.0.1 (strangers from 127.0.0.2 and up), the relay's own aiohttp route."""

from __future__ import annotations

import asyncio
import json
import socket

import aiohttp
import pytest
from aiohttp import WSMsgType, web
from deadlines import OUTER
from relaygame import Game, Member
from screens import until

from p2pnimmt.web.relay import DIAL, OPENED, Relay, header


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def tunnel(url: str, source: str, port: int | None = None, claim: str = ""):
    """A tunnel from `source` (asking to listen at `port`, with `claim`): (session, socket and its hello) or
    (session, status)."""
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(source, 0)))
    try:
        ws = await session.ws_connect(url + (f"?port={port}&claim={claim}" if port else ""))
    except aiohttp.WSServerHandshakeError as refused:
        return session, refused.status
    hello = await ws.receive(timeout=OUTER)
    assert hello.type == WSMsgType.TEXT, hello
    return session, (ws, json.loads(hello.data))


async def cut(ws, look: float = 1.0) -> bool:
    """Whether the relay closed `ws` (read until it does; False if it is still open after a look of `look` s: a
    short one where it must stay open, OUTER where it must be cut, for a loaded machine)."""
    try:
        message = await ws.receive(timeout=look)
    except TimeoutError:
        return False
    return message.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING)


async def test_strangers_take_a_bounded_number_of_tunnels_and_a_seat_always_has_room() -> None:
    async def host(reader, writer) -> None:
        await reader.read()
        writer.close()

    host_server = await asyncio.start_server(host, "127.0.0.1", 0)
    game = Game(host_server.sockets[0].getsockname()[1])
    app = web.Application()
    relay = Relay(lambda: game, "127.0.0.1", spare=3, per_source=2)
    app.router.add_get("/relay", relay.serve)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/relay"
    sessions = []
    try:
        # A page that will become a seat, and strangers: two from one address, a third from it is refused.
        session, (seated, seated_hello) = await tunnel(url, "127.0.0.2")
        sessions.append(session)
        strangers = []
        for source in ("127.0.0.3", "127.0.0.3"):
            session, (ws, _hello) = await tunnel(url, source)
            sessions.append(session)
            strangers.append(ws)
        session, status = await tunnel(url, "127.0.0.3")
        sessions.append(session)
        assert status == 503  # per address
        # Every place taken (3): a newcomer from an address holding one place cuts the oldest of 127.0.0.3's two.
        session, (newcomer, _hello) = await tunnel(url, "127.0.0.4")
        sessions.append(session)
        end = await strangers[0].receive(timeout=OUTER)  # cut, told why (a normal close: the page may open again)
        assert (end.type, end.data, end.extra) == (WSMsgType.CLOSE, 1000, "cut: the phone page is open too many "
                                                   "times"), end
        # All hold one place now, but .2 and .3 and .4: another newcomer is refused (it would cut someone's only).
        session, status = await tunnel(url, "127.0.0.5")
        sessions.append(session)
        assert status == 503
        # The page of 127.0.0.2 joins the game: a player listens at its tunnel's port. From now on no stranger
        # cuts it, whatever they open, and the strangers' tunnels are 3 at most besides it.
        game.members[b"p" * 32] = Member("player", seated_hello["port"])
        await seated.send_bytes(header(DIAL, 1) + json.dumps(["127.0.0.1", game.port]).encode())
        message = await seated.receive(timeout=OUTER)  # its dial still works (and told the relay it is a seat)
        assert message.data[0] == OPENED
        for n in range(6, 30):
            session, got = await tunnel(url, f"127.0.0.{n}")
            sessions.append(session)
            if isinstance(got, tuple):
                strangers.append(got[0])
            session, got = await tunnel(url, f"127.0.0.{n}")  # a second from each: this one cuts another's
            sessions.append(session)
            if isinstance(got, tuple):
                strangers.append(got[0])
        assert not await cut(seated) and not seated.closed
        assert sum(t.source != "127.0.0.2" for t in relay.tunnels) <= 3
        # A seat's page comes back at its port with its claim (its tunnel closed, a reload): it has room though
        # every place is taken and every address holds one. Before it, a stranger who asks for that port (anyone
        # can read a seat's port: its peers dial it) without the claim, or with a wrong one, gets another port
        # and is no seat (before the claims, it took the port and with it the seat's room: the page was refused).
        back_port, claim = seated_hello["port"], seated_hello.get("claim", "")
        await seated.close()
        await until(lambda: all(t.port != back_port for t in relay.tunnels), "the seat's tunnel closed")
        for wrong in ("", "0" * 32, claim[:-1]):
            session, got = await tunnel(url, "127.0.0.98", back_port, wrong)
            sessions.append(session)
            assert not isinstance(got, tuple) or got[1]["port"] != back_port, got
        assert all(t.port != back_port for t in relay.tunnels) and len(claim) == 32
        session, got = await tunnel(url, "127.0.0.99", back_port, claim)
        sessions.append(session)
        assert isinstance(got, tuple) and got[1]["port"] == back_port, got
        seated = got[0]
        # ... and a stranger asking for a port a seat's open tunnel holds is no seat: bounded as any stranger.
        session, got = await tunnel(url, "127.0.0.100", back_port, claim)
        sessions.append(session)
        if isinstance(got, tuple):
            assert got[1]["port"] != back_port
        assert not await cut(seated)
    finally:
        for session in sessions:
            await session.close()
        await runner.cleanup()
        host_server.close()


async def test_a_player_elsewhere_lends_its_port_to_no_stranger() -> None:
    """A stranger that asks for the port of a player on another machine (free here) is no seat: bounded as any."""
    game = Game(9)
    app = web.Application()
    relay = Relay(lambda: game, "127.0.0.1", spare=1, per_source=1)
    app.router.add_get("/relay", relay.serve)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/relay"
    elsewhere = free_port()

    class Remote(Member):
        def dial_at(self) -> list[str]:
            return ["192.0.2.7"]

    game.members[b"r" * 32] = Remote("player", elsewhere)
    sessions = []
    try:
        session, got = await tunnel(url, "127.0.0.2")
        sessions.append(session)
        assert isinstance(got, tuple)
        session, got = await tunnel(url, "127.0.0.3", elsewhere)  # every place taken, one each: no seat, no room
        sessions.append(session)
        assert got == 503, got
    finally:
        for session in sessions:
            await session.close()
        await runner.cleanup()


async def test_a_relay_takes_a_page_from_the_origin_of_a_relay_its_game_named_and_no_other() -> None:
    # Issue 26, item 4: a phone page whose relay node left opens its tunnel here, from that node's origin. This relay
    # takes its own origin and those of the relays the game's members name (protocol.md 14, a member's `relay`), even
    # once that member is gone from the lobby (a spectator is removed when its link ends); no other origin, and
    # never without the token.
    from p2pnimmt.web.server import PHONE_HEADERS, WebServer

    async def host(reader, writer) -> None:
        await reader.read()
        writer.close()

    host_server = await asyncio.start_server(host, "127.0.0.1", 0)
    game = Game(host_server.sockets[0].getsockname()[1])
    gone = free_port()
    game.members[b"j" * 16] = Member("spectator", free_port(), relay=("127.0.0.1", gone, "A" * 24))
    server = WebServer("127.0.0.1", 0)
    relay = Relay(lambda: game, "127.0.0.1")
    token = server.add_relay(relay)
    await server.start()
    url = f"ws://127.0.0.1:{server.port}/relay?t={token}"
    try:
        relay.remember()  # the lobby changed (app.web: a lobby listener)
        del game.members[b"j" * 16]  # that member left the lobby
        async with aiohttp.ClientSession() as http:
            for origin in (f"http://127.0.0.1:{server.port}", f"http://127.0.0.1:{gone}"):
                async with http.ws_connect(url, headers={"Origin": origin}) as ws:
                    hello = await ws.receive(timeout=OUTER)
                    assert hello.type == WSMsgType.TEXT and "port" in json.loads(hello.data), origin
            for origin in ("http://evil.example", f"http://127.0.0.1:{gone + 1}", "null", None):
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await http.ws_connect(url, headers={"Origin": origin} if origin else {})
                assert refused.value.status == 403, origin
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:  # the origin, but not the token
                await http.ws_connect(f"ws://127.0.0.1:{server.port}/relay?t={'A' * 24}",
                                      headers={"Origin": f"http://127.0.0.1:{gone}"})
            assert refused.value.status == 403
            # The phone page may open such a WebSocket (its CSP names ws:), and still runs only this server's script (it
            # may compile WebAssembly, never evaluate a string).
            async with http.get(f"http://127.0.0.1:{server.port}/phone?t={token}") as page:
                policy = page.headers["Content-Security-Policy"]
                assert policy == PHONE_HEADERS["Content-Security-Policy"]
                assert "connect-src 'self' ws:;" in policy and "script-src 'self' 'wasm-unsafe-eval';" in policy
                assert "unsafe-eval'" not in policy.replace("'wasm-unsafe-eval'", "")
    finally:
        await server.close()
        host_server.close()
