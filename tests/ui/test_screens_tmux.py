"""The screens of the real console script under tmux at 79x24, 80x24 and 160x48 (issue 13, items 6 and 7).

Our own too-small screen below 80 columns (never prompt_toolkit's), long names whole when there is room,
the big-card TV view of `watch` at 160x48, and a player who quits shown as left on the host's table.
Every process binds 127.0.0.1 only and is stopped by its pid or tmux session name.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from tmuxpane import needs_tmux

pytestmark = needs_tmux
LO = "--interface 127.0.0.1"
SEED = "00" * 32


def test_below_80_columns_the_too_small_screen_is_ours_and_q_asks_on_it(panes) -> None:
    pane = panes(f"{sys.executable} -m p2pnimmt play --seed {SEED}; echo exited-$?; sleep 300", 79, 24)
    shown = pane.wait("This table needs at least 80x20.")
    assert "The terminal is too small: 79x24." in shown and "Window too small" not in shown
    assert "q: leave the game" in shown
    pane.keys("q")
    pane.wait("Leave the game? (y / n)")
    pane.keys("y")
    pane.wait("exited-0")


def test_at_80x24_the_table_draws_and_a_long_name_is_cut_with_a_mark(panes) -> None:
    pane = panes(f"{sys.executable} -m p2pnimmt play --seed {SEED} --name bartholomew-the-great", 80, 24)
    shown = pane.wait("Your turn")
    assert "*barthol… " in shown and "Window too small" not in shown and "too small" not in shown


def test_at_160x48_a_long_name_is_shown_whole(panes) -> None:
    pane = panes(f"{sys.executable} -m p2pnimmt play --seed {SEED} --name bartholomew-the-great", 160, 48)
    shown = pane.wait("Your turn")
    assert "*bartholomew-the-great " in shown.split("Your hand")[0]


def test_watch_at_160x48_draws_big_cards_scores_and_the_code(tmp_path: Path, procs, panes) -> None:
    # The last seat is taken only once the TV shows the lobby: a game of bots alone can end (and its host leave)
    # before a slow machine has started the watcher at all.
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", "--rounds", "1", "--no-points",
                  "--bot-delay", "0.3", *LO.split(), "--name", "ann", "--transcript", str(tmp_path / "h.p2pt")],
                 tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    pane = panes(f"{sys.executable} -m p2pnimmt watch {code} {LO} --transcript {tmp_path / 'w.p2pt'}; sleep 300",
                 160, 48)
    pane.wait("p2pnimmt lobby")
    bob = procs(["join", code, "--headless", *LO.split(), "--name", "bob", "--transcript", str(tmp_path / "j.p2pt")],
                tmp_path / "join.out")
    shown = pane.wait("┌─────────────┐")
    assert f"p2pnimmt watch {code}" in shown  # the code, for whoever arrives late
    assert "ann" in shown and "bot1" in shown and "bob" in shown and "Your hand" not in shown
    assert "█" in shown and "!6!" in shown and "Window too small" not in shown
    assert host.finish(90) == 0 and bob.finish(90) == 0


def test_a_player_who_quits_shows_as_left_on_the_hosts_table_at_once(tmp_path: Path, panes) -> None:
    host = panes(f"{sys.executable} -m p2pnimmt host --seats 2 {LO} --name ann --rounds 1 --no-points "
                 f"--transcript {tmp_path / 'h.p2pt'}; sleep 300", 80, 24)
    shown = host.wait("s: start now")
    # the code with its seat key, large: |   A   B   C   D   -   W   X   Y   Z   |
    found = re.search(r"\|   ((?:\w   ){4}-(?:   \w){4})   \|", shown)
    assert found, shown
    code = found.group(1).replace(" ", "")
    bob = panes(f"{sys.executable} -m p2pnimmt join {code} {LO} --name bob --transcript {tmp_path / 'b.p2pt'}; "
                "echo exited-$?; sleep 300", 80, 24)
    bob.wait("Your turn")
    shown = host.wait("Your turn")
    bob_line = next(line for line in shown.splitlines() if " bob " in f" {line} " and "choosing" in line)
    assert "left" not in bob_line
    bob.keys("q")
    bob.wait("Leave the game?")
    bob.keys("y")
    bob.wait("exited-")
    # The link closes as bob's process ends, with his bye (he left on purpose): he is shown as left and voted out
    # at once, well before the drop time (60 s).
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        rows = [line for line in host.screen().splitlines() if "bob" in line and line.find("bob") > 40]
        if rows and (" left " in rows[0] + " " or " dropped " in rows[0] + " "):
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"bob is not shown as left:\n{host.screen()}")
    shown = host.wait("bob left the game: a stand-in plays that hand", 5)  # his bye: leaving, not "dropped"
    assert "bob left the game" in shown and "no link to them" not in shown and "others' vote" not in shown

