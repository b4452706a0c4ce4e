"""The start menu of a bare `p2pnimmt` on a terminal: play against bots, host, join, watch, quit.

It only decides: it returns the command line to run (cli.main runs it),
so every choice is also a command a user could type. The name is
remembered between runs in the user's config directory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings
from prompt_toolkit.key_binding.bindings.focus import focus_next, focus_previous
from prompt_toolkit.key_binding.defaults import load_key_bindings
from prompt_toolkit.layout import HSplit, Layout
from prompt_toolkit.layout.dimension import D
from prompt_toolkit.validation import ValidationError, Validator
from prompt_toolkit.widgets import Button, Dialog, Label, RadioList, TextArea, ValidationToolbar

from ..bots import BOTS, LEVELS
from .remembered import checked_name, config_path, load_name, save_name  # noqa: F401 (the menu's API)

TITLE = "p2pnimmt — 6 nimmt! on the LAN"
BOT_TEXT = {
    "easy": "easy: the heuristic's card half of the time, a random card otherwise",
    "medium": "medium: the card that costs the fewest bull heads this turn",
    "hard": "hard: searches sampled deals, 0.6 s a move",
    "random": "random: any card of its hand",
    "mcs100": "mcs100: Monte-Carlo with random playouts (a baseline)",
    "mcs": "mcs: the search of hard with a fixed number of deals",
}
# The levels first; then the other kinds `play --bot` takes (heuristic is medium under another name).
BOT_CHOICES = [*LEVELS, *(name for name in BOTS if name not in LEVELS and name != "heuristic")]


class _Choices(RadioList):
    """A radio list where Enter (or Space, or a click) on an entry chooses it and closes the dialog."""

    def _handle_enter(self) -> None:
        super()._handle_enter()
        get_app().exit(result=self.current_value)


def _dialog_app(dialog: Dialog) -> Application[Any]:
    keys = KeyBindings()
    keys.add("tab")(focus_next)
    keys.add("s-tab")(focus_previous)
    keys.add("escape")(lambda event: event.app.exit(result=None))
    return Application(layout=Layout(dialog), key_bindings=merge_key_bindings([load_key_bindings(), keys]),
                       mouse_support=True, full_screen=True)


def radio_dialog(title: str, text: str, values: list[tuple[str, str]], default: str | None = None) -> Application:
    """Choose one of `values` ([(value, label)]): Enter on an entry (or OK) returns it, Esc or Cancel None."""
    choices = _Choices(values=values, default=default)
    dialog = Dialog(
        title=title,
        body=HSplit([Label(text=text, dont_extend_height=True), choices], padding=1),
        buttons=[Button(text="OK", handler=lambda: get_app().exit(result=choices.values[choices._selected_index][0])),
                 Button(text="Cancel", handler=lambda: get_app().exit(result=None))],
        with_background=True,
    )
    return _dialog_app(dialog)


class _Check(Validator):
    def __init__(self, check: Callable[[str], str]) -> None:
        self.check = check

    def validate(self, document: Document) -> None:
        try:
            self.check(document.text)
        except ValueError as exc:
            raise ValidationError(cursor_position=len(document.text), message=str(exc)) from None


def text_dialog(title: str, text: str, default: str = "", check: Callable[[str], str] | None = None) -> Application:
    """One line of text: Enter returns it (after `check`, which returns it cleaned or raises ValueError saying
    what is wrong: the error shows under the field and the dialog stays), Esc or Cancel None."""
    clean = check or (lambda value: value)

    def accept(buf: Buffer) -> bool:
        get_app().exit(result=clean(buf.text))
        return True

    field = TextArea(text=default, multiline=False, accept_handler=accept,
                     validator=_Check(clean) if check else None)
    dialog = Dialog(
        title=title,
        body=HSplit([Label(text=text, dont_extend_height=True), field, ValidationToolbar()],
                    padding=D(preferred=1, max=1)),
        buttons=[Button(text="OK", handler=field.buffer.validate_and_handle),
                 Button(text="Cancel", handler=lambda: get_app().exit(result=None))],
        with_background=True,
    )
    return _dialog_app(dialog)


def ask_name() -> str | None:
    name = text_dialog(TITLE, "Your name at the table:", load_name(), checked_name).run()
    if name is not None:
        save_name(name)
    return name


def plain_code(text: str) -> str:
    """A typed code, upper case, when it is 4 letters and digits (cli passes the network's own check)."""
    code = text.strip().upper()
    if len(code) != 4 or not code.isalnum():
        raise ValueError(f"a game code is 4 letters and digits, got {text!r}")
    return code


def choose(find_games: Callable[[], list[tuple[str, str]]] = lambda: [],
           read_code: Callable[[str], str] = plain_code) -> list[str] | None:
    """Ask what to do; the command line to run, or None to quit.

    `find_games` lists [(code, description)] on the LAN (app.games.menu_games
    does); it is asked only when the user wants to join or watch. `read_code`
    turns a typed code into the code, or raises ValueError saying what is
    wrong (net.discovery.parse_code: the menu does not touch the network layer).
    """
    what = radio_dialog(
        TITLE, "What would you like to do?",
        [("play", "Play against bots"), ("host", "Host a game on the LAN"),
         ("join", "Join a game"), ("watch", "Watch a game (TV)"),
         ("watch-web", "Watch on this screen in a browser"), ("quit", "Quit")],
        default="play",
    ).run()
    if what in (None, "quit"):
        return None
    if what in ("watch", "watch-web"):
        code = ask_code(find_games(), "watch", read_code)
        return None if code is None else ["watch", *game_args(code)] + (["--web"] if what == "watch-web" else [])
    name = ask_name()
    if name is None:
        return None
    if what == "play":
        bots = radio_dialog(TITLE, "How many bots?",
                            [(str(k), f"{k} bot{'s' if k > 1 else ''}") for k in range(1, 10)], default="3").run()
        if bots is None:
            return None
        level = radio_dialog(TITLE, "How strong are the bots?",
                             [(kind, BOT_TEXT.get(kind, kind)) for kind in BOT_CHOICES], default="medium").run()
        return None if level is None else ["play", "--bots", bots, "--bot", level, "--name", name]
    if what == "host":
        seats = radio_dialog(TITLE, "How many seats (players and bots)?",
                             [(str(k), f"{k} seats") for k in range(2, 11)], default="4").run()
        return None if seats is None else ["host", "--seats", seats, "--name", name]
    code = ask_code(find_games(), "join", read_code)
    return None if code is None else ["join", *game_args(code), "--name", name]


def game_args(picked: str) -> list[str]:
    """A picked game as a command's arguments: `CODE`, or `CODE --host-key KEY` for `CODE/KEY` (one of several
    games that answer one code, app.games.menu_games), or an invite link as it is."""
    if "://" in picked:
        return [picked]
    code, _, key = picked.partition("/")
    return [code, "--host-key", key] if key else [code]


def ask_code(games: list[tuple[str, str]] | None, verb: str,
             read_code: Callable[[str], str] = plain_code) -> str | None:
    if games:
        picked = radio_dialog(TITLE, f"Games on this network — which one to {verb}?",
                              [*games, ("", "Type a code instead")], default=games[0][0]).run()
        if picked is None:
            return None
        if picked:
            return picked
    return text_dialog(TITLE, "The game's 4-character code (I reads as 1, O as 0), or its invite link:",
                       check=read_code).run()
