"""A phone page in the lobby whose host leaves before the START (issue 26, "an evening with no surprises"): the
page says so, naming the host, and stops dialling (before, its join loop redialled every second for ever). The
terminal's rule (net/spectator.py: host_gone_before_start): the host said `bye`, or nothing listens where it was.
Real processes on 127.0.0.1, chromium at 390x844 with touch."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest
from phonerelay import PAGE_TIMINGS
from test_web_phone_presence import LO, WAIT, seated_phone, two_seats_and_a_tv

GONE = {signal.SIGINT: "left the lobby before the game started (it said goodbye): there is no game to wait for",
        signal.SIGKILL: "is gone from the lobby before the game started (nothing listens there any more): there is no "
                        "game to wait for"}


@pytest.mark.parametrize("leaves", [signal.SIGINT, signal.SIGKILL], ids=["quits", "dies"])
async def test_a_phone_in_the_lobby_says_its_host_left_and_stops_dialling(tmp_path: Path, procs, browser,
                                                                          leaves) -> None:
    # Ctrl-C in the lobby: the host says bye to every link (the page's too) and leaves. Killed: no bye; the page
    # learns it from its relay, either as its redial of the host is refused there or as the relay node (the TV's,
    # which leaves at once: its host is gone) closes the tunnel saying why (web/relay.py: HOST_GONE).
    # A host of 3 seats (so the phone's seat does not start the game) and a TV's node that serves the phone page.
    host, phone_url = two_seats_and_a_tv(procs, tmp_path, "--seats", "3", "--rounds", "1")
    sockets: list = []
    phone, _, errors = await seated_phone(browser, phone_url, "zoe", sockets=sockets)
    host.wait_for("lobby: 2/3")  # the phone holds its seat in the host's lobby
    # ... and the page has the lobby the host sent it (its host's name): the host seeing the phone is not the phone
    # seeing the host (CI: killed in between, the page could only name the host by its key)
    await phone.locator("#players li", has_text="ann").wait_for(timeout=WAIT)
    os.kill(host.popen.pid, leaves)
    host.popen.wait()
    gone = GONE[leaves]
    await phone.wait_for_function("text => document.getElementById('status').textContent.includes(text)", arg=gone,
                                  timeout=WAIT)
    status = await phone.inner_text("#status")
    assert re.search(r"the host ann at 127\.0\.0\.1:\d+ " + re.escape(gone), status), status
    # Its relay (the TV's node, whose host is gone too) leaves: the page's tunnel closes, and the page neither opens
    # it again nor dials through another relay: it still says why, with the one tunnel it ever opened.
    assert len(sockets) == 1, [s.url for s in sockets]
    if not sockets[0].is_closed():
        await sockets[0].wait_for_event("close", timeout=WAIT)
    await phone.evaluate("() => new Promise((done) => setTimeout(done, 0))")  # the page's close handler has run
    status = await phone.inner_text("#status")
    assert gone in status, status
    assert len(sockets) == 1, [s.url for s in sockets]
    assert await phone.locator("#leave").is_visible()  # a way out: there is nothing to wait for (test below)
    assert not errors, errors


async def test_a_phone_whose_host_and_relay_die_in_the_lobby_says_the_host_is_gone_and_offers_to_try_again(
        tmp_path: Path, procs, browser) -> None:
    # The phone page is served by the host's own node (`host --web`), the only node of the game that relays phone
    # pages. The host is killed (SIGKILL: no bye, and its relay goes with it): nobody is left to tell the page, whose
    # tunnel closes and whose every new one is refused. Before, it said "connecting again…" for ever; now, in the
    # lobby, once no relay has answered for LOBBY_GIVE_UP (page.ts) it says the host is gone and offers "Try again",
    # which tries again (and, the host still gone, says so again).
    host = procs(["host", "--web", "--no-open", "--seats", "4", "--bots", "1", *LO, "--rounds", "1", "--no-points",
                  "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out",
                 env={"HOME": str(tmp_path), **PAGE_TIMINGS})
    phone_url = host.wait_for(r"phone: (http://127\.0\.0\.1:\d+/phone\?t=\S+)").group(1)
    phone, _, errors = await seated_phone(browser, phone_url, "zoe")
    sockets: list = []
    phone.on("websocket", lambda ws: sockets.append(ws))
    await phone.wait_for_function("() => document.getElementById('status').textContent === 'in the lobby: 3/4 seats'",
                                  timeout=WAIT)
    os.kill(host.popen.pid, signal.SIGKILL)
    host.popen.wait()
    gone = re.compile(r"the host ann at 127\.0\.0\.1:\d+ is gone from the lobby: its node, which relayed this page, "
                      r"has not answered for \d+ s")
    for attempt in range(2):
        await phone.wait_for_function("() => document.body.dataset.gone === '1'", timeout=WAIT)
        status = await phone.inner_text("#status")
        assert gone.fullmatch(status), status
        assert await phone.locator("#retry").is_visible()
        tried = len(sockets)
        assert tried >= 1  # it did try again after the kill, through the host's relay, before it gave up
        assert all(s.is_closed() for s in sockets)  # and it tries no more: no tunnel is open or on its way
        if attempt == 0:
            await phone.tap("#retry")
            assert await phone.locator("#retry").is_hidden()
            assert await phone.evaluate("document.body.dataset.gone") == "0"
            await phone.wait_for_function("() => document.body.dataset.gone === '1'", timeout=WAIT)
            assert len(sockets) > tried  # "Try again" tried again
    # "Leave": the page stops trying, forgets that this link's seat was taken (a reload would not take it again at
    # once) and shows its start again, saying what happened.
    assert await phone.locator("#leave").is_visible()
    tried = len(sockets)
    await phone.tap("#leave")
    await phone.locator("#left").wait_for(timeout=WAIT)
    assert await phone.inner_text("#left") == ("You left that game. To play, scan the code of a game that is open.")
    assert await phone.locator("#welcome").is_visible() and await phone.locator("#table").is_hidden()
    assert await phone.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('p2pnimmt-seated'))") == []
    assert len(sockets) == tried and all(s.is_closed() for s in sockets)
    # The host's laptop hosts again at the same address (the page's origin: the name is kept in its localStorage,
    # which is per origin) and the person scans the new game's QR code: the phone remembers the name, and takes no
    # seat before the tap.
    web_port = re.search(r":(\d+)/phone", phone_url).group(1)
    second = procs(["host", "--web", "--no-open", "--web-port", web_port, "--seats", "3", "--bots", "1", *LO,
                    "--name", "bea", "--transcript", str(tmp_path / "second.p2pt")], tmp_path / "second.out",
                   env={"HOME": str(tmp_path), **PAGE_TIMINGS})
    again = await phone.context.new_page()
    again.on("pageerror", lambda exc: errors.append(str(exc)))
    await again.goto(second.wait_for(r"phone: (http://127\.0\.0\.1:\d+/phone\?t=\S+)").group(1))
    assert await again.input_value("#name") == "zoe"
    assert await again.locator("#welcome").is_visible()
    assert not errors, errors
