"""A relay whose own node is a seat cannot withhold the game from a phone page once a third seat that answers no probe
is spared (session 43; protocol.md 14, "A probe", "Why a seat is spared"). At a table of three (the page, mal, ann)
whose ann answers no probe, the page spares ann once she went unheard on every relay it knows while mal's answers came
(test_web_phone_probe_deaf.py); then one seat's word serves, and where that seat is mal and the relay mal's own, mal
signs what it likes: on session 42's page mal's relay withheld every move from the page and answered its probes "you
hold everything" for as long as ann stayed spared (about 55 s in every 65), and the others voted the page's seat out.
Now a seat's word never serves alone by sparing on a relay that seat named in a lobby frame (the page's own relay
aside: its node served the page's code): the page leaves mal's relay within SERVE_WITHIN, as any that withholds the
game, and plays on through a spectator's, where mal's word alone serves (ann spared): no round and round.

Real processes on 127.0.0.1: ann hosts (headless, her seat a bot; tests/net/cheat_node.py `probe-deaf`: her node
answers no probe), mal joins (`--bot heuristic`; `probe-liar-relay`: its relay passes the page no `msg` and its node
answers each probe with heads listing only the prober's own messages), tv and tv2 watch and serve honest relays;
chromium at 390x844 with touch opens tv's phone link. The page goes round tv, mal's and tv2's relays once (ann is
then spared) and back to tv; tv is then killed: the page tries the players' relays first, mal's."""

from __future__ import annotations

import asyncio
from pathlib import Path

from phonerelay import DROP, PAGE_SCALE, PAGE_TIMINGS, RELAY, killed, relay_node, seat_kept
from procs import CheatProc
from test_web_phone_presence import LO, PHONE_URL, next_ask, seated_phone, tap_move

from p2pnimmt.protocol.verify import verify_transcript

THINK = 2.0 * PAGE_SCALE  # seconds a card until tv is killed (the game lasts past the round of relays); as SERVE_WITHIN
WEB = ["--web", "--no-open", "--web-interface", "127.0.0.1"]


async def test_a_seats_relay_is_left_though_the_third_seat_answers_no_probe(tmp_path: Path, procs, browser) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0", **PAGE_TIMINGS}
    ann = CheatProc("probe-deaf", ["host", "--headless", "--seats", "3", *LO, "--rounds", "1", "--no-points", "--clock",
                                   "10", *DROP, "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")],
                    tmp_path / "host.out", home=tmp_path / "ann")
    mal = None
    try:
        port = ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
        code = ann.wait_for(r"code: (\w{4}-\w{4})").group(1)
        peer = ["--peer", f"127.0.0.1:{port}"]
        tv = relay_node(procs, tmp_path, "tv", "watch", code, *LO, *peer, env=env)
        phone_url = tv.wait_for(PHONE_URL).group(1)
        own = tv.wait_for(RELAY).group(1)
        mal = CheatProc("probe-liar-relay", ["join", code, *LO, *peer, *WEB, *DROP, "--bot", "heuristic", "--name",
                                             "mal", "--transcript", str(tmp_path / "mal.p2pt")], tmp_path / "mal.out",
                        home=tmp_path / "mal")
        withholding = mal.wait_for(RELAY).group(1)
        served = relay_node(procs, tmp_path, "tv2", "watch", code, *LO, *peer, env=env).wait_for(RELAY).group(1)
        sockets: list = []
        phone, _, errors = await seated_phone(browser, phone_url, "zoe", sockets=sockets)
        tried = lambda: [s.url.split("/")[2] for s in sockets]  # noqa: E731
        step, cards, kill_at = "", 0, None
        while step := await next_ask(phone, step):
            # tv is killed once the page went round the three relays and is back on tv (ann spared)
            if kill_at is None and served in tried() and tried()[-1] == own:
                killed(tv)
                kill_at = len(sockets)
            if kill_at is None and await phone.evaluate("document.body.dataset.wanted") == "card":
                await asyncio.sleep(THINK)  # the person's pace: nothing is waited for here
            if await tap_move(phone) == "card":
                cards += 1
        print("tunnels:", tried(), "tv killed after", kill_at)
        assert kill_at is not None, tried()  # (the game lasted past the round of relays)
        # The promise: once tv is gone, mal's relay (withholding the game, its word one seat's) is left within
        # SERVE_WITHIN for tv2's, and tv2's is never left (mal's word serves there: ann spared, and tv2 is no relay mal
        # named). The page before stayed on mal's relay, saw no move, and its seat was voted out.
        after = [relay for relay in tried()[kill_at:] if relay != own]
        assert after[:2] == [withholding, served] and set(after[1:]) == {served}, after
        assert await phone.evaluate("document.body.dataset.relay") == served
        assert cards == 10
        await seat_kept(phone, ann, tmp_path)
        assert verify_transcript((tmp_path / "host.p2pt").read_bytes()).ok
        assert not errors, errors
    finally:
        ann.stop()
        if mal is not None:
            mal.stop()
