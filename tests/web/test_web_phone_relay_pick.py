"""A phone page whose relay leaves mid-game is not captured by a member's relay that says hello and then passes
nothing (session 39's red team): anyone with the seat key may join to watch and name a relay of its own, and the
page, moving in the lobby's order, stayed on such a relay, listed first, until the others voted it out. Now the page
tries the players' relays before the spectators', and leaves a relay that links it to no other seat for
SERVE_WITHIN (page.ts) while a game is on, for the next one, round and round. Real processes on 127.0.0.1: mal is a
spectator whose node serves the phone page through tests/net/cheat_node.py's `silent-relay` (the real relay's
hello, then nothing either way); chromium at 390x844 with touch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from procs import Proc, default_signals
from test_web_phone_presence import LO, PHONE_URL, WAIT, download, messages_of, next_ask, seated_phone, tap_move

CHEAT = Path(__file__).parents[1] / "net" / "cheat_node.py"
# Every node's drop time (the page takes its relay's): above the page's time away (its relay's kill, the silent
# relay's SERVE_WITHIN of 5 s, a new link), so that an honest page that moves on in time keeps its seat, and short
# enough that a page held by the silent relay is voted out within the test.
DROP = ["--drop-after", "12"]
WEB = ["--web", "--no-open", "--web-interface", "127.0.0.1"]
RELAY = r"phone: http://(127\.0\.0\.1:\d+)/phone"


class SilentRelay(Proc):
    """A spectator's node run by cheat_node.py's `silent-relay`: its relay says hello to a page and passes nothing."""

    def __init__(self, args: list[str], out: Path, home: Path) -> None:
        self.out = out
        self.file = open(out, "wb")
        self.popen = subprocess.Popen([sys.executable, str(CHEAT), "silent-relay", "0", *args], stdout=self.file,
                                      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=default_signals,
                                      env={**os.environ, "HOME": str(home)})


@pytest.mark.parametrize("honest", ["spectator", "player"])
async def test_a_phone_whose_relay_left_is_not_held_by_a_relay_that_passes_nothing(tmp_path: Path, procs, browser,
                                                                                   honest: str) -> None:
    # ann hosts (headless, her seat a bot); a TV's node (tv) serves the phone page; mal joins to watch, serving the
    # silent relay; then the honest relay joins: a second TV's node (tv2, a spectator: listed after mal, so only the
    # page's leaving a relay that serves nothing saves it) or a player's (kay, its seat a bot: tried before mal's).
    seats = "2" if honest == "spectator" else "3"
    env = {"P2PNIMMT_PLACE_DELAY": "0"}
    host = procs(["host", "--headless", "--seats", seats, *LO, "--rounds", "1", "--no-points", *DROP, "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out", env=env)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    tv = procs(["watch", code, *LO, *peer, *WEB, *DROP, "--transcript", str(tmp_path / "tv.p2pt")],
               tmp_path / "tv.out", env={**env, "HOME": str(tmp_path / "tv")})
    phone_url = tv.wait_for(PHONE_URL).group(1)
    mal = SilentRelay(["watch", code, *LO, *peer, *WEB, *DROP, "--transcript", str(tmp_path / "mal.p2pt")],
                      tmp_path / "mal.out", tmp_path / "mal")
    try:
        silent = mal.wait_for(RELAY).group(1)
        if honest == "spectator":
            other = procs(["watch", code, *LO, *peer, *WEB, *DROP, "--transcript", str(tmp_path / "tv2.p2pt")],
                          tmp_path / "tv2.out", env={**env, "HOME": str(tmp_path / "tv2")})
        else:
            other = procs(["join", code, *LO, *peer, *WEB, *DROP, "--bot", "heuristic", "--name", "kay",
                           "--transcript", str(tmp_path / "kay.p2pt")], tmp_path / "kay.out",
                          env={**env, "HOME": str(tmp_path / "kay")})
        served = other.wait_for(RELAY).group(1)
        sockets: list = []
        phone, _, errors = await seated_phone(browser, phone_url, "zoe", sockets=sockets)
        # The phone plays its cards; after its second, its relay's node is killed (SIGKILL, by pid: no word to it).
        step, cards = "", 0
        while step := await next_ask(phone, step):
            if await tap_move(phone) == "card":
                cards += 1
                if cards == 2:
                    tv.popen.kill()
                    assert tv.popen.wait() != 0
                    await phone.wait_for_function("at => document.body.dataset.relay === at", arg=served,
                                                  timeout=WAIT)
        tried = [s.url.split("/")[2] for s in sockets]
        # A spectator's honest relay is reached only after the silent one, left for it; a player's is tried first.
        if honest == "spectator":
            assert silent in tried and tried.index(silent) < tried.index(served), tried
        else:
            assert silent not in tried, tried
        assert cards == 10
        mine = await download(phone, tmp_path / "phone.p2pt")
        # zoe's seat was never dropped: each of its 10 reveals is its own card, none the stand-in's.
        reveals = [r.get("auto") is True for r in messages_of(mine, "zoe", "PLAY_REVEAL")]
        assert reveals == [False] * 10, reveals
        assert host.finish(30) == 0, host.text()
        assert not messages_of((tmp_path / "host.p2pt").read_bytes(), "ann", "DROP")
        assert not errors, errors
    finally:
        mal.stop()
