"""A spectator whose players leave on purpose (issue 23 item 3: "when too few seats remain to play on, every node
says so within the drop time and ends with its transcript whole"): the host, holding two of three seats (itself
and a bot), is stopped by Ctrl-C, the last joiner gives up at once, and the spectator, which watched through the
host and then through the joiner, says why the game cannot go on and ends too. Before, it sat silent until the
give-up time (300 s) and then said only "no progress". Real processes on 127.0.0.1; Ctrl-C is SIGINT by pid.

The drop time and the give-up time are left long (60 s, 300 s): the spectator ends on the players' `bye`, and a
spectator that waited for either timer would outlast the test's wait for it."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from p2pnimmt.protocol.verify import replay

LO = ["--interface", "127.0.0.1"]
LONG = ["--drop-after", "60", "--give-up", "300"]


@pytest.mark.parametrize("bob_goes", ["gives up", "killed first"])
def test_a_spectator_whose_players_left_says_so_and_ends(tmp_path: Path, procs, bob_goes: str) -> None:
    """bob gives up after the host leaves (its bye reaches the spectator if it is linked to bob by then), or is
    killed first (no bye at all): either way the spectator finds nothing listening where the players were (its
    dials are refused) and ends; before, a spectator that had no bye from bob waited for the give-up time."""
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", "--rounds", "30", "--no-points", *LO, *LONG,
                  "--bot-delay", "0.2", "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")],
                 tmp_path / "ann.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    tv = procs(["watch", code, "--lines", *peer, *LO, *LONG, "--name", "tv", "--transcript",
                str(tmp_path / "tv.p2pt")], tmp_path / "tv.out")
    tv.wait_for(r"joined \w{4} at .* as spectator")
    bob = procs(["join", code, "--headless", *peer, *LO, *LONG, "--bot-delay", "0.2", "--name", "bob",
                 "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out")
    tv.wait_for(r"round 1: ", 60)  # a round played and watched
    if bob_goes == "killed first":
        bob.popen.kill()
        bob.popen.wait()
    os.kill(host.popen.pid, signal.SIGINT)
    assert host.finish(30) == 130, host.text()
    if bob_goes == "gives up":
        assert bob.finish(30) == 1, bob.text()
    assert tv.finish(30) == 1, tv.text()  # not after the give-up time
    text = tv.text()
    # who it names depends on what it learnt first (a bye, or a refused dial: the host's two seats, ann and its
    # bot, are gone with its process): two or three of them, whichever make too few
    found = re.search(r"giving up: too few players remain to play on: (.+) left \((\d) of 3 remain", text)
    assert found and set(found.group(1).split(", ")) <= {"ann", "bot1", "bob"} and found.group(2) in "01", text
    assert "no progress for" not in text and "Traceback" not in text, text
    replay((tmp_path / "tv.p2pt").read_bytes(), complete=False)  # whole: every record reads and replays
