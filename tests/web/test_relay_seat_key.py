"""No stranger spends a phone relay's address at the host (protocol.md 14, "The seat key": *A phone relay checks its
pages' joins*; the residual session 34 left open, closed in session 35).

A page's links reach the host from its relay node's address, and the relay's token is in the host's lobby frames,
which are not encrypted on the LAN. Before, a stranger who read it opened a tunnel at that relay and sent wrong
proofs through it: the host charged them to the relay node's address, and after 8 of them every new phone page
behind that relay was refused unchecked ("too many wrong seat keys") while the stranger went on guessing. Now the
relay checks each page's join itself and charges a wrong one to the page's own address.

Real processes on 127.0.0.1: a host, and bob, a member who joined with the key and serves the phone page
(`join CODE-KEY --web`). The stranger (from 127.0.0.2) and an honest page in Python (127.0.0.3) are
tests/web/tunnel_page.py; the honest phone is a real Chromium (from 127.0.0.1) at bob's phone link."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from deadlines import OUTER
from test_web_phone_presence import PHONE, seated_phone
from tunnel_page import TunnelPage, wrong_key

from p2pnimmt.app.web import start_phone
from p2pnimmt.engine import Settings
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.seatkey import WRONG_BURST, WRONG_EVERY, seat_secret
from p2pnimmt.web import relaydoor

LO = ["--interface", "127.0.0.1"]
PHONE_URL = r"phone: (http://127\.0\.0\.1:\d+/phone\?t=[\w-]+(?:&lang=\w+)?#\w{4})"


def names(lobby: object) -> list[str]:
    assert isinstance(lobby, dict), lobby
    return [m["name"] for m in lobby["members"]]


async def test_a_stranger_with_a_relays_token_keeps_no_new_phone_out_and_stays_bounded(tmp_path: Path, procs,
                                                                                       browser) -> None:
    host = procs(["host", "--headless", "--seats", "5", "--name", "ann", *LO, "--rounds", "1", "--no-points"],
                 tmp_path / "ann.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    right = code.split("-")[1]
    bob = procs(["join", code, "--web", "--no-open", "--name", "bob", *LO], tmp_path / "bob.out",
                env={"HOME": str(tmp_path)})
    phone_url = bob.wait_for(PHONE_URL).group(1)
    assert phone_url.endswith(f"#{right}")  # bob holds the key: he joined with it
    stranger = await TunnelPage.open(phone_url, "127.0.0.2")  # the token (as the lobby frames carry it), no key
    honest = stranger_page = None
    context = None
    try:
        guesses = [wrong_key(right, n) for n in range(int(WRONG_BURST))]
        for key in [*guesses, right]:  # each guess's K drawn before the clock runs (a stranger's own machine's cost)
            await asyncio.to_thread(seat_secret, stranger.game, key)
        began = time.monotonic()
        for n, key in enumerate(guesses):
            assert await stranger.join(key) == ("refuse", relaydoor.WRONG), n  # refused by the relay, not the host
        assert time.monotonic() - began < WRONG_EVERY, "the burst took longer than one refill: the bound not tested"
        # The stranger is bounded: its next join is refused unchecked at the relay, the right key too.
        assert await stranger.join(right) == ("refuse", relaydoor.TOO_MANY)
        # A fresh tunnel from the same address is no fresh burst.
        stranger_page = await TunnelPage.open(phone_url, "127.0.0.2")
        assert await stranger_page.join(wrong_key(right, 9)) == ("refuse", relaydoor.TOO_MANY)

        # Meanwhile a new honest page behind bob's relay takes a seat: the host never saw a wrong key from bob's address.
        honest = await TunnelPage.open(phone_url, "127.0.0.3")
        kind, lobby = await honest.join(right, name="cleo")
        assert kind == "lobby" and "cleo" in names(lobby), (kind, lobby)
        # And a real phone at bob's link (Chromium, from 127.0.0.1) too.
        context = await browser.new_context(**PHONE)
        zoe, _, _ = await seated_phone(browser, phone_url, "zoe", context)
        await zoe.wait_for_function("() => /in the lobby/.test(document.getElementById('status').textContent)",
                                    timeout=OUTER * 1000)
        assert await zoe.evaluate("() => window.p2pnimmt.node.refused") is None
        assert "too many wrong seat keys" not in host.text() and "wrong seat key" not in host.text(), host.text()
        assert "game started" not in host.text()
    finally:
        if context is not None:
            await context.close()
        for page in (stranger, stranger_page, honest):
            if page is not None:
                await page.close()


async def test_a_relay_without_the_key_passes_on_no_join_it_cannot_check(browser) -> None:
    """A relay node that holds no seat key (a resumed one whose secrets predate it) cannot check a page's proof: it
    refuses the join ("the phone relay's node holds no seat key ..."), charges nothing, and the page says so in the
    relay's words; a join without a proof it passes on (the host refuses it, "the seat key is missing"), and so one
    with the link secret's proof (since session 40: the host decides it): a phone at the host's whole link sits. In
    process: the host's own relay (app.web.start_phone), its key taken from the relay's view for the test."""
    host = Node(Identity.generate(), name="ann", interface="127.0.0.1", drop_after=0)
    await host.listen()
    await host.host(Settings(players=4, deal="open"))
    key = host.seat_key
    assert key is not None
    context = None
    page = None
    try:
        link = await start_phone(host)
        relay_view = Keyless(host)
        server_relay = relay_of(host)
        server_relay.node = lambda: relay_view  # type: ignore[assignment,return-value]
        page = await TunnelPage.open(link, "127.0.0.2")
        for _ in range(int(WRONG_BURST) + 2):  # never charged: no burst spent
            assert await page.join(key) == ("refuse", relaydoor.KEYLESS)
        kind, why = await page.join(None)
        assert kind == "refuse" and str(why).startswith("the seat key is missing"), (kind, why)  # the host's
        assert host.lobby.door.refused == 1
        key_only = link[:link.index("#") + 1 + len(key)]  # the phone link of a node without the link secret
        assert link.startswith(key_only + "-"), link
        context = await browser.new_context(**PHONE)
        phone, _, _ = await seated_phone(browser, key_only, "zoe", context)
        await phone.wait_for_function("() => document.body.dataset.refused === 'relay'", timeout=OUTER * 1000)
        assert (await phone.inner_text("#status")).startswith("the phone relay's node holds no seat key")
        await context.close()
        context = await browser.new_context(**PHONE)  # another phone
        whole, _, _ = await seated_phone(browser, link, "una", context)
        await whole.wait_for_function("() => /in the lobby/.test(document.getElementById('status').textContent)",
                                      timeout=OUTER * 1000)
        assert "una" in [m.name for m in host.members.values()] and host.lobby.door.refused == 1
    finally:
        if context is not None:
            await context.close()
        if page is not None:
            await page.close()
        await host.close()
        host.done.set()


class Keyless:
    """The host's node as its relay sees it, but holding no seat key."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.seat_key = None

    def __getattr__(self, name: str):
        return getattr(self.node, name)


def relay_of(node: Node):
    from p2pnimmt.app import web

    server, _token = web._SERVED[id(node)]
    [relay] = server.relays.values()
    return relay
