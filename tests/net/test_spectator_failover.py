"""A spectator whose host is killed for good (issue 21, item 8): it watches on through a seat, or, with nobody
left to reach, ends with one line and a whole transcript.

Real `p2pnimmt` processes on 127.0.0.1 (`--interface 127.0.0.1`, `--peer` to the host's port); the host is
killed with SIGKILL and never resumed.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from procs import final_scores

from p2pnimmt.net.files import torn_tail
from p2pnimmt.protocol.verify import replay

LOOPBACK = "127.0.0.1"
LO = ["--interface", LOOPBACK]
TIMERS = ["--drop-after", "2", "--link-timeout", "4", "--bot-delay", "0.05"]


def start(procs, tmp_path: Path, seats: int, rounds: int, extra: list[str] = ()):
    """A host (ann), a spectator (tv) that watches through it, and seats - 1 joiners (bob, cat, ...)."""
    host = procs(["host", "--headless", "--seats", str(seats), "--rounds", str(rounds), "--no-points", *LO,
                  *TIMERS, *extra, "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    peer = ["--peer", f"{LOOPBACK}:{port}"]
    tv = procs(["watch", code, "--headless", *peer, *LO, *TIMERS, *extra, "--name", "tv",
                "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out")
    tv.wait_for(r"joined \w{4} at .* as spectator")
    names = ["bob", "cat", "dan", "eve"][: seats - 1]
    players = {name: procs(["join", code, "--headless", *peer, *LO, *TIMERS, *extra, "--name", name,
                            "--transcript", str(tmp_path / f"{name}.p2pt")], tmp_path / f"{name}.out")
               for name in names}
    return host, tv, players


def p2pnimmt_verify(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p2pnimmt", "verify", str(path)], capture_output=True, text=True,
                          timeout=120)


def test_a_spectator_watches_on_through_a_seat_when_the_host_is_killed_for_good(tmp_path: Path, procs) -> None:
    """Four seats; the spectator joined through the host. After round 1 the host is killed (SIGKILL, never
    resumed): the three others drop it and play on, and the spectator, whose only link was the host's, dials
    a seat at the address the host's lobby gave and watches to the end: same final scores as the players',
    its transcript verifies (`p2pnimmt verify`) and says the same."""
    host, tv, players = start(procs, tmp_path, seats=4, rounds=4)
    tv.wait_for(r"(?m)^round 1:", 120)
    os.kill(host.popen.pid, signal.SIGKILL)
    host.popen.wait()
    for name, proc in players.items():
        assert proc.finish(180) == 0, (name, proc.text())
    assert tv.finish(120) == 0, tv.text()
    scores = {final_scores(proc.text()) for proc in [*players.values(), tv]}
    assert len(scores) == 1, scores
    assert re.search(r"the host does not answer: watching through (bob|cat|dan) at 127\.0\.0\.1:\d+", tv.text()), \
        tv.text()
    assert "ann was dropped by the others' vote" in tv.text()
    for name in [*players, "tv"]:
        result = p2pnimmt_verify(tmp_path / f"{name}.p2pt")
        assert result.returncode == 0, (name, result.stdout, result.stderr)
        assert "scores: " + final_scores(tv.text()) in result.stdout, (name, result.stdout)
        assert "verified:" in result.stdout, (name, result.stdout)
    for name, proc in [*players.items(), ("tv", tv)]:
        assert "Traceback" not in proc.text(), (name, proc.text())


def test_a_spectator_with_nobody_left_to_reach_ends_with_one_line_and_a_whole_transcript(tmp_path: Path,
                                                                                          procs) -> None:
    """Two seats and a spectator; after round 1 both seats are killed for good. The spectator dials the host
    and the other seat in turn, nobody answers (nothing listens there: the dials are refused), and it exits 1 with
    one line that says both are gone (or, where dials go unanswered, after --give-up seconds without progress,
    where the game stood and whom it dialled); its transcript is whole (no torn record,
    every record replays as `verify` checks it) and `p2pnimmt verify` says it is unfinished, not damaged."""
    host, tv, players = start(procs, tmp_path, seats=2, rounds=6, extra=["--give-up", "4"])
    tv.wait_for(r"(?m)^round 1:", 120)
    for proc in [host, *players.values()]:
        os.kill(proc.popen.pid, signal.SIGKILL)
        proc.popen.wait()
    assert tv.finish(120) == 1, tv.text()
    text = tv.text()
    assert "Traceback" not in text, text
    # Nothing listens where the seats were (their dials are refused): both are gone, too few to play on, said at
    # once; where dials only go unanswered (no refusal), it is said after --give-up seconds, naming whom it dialled.
    line = re.search(r"(?m)^.*giving up: (no progress for \d+ s \(.*\)|too few players remain to play on: .*)", text)
    assert line, text
    assert "too few players remain to play on: ann, bob left (0 of 2 remain" in line.group(0) or re.search(
        r"no member of the game answers \(dialled ann at 127\.0\.0\.1:\d+, bob at 127\.0\.0\.1:\d+\)",
        line.group(0)), line.group(0)
    data = (tmp_path / "tv.p2pt").read_bytes()
    assert torn_tail(data) is None
    checked = replay(data, complete=False)
    assert checked.session.phase not in ("over", "aborted")
    result = p2pnimmt_verify(tmp_path / "tv.p2pt")
    said = result.stdout + result.stderr
    assert result.returncode == 3 and "UNFINISHED: the transcript is valid as far as it goes" in said, said
    assert "Traceback" not in said, said
