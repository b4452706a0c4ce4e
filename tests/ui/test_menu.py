"""The start menu, driven by keys without a terminal: it returns the command line each choice stands for."""

from __future__ import annotations

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pnimmt.ui import menu

DOWN, ENTER, TAB = "\x1b[B", "\r", "\t"
PICK = ENTER + TAB + ENTER  # a radio list: select the marked entry, go to OK, press it
TYPE = ENTER + ENTER  # a text field: Enter moves to OK, Enter presses it


@pytest.fixture
def keyboard(tmp_path, monkeypatch):
    """keyboard(["keys for dialog 1", "keys for dialog 2", ...]): each dialog gets its keys as it opens."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        script: list[str] = []

        def feeding(factory):
            def make(*args, **kwargs):
                app = factory(*args, **kwargs)
                inp.send_text(script.pop(0))
                return app

            return make

        monkeypatch.setattr(menu, "radiolist_dialog", feeding(menu.radiolist_dialog))
        monkeypatch.setattr(menu, "input_dialog", feeding(menu.input_dialog))
        yield script.extend


def test_play_against_bots_asks_the_name_and_the_number_of_bots(keyboard) -> None:
    keyboard([PICK, "ann" + TYPE, DOWN + PICK])
    assert menu.choose() == ["play", "--bots", "4", "--name", "ann"]  # the cursor starts on the default, 3
    assert menu.load_name() == "ann"  # remembered for next time


def test_the_remembered_name_is_offered(keyboard) -> None:
    menu.save_name("cat")
    keyboard([PICK, TYPE, PICK])
    assert menu.choose() == ["play", "--bots", "3", "--name", "cat"]


def test_host_asks_the_seats(keyboard) -> None:
    keyboard([DOWN + PICK, "dan" + TYPE, DOWN + PICK])
    assert menu.choose() == ["host", "--seats", "5", "--name", "dan"]


def test_join_offers_the_games_found_on_the_lan(keyboard) -> None:
    games = [("ABCD", "ABCD  host XYZW-1234  seats 1/4  lobby  at 10.0.0.2:4000")]
    keyboard([DOWN * 2 + PICK, "bob" + TYPE, PICK])
    assert menu.choose(lambda: games) == ["join", "ABCD", "--name", "bob"]


def test_watch_by_typed_code(keyboard) -> None:
    keyboard([DOWN * 3 + PICK, "wxyz" + TYPE])
    assert menu.choose() == ["watch", "WXYZ"]


def test_quit(keyboard) -> None:
    keyboard([DOWN * 4 + PICK])
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
        subprocess.run(["tmux", "send-keys", "-t", name, "Down", "Down", "Down", "Down", "Enter", "Tab", "Enter"],
                       check=True)
        wait_for("exited-0")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
