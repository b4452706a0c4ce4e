"""Games against bots are kept like any game (issue 23 item 8): `play` writes the person's transcript beside the
networked games', `history` lists it right after, `verify` checks it; a game left early is listed as cut short."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from deadlines import outer
from tmuxpane import needs_tmux


def p2pnimmt(*args: str, stdin: int | None = subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p2pnimmt", *args], capture_output=True, text=True, timeout=120,
                          stdin=stdin, env=os.environ)


def kept() -> list[Path]:
    folder = Path(os.environ["XDG_DATA_HOME"]) / "p2pnimmt" / "transcripts"
    return sorted(folder.glob("*.p2pt")) if folder.is_dir() else []


@needs_tmux
def test_a_full_screen_game_against_bots_is_in_history_and_verifies(panes) -> None:
    assert "No games yet" in p2pnimmt("history").stdout
    pane = panes(f"{sys.executable} -m p2pnimmt play --bots 2 --rounds 1 --no-points --name ann; echo exited-$?; "
                 "sleep 300", env={"P2PNIMMT_PLACE_DELAY": "0"})
    pane.wait("vs bots", 20)
    deadline = time.monotonic() + outer(90)
    while time.monotonic() < deadline:  # the keyboard alone plays the round: Enter plays, 1 takes row 1
        shown = pane.screen()
        if "exited-" in shown:
            break
        if "GAME OVER" in shown or "Game over after" in shown:
            pane.keys("Enter")
        elif "below every row: take a row" in shown:
            pane.keys("1")
        elif "Your turn" in shown or "Press Enter" in shown:
            pane.keys("Enter")
        time.sleep(0.15)
    shown = pane.wait("exited-0", 20)
    (path,) = kept()
    assert f"Transcript: {path}" in shown.replace("\n", ""), shown
    listed = p2pnimmt("history")
    assert listed.returncode == 0 and "No games yet" not in listed.stdout, listed.stdout
    assert "standard, open deal, 1 round, won by" in listed.stdout and "[verified]" in listed.stdout, listed.stdout
    assert re.search(r"ann \(you\) \d+, bot1 \d+, bot2 \d+", listed.stdout), listed.stdout
    checked = p2pnimmt("verify", str(path))
    assert checked.returncode == 0 and "verified:" in checked.stdout, checked.stderr
    assert "players: ann (" in checked.stdout and "bot1 (" in checked.stdout


def test_a_game_left_early_is_listed_as_cut_short_and_a_replay_of_its_seed_gets_a_file_of_its_own() -> None:
    for _ in range(2):  # the same seed: the same game id and key, so the second file is named -2
        left = p2pnimmt("play", "--lines", "--bots", "1", "--seed", "7", "--name", "bob")  # stdin closed at once
        assert left.returncode == 1 and "game abandoned" in left.stdout, left.stdout
    second, first = kept()  # '-' sorts before '.'
    assert second.name == first.name.replace(".p2pt", "-2.p2pt")
    assert f"Transcript: {second} (`p2pnimmt history` lists it" in left.stdout, left.stdout
    listed = p2pnimmt("history").stdout
    assert listed.count("NOT verified") == 2 and "bob (you) 0, bot1 0" in listed, listed


def test_resuming_a_game_against_bots_says_it_cannot_and_how_to_replay_it() -> None:
    left = p2pnimmt("play", "--lines", "--bots", "1", "--seed", "7", "--name", "bob")  # left at once: cut short
    assert left.returncode == 1, left.stdout
    (path,) = kept()
    resumed = p2pnimmt("resume", str(path), "--headless", "--interface", "127.0.0.1")
    assert resumed.returncode == 1, resumed.stderr
    assert f"cannot resume from {path}: it has no key file" in resumed.stderr, resumed.stderr
    assert "p2pnimmt play --seed SEED" in resumed.stderr and "Errno" not in resumed.stderr, resumed.stderr
