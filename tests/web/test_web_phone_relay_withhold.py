"""A phone page judges its relay by whether the game reaches it through it, not by a handshake (session 40's red
team; protocol.md 14, "A probe"). Session 39 had the page leave a relay that linked it to no other seat; a relay that
passed one seat's handshake and then nothing more, or passed every frame but the game's messages, still kept it, as
linked, for as long as it held that link open, while the others voted it out. Now the page probes each seat it is
linked to, and leaves a relay through which no seat's signed answer showed the game reaching it for SERVE_WITHIN.
Real processes on 127.0.0.1: ann hosts (headless, her seat a bot), a TV's node (tv) serves the phone page, mal watches
and serves a relay of tests/net/cheat_node.py (`handshake-relay`: one seat's handshake, then nothing; `msgless-relay`:
every frame but `msg`s), a second TV (tv2) watches and serves an honest relay, listed after mal's; chromium at 390x844
with touch. tv is killed after the phone's second card: the page goes to mal's relay, must leave it for tv2's, and
plays all its cards, its seat never dropped. ann's clock (10 s) and drop time (12 s) drop a page held by mal within
the test (the page before stayed, linked: mal holds the handshake's link open for the page, and `msgless` passes the
pings; its seat was dropped and the round void)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from procs import Proc, default_signals
from test_web_phone_presence import LO, PHONE_URL, download, messages_of, next_ask, seated_phone, tap_move

from p2pnimmt.protocol.verify import verify_transcript

CHEAT = Path(__file__).parents[1] / "net" / "cheat_node.py"
DROP = ["--drop-after", "12"]
WEB = ["--web", "--no-open", "--web-interface", "127.0.0.1"]
RELAY = r"phone: http://(127\.0\.0\.1:\d+)/phone"


class CheatRelay(Proc):
    """A spectator's node run by cheat_node.py with a relay that withholds the game (`cheat`)."""

    def __init__(self, cheat: str, args: list[str], out: Path, home: Path) -> None:
        self.out = out
        self.file = open(out, "wb")
        self.popen = subprocess.Popen([sys.executable, str(CHEAT), cheat, "0", *args], stdout=self.file,
                                      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=default_signals,
                                      env={**os.environ, "HOME": str(home)})


@pytest.mark.parametrize("cheat", ["handshake-relay", "msgless-relay"])
async def test_a_phone_leaves_a_relay_through_which_the_game_does_not_reach_it(tmp_path: Path, procs, browser,
                                                                              cheat: str) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0"}
    host = procs(["host", "--headless", "--seats", "2", *LO, "--rounds", "1", "--no-points", "--clock", "10", *DROP,
                  "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out", env=env)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    tv = procs(["watch", code, *LO, *peer, *WEB, *DROP, "--transcript", str(tmp_path / "tv.p2pt")],
               tmp_path / "tv.out", env={**env, "HOME": str(tmp_path / "tv")})
    phone_url = tv.wait_for(PHONE_URL).group(1)
    mal = CheatRelay(cheat, ["watch", code, *LO, *peer, *WEB, *DROP, "--transcript", str(tmp_path / "mal.p2pt")],
                     tmp_path / "mal.out", tmp_path / "mal")
    try:
        withholding = mal.wait_for(RELAY).group(1)
        tv2 = procs(["watch", code, *LO, *peer, *WEB, *DROP, "--transcript", str(tmp_path / "tv2.p2pt")],
                    tmp_path / "tv2.out", env={**env, "HOME": str(tmp_path / "tv2")})
        served = tv2.wait_for(RELAY).group(1)
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
        tried = [s.url.split("/")[2] for s in sockets]
        # mal's relay, listed before tv2's, was tried and left for it
        assert withholding in tried and served in tried and tried.index(withholding) < tried.index(served), tried
        assert await phone.evaluate("document.body.dataset.relay") == served
        assert cards == 10
        mine = await download(phone, tmp_path / "phone.p2pt")
        # zoe's seat was never dropped: each of its 10 reveals is its own card, none the stand-in's.
        reveals = [r.get("auto") is True for r in messages_of(mine, "zoe", "PLAY_REVEAL")]
        assert reveals == [False] * 10, reveals
        assert host.finish(30) == 0, host.text()
        assert not messages_of((tmp_path / "host.p2pt").read_bytes(), "ann", "DROP")
        assert verify_transcript((tmp_path / "host.p2pt").read_bytes()).ok
        assert not errors, errors
    finally:
        mal.stop()
