"""A phone page whose game moved on while its tunnel was down follows it only where two relays it knows name the new
game (review of session 42; `movedOn` in web/peer/src/page_host.ts; docs/phone.md, "A relay of another game"). A
relay whose hello names another game than the page's, while the page's game is on, is no relay of the page's: one
relay alone cannot pull the page away from its game. But a new start or a rematch offered while the page's tunnel was
down moves every relay's node on, and a page that refused them all went round them for ever.

Real processes on 127.0.0.1: ann hosts three seats (headless, her seat a bot), tv and tv2 watch and serve honest
relays, zoe's phone opens tv's phone link, and mal joins with tests/net/cheat_node.py's `vanish` (its process ends
as the START comes, before its START_ACK): ann abandons the game after her drop time and starts a new one at once
with ann and zoe (app/anew.py). Chromium's WebSockets to the relays go through Playwright (`route_web_socket`: every
frame passed both ways, a relay's hello noted), which cuts the page off every relay once ann holds zoe's START_ACK,
before the new start's offer: the page never hears of the new game from its host. Then tv alone is let through: its
hello names the new game, and the page, which knows two relays, refuses it round and round (it stays in its game);
then tv2 too: two relays name one other game, and the page follows and sits in the new game's lobby (its seat there
was not held: the page was away as the offer went out); bob joins it too, and the page plays the new game to its
end."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from pathlib import Path

from deadlines import OUTER
from procs import CheatProc
from test_web_phone_presence import LO, PHONE, PHONE_URL, WAIT, play_to_the_end, seated_phone

from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.transcript import records
from p2pnimmt.protocol.verify import verify_transcript

SHORT = ["--rounds", "1", "--no-points", "--deal", "open"]
TIMERS = ["--drop-after", "4", "--give-up", "60"]  # ann's new start 4 s after mal left: the page is cut off by then
WEB = ["--web", "--no-open", "--web-interface", "127.0.0.1"]
RELAY = r"phone: http://(127\.0\.0\.1:\d+)/phone"
GAME = "[...window.p2pnimmt.node.hello.game].map(b => b.toString(16).padStart(2, '0')).join('')"


async def until(done: Callable[[], bool], said: Callable[[], object]) -> None:
    """Wait, without blocking the event loop (Playwright passes the routed frames in it), until `done()`, for at most
    OUTER seconds; else fail with `said()`."""
    deadline = time.monotonic() + OUTER
    while not done():
        if time.monotonic() >= deadline:
            print("UNTIL", said())
        assert time.monotonic() < deadline, said()
        await asyncio.sleep(0.05)


def start_acks(path: Path) -> int:
    """The START_ACKs in a transcript being written (0 while it cannot be read whole)."""
    try:
        return sum(open_envelope(p).kind == "START_ACK" for k, p in records(path.read_bytes()) if k == "msg")
    except Exception:  # (a record half written)
        return 0


async def test_a_phone_follows_its_game_moved_on_only_where_two_relays_name_it(tmp_path: Path, procs,
                                                                             browser) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0"}
    host = procs(["host", "--headless", "--seats", "3", *SHORT, *TIMERS, *LO, "--name", "ann", "--transcript",
                  str(tmp_path / "host.p2pt")], tmp_path / "host.out", env=env)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    watching = ["watch", code, *LO, *peer, *WEB, *TIMERS]
    tv = procs([*watching, "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out",
               env={**env, "HOME": str(tmp_path / "tv")})
    phone_url = tv.wait_for(PHONE_URL).group(1)
    own = tv.wait_for(RELAY).group(1)
    tv2 = procs([*watching, "--transcript", str(tmp_path / "tv2.p2pt")], tmp_path / "tv2.out",
                env={**env, "HOME": str(tmp_path / "tv2")})
    other = tv2.wait_for(RELAY).group(1)
    context = await browser.new_context(**PHONE)
    shut: set[str] = set()  # the relays the page is cut off from
    live: list = []  # the routes open now, each with its server side
    hellos: list[tuple[str, str]] = []  # (relay, the game its hello named), in order
    calls: list = []

    def route(ws):  # (a sync handler: one that is a coroutine has Playwright pass nothing on)
        relay = ws.url.split("/")[2]
        calls.append((round(time.monotonic(), 1), relay, relay in shut))
        if relay in shut:
            return ws.close()  # (awaited by Playwright)
        server = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            calls.append((round(time.monotonic(), 1), relay, "down", len(message)))
            if isinstance(message, str):
                hellos.append((relay, json.loads(message)["game"]))
            ws.send(message)

        server.on_message(down)
        ws.on_message(server.send)
        live.append((relay, ws, server))
        return None

    await context.route_web_socket(lambda url: "/relay?" in url, route)
    phone, _, errors = await seated_phone(browser, phone_url, "zoe", context=context)
    await until(lambda: "lobby: 2/3 seats: ann, zoe" in host.text(), host.text)
    mal = CheatProc("vanish", ["join", code, "--headless", *peer, *LO, *TIMERS, "--name", "mal", "--transcript",
                               str(tmp_path / "mal.p2pt")], tmp_path / "mal.out")
    try:
        # the page holds the START and ann holds its START_ACK (the host signs none): the page is cut off every relay
        await phone.wait_for_function("() => window.p2pnimmt?.node?.seat?.start != null", timeout=WAIT)
        first = await phone.evaluate(GAME)
        await until(lambda: start_acks(tmp_path / "host.p2pt") >= 1, lambda: "ann never held zoe's START_ACK")
        shut.update({own, other})
        for _relay, ws, server in live:
            await ws.close()
            await server.close()
        # ann starts the new game without mal (zoe's seat is not held: the page is away); tv and tv2 follow her offer
        await until(lambda: all("as spectator (a new start of" in node.text() for node in (tv, tv2)),
                    lambda: tv.text() + tv2.text())
        # tv alone let through: its hello names the new game; the page refuses it, round and round, in its game
        shut.discard(own)
        await until(lambda: sum(relay == own and game != first for relay, game in hellos) >= 3, lambda: hellos)
        moved = next(game for relay, game in hellos if relay == own and game != first)
        assert await phone.evaluate(GAME) == first, "one relay of two named the new game: the page must not follow"
        # tv2 let through too: two relays name the new game, and the page follows, to a seat in its lobby
        shut.discard(other)
        await phone.wait_for_function(f"() => ({GAME}) === '{moved}'", timeout=WAIT)
        assert (other, moved) in hellos
        await until(lambda: host.text().count("lobby: 2/3 seats: ann, zoe") == 2, host.text)
        # a third player fills the new game (zoe's held seat was freed as she was away), and the page plays it
        again = re.findall(r"listening on 127\.0\.0\.1:(\d+)", host.text())[-1]
        new_code = re.findall(r"code: (\w{4}-\w{4})", host.text())[-1]
        procs(["join", new_code, "--headless", "--peer", f"127.0.0.1:{again}", *LO, "--name", "bob"],
              tmp_path / "bob.out", env=env)
        assert await play_to_the_end(phone) == 10
        await until(lambda: host.popen.poll() is not None, host.text)
        assert host.popen.returncode == 0, host.text()
        assert verify_transcript((tmp_path / "host-2.p2pt").read_bytes()).ok
        assert not errors, errors
    finally:
        mal.stop()
