"""The start menu of a bare `p2pnimmt` on a terminal: play against bots, host, join, watch, quit.

It only decides: it returns the command line to run (cli.main runs it),
so every choice is also a command a user could type. The name is
remembered between runs in the user's config directory.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.shortcuts import input_dialog, radiolist_dialog

TITLE = "p2pnimmt — 6 nimmt! on the LAN"


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "p2pnimmt" / "config.json"


def load_name() -> str:
    try:
        name = json.loads(config_path().read_text()).get("name", "")
    except (OSError, ValueError, AttributeError):
        return ""
    return name if isinstance(name, str) and 0 < len(name) <= 40 and name.isprintable() else ""


def save_name(name: str) -> None:
    path = config_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"name": name}))
    except OSError:
        pass  # remembering the name is a convenience, never a reason to stop


def ask_name() -> str | None:
    while True:
        name = input_dialog(title=TITLE, text="Your name at the table:", default=load_name()).run()
        if name is None:
            return None
        name = name.strip()
        if 0 < len(name) <= 40 and name.isprintable():
            save_name(name)
            return name


def choose(find_games: Callable[[], list[tuple[str, str]]] = lambda: []) -> list[str] | None:
    """Ask what to do; the command line to run, or None to quit.

    `find_games` lists [(code, description)] on the LAN (app.games.menu_games
    does); it is asked only when the user wants to join or watch.
    """
    what = radiolist_dialog(
        title=TITLE,
        text="What would you like to do?",
        values=[("play", "Play against bots"), ("host", "Host a game on the LAN"),
                ("join", "Join a game"), ("watch", "Watch a game (TV)"),
                ("watch-web", "Watch on this screen in a browser"), ("quit", "Quit")],
        default="play",
    ).run()
    if what in (None, "quit"):
        return None
    if what in ("watch", "watch-web"):
        code = ask_code(find_games(), "watch")
        return None if code is None else ["watch", code] + (["--web"] if what == "watch-web" else [])
    name = ask_name()
    if name is None:
        return None
    if what == "play":
        bots = radiolist_dialog(title=TITLE, text="How many bots?",
                                values=[(str(k), f"{k} bot{'s' if k > 1 else ''}") for k in range(1, 10)],
                                default="3").run()
        return None if bots is None else ["play", "--bots", bots, "--name", name]
    if what == "host":
        seats = radiolist_dialog(title=TITLE, text="How many seats (players and bots)?",
                                 values=[(str(k), f"{k} seats") for k in range(2, 11)], default="4").run()
        return None if seats is None else ["host", "--seats", seats, "--name", name]
    code = ask_code(find_games(), "join")
    return None if code is None else ["join", code, "--name", name]


def ask_code(games: list[tuple[str, str]] | None, verb: str) -> str | None:
    if games:
        picked = radiolist_dialog(title=TITLE, text=f"Games on this network — which one to {verb}?",
                                  values=[*games, ("", "Type a code instead")], default=games[0][0]).run()
        if picked is None:
            return None
        if picked:
            return picked
    while True:
        code = input_dialog(title=TITLE, text="The game's 4-letter code:").run()
        if code is None:
            return None
        code = code.strip().upper()
        if len(code) == 4 and code.isalnum():
            return code

