"""A member's `relay` (the lobby's word, for a phone page whose relay left) may name any address and port: one where
no p2pnimmt relay is (red team, session 43). Before, a page that moved to such a port in the lobby waited on it for
ever when it accepted and said nothing (a raw port, a WebSocket that opens and is mute) or said something other than
a relay's hello (the page's script threw on it, and waited); now a tunnel whose relay has said no relay's hello within
HELLO_WITHIN (5 s, page.ts), or whose first message is none, is left for the next relay, and the page says why.
A port that writes bytes without end, and a web server's own page, end the browser's WebSocket at once (held before:
tested here all the same).
Real processes on 127.0.0.1: ann hosts (headless, 3 seats, her seat a bot); a TV's node (tv) serves the phone page
and relays it; mal watches, its node naming as its relay a port of tests/net/cheat_node.py's (`*-port-relay`,
`junk-hello-relay`, `mute-ws-relay`); then a second TV (tv2) watches, listed after mal. The phone takes a seat, tv is
killed in the lobby: the page must reach tv2 through mal's port, say why it left that port, and play its game."""

from __future__ import annotations

from pathlib import Path

import pytest
from phonerelay import DROP, PAGE_TIMINGS, RELAY, CheatRelay, ann_hosts, killed, relay_node, seat_kept
from procs import Proc
from test_web_phone_presence import LO, PHONE, PHONE_URL, WAIT, play_to_the_end, seated_phone

from p2pnimmt.protocol.verify import verify_transcript

# Every text the page's status line showed, in order (it changes faster than a test polls it).
STATUSES = """document.addEventListener("DOMContentLoaded", () => {
  window.statuses = [];
  const status = document.getElementById("status");
  new MutationObserver(() => window.statuses.push(status.textContent)).observe(status, {childList: true,
    characterData: true, subtree: true});
});"""


@pytest.mark.parametrize("kind", ["silent-port-relay", "mute-ws-relay", "junk-hello-relay", "flood-port-relay",
                                  "http-port-relay"])
async def test_a_phone_page_leaves_a_relay_that_is_none_and_says_why(tmp_path: Path, procs, browser, kind: str) -> None:
    # a port the browser's WebSocket fails on at once (bytes without end, a web page) is one that did not answer as
    # a relay; one that opened and said no relay's hello is no relay of this game
    why = "did not answer as a relay" if kind in ("flood-port-relay", "http-port-relay") else "is no relay of this game"
    await left_in_the_lobby(tmp_path, procs, browser, kind, r"fake relay at (127\.0\.0\.1:\d+)", why)


async def left_in_the_lobby(tmp_path: Path, procs, browser, kind: str, left_at: str, why: str) -> None:
    """The module's game with mal run as cheat_node.py's `kind`: once tv is killed in the lobby the page reaches tv2
    through mal's address (`left_at`: the pattern of mal's output that names it), left with a status "the node at
    ADDRESS `why`… connecting through TV2…", and plays its game to the end, its seat kept."""
    env = {"P2PNIMMT_PLACE_DELAY": "0", **PAGE_TIMINGS}
    host, code, peer = ann_hosts(procs, tmp_path, 3, env)
    tv = relay_node(procs, tmp_path, "tv", "watch", code, *LO, *peer, env=env)
    phone_url = tv.wait_for(PHONE_URL).group(1)
    mal = CheatRelay(kind, tmp_path, "mal", "watch", code, *LO, *peer)
    try:
        left = mal.wait_for(left_at).group(1)
        mal.wait_for(RELAY)
        tv2 = relay_node(procs, tmp_path, "tv2", "watch", code, *LO, *peer, env=env)
        served = tv2.wait_for(RELAY).group(1)
        context = await browser.new_context(**PHONE)
        await context.add_init_script(STATUSES)
        sockets: list = []
        phone, _, errors = await seated_phone(browser, phone_url, "zoe", context=context, sockets=sockets)
        # seated, and the lobby frame that names mal's and tv2's relays had: then tv goes (SIGKILL, by pid)
        await phone.wait_for_function("() => (window.p2pnimmt?.node?.members ?? []).filter(m => m.relay).length >= 3",
                                      timeout=WAIT)
        killed(tv)
        await phone.wait_for_function("at => document.body.dataset.relay === at", arg=served, timeout=WAIT)
        tried = [s.url.split("/")[2] for s in sockets]
        assert left in tried and tried.index(left) < len(tried) - 1, tried  # mal's address was tried, then left
        statuses = await phone.evaluate("window.statuses")
        said = [s for s in statuses if s.startswith(f"the node at {left} {why}")]
        assert said, (statuses, tried)
        assert f"connecting through {served}" in said[0], said
        # the third seat comes (a bot): the phone plays its game through tv2 to the end
        kay: Proc = procs(["join", code, *LO, *peer, "--bot", "heuristic", "--name", "kay", *DROP],
                          tmp_path / "kay.out", env=env)
        assert await play_to_the_end(phone) == 10
        await seat_kept(phone, host, tmp_path)
        assert kay.finish(30) == 0, kay.text()
        assert verify_transcript((tmp_path / "host.p2pt").read_bytes()).ok
        assert not errors, errors
    finally:
        mal.stop()
