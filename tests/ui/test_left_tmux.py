"""The joiner's full-screen table (tmux) when its host leaves mid-round with a bye (Ctrl-C, or q then y): its log
says the host left the game (once, with the stand-in that plays her hand), in English and in German, where it said "ann is at fault: seat 0 (ann) stopped before
sending its card after it shuffled" (net/test_left_said.py has the same at the line terminal, and the host that
vanishes without a bye, still said as before). Real processes on 127.0.0.1; Ctrl-C is SIGINT sent by pid."""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

import pytest
from tmuxpane import needs_tmux

pytestmark = needs_tmux
LO = "--interface 127.0.0.1"


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_joiners_screen_says_the_host_left_the_game(tmp_path: Path, procs, panes, lang: str) -> None:
    host = procs(["host", "--headless", "--seats", "2", *LO.split(), "--drop-after", "1", "--bot-delay", "0.1",
                  "--name", "ann"], tmp_path / "ann.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    env = {"XDG_DATA_HOME": str(tmp_path / "bob"), "XDG_CONFIG_HOME": str(tmp_path / "bob"), "HOME": str(tmp_path)}
    pane = panes(f"{sys.executable} -m p2pnimmt join {code} --peer 127.0.0.1:{port} {LO} --drop-after 1 --name bob "
                 f"--lang {lang}; sleep 300", 120, 40, env=env)
    pane.wait("Your turn" if lang == "en" else "Du bist dran", 30)
    os.kill(host.popen.pid, signal.SIGINT)
    pane.keys("Enter")  # bob's card: the round waits on ann's reveal, which never comes (the void round)
    if lang == "en":
        shown = pane.wait("Round 1 is void", 30)
        assert "ann left the game: a stand-in plays that hand" in shown, shown
        assert "ann left the game after shuffling the round's cards" in shown, shown
        assert re.search(r"ann +left ", shown) and "dropped" not in shown, shown  # her status
    else:
        shown = pane.wait("Runde 1 zählt nicht", 30)
        assert "ann hat das Spiel verlassen: eine Vertretung spielt diese Hand" in shown, shown
        assert "ann hat das Spiel nach dem Mischen der Karten der Runde verlassen" in shown, shown
        assert re.search(r"ann +gegangen ", shown) and "abgewählt" not in shown, shown  # her status
    assert "at fault" not in shown and "stopped before" not in shown and "no link" not in shown, shown
    # said once, with the stand-in: the log also said "ann left the game" alone as her link went (fails on main)
    left = "ann left the game" if lang == "en" else "ann hat das Spiel verlassen"
    assert [line.strip(" │") for line in shown.splitlines() if left in line and "after shuffling" not in line] == \
        [left + (": a stand-in plays that hand" if lang == "en" else ": eine Vertretung spielt diese Hand")], shown
    assert "Schuld" not in shown and "keine Verbindung" not in shown, shown
