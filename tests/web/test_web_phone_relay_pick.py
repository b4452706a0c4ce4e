"""A phone page whose relay leaves mid-game is not captured by a member's relay that says hello and then passes
nothing (session 39's red team): anyone with the seat key may join to watch and name a relay of its own, and the
page, moving in the lobby's order, stayed on such a relay, listed first, until the others voted it out. Now the page
tries the players' relays before the spectators', and leaves a relay that links it to no other seat for
SERVE_WITHIN (page.ts) while a game is on, for the next one, round and round. Real processes on 127.0.0.1: mal is a
spectator whose node serves the phone page through tests/net/cheat_node.py's `silent-relay` (the real relay's
hello, then nothing either way); chromium at 390x844 with touch."""

from __future__ import annotations

from pathlib import Path

import pytest
from phonerelay import DROP, PAGE_TIMINGS, RELAY, CheatRelay, killed, relay_node, seat_kept
from test_web_phone_presence import LO, PHONE_URL, WAIT, play_to_the_end, seated_phone


@pytest.mark.parametrize("honest", ["spectator", "player"])
async def test_a_phone_whose_relay_left_is_not_held_by_a_relay_that_passes_nothing(tmp_path: Path, procs, browser,
                                                                                   honest: str) -> None:
    # ann hosts (headless, her seat a bot); a TV's node (tv) serves the phone page; mal joins to watch, serving the
    # silent relay; then the honest relay joins: a second TV's node (tv2, a spectator: listed after mal, so only the
    # page's leaving a relay that serves nothing saves it) or a player's (kay, its seat a bot: tried before mal's).
    seats = "2" if honest == "spectator" else "3"
    env = {"P2PNIMMT_PLACE_DELAY": "0", **PAGE_TIMINGS}
    host = procs(["host", "--headless", "--seats", seats, *LO, "--rounds", "1", "--no-points", *DROP, "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out", env=env)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    tv = relay_node(procs, tmp_path, "tv", "watch", code, *LO, *peer, env=env)
    phone_url = tv.wait_for(PHONE_URL).group(1)
    mal = CheatRelay("silent-relay", tmp_path, "mal", "watch", code, *LO, *peer)
    try:
        silent = mal.wait_for(RELAY).group(1)
        if honest == "spectator":
            other = relay_node(procs, tmp_path, "tv2", "watch", code, *LO, *peer, env=env)
        else:
            other = relay_node(procs, tmp_path, "kay", "join", code, *LO, *peer, "--bot", "heuristic", "--name", "kay", env=env)
        served = other.wait_for(RELAY).group(1)
        sockets: list = []
        phone, _, errors = await seated_phone(browser, phone_url, "zoe", sockets=sockets)

        async def relay_killed() -> None:
            killed(tv)
            await phone.wait_for_function("at => document.body.dataset.relay === at", arg=served, timeout=WAIT)
        # The phone plays its cards; after its second, its relay's node is killed (SIGKILL, by pid: no word to it).
        cards = await play_to_the_end(phone, relay_killed)
        tried = [s.url.split("/")[2] for s in sockets]
        # A spectator's honest relay is reached only after the silent one, left for it; a player's is tried first.
        if honest == "spectator":
            assert silent in tried and tried.index(silent) < tried.index(served), tried
        else:
            assert silent not in tried, tried
        assert cards == 10
        await seat_kept(phone, host, tmp_path)
        assert not errors, errors
    finally:
        mal.stop()
