"""A real terminal for the console script: one tmux server of its own per pane (keys in, screen out).

Each Pane runs its own tmux server on a private socket (`tmux -L`), started with no configuration file:
no test can meet another's server while it shuts down (tmux's "server exited unexpectedly" when a new
session reached the default server as the last session of an earlier test was being killed), and a
user's ~/.tmux.conf changes nothing. Every pane is killed with its server at the end.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator

import pytest
from deadlines import outer

# tmux is installed by .ci/run; there (P2PNIMMT_REQUIRE_NETNS) a missing tmux fails rather than skips.
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None and not os.environ.get("P2PNIMMT_REQUIRE_NETNS"),
                                reason="tmux is not installed")


class Pane:
    """A tmux session on a server of its own, of the given size, running one shell command."""

    def __init__(self, command: str, columns: int = 80, rows: int = 24, env: dict | None = None,
                 check: bool = True) -> None:
        self.name = f"p2pnimmt-{uuid.uuid4().hex[:10]}"
        environ = {k: v for k, v in os.environ.items() if k != "TMUX"} | (env or {})
        subprocess.run(self._tmux("new-session", "-d", "-s", self.name, "-x", str(columns), "-y", str(rows),
                                  command), check=check, env=environ)

    def _tmux(self, *args: str) -> list[str]:
        return ["tmux", "-L", self.name, "-f", os.devnull, *args]

    def screen(self) -> str:
        return subprocess.run(self._tmux("capture-pane", "-p", "-t", self.name), capture_output=True,
                              text=True).stdout

    def keys(self, *keys: str) -> None:
        subprocess.run(self._tmux("send-keys", "-t", self.name, *keys), check=True)

    def wait(self, text: str, timeout: float = 30.0) -> str:
        """The screen once it shows text and is drawn whole (two captures 50 ms apart agree: tmux may be caught
        mid-redraw, with the text on screen and the lines below it not yet); an AssertionError with the screen
        if text is not shown within timeout."""
        timeout = outer(timeout)
        deadline = time.monotonic() + timeout
        seen = None
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                if shown == seen:
                    return shown
                seen = shown
            else:
                seen = None
            time.sleep(0.05)
        if seen is not None:
            return seen
        raise AssertionError(f"{text!r} not on screen within {timeout} s:\n{self.screen()}")

    def settled(self, timeout: float = 5.0) -> str:
        """The screen once two captures 50 ms apart agree (tmux may be caught mid-redraw, with a line of the
        screen before still on it), or the last capture after `timeout`: a loop that chooses what to do by what
        the screen says reads a whole screen, never half of one."""
        deadline = time.monotonic() + outer(timeout)
        seen = self.screen()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            shown = self.screen()
            if shown == seen:
                return shown
            seen = shown
        return seen

    def press(self, key: str, shown: str, timeout: float = 5.0) -> str:
        """Press `key` on the screen `shown` and return the next screen that differs from it (or the same one
        after `timeout`): a loop that reads the screen again never presses twice on a screen not yet redrawn."""
        self.keys(key)
        deadline = time.monotonic() + outer(timeout)
        while time.monotonic() < deadline:
            now = self.screen()
            if now != shown:
                return now
            time.sleep(0.05)
        return shown

    def play_to_results(self, timeout: float = 150.0) -> str:
        """Play the full-screen table by keys to its results: Enter on the card under the cursor at each turn
        and on each round's screen, row 1 when asked; once the game is over, one Enter brings up the results (a
        second would leave them). The results screen."""
        deadline = time.monotonic() + outer(timeout)
        while time.monotonic() < deadline:
            shown = self.screen()
            if "GAME OVER" in shown:
                return shown
            if "The game is over" in shown:
                self.keys("Enter")
                return self.wait("GAME OVER", 30)
            if "below every row: take a row" in shown:
                self.press("1", shown)
            elif "Your turn" in shown or "Press Enter" in shown:
                self.press("Enter", shown)
            time.sleep(0.1)
        raise AssertionError(f"no results within {outer(timeout)} s:\n{self.screen()}")

    def watch(self, text: str) -> Callable[[float], str]:
        """Look for `text` from now on, in the background (every 20 ms), for a screen that may be up only briefly
        (a TV's last screen before it leaves); returns wait(timeout) -> the first screen that showed it."""
        found: list[str] = []
        stop = threading.Event()

        def look() -> None:
            while not stop.is_set():
                shown = self.screen()
                if text in shown:
                    found.append(shown)
                    return
                stop.wait(0.02)

        thread = threading.Thread(target=look, daemon=True)
        thread.start()

        def wait(timeout: float = 30.0) -> str:
            thread.join(outer(timeout))
            stop.set()
            if not found:
                raise AssertionError(f"{text!r} never on screen within {outer(timeout)} s:\n{self.screen()}")
            return found[0]

        return wait

    def kill(self) -> None:
        subprocess.run(self._tmux("kill-server"), capture_output=True)


@pytest.fixture
def panes() -> Iterator:
    """panes(command, columns, rows, env) starts a Pane; every one is killed at the end of the test."""
    made: list[Pane] = []

    def make(*args, **kw) -> Pane:
        pane = Pane(*args, **kw)
        made.append(pane)
        return pane

    yield make
    for pane in made:
        pane.kill()
