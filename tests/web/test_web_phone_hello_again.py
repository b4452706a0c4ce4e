"""A relay says its hello once, as a page's tunnel opens (web/relay.py); a second hello on the same tunnel is the
relay's word alone (session 42's red team). Before, the page took it as a new tunnel's: for the game it named (here
a fresh id) it began a second node on the same tunnel, with no seat, beside the first. That node took the tunnel's
incoming dials (a seat dialling the page from then on was answered for the other game), became the page's node of
the moment (window.p2pnimmt.node: the test failed there), and the page's next tunnel went on from it, not from its
seat (the seat came back only from what IndexedDB held). Now a second hello is ignored: one node, its own game, its
own cards to the end.
Real processes on 127.0.0.1: ann hosts (headless, her seat a bot, a 10 s clock), a TV's node serves the phone page
and relays it honestly; chromium at 390x844 with touch, whose WebSocket to the relay is routed through Playwright
(`route_web_socket`: every frame passed both ways), which after the phone's second card sends the page one more
hello, the relay's own but naming another game."""

from __future__ import annotations

import json
import os
from pathlib import Path

from phonerelay import DROP, relay_node, seat_kept
from test_web_phone_presence import LO, PHONE_URL, play_to_the_end, seated_phone

from p2pnimmt.protocol.verify import verify_transcript


async def test_a_second_hello_on_a_tunnel_is_ignored(tmp_path: Path, procs, browser) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0"}
    host = procs(["host", "--headless", "--seats", "2", *LO, "--rounds", "1", "--no-points", "--clock", "10", *DROP,
                  "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out", env=env)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    tv = relay_node(procs, tmp_path, "tv", "watch", code, *LO, "--peer", f"127.0.0.1:{port}", env=env)
    phone_url = tv.wait_for(PHONE_URL).group(1)
    context = await browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    routes: list = []
    hellos: list[str] = []

    def route(ws) -> None:  # every frame passed both ways; the relay's hello noted
        server = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            if isinstance(message, str):
                hellos.append(message)
            ws.send(message)

        server.on_message(down)
        ws.on_message(server.send)
        routes.append(ws)

    await context.route_web_socket(lambda url: "/relay?" in url, route)
    phone, _, errors = await seated_phone(browser, phone_url, "zoe", context=context)
    await phone.wait_for_function("() => document.getElementById('me').textContent !== ''")
    me = await phone.inner_text("#me")

    def hello_again() -> None:
        said = {**json.loads(hellos[-1]), "game": os.urandom(16).hex(), "port": 1}
        routes[-1].send(json.dumps(said))

    cards = await play_to_the_end(phone, hello_again)
    assert len(routes) == 1 and len(hellos) == 1  # one tunnel all along, and one hello from the relay
    assert cards == 10
    assert await phone.inner_text("#me") == me
    # the page's node of the moment is the one of its game (window.p2pnimmt.node: what a tap acts on)
    game = await phone.evaluate("[...window.p2pnimmt.node.hello.game].map(b => b.toString(16).padStart(2, '0')).join('')")
    assert game == json.loads(hellos[0])["game"]
    await seat_kept(phone, host, tmp_path)
    assert verify_transcript((tmp_path / "host.p2pt").read_bytes()).ok
    assert not errors, errors
