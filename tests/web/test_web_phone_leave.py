"""A phone page's "Leave" then a quick "Take a seat" (issue 26, review): what the old tunnel does as it closes late
(its WebSocket's close, its node's last changes) belongs to an attempt the person gave up, and must not write over
the new one. Before, the old socket's close handler still ran once the new attempt had begun: it wrote "the host
... left the lobby" over the new attempt's "connecting…" and showed "Leave" again (or dialled again beside it).

The race is made certain by a relay the test controls, in front of the host's real one: it passes the page's tunnel
on both ways, but holds the page's WebSocket open (its close unanswered) until the test lets it close, after the
new attempt began; the new attempt's WebSocket it leaves unanswered (it stays "connecting…").
Real processes on 127.0.0.1, chromium at 390x844 with touch."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from aiohttp import web
from evil_relay import PageRelay
from test_web_phone_presence import LO, PHONE_URL, WAIT, seated_phone

OUTER_S = WAIT / 1000
GONE = "left the lobby before the game started (it said goodbye): there is no game to wait for"


class HoldingRelay(PageRelay):
    """Serves the phone page; its first tunnel passes to the real relay both ways (PageRelay's pump), and closes
    towards the page only once `release` is set (whatever the real relay or the page did before); every later tunnel
    is left unanswered."""

    autoclose = False  # the page's close is answered at `release`

    def __init__(self, real_phone_url: str) -> None:
        super().__init__(real_phone_url)
        self.release = asyncio.Event()
        self.tunnels = 0
        self.later = asyncio.Event()  # a second tunnel was asked for

    async def _relay(self, request: web.Request) -> web.StreamResponse:
        self.tunnels += 1
        if self.tunnels > 1:
            self.handlers.append(asyncio.current_task())  # type: ignore[arg-type]
            self.later.set()
            await asyncio.Event().wait()  # unanswered: the page's WebSocket stays CONNECTING (cancelled at cleanup)
        return await super()._relay(request)

    async def ended(self) -> None:
        await self.release.wait()  # the real relay's frames went on, but not its close


async def test_leave_then_take_a_seat_at_once_is_not_overwritten_by_the_old_tunnels_close(
        tmp_path: Path, procs, browser) -> None:
    # A host of 3 seats serving the phone page (its own node relays it), reached through the holding relay.
    host = procs(["host", "--web", "--no-open", "--seats", "3", *LO, "--rounds", "1", "--no-points", "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out", env={"HOME": str(tmp_path)})
    relay = HoldingRelay(host.wait_for(PHONE_URL).group(1))
    await relay.start()
    try:
        sockets: list = []
        phone, _, errors = await seated_phone(browser, relay.url, "zoe", sockets=sockets)
        await phone.wait_for_function(
            "() => document.getElementById('status').textContent === 'in the lobby: 2/3 seats'", timeout=WAIT)
        # Ctrl-C: the host says bye to the page and leaves; the page says so and offers "Leave". Its tunnel is still
        # open (the holding relay keeps it).
        os.kill(host.popen.pid, signal.SIGINT)
        host.popen.wait()
        await phone.wait_for_function("text => document.getElementById('status').textContent.includes(text)",
                                      arg=GONE, timeout=WAIT)
        assert await phone.locator("#leave").is_visible()
        assert not sockets[0].is_closed()
        # "Leave", then at once "Take a seat": the old tunnel's close is not answered yet; the new one is on its way.
        await phone.tap("#leave")
        await phone.locator("#left").wait_for(timeout=WAIT)
        await phone.tap("#join")
        await asyncio.wait_for(relay.later.wait(), OUTER_S)
        assert await phone.inner_text("#status") == "connecting…"
        # Now the old tunnel closes (its close answered): its handlers belong to the attempt given up.
        relay.release.set()
        await sockets[0].wait_for_event("close", timeout=WAIT)
        for _ in range(3):  # the page's close handler, its node's changes (a microtask) and timers of 0 ms have run
            await phone.evaluate("() => new Promise((done) => setTimeout(done, 0))")
        assert await phone.inner_text("#status") == "connecting…"
        assert await phone.locator("#leave").is_hidden()
        assert len(sockets) == 2, [s.url for s in sockets]  # nothing dialled beside the new attempt
        assert not errors, errors
    finally:
        await relay.close()

