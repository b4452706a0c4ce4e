"""A seat that answers no probe does not send a phone page round its relays all game (review, session 42; protocol.md
14, "A probe"). Since session 42 a relay serves the page only while the latest signed probe answers of two different
other seats in play show the game reaching it (one where only one other seat is in play): at a table of three, one
other seat that answers no probe (a node of before session 40, a laptop stopped and not yet dropped, or a cheat that
plays its moves and answers no probe: tests/net/cheat_node.py `probe-deaf`) left the page one seat's word on every
relay, so it left each sound relay after SERVE_WITHIN, round and round, for the whole game.

Real processes on 127.0.0.1: ann hosts (headless, her seat a bot), deaf joins (`--bot heuristic`: its seat a bot,
its node answers no probe), tv and tv2 watch and serve honest relays; chromium at 390x844 with touch opens tv's phone
link and plays a round at a person's pace (THINK a card: the game lasts some 30 s, as one of people does, not
the 3 s of a page that taps at once, which ends before SERVE_WITHIN; THINK and the page's timers both at PAGE_SCALE
of that: phonerelay.py).

Since session 42's fix the page remembers, across its tunnels, each seat that did not serve on a relay the page left
while another seat served: once deaf went unheard so on every relay the page knows (tv's, then tv2's), deaf is left
out of the seats that must serve, and ann's word alone serves: the page goes back to tv's relay and stays there. On
the page before, every tunnel was left after SERVE_WITHIN while the game was on."""


from __future__ import annotations

import asyncio
from pathlib import Path

from phonerelay import PAGE_SCALE, PAGE_TIMINGS, RELAY, ann_hosts, relay_node, seat_kept
from procs import CheatProc
from test_web_phone_presence import LO, PHONE_URL, next_ask, seated_phone, tap_move

THINK = 3.0 * PAGE_SCALE  # seconds the person takes over each card (the turn clock is 10 s); scaled with SERVE_WITHIN


async def test_a_phone_stays_on_a_sound_relay_where_one_other_seat_answers_no_probe(tmp_path: Path, procs,
                                                                                   browser) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0", **PAGE_TIMINGS}
    host, code, peer = ann_hosts(procs, tmp_path, 3, env)
    tv = relay_node(procs, tmp_path, "tv", "watch", code, *LO, *peer, env=env)
    phone_url = tv.wait_for(PHONE_URL).group(1)
    own = tv.wait_for(RELAY).group(1)
    other = relay_node(procs, tmp_path, "tv2", "watch", code, *LO, *peer, env=env).wait_for(RELAY).group(1)
    deaf = CheatProc("probe-deaf", ["join", code, *LO, *peer, "--bot", "heuristic", "--name", "deaf",
                                    "--transcript", str(tmp_path / "deaf.p2pt")], tmp_path / "deaf.out",
                     home=tmp_path / "deaf")
    try:
        sockets: list = []
        phone, _, errors = await seated_phone(browser, phone_url, "zoe", sockets=sockets)
        step, cards = "", 0
        while step := await next_ask(phone, step):
            if await phone.evaluate("document.body.dataset.wanted") == "card":
                await asyncio.sleep(THINK)  # the person's pace: nothing is waited for here
            if await tap_move(phone) == "card":
                cards += 1
        tried = [s.url.split("/")[2] for s in sockets]
        print("tunnels:", tried)
        # The promise: deaf goes unheard on tv's relay and on tv2's as the page leaves each (ann's answers came), is
        # then left out of the seats that must serve, and the page stays on tv's relay for the rest of the game (at
        # most one round of the two relays). The page before went round and round: a tunnel each SERVE_WITHIN.
        assert set(tried) <= {own, other} and len(tried) <= 3, tried
        assert tried[-1] == own or len(tried) < 3, tried
        assert cards == 10
        await seat_kept(phone, host, tmp_path)
        assert not errors, errors
    finally:
        deaf.stop()
