"""A phone page's port at its relay takes a burst then a rate of connections from an address where no player of the
game is (web.dialbound: Knocks; red team, session 35: each connection costs the page a signature and a verification
in its one JavaScript thread, benchmarks/attacks/phone_port_flood.py), and any number from a member's.

Real processes on 127.0.0.1: a host and bob, who serves the phone page (`join CODE-KEY --web`); the page is a tunnel
in Python (tests/web/tunnel_page.py, from 127.0.0.3), which counts the connections its relay tells it of (ACCEPTED).
The stranger dials the page's port from 127.0.0.2; the game's members are at 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path

from aiohttp import WSMsgType
from tunnel_page import TunnelPage

from p2pnimmt.web.dialbound import KNOCK_BURST, KNOCK_RATE
from p2pnimmt.web.relay import ACCEPTED, unbatched

LO = ["--interface", "127.0.0.1"]
PHONE_URL = r"phone: (http://127\.0\.0\.1:\d+/phone\?t=[\w-]+(?:&lang=\w+)?#\w{4})"
DIALS = 3 * KNOCK_BURST


def knock(port: int, source: str, times: int) -> None:
    """Connect to the page's port from `source` `times` times, each dropped at once."""
    for _ in range(times):
        socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0)).close()


async def accepted(page: TunnelPage, expected: int, seconds: float = 3.0) -> int:
    """The connections the relay tells the page of (ACCEPTED) until `expected` came or `seconds` with none more."""
    found = 0
    while found < expected:
        try:
            message = await page.ws.receive(timeout=seconds)
        except TimeoutError:
            break
        assert message.type == WSMsgType.BINARY, message
        found += sum(1 for m in unbatched(message.data) or () if m[0] == ACCEPTED)
    return found


async def test_a_strangers_connections_to_a_phone_pages_port_are_bounded_a_members_are_not(tmp_path: Path,
                                                                                          procs) -> None:
    host = procs(["host", "--headless", "--seats", "5", "--name", "ann", *LO, "--rounds", "1", "--no-points"],
                 tmp_path / "ann.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    bob = procs(["join", code, "--web", "--no-open", "--name", "bob", *LO], tmp_path / "bob.out",
                env={"HOME": str(tmp_path)})
    page = await TunnelPage.open(bob.wait_for(PHONE_URL).group(1), "127.0.0.3")
    try:
        port = page.hello["port"]
        began = time.monotonic()
        await asyncio.to_thread(knock, port, "127.0.0.2", DIALS)
        took = time.monotonic() - began
        let_in = await accepted(page, DIALS)
        assert let_in <= KNOCK_BURST + KNOCK_RATE * took + 1, (let_in, took)  # the rest closed before the page heard
        assert let_in >= KNOCK_BURST, let_in  # its burst reaches the page
        assert "closed a connection to the port of the phone page" in bob.text()
        # From the members' address: every one reaches the page.
        await asyncio.to_thread(knock, port, "127.0.0.1", DIALS)
        assert await accepted(page, DIALS) == DIALS
    finally:
        await page.close()
