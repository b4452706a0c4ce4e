"""`p2pnimmt resume` at a real terminal (tmux) opens the full-screen table, with the game so far rebuilt from the
transcript, and plays on by keys to the results (issue 23 item 2: it opened the line mode only)."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

from deadlines import outer
from tmuxpane import needs_tmux

from p2pnimmt.protocol.verify import verify_transcript

pytestmark = needs_tmux

LO = "--interface 127.0.0.1"


def test_a_killed_player_resumes_at_the_full_screen_table_and_plays_on_by_keys(tmp_path: Path, procs, panes) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0", "XDG_DATA_HOME": str(tmp_path / "data")}
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", "--interface", "127.0.0.1", "--rounds", "3",
                  "--no-points", "--bot-delay", "0.05", "--drop-after", "120", "--name", "ann",
                  "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out", env=env)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    transcript = tmp_path / "bob.p2pt"
    pid = tmp_path / "bob.pid"  # bob's process writes its pid, then becomes p2pnimmt (exec): killed by it below
    bob = panes(f"bash -c 'echo $$ > {pid}; exec {sys.executable} -m p2pnimmt join {code} {LO} --peer "
                f"127.0.0.1:{port} --name bob --transcript {transcript}'; sleep 300", 100, 30, env=env)
    deadline = time.monotonic() + outer(90)
    # bob plays round 1 by keys, up to its end: its round screen, or (a capture can catch the screen mid-redraw,
    # and an Enter meant for turn 10 may close the round screen) round 2 shown with nothing of it played
    while "End of round 1" not in (shown := bob.screen()) and not re.search(r"round [2-9]\s+turn", shown):
        assert time.monotonic() < deadline and "GAME OVER" not in shown and host.popen.poll() is None, shown
        if not re.search(r"round 1\s+turn", shown):
            continue  # not yet at the table (or a torn capture): nothing is pressed on it
        if "below every row: take a row" in shown:
            bob.press("1", shown)
        elif "Your turn" in shown:
            bob.press("Enter", shown)
    first = host.wait_for(r"round 1: (.*) \| scores: (.*)", 30).group(2)
    os.kill(int(pid.read_text()), signal.SIGKILL)  # as a crash would
    again = panes(f"{sys.executable} -m p2pnimmt resume {transcript} {LO}; echo exited-$?; sleep 300", 100, 30,
                  env=env)
    shown = again.wait("Your hand", 60)  # the table, not the line mode's prompts
    assert "your card>" not in shown and "row 4" in shown, shown
    for item in first.split(", "):  # the scores of round 1, rebuilt from the transcript, are on the table
        name, points = item.rsplit(" ", 1)
        assert re.search(rf"{name}\b.*\s{points}\s*$", shown, re.M), (name, points, shown)
    results = again.play_to_results(150)
    assert "Transcript verified" in results, results
    again.keys("q")
    assert "exited-0" in again.wait("exited-", 30)
    assert host.finish(60) == 0, host.text()
    final = re.search(r"final scores: (.*)", host.text()).group(1)
    verdict = verify_transcript(transcript.read_bytes())
    assert verdict.ok and f"scores: {final}" in verdict.summary, verdict.report()
