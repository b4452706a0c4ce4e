"""The game in German (issue 23): the real console script under tmux at 80x24, every screen it passes read and
checked for the UI's English words (tests/german.py: the catalog's English words no translation uses).

The host's game with `--lang de`: the lobby, the table, each round's end, the results; a game against bots with
LANG=de_DE.UTF-8 and a seed whose first turn asks for a row: the row choice, the help and the quit question.
With $P2PNIMMT_SCREENSHOTS (=docs) the screens are saved as text in docs/screenshots/ (terminal-de-*.txt).
Every process binds 127.0.0.1 only and is ended with its tmux server."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

from deadlines import outer
from german import english_on
from tmuxpane import needs_tmux

pytestmark = needs_tmux
LO = "--interface 127.0.0.1"
SEED = "00" * 32  # anna's 1 is below every row in the first turn (tests/ui/test_screens_tmux.py plays it too)
NAMES = ("anna", "bot1", "bot2", "bot3")


def keep(name: str, screen: str) -> None:
    """The screen as text in docs/screenshots/ when the README's screenshots are being remade."""
    where = os.environ.get("P2PNIMMT_SCREENSHOTS")
    if where:
        path = Path(where) / "screenshots" / f"terminal-de-{name}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(screen.rstrip() + "\n")


def german(screen: str, code: str = "") -> str:
    found = english_on(screen, NAMES, code)
    assert not found, f"English on a German screen: {sorted(found)}\n{screen}"
    return screen


def test_a_hosted_game_in_german_at_80x24_shows_no_english_from_lobby_to_results(tmp_path: Path, panes) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "LANG": "C.UTF-8"}
    pane = panes(f"{sys.executable} -m p2pnimmt host --lang de --seats 2 {LO} --name anna --rounds 2 --no-points "
                 f"--clock 0 --transcript {tmp_path / 'h.p2pt'}; sleep 300", 80, 24, env=env)
    lobby = pane.wait("Warteraum")
    code = re.search(r"Spielcode:.*\n(?:.*\n)*?.*?\b([0-9A-Z]{4})\b", lobby)
    plain = next(line.strip() for line in lobby.splitlines() if re.fullmatch(r"\s*│?\s*[0-9A-Z]{4}\s*│?\s*", line)
                 ) if code is None else code.group(1)
    plain = plain.strip("│ ")
    assert "Plätze 1/2" in lobby and "b: Heuristik-Bot" in lobby and "s: jetzt starten" in lobby, lobby
    keep("lobby", german(lobby, plain))
    pane.keys("b")  # a bot takes the second seat: the game starts
    seen: dict[str, str] = {}
    deadline = time.monotonic() + outer(180)
    while "results" not in seen:
        assert time.monotonic() < deadline, f"no results within the time; seen {list(seen)}:\n{pane.screen()}"
        shown = pane.settled()  # a whole screen: the turn's prompt may be on a screen half redrawn after it
        if "SPIELENDE" in shown:
            seen["results"] = shown
        elif "Das Spiel ist aus" in shown:
            seen.setdefault("over", shown)
            pane.press("Enter", shown)
        elif "Ende von Runde 1" in shown:
            seen.setdefault("round-end", shown)
            pane.press("Enter", shown)
        elif "nimm eine Reihe (1-4)" in shown:
            seen.setdefault("row", shown)
            pane.press("1", shown)
        elif "Du bist dran" in shown:
            seen.setdefault("table", shown)
            pane.press("Enter", shown)
        else:
            time.sleep(0.1)
        for screen in seen.values():
            german(screen, plain)
    assert {"table", "round-end", "results"} <= set(seen), list(seen)
    assert "Spieler" in seen["table"] and "Deine Hand" in seen["table"] and "Reihe" in seen["table"]
    assert "Summe" in seen["round-end"] and "Enter: weiter zur nächsten Runde." in seen["round-end"]
    assert "Gewinner" in seen["results"] and "Spielprotokoll geprüft" in seen["results"], seen["results"]
    for name, screen in seen.items():
        keep(name, screen)


def test_a_game_against_bots_in_german_from_the_locale_asks_for_a_row_in_german(tmp_path: Path, panes) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "LANG": "de_DE.UTF-8"}
    pane = panes(f"{sys.executable} -m p2pnimmt play --seed {SEED} --name anna; sleep 300", 80, 24, env=env)
    table = german(pane.wait("Du bist dran"))
    assert "p2pnimmt (gegen Bots)" in table and "Runde 1  Zug 1/10" in table, table
    helped = german(pane.press("?", table))
    assert "Tasten" in helped and "Hornochsen" in helped, helped
    table = pane.press("x", helped)  # any key closes the help
    german(pane.press("Enter", table))  # anna's 1 is below every row
    row = german(pane.wait("nimm eine Reihe (1-4)"))
    assert "Deine 1 ist kleiner als jede Reihe" in row and "Hornochse" in row, row
    keep("row", row)
    taken = german(pane.press("1", row))
    german(pane.press("q", taken))
    asked = german(pane.wait("Spiel verlassen? (j / n)"))
    assert "Du nimmst Reihe 1" in asked, asked
    pane.keys("j")  # German's yes: anna leaves
    left = pane.wait("Spielprotokoll:")
    assert "Du bist in Runde 1, Zug 2 gegangen" in left, left  # after the row taken in turn 1
