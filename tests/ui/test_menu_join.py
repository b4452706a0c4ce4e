"""The start menu's way into someone's game, under tmux with real hosts on 127.0.0.1 (issue 23 items 4 and 5):
a code no game answers is asked again with the reason, Esc goes back a question, the join list puts open lobbies
first and highlights one, and a join the host refuses says why after the full-screen table is gone."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from deadlines import outer
from procs import code_of, game_of, seat_key_of
from tmuxpane import needs_tmux

LO = ["--interface", "127.0.0.1"]
ENV = {"P2PNIMMT_INTERFACE": "127.0.0.1"}  # the menu looks for games on 127.0.0.1 only
MENU = f"{sys.executable} -m p2pnimmt; echo exited-$?; sleep 300"


@needs_tmux
def test_a_code_no_game_answers_is_asked_again_with_the_reason_and_esc_goes_back(panes) -> None:
    pane = panes(MENU, columns=100, rows=30, env=ENV)
    pane.wait("What would you like to do?", 20)
    pane.keys("Down", "Down", "Enter")  # Join a game
    pane.wait("Your name at the table", 20)
    pane.keys("bob", "Enter")
    pane.wait("code with its seat key", 20)  # no game on the network: the code is asked
    pane.keys("zzzz-zzzz", "Enter")
    shown = pane.wait("No game with code ZZZZ answers on this network", 20)
    assert "code with its seat key" in shown and "exited-" not in shown  # the question again, not the shell
    pane.keys("Escape")
    pane.wait("Your name at the table", 20)  # back one question
    pane.keys("Escape")
    pane.wait("What would you like to do?", 20)  # back to the first menu
    pane.keys("Down", "Down", "Down", "Down", "Down", "Enter")  # Quit
    pane.wait("exited-0", 20)


def either(pane, *texts: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + outer(timeout)
    while time.monotonic() < deadline:
        shown = pane.screen()
        if any(text in shown for text in texts):
            return shown
        time.sleep(0.05)
    raise AssertionError(f"none of {texts} on screen:\n{pane.screen()}")


def listed_line(shown: str, code: str) -> tuple[int, str]:
    lines = shown.splitlines()
    return next((i, line) for i, line in enumerate(lines) if f"{code}  " in line)


@needs_tmux
def test_the_join_list_offers_the_open_lobby_first_and_a_started_game_refuses_in_words(procs, panes,
                                                                                         tmp_path: Path) -> None:
    playing = procs(["host", "--headless", "--seats", "2", "--bots", "1", *LO, "--bot-delay", "0.5", "--no-points",
                     "--rounds", "30", "--name", "ann"], tmp_path / "ann.out")
    playing.wait_for(r"game started", 30)
    lobby = procs(["host", "--headless", "--seats", "4", *LO, "--name", "cat"], tmp_path / "cat.out")
    lobby.wait_for(r"listening on", 30)
    started, open_ = code_of(tmp_path / "ann.out"), code_of(tmp_path / "cat.out")  # CODE-KEY, as the hosts show
    listed_started, listed_open = game_of(started), game_of(open_)  # the list shows the codes alone

    pane = panes(MENU, columns=120, rows=30, env=ENV)
    pane.wait("What would you like to do?", 20)
    pane.keys("Down", "Down", "Enter")
    pane.wait("Your name at the table", 20)
    pane.keys("bob", "Enter")
    for _ in range(5):  # the list is one look at the network (1.5 s): on a busy machine, look again (Esc, Enter)
        shown = either(pane, "which one to join?", "code with its seat key")  # the list, or the code if none found
        if f"{listed_started}  " in shown and f"{listed_open}  " in shown:
            break
        pane.keys("Escape")
        pane.wait("Your name at the table", 20)
        pane.keys("Enter")
    first, open_line = listed_line(shown, listed_open)
    second, started_line = listed_line(shown, listed_started)
    assert first < second, shown  # the open lobby first
    assert "(*)" in open_line and "(*)" not in started_line, shown  # and highlighted: one Enter joins it
    assert "playing  — the game has started, cannot be joined" in started_line, shown
    pane.keys("Down", "Enter")  # the started game, picked anyway
    shown = pane.wait(f"Game {listed_started} cannot be joined now (the game has started)", 20)
    pane.keys("Enter")  # the open lobby is highlighted again
    pane.wait(f"The seat key of {listed_open}", 20)  # the list carries no seat key: it is asked
    pane.keys(seat_key_of(open_).lower(), "Enter")
    pane.wait("p2pnimmt lobby", 30)
    lobby.wait_for(r"bob", 20)

    late = panes(f"{sys.executable} -m p2pnimmt join {started} {' '.join(LO)} --name dan; echo exited-$?; sleep 300",
                 columns=100, rows=30)
    shown = late.wait("exited-", 40)
    assert re.search(r"p2pnimmt: refused by the host: the game has started\s*\nexited-1", shown), shown
