"""A peer process killed mid-game: resumed from its files it finishes the game; left dead, the others drop it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]


def rounds_done(text: str) -> int:
    return len(re.findall(r"^round \d+:", text, re.M))


def test_killed_peer_resumes_from_its_transcript(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", "--rounds", "3", "--no-points", *LO,
                  "--drop-after", "0", "--transcript", str(tmp_path / "h.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4})").group(1)
    victim = procs(["join", code, "--headless", *LO, "--drop-after", "0", "--bot-delay", "0.02",
                    "--transcript", str(tmp_path / "j.p2pt")], tmp_path / "join.out")
    victim.wait_for(r"(?m)^round 1:", 60)  # a round is over: the game is well under way
    os.kill(victim.popen.pid, signal.SIGKILL)
    victim.popen.wait()
    assert "final scores" not in victim.text()
    # A second process for the same files is refused while one runs; after the kill the lock is free.
    resumed = procs(["resume", str(tmp_path / "j.p2pt"), "--headless", *LO, "--drop-after", "0"],
                    tmp_path / "resume.out")
    assert resumed.finish(90) == 0, resumed.text()
    assert host.finish(60) == 0, host.text()
    assert re.search(r"resumed \w{4} from .*: \d+ messages replayed", resumed.text())
    final = re.search(r"final scores: (.*)", host.text()).group(1)
    assert re.search(r"final scores: (.*)", resumed.text()).group(1) == final
    for name in ("h.p2pt", "j.p2pt"):
        verdict = verify_transcript((tmp_path / name).read_bytes())
        assert verdict.ok, (name, verdict.report())
        assert "scores: " + final in verdict.summary


def test_a_second_process_on_the_same_transcript_is_refused(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "2", *LO, "--transcript", str(tmp_path / "h.p2pt")],
                 tmp_path / "host.out")
    host.wait_for(r"code: (\w{4})")
    result = subprocess.run([sys.executable, "-m", "p2pnimmt", "resume", str(tmp_path / "h.p2pt"), "--headless", *LO],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert "in use by another p2pnimmt process" in result.stderr


def test_a_dead_player_is_dropped_by_the_others_and_the_game_completes(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", "--rounds", "2", "--no-points", *LO,
                  "--drop-after", "1.5", "--transcript", str(tmp_path / "h.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4})").group(1)
    victim = procs(["join", code, "--headless", *LO, "--transcript", str(tmp_path / "j.p2pt"), "--name", "gone",
                    "--bot-delay", "0.05"], tmp_path / "join.out")
    victim.wait_for("game started", 30)
    time.sleep(0.3)
    os.kill(victim.popen.pid, signal.SIGKILL)
    assert host.finish(90) == 0, host.text()
    assert "gone was dropped by the others' vote" in host.text()
    verdict = verify_transcript((tmp_path / "h.p2pt").read_bytes())
    assert verdict.ok, verdict.report()
    assert "round 2:" in verdict.summary
