"""`resume` on the transcript a refused join left behind (issue 23 item 2): one clear line, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

LO = ["--interface", "127.0.0.1"]


def run(args: list[str], home: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p2pnimmt", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data")})


def test_resuming_the_stub_of_a_refused_join_says_there_is_nothing_to_take_up(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "2", "--bots", "1", "--rounds", "8", "--no-points", *LO,
                  "--bot-delay", "0.2", "--transcript", str(tmp_path / "h.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    host.wait_for("game started", 60)
    stub = tmp_path / "late.p2pt"
    late = run(["join", code, "--headless", *LO, "--transcript", str(stub)], tmp_path)
    assert late.returncode == 1 and "the game has started" in late.stdout + late.stderr, late
    assert stub.is_file()  # the stub the report resumed
    resumed = run(["resume", str(stub), "--headless", *LO], tmp_path)
    out = resumed.stdout + resumed.stderr
    assert resumed.returncode == 1, out
    assert "Traceback" not in out and "TypeError" not in out, out
    assert "had not started for this peer (a lobby, or a join the host refused): there is nothing to take up; " \
           "to play, join again: p2pnimmt join " in out, out
