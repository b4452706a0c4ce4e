"""A phone page judges its relay by whether the game reaches it through it, not by a handshake (session 40's red
team; protocol.md 14, "A probe"). Session 39 had the page leave a relay that linked it to no other seat; a relay that
passed one seat's handshake and then nothing more, or passed every frame but the game's messages, still kept it, as
linked, for as long as it held that link open, while the others voted it out. Now the page probes each seat it is
linked to, and leaves a relay through which no seat's signed answer showed the game reaching it for SERVE_WITHIN.
Real processes on 127.0.0.1: ann hosts (headless, her seat a bot), a TV's node (tv) serves the phone page, mal watches
and serves a relay of tests/net/cheat_node.py (`handshake-relay`: one seat's handshake, then nothing; `msgless-relay`:
every frame but `msg`s; `other-game-relay`: every frame, but its hello names another game), a second TV (tv2) watches and serves an honest relay, listed after mal's; chromium at 390x844
with touch. tv is killed after the phone's second card: the page goes to mal's relay, must leave it for tv2's, and
plays all its cards, its seat never dropped. ann's clock (10 s) and drop time (12 s) drop a page held by mal within
the test (the page before stayed, linked: mal holds the handshake's link open for the page, and `msgless` passes the
pings; its seat was dropped and the round void). Session 42's red team: a page that moved mid-game to a relay whose
hello named another game took it for a new game, left its seat for that game's lobby and waited there (the test timed
out in play_to_the_end); now it leaves such a relay at once, as one that does not serve. Its `other-host-relay`
(session 42's red team): a relay whose hello names its own node (a spectator of the game) as where the host listens;
the page took that node as its host (the game reached it through the other links it made there, so it stayed), and
would have taken that node's rematch and new-start offers; now the key that answers as the host must be the START's
signer's (and the key joined before): the page leaves that relay at once, for tv2's."""

from __future__ import annotations

from pathlib import Path

import pytest
from phonerelay import PAGE_TIMINGS, RELAY, CheatRelay, ann_hosts, played_through_tv2, relay_node, seat_kept
from test_web_phone_presence import LO, PHONE_URL

from p2pnimmt.protocol.verify import verify_transcript


@pytest.mark.parametrize("cheat", ["handshake-relay", "msgless-relay", "other-game-relay", "other-host-relay"])
async def test_a_phone_leaves_a_relay_through_which_the_game_does_not_reach_it(tmp_path: Path, procs, browser,
                                                                              cheat: str) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0", **PAGE_TIMINGS}
    host, code, peer = ann_hosts(procs, tmp_path, 2, env)
    tv = relay_node(procs, tmp_path, "tv", "watch", code, *LO, *peer, env=env)
    phone_url = tv.wait_for(PHONE_URL).group(1)
    mal = CheatRelay(cheat, tmp_path, "mal", "watch", code, *LO, *peer)
    try:
        withholding = mal.wait_for(RELAY).group(1)
        phone, errors, cards, tried, served = await played_through_tv2(procs, tmp_path, browser, code, peer, env,
                                                                       phone_url, tv)
        # mal's relay, listed before tv2's, was tried and left for it
        assert withholding in tried and served in tried and tried.index(withholding) < tried.index(served), tried
        assert await phone.evaluate("document.body.dataset.relay") == served
        assert cards == 10
        await seat_kept(phone, host, tmp_path)
        assert verify_transcript((tmp_path / "host.p2pt").read_bytes()).ok
        assert not errors, errors
        if cheat == "other-game-relay":
            assert "cheat: a hello naming another game" in mal.text()
        if cheat == "other-host-relay":
            assert "cheat: a hello naming this node as the host" in mal.text()
            # the page's join (its name, its seat key's proof) never went to that node (before: "sent an unknown
            # frame kind 'join'" in its log), and the page said why it left
            assert "frame kind 'join'" not in mal.text(), mal.text()
            assert await phone.evaluate("document.body.dataset.refusedHost") == withholding
    finally:
        mal.stop()
