"""A player whose others left one by one gives up (issue 23 item 3: "when too few seats remain to play on, every
node says so within the drop time and ends"): of three seats, carl leaves (Ctrl-C) and is voted out by ann and
bob, who play on; then ann leaves too and bob, alone, votes her out. Bob is then one of three against two
stand-ins: it says too few players remain and gives up (exit 1). Before, only seats gone at the same time counted
(net.waiting.too_few), so bob played the 28 rounds left against the stand-ins and exited 0 (the same as the
spectator-left-alone test's bob, once the host's node joined the vote on its own bot before it left). Real
processes on 127.0.0.1; Ctrl-C is SIGINT by pid.

The drop time and the give-up time are left long (60 s, 300 s): a seat that left says `bye` and is voted out at
once, and bob gives up on the byes, not on either timer."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

from p2pnimmt.protocol.verify import replay

LO = ["--interface", "127.0.0.1"]
LONG = ["--drop-after", "60", "--give-up", "300"]


def test_a_player_whose_others_left_one_by_one_gives_up(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "3", "--rounds", "30", "--no-points", *LO, *LONG,
                  "--bot-delay", "0.2", "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")],
                 tmp_path / "ann.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    joiners = {name: procs(["join", code, "--headless", *peer, *LO, *LONG, "--bot-delay", "0.2", "--name", name,
                            "--transcript", str(tmp_path / f"{name}.p2pt")], tmp_path / f"{name}.out")
               for name in ("bob", "carl")}
    bob, carl = joiners["bob"], joiners["carl"]
    bob.wait_for(r"round 1\b", 60)  # the game is on
    os.kill(carl.popen.pid, signal.SIGINT)
    assert carl.finish(30) == 130, carl.text()
    bob.wait_for(r"carl .*(dropped|stand-in)", 30)  # voted out by ann and bob, who play on
    os.kill(host.popen.pid, signal.SIGINT)
    assert host.finish(30) == 130, host.text()
    assert bob.finish(30) == 1, bob.text()  # not 28 rounds against two stand-ins
    text = bob.text()
    found = re.search(r"giving up: too few players remain to play on: (.+) left \((\d) of 3 remain", text)
    assert found and set(found.group(1).split(", ")) == {"ann", "carl"} and found.group(2) == "1", text
    assert "Traceback" not in text, text
    replay((tmp_path / "bob.p2pt").read_bytes(), complete=False)  # whole: every record reads and replays
