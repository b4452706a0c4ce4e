"""A spectator's relay that says a right hello and then lies about the page's dial for its host (review, session 43):
before, a phone page that moved to it in the lobby (its own relay gone) waited on a dial it never answered for ever
(`dial-mute-relay`: no OPENED, no CLOSE) and missed the START, or took its CLOSE that says nothing listens at the
host's address (REFUSED, `dial-refused-relay`) for the host gone and stopped for good. Now a dial unanswered within
DIAL_WITHIN (tunnel.ts: the relay's own dial timeout and a margin) leaves that relay for the next, and "the host is
gone" is believed only from the page's own relay or when a second relay says it.
Real processes on 127.0.0.1: ann hosts (headless, 3 seats, her seat a bot); a TV's node (tv) serves the phone page
and relays it; mal watches, its node's relay one of tests/net/cheat_node.py's; then a second TV (tv2) watches, listed
after mal. The phone takes a seat, tv is killed in the lobby: the page must leave mal's relay, say why, reach tv2's
and play its game."""

from __future__ import annotations

from pathlib import Path

import pytest
from phonerelay import DROP, RELAY, CheatRelay, ann_hosts, killed, relay_node, seat_kept
from procs import Proc
from test_web_phone_no_relay import STATUSES
from test_web_phone_presence import LO, PHONE, PHONE_URL, WAIT, play_to_the_end, seated_phone

from p2pnimmt.protocol.verify import verify_transcript


@pytest.mark.parametrize("kind", ["dial-mute-relay", "dial-refused-relay"])
async def test_a_phone_page_leaves_a_relay_that_lies_about_its_dial(tmp_path: Path, procs, browser, kind: str) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0"}
    host, code, peer = ann_hosts(procs, tmp_path, 3, env)
    tv = relay_node(procs, tmp_path, "tv", "watch", code, *LO, *peer, env=env)
    phone_url = tv.wait_for(PHONE_URL).group(1)
    mal = CheatRelay(kind, tmp_path, "mal", "watch", code, *LO, *peer)
    try:
        liar = mal.wait_for(RELAY).group(1)
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
        assert liar in tried and tried.index(liar) < len(tried) - 1, tried  # mal's relay was tried, then left
        statuses = await phone.evaluate("window.statuses")
        why = "it did not answer the dial for the host within 10 s" if kind == "dial-mute-relay" \
            else "it says nothing listens at the host's address, and no other relay says so"
        said = [s for s in statuses if s.startswith(f"the node at {liar} does not lead to this game's host ({why}")]
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
