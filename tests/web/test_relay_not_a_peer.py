"""A phone relay is no open proxy to the services of its LAN (red team, session 41). The relay dials for a page the
game's host and players at the ports and addresses they name (their `join`, their `where` record: a player's own
word), loopback left out since session 29. A player with the seat key (anyone in the room) could still name any
port, and any address but loopback: the relay laptop's own LAN address (where a service a host firewall keeps from
the LAN answers the laptop itself), a printer's or a router's web page, a machine of a VPN only the relay laptop is
in. The relay then piped the page's bytes there (the page's first frame no hello: it read no more and passed them as
they came), and the service's answer back: a raw TCP tunnel for whoever holds the phone's link.

Now the relay passes nothing of the page's on a connection it dialled before the peer's first frame is a p2pnimmt
hello (every node and page says its hello as a connection opens), and a peer whose first bytes are anything else
gets not one byte of the page's, nor the page one of its: the relay closes it (`not a p2pnimmt peer: ...`).

Real processes, a real WebSocket client (aiohttp), a real TCP service on 127.0.0.1. Everything here runs on one
machine, so the member's address the relay allows (where the host saw it: 127.0.0.1) is the relay's own machine;
on a LAN the same dial goes to whatever address the member's `addresses` or `where` record names, which no relay
can tell from a player's own (a player listens where it says)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from attacker import Attacker
from deadlines import OUTER
from test_front_attacks import LO, PHONE_URL, SEAT_URL, open_tunnels
from test_relay_bounds import frames

from p2pnimmt.protocol.seatkey import join_proof, seat_secret
from p2pnimmt.web.relay import CLOSE, DATA, DIAL, NOT_A_PEER, OPENED, header

BANNER = b"SSH-2.0-OpenSSH_9.6 relay-laptop\r\n"
REQUEST = b"GET /admin/secret HTTP/1.0\r\nHost: printer\r\n\r\n"


class Service:
    """A TCP service (not p2pnimmt) on 127.0.0.1: it says `banner` first where it has one (SSH, SMTP), then reads
    until its client closes; `got` is what it read."""

    def __init__(self, banner: bytes) -> None:
        self.banner = banner
        self.got: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.banner:
            writer.write(self.banner)
        read = b""
        try:
            while chunk := await reader.read(4096):
                read += chunk
        except ConnectionError:
            pass
        if not self.got.done():
            self.got.set_result(read)
        writer.close()

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


@pytest.mark.parametrize("banner", [b"", BANNER], ids=["waits-for-a-request", "speaks-first"])
async def test_the_phone_relay_pipes_nothing_to_a_service_a_player_names(tmp_path: Path, procs, banner: bytes) -> None:
    """Mallory takes a seat (it has the seat key: the phone's link carries it) naming the service's port as its own,
    then opens a tunnel with the phone's link from another address and dials the service through the relay: the
    relay may dial it (a player's address and port), but the service reads nothing of the page's (its request), and
    the page reads nothing of the service's (its banner); the relay closes the connection saying why. Before: the
    service read the request and the page its banner."""
    service = Service(banner)
    await service.start()
    host = procs(["host", "--web", "--no-open", "--seats", "3", *LO, "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    port = host.wait_for(SEAT_URL).group(2)
    phone_token = host.wait_for(PHONE_URL).group(1)
    seat_key = re.search(r"phone: http://\S+", host.text()).group(0).partition("#")[2].split("-")[0]
    game_port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    mallory = await asyncio.to_thread(Attacker.dial, game_port, None, 10.0)
    sessions: list = []
    try:
        join = {"name": "mallory", "role": "player", "bot": False, "port": service.port, "addresses": [],
                "proof": join_proof(seat_secret(mallory.game_id, seat_key), mallory.game_id, *mallory.nonces,
                                    mallory.identity.public_key)}
        mallory.send("join", join)
        lobby = await asyncio.to_thread(mallory.lobby, OUTER)
        me = next(m for m in lobby["members"] if m["name"] == "mallory")
        assert me["role"] == "player" and me["port"] == service.port, me
        sessions, tunnels, refused = await open_tunnels(port, phone_token, ["127.0.0.8"], 1)
        assert len(tunnels) == 1, refused
        ws = tunnels[0]
        json.loads((await ws.receive(timeout=OUTER)).data)  # the relay's hello
        await ws.send_bytes(header(DIAL, 1) + json.dumps(["127.0.0.1", service.port]).encode())
        seen = await frames(ws, lambda op, channel, rest: channel == 1 and op in (OPENED, CLOSE))
        assert (OPENED, 1) in [(op, channel) for op, channel, _ in seen], seen  # a player's port: the relay dials it
        await ws.send_bytes(header(DATA, 1) + REQUEST)
        if banner:  # the service speaks first: the relay decides on its first bytes
            seen = await frames(ws, lambda op, channel, rest: channel == 1 and op in (DATA, CLOSE))
            told = b"".join(rest for op, channel, rest in seen if op == DATA and channel == 1)
            assert told == b"", f"the page read the service's banner through the relay: {told!r}"
            assert (CLOSE, 1, NOT_A_PEER.encode()) in seen, seen
        await ws.send_bytes(header(CLOSE, 1))  # (the page gives up on it, as its handshake's 5 s would)
        got = await asyncio.wait_for(service.got, OUTER)  # read until the relay closed it
        assert got == b"", f"the relay piped the page's bytes to a service that is no peer: {got!r}"
        await ws.close()
    finally:
        for session in sessions:
            await session.close()
        mallory.close()
        service.close()
    host.stop()
