"""The real console script under tmux at 80x24: keys in, screen out (capture-pane)."""

import os
import shutil
import subprocess
import sys
import time
import uuid

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def pane():
    name = f"p2pnimmt-test-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}
    cmd = f"{sys.executable} -m p2pnimmt play --bots 3 --points 20 --seed {'00' * 32}; sleep 30"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "80", "-y", "24", cmd], check=True, env=env)
    try:
        yield name
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def screen(name: str) -> str:
    return tmux("capture-pane", "-p", "-t", name)


def wait_for(name: str, text: str, timeout: float = 15.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = screen(name)
        if text in shown:
            return shown
        time.sleep(0.05)
    raise AssertionError(f"{text!r} not on screen within {timeout} s:\n{screen(name)}")


def test_play_by_keys_under_tmux(pane):
    shown = wait_for(pane, "Your turn")
    assert "Your hand" in shown and "!6!" in shown and "row 4" in shown
    tmux("send-keys", "-t", pane, "Right", "Enter")
    wait_for(pane, "You commit")
    wait_for(pane, "turn 2/10")
    tmux("send-keys", "-t", pane, "?")
    wait_for(pane, "Keys")
    tmux("send-keys", "-t", pane, "x", "q")
    wait_for(pane, "Leave the game?")
    tmux("send-keys", "-t", pane, "y")
    deadline = time.monotonic() + 10
    while "Your hand" in screen(pane) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "Your hand" not in screen(pane)
