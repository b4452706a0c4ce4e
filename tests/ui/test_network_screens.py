"""`p2pnimmt join` and `watch` on a real terminal (tmux, 80x24) show the full-screen table for a network game."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from procs import Proc, game_of
from tmuxpane import Pane, needs_tmux

from p2pnimmt.protocol.verify import verify_transcript

pytestmark = needs_tmux
LO = ["--interface", "127.0.0.1"]


def start_host(tmp_path: Path, procs) -> tuple[Proc, str]:
    host = procs(["host", "--headless", "--seats", "2", "--rounds", "1", "--no-points", "--bot-delay", "0.05", *LO,
                  "--name", "ann", "--transcript", str(tmp_path / "h.p2pt")], tmp_path / "host.out")
    return host, host.wait_for(r"code: (\w{4}-\w{4})").group(1)


def test_join_plays_a_network_game_on_the_full_screen_table(tmp_path: Path, procs) -> None:
    host, code = start_host(tmp_path, procs)
    pane = Pane(f"{sys.executable} -m p2pnimmt join {code} {' '.join(LO)} --name bob "
                f"--transcript {tmp_path / 'j.p2pt'}; sleep 300")
    try:
        deadline = time.monotonic() + 60
        commits = 0
        while time.monotonic() < deadline:
            shown = pane.screen()
            if "GAME OVER" in shown:
                break
            if "Game over after" in shown:  # one Enter brings up the results: a second would leave them
                pane.keys("Enter")
                pane.wait("GAME OVER", 30)
                break
            if "Press Enter for the next round" in shown:
                pane.keys("Enter")
            elif "below every row: take a row" in shown:
                pane.keys("1")
            elif "Your turn" in shown and f"turn {commits + 1}/10" in shown:
                pane.keys("Enter")  # commit the card the cursor is on
                commits += 1
            time.sleep(0.1)
        shown = pane.screen()
        assert "GAME OVER" in shown, shown
        assert re.search(r"Winners?: ", shown)
        assert "Transcript verified: " in shown
        assert commits == 10
        pane.keys("q")  # leave the results screen
        assert host.finish(30) == 0, host.text()
    finally:
        pane.kill()
    verdict = verify_transcript((tmp_path / "j.p2pt").read_bytes())
    assert verdict.ok, verdict.report()
    assert "bob" in verdict.summary and "ann" in verdict.summary


def test_watch_shows_the_table_without_a_hand(tmp_path: Path, procs) -> None:
    # The last seat is taken once the TV shows the lobby: a game of bots alone can end (and its host leave) before
    # a slow machine has started the watcher at all.
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", "--rounds", "2", "--no-points",
                  "--bot-delay", "0.2", *LO, "--name", "ann", "--transcript", str(tmp_path / "h.p2pt")],
                 tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    pane = Pane(f"{sys.executable} -m p2pnimmt watch {code} {' '.join(LO)} --transcript {tmp_path / 'w.p2pt'}; "
                "sleep 300")
    try:
        pane.wait("p2pnimmt lobby")
        bob = procs(["join", code, "--headless", *LO, "--name", "bob", "--transcript", str(tmp_path / "j.p2pt")],
                    tmp_path / "join.out")
        shown = pane.wait("row 4")
        assert "row 4" in shown and "ann" in shown and "bot1" in shown and "bob" in shown, shown
        assert "Your hand" not in shown
        assert host.finish(60) == 0 and bob.finish(60) == 0
    finally:
        pane.kill()


def test_host_lobby_screen_adds_bots_by_keys_and_the_table_follows(tmp_path: Path) -> None:
    pane = Pane(f"{sys.executable} -m p2pnimmt host --seats 4 {' '.join(LO)} --name ann --rounds 1 --no-points "
                f"--transcript {tmp_path / 'h.p2pt'}; echo exited-$?; sleep 300")
    try:
        shown = pane.wait("s: start now")  # the last line of the lobby: it is all drawn
        assert "Seats 1/4" in shown and "ann" in shown and "s: start now" in shown
        assert "Deal: sealed (no one can see another's hand" in shown  # sealed is the default
        pane.keys("d")
        pane.wait("Deal: open (a shared seed")
        pane.keys("d")
        pane.wait("Deal: sealed")
        pane.keys("b")
        pane.wait("Seats 2/4")
        pane.keys("v")
        pane.wait("Variant tactical")
        pane.keys("s")  # start now, with the 2 players present
        shown = pane.wait("Your turn")
        assert "row 4" in shown and "bot1" in shown
        pane.keys("q")
        pane.wait("Leave the game?")
        pane.keys("y")
        pane.wait("exited-")
    finally:
        pane.kill()


def test_join_shows_the_lobby_until_the_table_is_full(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "3", "--rounds", "1", "--no-points", *LO, "--name", "ann",
                  "--transcript", str(tmp_path / "h.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    pane = Pane(f"{sys.executable} -m p2pnimmt join {code} {' '.join(LO)} --name bob "
                f"--transcript {tmp_path / 'j.p2pt'}; sleep 300")
    try:
        shown = pane.wait("Seats 2/3")
        assert "   ".join(game_of(code)) in shown  # the game's code, large (the seat key is the host's screen's)
        assert "ann" in shown and "bob" in shown and "The host starts the game" in shown
        procs(["join", code, "--headless", *LO, "--transcript", str(tmp_path / "k.p2pt")], tmp_path / "k.out")
        pane.wait("Your turn")
    finally:
        pane.kill()
