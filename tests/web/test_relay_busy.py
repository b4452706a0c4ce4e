"""A busy relay node does not close a live phone's tunnel (session 37; the seat page's socket: session 36,
web.guard.keep_alive).

The laptop's process relays its phone pages (web.relay) while it plays its own seat: a turn's checks, a sealed deal,
a machine under load hold its event loop up for a while. aiohttp's heartbeat (heartbeat=10 on the tunnel) closed the
WebSocket when the pong to its ping was not read half a heartbeat later; held up past that, the process woke with the
pong there and its timer due at once, and the timer ran first: a live phone was cut off and had to open its tunnel
again. Here the relay runs in this loop, a real Chromium holds a tunnel (a quiet phone: a page in the background sends
nothing for long stretches, and only then does a ping go out), the loop is held up again and again, and the tunnel
still carries a dial afterwards. A page that answers no ping is still closed.
"""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
from aiohttp import WSMsgType
from relaygame import Game
from test_relay_bounds import relay_for, started

from p2pnimmt.web import guard
from p2pnimmt.web.relay import DIAL, OPENED, header

# The page's tunnel: a WebSocket at the relay (a phone page quiet in the background), its hello and its close noted.
OPEN = """url => new Promise((ok) => {
  const ws = window.tunnel = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  window.closed = false;
  ws.onclose = () => { window.closed = true; };
  ws.onmessage = (m) => { if (typeof m.data === "string") ok(JSON.parse(m.data)); };
})"""

# A DIAL of channel 1 to the game's host; what comes first: the relay's OPENED of it, or the tunnel's close.
DIAL_HOST = """([bytes, opened]) => new Promise((ok) => {
  const ws = window.tunnel;
  if (window.closed || ws.readyState !== WebSocket.OPEN) { ok("closed"); return; }
  ws.onclose = () => ok("closed");
  ws.onmessage = (m) => {
    if (typeof m.data !== "string" && new Uint8Array(m.data)[0] === opened) ok("opened");
  };
  ws.send(new Uint8Array(bytes));
})"""


async def held_up(times: int, each: float) -> None:
    """This process busy: its loop held up `each` seconds at a time, `times` times, one pass of the loop between
    (the timers due meanwhile run then: a ping goes out, and the next hold-up comes before its pong is read)."""
    for _ in range(times):
        time.sleep(each)  # noqa: ASYNC251 -- the point: the process is busy, its loop does not run
        await asyncio.sleep(0)


async def test_a_busy_relay_does_not_close_a_live_phones_tunnel(browser, monkeypatch) -> None:
    monkeypatch.setattr(guard, "HEARTBEAT", 0.4)  # pings 0.4 s apart (10 s in play): the hold-ups last longer
    host, port = await started(lambda reader, writer: writer.close())
    runner, url = await relay_for(Game(port))
    try:
        page = await browser.new_page()
        hello = await page.evaluate(OPEN, url.replace("http://", "ws://"))
        assert hello["game"] == bytes(16).hex() and hello["host"] == ["127.0.0.1", port]
        # Held up for twice a ping's wait (HEARTBEAT; the old heartbeat's pong had half of it), six times over: the
        # old heartbeat closed the tunnel at the first hold-up after a ping (checked: 'closed' == 'opened').
        await held_up(6, 2 * guard.HEARTBEAT)
        dial = header(DIAL, 1) + json.dumps(["127.0.0.1", port]).encode()
        assert await page.evaluate(DIAL_HOST, [list(dial), OPENED]) == "opened"  # the same tunnel, and it still works
        assert not await page.evaluate("window.closed")
    finally:
        await runner.cleanup()
        host.close()


async def test_a_tunnel_that_answers_no_ping_is_closed(monkeypatch) -> None:
    monkeypatch.setattr(guard, "HEARTBEAT", 0.2)
    host, port = await started(lambda reader, writer: writer.close())
    runner, url = await relay_for(Game(port))
    try:
        async with aiohttp.ClientSession() as http:
            silent = await http.ws_connect(url, autoping=False)  # reads nothing, answers no ping
            assert (await silent.receive(timeout=30)).type == WSMsgType.TEXT  # its hello
            pings = 0
            while True:
                message = await silent.receive(timeout=30)
                if message.type != WSMsgType.PING:
                    break
                pings += 1
            assert message.type in (WSMsgType.CLOSED, WSMsgType.ERROR, WSMsgType.CLOSE), message
            assert pings >= guard.SILENT, pings
    finally:
        await runner.cleanup()
        host.close()
