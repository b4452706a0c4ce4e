"""A stranger with the phone's link (the TV's QR code) and a lobby place (red team, session 29): the phone relay dials
only the game's host and players, and never a loopback address a member merely named. Before, any member's `host`
and `addresses` counted, spectators' too: a stranger joined to watch naming `addresses: ["127.0.0.1"]` and `port`
of a service that listens on the relay laptop's loopback only, and the relay dialled it there for the stranger's
tunnel and piped it the stranger's bytes (a web site's, a database's port on 127.0.0.1). Real processes, a real
WebSocket client (aiohttp), raw sockets on 127.0.0.1; the stranger comes from 127.0.0.7, as a second machine."""

from __future__ import annotations

import asyncio
import json
import re
import socket
from pathlib import Path

import aiohttp
import pytest
from attacker import Attacker
from deadlines import OUTER
from relaygame import Game, Member
from test_front_attacks import LO, PHONE_URL, SEAT_URL, open_tunnels
from test_relay_bounds import frames

from p2pnimmt.protocol.seatkey import join_proof, seat_secret
from p2pnimmt.web.relay import CLOSE, DATA, DIAL, OPENED, ORIGINS_PER_SOURCE, Relay, header, origin_of

STRANGER = "127.0.0.7"


class Victim:
    """A service of the relay's laptop that listens on 127.0.0.1 only (a local database, a dev web server): it
    counts who reached it and what they sent."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]

    def received(self) -> bytes:
        """What the first connection that reached it sent within a second (b"" for none)."""
        try:
            conn, _ = self.sock.accept()
        except TimeoutError:
            return b""
        with conn:
            conn.settimeout(1.0)
            try:
                return conn.recv(4096) or b"(connected)"
            except TimeoutError:
                return b"(connected)"

    def close(self) -> None:
        self.sock.close()


@pytest.mark.parametrize("role", ["spectator", "player"])
async def test_the_phone_relay_dials_no_loopback_service_a_stranger_names(tmp_path: Path, procs, role: str) -> None:
    """The stranger joins the lobby (to watch, or a free seat) naming 127.0.0.1 and the victim's port, then opens a
    tunnel with the phone's link and dials the victim through it: refused ("not an address of this game's
    members"), and the victim hears nothing; a dial to the host still opens. A spectator's own address (where the
    host saw it) is no player's either: refused too. Since session 34 a join needs the seat key: the stranger has
    it, for it holds the phone's link (the TV's QR code), which carries it after #."""
    victim = Victim()
    host = procs(["host", "--web", "--no-open", "--seats", "3", *LO, "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    port = host.wait_for(SEAT_URL).group(2)
    phone_token = host.wait_for(PHONE_URL).group(1)
    # the phone link's seat key (protocol.md 14): a stranger who reads the link has it too
    seat_key = re.search(r"phone: http://\S+", host.text()).group(0).partition("#")[2].split("-")[0]  # (then its secret)
    assert seat_key == host.wait_for(r"code: \w{4}-(\w{4})").group(1)  # the key the host's screen shows
    game_port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    stranger = await asyncio.to_thread(Attacker.dial, game_port, None, 10.0, STRANGER)
    sessions: list[aiohttp.ClientSession] = []
    try:
        join = {"name": "mallory", "role": role, "bot": False, "port": victim.port, "addresses": ["127.0.0.1"]}
        # proven on this link as any joiner does (its handshake's nonces)
        join["proof"] = join_proof(seat_secret(stranger.game_id, seat_key), stranger.game_id, *stranger.nonces,
                                   stranger.identity.public_key)
        stranger.send("join", join)
        lobby = await asyncio.to_thread(stranger.lobby, OUTER)
        me = next(m for m in lobby["members"] if m["name"] == "mallory")
        assert me["host"] == STRANGER and me["addresses"] == ["127.0.0.1"] and me["role"] == role, me
        sessions, tunnels, refused = await open_tunnels(port, phone_token, ["127.0.0.8"], 1)
        assert len(tunnels) == 1, refused
        ws = tunnels[0]
        hello = json.loads((await ws.receive(timeout=OUTER)).data)
        await ws.send_bytes(header(DIAL, 1) + json.dumps(["127.0.0.1", victim.port]).encode())
        await ws.send_bytes(header(DATA, 1) + b"GET /secret HTTP/1.0\r\n\r\n")
        await ws.send_bytes(header(DIAL, 2) + json.dumps([STRANGER, victim.port]).encode())
        await ws.send_bytes(header(DIAL, 3) + json.dumps(hello["host"]).encode())  # the host: a member to dial
        seen = await frames(ws, lambda op, channel, rest: op == OPENED and channel == 3)
        answers = {channel: (op, rest) for op, channel, rest in seen if channel in (1, 2)}
        assert answers.get(1) == (CLOSE, b"not an address of this game's members"), answers
        if role == "spectator":
            assert answers.get(2) == (CLOSE, b"not an address of this game's members"), answers
        assert await asyncio.to_thread(victim.received) == b"", "the relay dialled a loopback service for a stranger"
        await ws.close()
    finally:
        for session in sessions:
            await session.close()
        stranger.close()
        victim.close()
    host.stop()


def test_a_stranger_joining_to_watch_again_and_again_keeps_the_origin_of_a_relay_that_left() -> None:
    """The TV's node (a spectator at 127.0.0.5) relays phones, then leaves: the phones come to this relay from the
    TV's origin, which it remembers (issue 26). A stranger at one address (127.0.0.7) joins to watch 100 times, a
    made-up relay each time, each seen by the lobby (as app.web's listener tells the relay): the TV's origin is still
    taken, and the stranger holds ORIGINS_PER_SOURCE of the remembered ones. Before, the newest 64 were kept
    whoever named them: the TV's was pushed out and its phones refused ("unknown origin")."""
    game = Game(4000)
    relay = Relay(lambda: game, "127.0.0.1")
    tv = ("127.0.0.5", 8080, "T" * 24)
    game.members[b"tv"] = Member("spectator", 1, relay=tv, host="127.0.0.5")
    relay.remember()
    del game.members[b"tv"]  # its link ended: a spectator is removed
    for n in range(100):
        game.members[b"m%d" % n] = Member("spectator", 1, relay=("127.0.0.7", 10000 + n, "M" * 24), host=STRANGER)
        relay.remember()
        del game.members[b"m%d" % n]
    assert origin_of(tv) in relay.origins()
    assert sum(o.startswith("http://127.0.0.7:") for o in relay.origins()) == ORIGINS_PER_SOURCE
