"""A phone relay that is a seat answers the page's probes for its own seat (red team, session 41; protocol.md 14, "A
probe"). The page judges its relay by the seats' signed answers to its probes: an answer shows the game reaching it
unless it says the seat holds messages the page still lacks. The answers of every other seat the relay can drop or
leave unanswered, but its own node's it signs itself: mal, a player whose node serves the phone page, withholds
every game message from the page (its own and the others', on every link: tests/net/cheat_node.py
`probe-liar-relay`) and answers each probe with heads that list only the page's own messages.

Real processes on 127.0.0.1: ann hosts (headless, her seat a bot), mal joins (`--bot heuristic`: its seat a bot) and
serves a relay, tv and tv2 watch and serve honest ones; chromium at 390x844 with touch opens tv's phone link. tv is
killed after the phone's second card: the page tries the players' relays first (protocol.md 14), mal's.

On session 41's page it stayed there: each of mal's answers showed the game reaching it, so the page never left mal's
relay for tv2's, saw nobody's move, and the others voided round 1 for its silence (sealed deal: `seat 2 (zoe) stopped
before sending its card after it shuffled`; this test timed out waiting for a move to be asked). Since session 42 the
page is served only while the latest answers of two different seats showed the game reaching it (one where only one
other seat is in play): mal's word is one seat's, ann's answers through mal's relay show her messages withheld, so the
page leaves mal's relay within SERVE_WITHIN and plays on through tv2's. Twice: mal's relay passes ann's answers
(`probe-liar-relay`: they show ann's messages withheld), or none but its own node's (`probe-liar-relay-alone`: one
seat's word, where two other seats are in play)."""


from __future__ import annotations

from pathlib import Path

import pytest
from phonerelay import PAGE_TIMINGS, ann_hosts
from procs import CheatProc
from test_web_phone_presence import LO, PHONE_URL, download, messages_of, next_ask, seated_phone, tap_move

DROP = ["--drop-after", "12"]
WEB = ["--web", "--no-open", "--web-interface", "127.0.0.1"]
RELAY = r"phone: http://(127\.0\.0\.1:\d+)/phone"


@pytest.mark.parametrize("cheat", ["probe-liar-relay", "probe-liar-relay-alone"])
async def test_a_phone_leaves_a_seats_relay_that_withholds_the_game_and_answers_its_probes(tmp_path: Path, procs,
                                                                                           browser, cheat) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0", **PAGE_TIMINGS}
    host, code, peer = ann_hosts(procs, tmp_path, 3, env)
    tv = procs(["watch", code, *LO, *peer, *WEB, *DROP, "--transcript", str(tmp_path / "tv.p2pt")],
               tmp_path / "tv.out", env={**env, "HOME": str(tmp_path / "tv")})
    phone_url = tv.wait_for(PHONE_URL).group(1)
    mal = CheatProc(cheat, ["join", code, *LO, *peer, *WEB, *DROP, "--bot", "heuristic", "--name", "mal",
                     "--transcript", str(tmp_path / "mal.p2pt")], tmp_path / "mal.out", home=tmp_path / "mal")
    try:
        withholding = mal.wait_for(RELAY).group(1)
        tv2 = procs(["watch", code, *LO, *peer, *WEB, *DROP, "--transcript", str(tmp_path / "tv2.p2pt")],
                    tmp_path / "tv2.out", env={**env, "HOME": str(tmp_path / "tv2")})
        served = tv2.wait_for(RELAY).group(1)
        sockets: list = []
        phone, _, errors = await seated_phone(browser, phone_url, "zoe", sockets=sockets)
        # The phone plays its cards; after its second, its relay's node (tv) is killed (SIGKILL, by pid): the page
        # tries the players' relays first, mal's.
        step, cards = "", 0
        while step := await next_ask(phone, step):
            if await tap_move(phone) == "card":
                cards += 1
                if cards == 2:
                    tv.popen.kill()
                    assert tv.popen.wait() != 0
        tried = [s.url.split("/")[2] for s in sockets]
        # The promise: mal's relay, through which the game does not reach the page, is left for tv2's (SERVE_WITHIN),
        # and the phone plays all its cards itself, its seat never dropped.
        assert withholding in tried and served in tried and tried.index(withholding) < tried.index(served), tried
        # ... and tv2's is never left: there ann's true answers and mal's (its lie, which shows nothing withheld) are
        # two seats' showing the game reaching the page: no round and round at a table whose seats all answer
        assert set(tried[tried.index(served):]) == {served}, tried
        assert cards == 10
        mine = await download(phone, tmp_path / "phone.p2pt")
        reveals = [r.get("auto") is True for r in messages_of(mine, "zoe", "PLAY_REVEAL")]
        assert reveals == [False] * 10, reveals
        assert not errors, errors
    finally:
        mal.stop()
