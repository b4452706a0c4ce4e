"""The start menu, driven by keys without a terminal: it returns the command line each choice stands for."""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pnimmt.bots import BOTS
from p2pnimmt.cli import build_parser
from p2pnimmt.net.discovery import parse_code
from p2pnimmt.ui import menu

DOWN, ENTER, TAB = "\x1b[B", "\r", "\t"
PICK = ENTER  # a radio list: Enter on the highlighted entry chooses it and moves on
TYPE = ENTER  # a text field: one Enter


@pytest.fixture
def keyboard(tmp_path, monkeypatch):
    """keyboard(["keys for dialog 1", "keys for dialog 2", ...]): each dialog gets its keys as it opens.

    Every dialog must be ended by its own keys: a dialog left waiting (it needed more keys than it got)
    fails the test instead of hanging it."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        script: list[str] = []
        opened: list[str] = []

        def feeding(factory):
            def make(*args, **kwargs):
                app = factory(*args, **kwargs)
                opened.append(args[1])
                if not script:
                    raise AssertionError(f"dialog {args[1]!r} opened with no keys left for it (opened: {opened})")
                keys = script.pop(0)
                run = app.run

                def run_with_keys():
                    def fail_if_still_open() -> None:
                        if app.is_running and not app.future.done():
                            app.exit(exception=AssertionError(f"dialog {args[1]!r} still open after {keys!r}"))

                    inp.send_text(keys)
                    return run(pre_run=lambda: asyncio.get_running_loop().call_later(10, fail_if_still_open))

                app.run = run_with_keys
                return app

            return make

        monkeypatch.setattr(menu, "radio_dialog", feeding(menu.radio_dialog))
        monkeypatch.setattr(menu, "text_dialog", feeding(menu.text_dialog))
        yield script.extend
        assert not script, f"keys left over for dialogs that never opened: {script} (opened: {opened})"


def test_play_against_bots_asks_the_name_the_number_of_bots_and_their_level(keyboard) -> None:
    keyboard([PICK, "ann" + TYPE, DOWN + PICK, DOWN + PICK])
    # the cursor starts on the defaults: 3 bots, medium; one Down and Enter choose the next entry
    assert menu.choose() == ["play", "--bots", "4", "--bot", "hard", "--name", "ann"]
    assert menu.load_name() == "ann"  # remembered for next time


def test_each_level_and_the_other_bots_can_be_chosen(keyboard) -> None:
    """easy, medium, hard in that order, then the other kinds `play --bot` takes (random, mcs100, mcs)."""
    assert menu.BOT_CHOICES[:3] == ["easy", "medium", "hard"]
    assert {"random", "mcs100", "mcs"} <= set(menu.BOT_CHOICES) <= set(BOTS)
    for steps, kind in [("\x1b[A", "easy"), ("", "medium"), (DOWN * 3, "mcs100")]:
        menu.save_name("ann")
        keyboard([PICK, TYPE, PICK, steps + PICK])
        assert menu.choose() == ["play", "--bots", "3", "--bot", kind, "--name", "ann"]
        assert build_parser().parse_args(["play", "--bot", kind]).bot == kind  # a command the CLI accepts


def test_the_remembered_name_is_offered(keyboard) -> None:
    menu.save_name("cat")
    keyboard([PICK, TYPE, PICK, PICK])
    assert menu.choose() == ["play", "--bots", "3", "--bot", "medium", "--name", "cat"]


def test_a_bad_name_is_refused_in_the_field_with_the_reason(keyboard) -> None:
    """Enter on an empty name does not close the dialog (the error shows under the field); typing one does."""
    keyboard([PICK, "   " + TYPE + "\x7f" * 3 + "bo" + TYPE, PICK, PICK])
    assert menu.choose() == ["play", "--bots", "3", "--bot", "medium", "--name", "bo"]


def test_tab_to_ok_still_works_and_takes_the_highlighted_entry(keyboard) -> None:
    keyboard([DOWN + TAB + ENTER, "dan" + TAB + ENTER, DOWN + TAB + ENTER])
    assert menu.choose() == ["host", "--seats", "5", "--name", "dan"]


def test_escape_quits(keyboard) -> None:
    keyboard(["\x1b"])
    assert menu.choose() is None


def test_host_asks_the_seats(keyboard) -> None:
    keyboard([DOWN + PICK, "dan" + TYPE, DOWN + PICK])
    assert menu.choose() == ["host", "--seats", "5", "--name", "dan"]


def test_join_offers_the_games_found_on_the_lan(keyboard) -> None:
    games = [("ABCD", "ABCD  ann  standard, sealed deal  seats 1/4  lobby")]
    keyboard([DOWN * 2 + PICK, "bob" + TYPE, PICK])
    assert menu.choose(lambda: games) == ["join", "ABCD", "--name", "bob"]


def test_join_by_typed_code_read_aloud(keyboard) -> None:
    """Lower case, and I/O typed for 1/0 (codes have no I, L, O, U) give the code as shown."""
    games = [("ABCD", "ABCD  ann  standard, sealed deal  seats 1/4  lobby")]
    keyboard([DOWN * 2 + PICK, "bob" + TYPE, DOWN + PICK, "io2z" + TYPE])
    assert menu.choose(lambda: games, parse_code) == ["join", "102Z", "--name", "bob"]


def test_a_code_that_cannot_be_is_refused_in_the_field(keyboard) -> None:
    """'abcu' (U is not in codes) and 'abc' (3 characters) keep the dialog open; 'abcd' is taken."""
    keyboard([DOWN * 3 + PICK, "abcu" + TYPE + "\x7f" + TYPE + "d" + TYPE])
    assert menu.choose(read_code=parse_code) == ["watch", "ABCD"]


def test_watch_by_typed_code(keyboard) -> None:
    keyboard([DOWN * 3 + PICK, "wxyz" + TYPE])
    assert menu.choose() == ["watch", "WXYZ"]


def test_watch_in_a_browser(keyboard) -> None:
    keyboard([DOWN * 4 + PICK, "wxyz" + TYPE])
    assert menu.choose() == ["watch", "WXYZ", "--web"]


def test_quit(keyboard) -> None:
    keyboard([DOWN * 5 + PICK])
    assert menu.choose() is None


def test_bare_command_on_a_terminal_opens_the_menu_and_quits() -> None:
    """The real console script under tmux: `p2pnimmt` shows the menu; Quit ends it (no LAN browsing happens)."""
    import os
    import shutil
    import subprocess
    import sys
    import time
    import uuid

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    name = f"p2pnimmt-menu-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "80", "-y", "24",
                    f"{sys.executable} -m p2pnimmt; echo exited-$?; sleep 30"], check=True, env=env)

    def screen() -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout

    def wait_for(text: str) -> str:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if text in (shown := screen()):
                return shown
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not on screen:\n{screen()}")

    try:
        shown = wait_for("What would you like to do?")
        assert "Play against bots" in shown and "Host a game on the LAN" in shown and "Watch a game" in shown
        subprocess.run(["tmux", "send-keys", "-t", name, "Down", "Down", "Down", "Down", "Down", "Enter"],
                       check=True)  # Enter on Quit is enough
        wait_for("exited-0")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_bare_command_play_against_bots_takes_one_key_a_dialog(tmp_path) -> None:
    """The real console script under tmux: Enter on "Play against bots", the name and one Enter, Up and Enter
    (2 bots), Up and Enter (easy): the table opens with two bots; q, y leave it."""
    import os
    import shutil
    import subprocess
    import sys
    import time
    import uuid

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    name = f"p2pnimmt-menu-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}
    env.update(XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "80", "-y", "24",
                    f"{sys.executable} -m p2pnimmt; echo exited-$?; sleep 30"], check=True, env=env)

    def screen() -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout

    def keys(*k: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", name, *k], check=True)

    def wait_for(text: str) -> str:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if text in (shown := screen()):
                return shown
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not on screen:\n{screen()}")

    try:
        wait_for("What would you like to do?")
        keys("Enter")
        wait_for("Your name at the table")
        keys("ann", "Enter")
        wait_for("How many bots?")
        keys("Up", "Enter")
        shown = wait_for("How strong are the bots?")
        assert "easy" in shown and "medium" in shown and "hard" in shown and "mcs100" in shown
        keys("Up", "Enter")
        shown = wait_for("vs bots")
        assert "bot1" in shown and "bot2" in shown and "bot3" not in shown and "ann" in shown, shown
        keys("q")
        wait_for("Leave the game?")
        keys("y")
        wait_for("exited-0")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_from_the_menu_host_with_three_bots_play_to_game_over_while_a_second_terminal_watches(tmp_path) -> None:
    """The issue's walk-through, under tmux: bare `p2pnimmt` -> host -> name -> seats -> three bots by keys;
    the game starts, a second terminal watches it live, and the keyboard alone plays it to game over.
    P2PNIMMT_INTERFACE keeps every process on 127.0.0.1 (TCP and mDNS)."""
    import os
    import re
    import shutil
    import subprocess
    import sys
    import time
    import uuid

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}
    env.update(P2PNIMMT_INTERFACE="127.0.0.1", XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path),
               P2PNIMMT_PLACE_DELAY="0")
    names = [f"p2pnimmt-walk-{uuid.uuid4().hex[:8]}", f"p2pnimmt-tv-{uuid.uuid4().hex[:8]}"]

    def screen(name: str) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout

    def keys(name: str, *k: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", name, *k], check=True)

    def wait_for(name: str, text: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in (shown := screen(name)):
                return shown
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not on screen:\n{screen(name)}")

    subprocess.run(["tmux", "new-session", "-d", "-s", names[0], "-x", "80", "-y", "24",
                    f"{sys.executable} -m p2pnimmt; echo exited-$?; sleep 30"],
                   check=False, env=env)
    try:
        wait_for(names[0], "What would you like to do?")
        keys(names[0], "Down", "Enter")  # Host a game on the LAN: Enter on it chooses it
        wait_for(names[0], "Your name")
        keys(names[0], "ann", "Enter")  # one Enter
        wait_for(names[0], "How many seats")
        keys(names[0], "Enter")  # 4 seats (the default)
        shown = wait_for(names[0], "p2pnimmt lobby")
        code = "".join(re.search(r"\|\s+(\w)   (\w)   (\w)   (\w)\s+\|", shown).groups())
        subprocess.run(["tmux", "new-session", "-d", "-s", names[1], "-x", "80", "-y", "24",
                        f"{sys.executable} -m p2pnimmt watch {code}; sleep 30"], check=True, env=env)
        wait_for(names[1], "p2pnimmt lobby")
        keys(names[0], "b")
        wait_for(names[0], "Seats 2/4")
        keys(names[0], "b")
        wait_for(names[0], "Seats 3/4")
        keys(names[0], "b")  # the fourth seat: the game starts
        wait_for(names[0], "Your turn")
        wait_for(names[1], "row 4")  # the TV shows the table
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline:
            shown = screen(names[0])
            if "GAME OVER" in shown:
                break
            if "below every row: take a row" in shown:
                keys(names[0], "1")
            elif "Your turn" in shown or "Game over after" in shown or "Press Enter" in shown:
                keys(names[0], "Enter")
            time.sleep(0.15)
        shown = screen(names[0])
        assert "GAME OVER" in shown and "Transcript verified" in shown, shown
        tv = wait_for(names[1], "GAME OVER", 30)  # the TV followed the whole game live and shows the results itself
        assert "Your hand" not in tv and "Transcript verified" in tv
        keys(names[0], "Enter")
        wait_for(names[0], "exited-0")
    finally:
        for name in names:
            subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_the_bare_command_gives_the_menu_the_networks_own_code_check(monkeypatch) -> None:
    """cli.main on a terminal hands choose() net.discovery.parse_code (the menu itself never imports net/)."""
    import sys

    from p2pnimmt import cli

    given = []
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(menu, "choose", lambda find_games, read_code: given.append(read_code))
    assert cli.main([]) == 0 and given == [parse_code]
