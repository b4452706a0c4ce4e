"""The real console script under tmux at 80x24: keys in, screen out (capture-pane)."""

import sys
import time

from tmuxpane import needs_tmux

pytestmark = needs_tmux


def test_play_by_keys_under_tmux(panes):
    pane = panes(f"{sys.executable} -m p2pnimmt play --bots 3 --points 20 --seed {'00' * 32}; sleep 300")
    shown = pane.wait("Your turn", 15)
    assert "Your hand" in shown and "!6!" in shown and "row 4" in shown
    pane.keys("Right", "Enter")
    pane.wait("You commit", 15)
    pane.wait("turn 2/10", 15)
    pane.keys("?")
    pane.wait("Keys", 15)
    pane.keys("x", "q")
    pane.wait("Leave the game?", 15)
    pane.keys("y")
    deadline = time.monotonic() + 10
    while "Your hand" in pane.screen() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "Your hand" not in pane.screen()
