"""A peer process killed mid-game: resumed from its files it finishes the game; left dead, the others drop it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from deadlines import outer
from procs import Terminal

from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]


def rounds_done(text: str) -> int:
    return len(re.findall(r"^round \d+:", text, re.M))


def same_scores_verified(host, resumed, tmp_path: Path) -> None:
    """Host and resumed player print the same final scores, and both transcripts verify with them."""
    final = re.search(r"final scores: (.*)", host.text()).group(1)
    assert re.search(r"final scores: (.*)", resumed.text()).group(1) == final
    for name in ("h.p2pt", "j.p2pt"):
        verdict = verify_transcript((tmp_path / name).read_bytes())
        assert verdict.ok, (name, verdict.report())
        assert "scores: " + final in verdict.summary


def test_killed_peer_resumes_from_its_transcript(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", "--rounds", "3", "--no-points", *LO,
                  "--drop-after", "0", "--transcript", str(tmp_path / "h.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
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
    same_scores_verified(host, resumed, tmp_path)


def test_a_second_process_on_the_same_transcript_is_refused(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "2", *LO, "--transcript", str(tmp_path / "h.p2pt")],
                 tmp_path / "host.out")
    host.wait_for(r"code: (\w{4}-\w{4})")
    result = subprocess.run([sys.executable, "-m", "p2pnimmt", "resume", str(tmp_path / "h.p2pt"), "--headless", *LO],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert "in use by another p2pnimmt process" in result.stderr


def test_a_dead_player_is_dropped_by_the_others_and_the_game_completes(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", "--rounds", "2", "--no-points", *LO,
                  "--drop-after", "1.5", "--transcript", str(tmp_path / "h.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
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


def test_a_dropped_player_that_resumes_takes_its_seat_back_from_a_next_round(tmp_path: Path, procs) -> None:
    """protocol.md 11.3 with real processes: a player killed mid-game is dropped by the others' vote; resumed
    from its files, it asks for its seat back and plays again from the round after a round end at which every
    player had the ask; host and player agree on the scores, and both transcripts verify."""
    # The game must outlast the resumed process's start (seconds on a loaded machine): 8 rounds of turns that
    # take at least 0.1 s each leave it 7 rounds, at least 7 s, to come back in.
    slow = ["--bot-delay", "0.1"]
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", "--rounds", "8", "--no-points", *LO, *slow,
                  "--drop-after", "1", "--transcript", str(tmp_path / "h.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    victim = procs(["join", code, "--headless", *LO, *slow, "--name", "gone", "--transcript",
                    str(tmp_path / "j.p2pt")], tmp_path / "join.out")
    victim.wait_for(r"(?m)^round 1:", 60)
    os.kill(victim.popen.pid, signal.SIGKILL)
    victim.popen.wait()
    host.wait_for("gone was dropped by the others' vote", 60)
    resumed = procs(["resume", str(tmp_path / "j.p2pt"), "--headless", *LO, *slow, "--drop-after", "1"],
                    tmp_path / "resume.out")
    back = host.wait_for(r"gone is back in the game from round (\d+)", 90)
    assert resumed.finish(120) == 0, resumed.text()
    assert host.finish(60) == 0, host.text()
    assert 2 < int(back.group(1)) <= 8
    assert f"gone is back in the game from round {back.group(1)}" in resumed.text()
    same_scores_verified(host, resumed, tmp_path)


def test_a_resumed_person_dropped_meanwhile_asks_back_on_its_own_and_its_lines_stay_in_step(tmp_path: Path,
                                                                                             procs) -> None:
    """issue 23 item 2: a person's seat killed and dropped; `resume --lines` learns of the drop only from the
    others (it is not in its own transcript). It asks for the seat back on its own (no 'press Enter' question),
    and when the seat plays again every line typed answers the question it was typed for."""
    slow = ["--bot-delay", "0.1"]
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", "--rounds", "8", "--no-points", *LO, *slow,
                  "--drop-after", "1", "--transcript", str(tmp_path / "h.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    victim = Terminal(["join", code, "--lines", *LO, "--name", "gone", "--transcript", str(tmp_path / "j.p2pt")])
    try:
        victim.play_lines(until=r"\nround 1:", timeout=60)  # a person plays round 1, then is killed
    finally:
        victim.stop()  # SIGKILL, by pid
    host.wait_for("gone was dropped by the others' vote", 60)
    person = Terminal(["resume", str(tmp_path / "j.p2pt"), "--lines", *LO, "--drop-after", "1"])
    try:
        person.wait_for(r"resumed \w{4} from")
        person.play_lines()
        assert person.popen.wait(outer(60)) == 0, person.text
        assert host.finish(60) == 0, host.text()
        text = person.text
        assert "press Enter to ask for your seat back" not in text, text
        assert "your seat is asked back" in text and "is back in the game from round" in text, text
        assert "is not a card" not in text and "is not a row" not in text, text  # no line answered another ask
        assert re.search(r"final scores: (.*)", text).group(1) == re.search(r"final scores: (.*)",
                                                                           host.text()).group(1)
    finally:
        person.stop()
