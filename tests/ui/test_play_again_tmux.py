"""`p2pnimmt play` on a real terminal (tmux): `r` at game over plays again against the same bots, on the same
screen, and the evening's table adds the games up; both games are kept, the second as a rematch of the first."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from deadlines import outer
from tmuxpane import Pane, needs_tmux

pytestmark = needs_tmux


def play_out(pane: Pane, timeout: float = 60.0) -> str:
    """Play the chosen card each turn and row 1 when asked, until the table says the game is over."""
    deadline = time.monotonic() + outer(timeout)
    while time.monotonic() < deadline:
        shown = pane.settled()
        asked = "\n".join(shown.splitlines()[9:11])  # the prompt's lines, under the hand
        if "The game is over" in asked:
            return shown
        if "take a row" in asked:
            pane.keys("1")
        elif "Your turn" in asked:
            pane.keys("Enter")
        time.sleep(0.1)
    raise AssertionError(f"the game did not end within {timeout} s:\n{pane.screen()}")


def test_r_at_game_over_plays_again_against_the_same_bots(tmp_path: Path, panes) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0", "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    pane = panes(f"{sys.executable} -m p2pnimmt play --bots 2 --rounds 1 --no-points --name ann; echo EXITED; sleep 300",
                 env=env)
    play_out(pane)
    pane.keys("Enter")
    shown = pane.wait("GAME OVER")
    assert "r: play again (same seats)" in shown, shown  # it said only "Enter or q: leave"
    pane.keys("r")
    shown = pane.wait("Your turn")
    assert "round 1  turn 1/10" in shown and "ann" in shown and "bot1" in shown and "bot2" in shown, shown
    play_out(pane)
    pane.keys("Enter")
    shown = pane.wait("The evening: 2 games")
    rows = {m.group(1): int(m.group(2)) for m in re.finditer(r"│  (ann|bot1|bot2)\s+2\s+\d\s+(\d+)\s+│", shown)}
    assert set(rows) == {"ann", "bot1", "bot2"}, shown
    pane.keys("q")  # Enter too, once the results have been up for a moment (ui.app.TYPED_AHEAD)
    shown = pane.wait("EXITED")
    assert shown.count("Transcript: ") == 2, shown
    out = subprocess.run([sys.executable, "-m", "p2pnimmt", "history"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, **env})
    # each game's head line with the lines under it (history breaks a long head between words, within 80 columns)
    games = [" ".join(line.strip() for line in block.splitlines())
             for block in re.split(r"\n(?=\d{4}-\d\d-\d\d \d\d:\d\d  )", out.stdout) if re.match(r"\d{4}-", block)]
    assert len(games) == 2 and out.stdout.count("[verified]") == 2, out.stdout  # its check beside or under a head
    assert "rematch of" not in games[0] and "rematch of" in games[1], out.stdout
    # The evening's points are the two verified games' points, seat by seat.
    totals: dict[str, int] = {}
    for line in out.stdout.splitlines():
        if line.startswith("    ann (you) "):
            for item in line.strip().split(", "):
                name, points = item.replace(" (you)", "").rsplit(" ", 1)
                totals[name] = totals.get(name, 0) + int(points)
    assert totals == rows, (totals, rows)
