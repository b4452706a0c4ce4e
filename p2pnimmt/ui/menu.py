"""The start menu of a bare `p2pnimmt` on a terminal: play against bots, host, join, watch, quit.

It only decides: it returns the command line to run (cli.main runs it),
so every choice is also a command a user could type. The name is
remembered between runs in the user's config directory.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings
from prompt_toolkit.key_binding.bindings.focus import focus_next, focus_previous
from prompt_toolkit.key_binding.defaults import load_key_bindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout
from prompt_toolkit.layout.dimension import D
from prompt_toolkit.layout.margins import ScrollbarMargin
from prompt_toolkit.validation import ValidationError, Validator
from prompt_toolkit.widgets import Button, Dialog, Label, RadioList, TextArea

from .. import i18n
from ..bots import BOTS, LEVELS
from ..i18n import N_, _, ngettext
from ..protocol.gamecode import CODE_ALPHABET
from ..protocol.seatkey import SEAT_KEY_LENGTH, plain
from .remembered import checked_name, config_path, load_name, save_lang, save_name  # noqa: F401 (the menu's API)
from .words import columns

TITLE = N_("p2pnimmt — 6 nimmt! on the LAN")
BOT_TEXT = {
    "easy": N_("easy: the heuristic's card half of the time, a random card otherwise"),
    "medium": N_("medium: the card that costs the fewest bull heads this turn"),
    "hard": N_("hard: searches sampled deals, 0.6 s a move"),
    "random": N_("random: any card of its hand"),
    "mcs100": N_("mcs100: Monte-Carlo with random playouts (a baseline)"),
    "mcs": N_("mcs: the search of hard with a fixed number of deals"),
}
# The levels first; then the other kinds `play --bot` takes (heuristic is medium under another name).
BOT_CHOICES = [*LEVELS, *(name for name in BOTS if name not in LEVELS and name != "heuristic")]


QUESTION_WIDTH = 72  # a question's lines, broken between words: within an 80-column terminal's dialog


def between_words(text: str, width: int = QUESTION_WIDTH) -> str:
    """A dialog's question in lines of at most `width` columns broken between words (prompt_toolkit's Label
    breaks a long line anywhere: "Bild" / "schirm" in German); its own line breaks kept, and a word longer than
    a line (a link, a path) kept whole on a line of its own."""
    lines = []
    for part in text.split("\n"):
        line = ""
        for word in part.split(" "):
            if line and columns(line) + 1 + columns(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
    return "\n".join(lines)


class HiddenOnlyScrollbar(ScrollbarMargin):
    """A list's scrollbar shown only while some of its entries are out of sight: `^` when any is hidden above,
    `v` when any is hidden below, nothing at all when every entry fits (prompt_toolkit draws both arrows always)."""

    def __init__(self) -> None:
        super().__init__(display_arrows=True)

    def create_margin(self, window_render_info, width: int, height: int):
        info = window_render_info
        above = info.vertical_scroll > 0
        below = info.vertical_scroll + len(info.displayed_lines) < info.content_height
        if not above and not below:
            return []
        drawn = list(super().create_margin(info, width, height))
        if drawn and not above:
            drawn[0] = (drawn[0][0], " ")
        if drawn and not below:
            drawn[-1] = (drawn[-1][0], " ")
        return drawn


class _Choices(RadioList):
    """A radio list where Enter (or Space, or a click) on an entry chooses it and closes the dialog; its
    scrollbar only while entries are hidden (HiddenOnlyScrollbar)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.window.right_margins = [HiddenOnlyScrollbar()]

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


def button(label: str, handler: Callable[[], Any]) -> Button:
    """A dialog's button, wide enough for its label in any language with a space either side: prompt_toolkit's
    12 columns hold 10 between '<' and '>', so a longer label ran into them ('<Abbrechen >')."""
    return Button(text=label, handler=handler, width=max(12, columns(label) + 4))


def radio_dialog(title: str, text: str, values: list[tuple[str, str]], default: str | None = None) -> Application:
    """Choose one of `values` ([(value, label)]): Enter on an entry (or OK) returns it, Esc or Cancel None."""
    choices = _Choices(values=values, default=default)
    dialog = Dialog(
        title=title,
        body=HSplit([Label(text=between_words(text), dont_extend_height=True), choices], padding=1),
        buttons=[button(_("OK"), lambda: get_app().exit(result=choices.values[choices._selected_index][0])),
                 button(_("Cancel"), lambda: get_app().exit(result=None))],
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


def text_dialog(title: str, text: str, default: str = "", check: Callable[[str], str] | None = None,
                confirm: Callable[[str], Awaitable[str | None]] | None = None) -> Application:
    """One line of text: Enter returns it (after `check`, which returns it cleaned or raises ValueError saying
    what is wrong: the error shows under the field and the dialog stays), Esc or Cancel None.

    `confirm(value)`, if given, is then awaited with the dialog still up ("looking ..." under the field): it returns
    why the value cannot be used (shown under the field; the dialog stays) or None (the dialog returns the value)."""
    clean = check or (lambda value: value)
    note = [""]  # under the field: what `confirm` is doing, or why it refused the value

    def accept(buf: Buffer) -> bool:
        value = clean(buf.text)
        app = get_app()
        if confirm is None:
            app.exit(result=value)
            return True
        if note[0].startswith(_(LOOKING)):
            return True  # one look at a time

        async def confirmed() -> None:
            note[0] = f"{_(LOOKING)} {value} ..."
            app.invalidate()
            try:
                problem = await confirm(value)
            except Exception as exc:  # the network could not be asked: say so, the person may try again
                problem = _("could not look for {code}: {why}").format(code=value, why=exc)
            if problem is None:
                app.exit(result=value)
            else:
                note[0] = problem
                app.invalidate()

        app.create_background_task(confirmed())
        return True  # the text stays, to be corrected

    field = TextArea(text=default, multiline=False, accept_handler=accept,
                     validator=_Check(clean) if check else None)
    field.buffer.cursor_position = len(default)  # at the end of the offered text (it stood before its first letter)

    def refused() -> str:
        """Why `check` refused the text, broken between words under the field (prompt_toolkit's ValidationToolbar,
        one line, cut it at the dialog's edge: "... 4 + 4 Buchstaben und Ziffern, wie sie d")."""
        error = field.buffer.validation_error
        return error.message if error is not None else ""
    dialog = Dialog(
        title=title,
        body=HSplit([Label(text=between_words(text), dont_extend_height=True), field,
                     ConditionalContainer(Label(text=lambda: between_words(refused()), dont_extend_height=True,
                                                style="class:validation-toolbar"),
                                          filter=Condition(lambda: bool(refused()))),
                     Label(text=lambda: between_words(note[0]), dont_extend_height=True,
                           style="class:validation-toolbar")],
                    padding=D(preferred=1, max=1)),
        buttons=[button(_("OK"), field.buffer.validate_and_handle),
                 button(_("Cancel"), lambda: get_app().exit(result=None))],
        with_background=True,
    )
    app = _dialog_app(dialog)
    if default:  # the offered text (a remembered name) is replaced by what is typed first, not added to: typing
        # "ann" over "ann" made "annann"; any other key first (an arrow, Backspace, Enter) keeps it to edit or take
        fresh = [True]
        first = KeyBindings()

        @first.add(Keys.Any, filter=Condition(lambda: fresh[0]))
        def replace(event) -> None:
            field.buffer.text = ""
            field.buffer.insert_text(event.data)

        app.key_bindings = merge_key_bindings([app.key_bindings or KeyBindings(), first])
        app.key_processor.after_key_press += lambda _processor: fresh.__setitem__(0, False)
    return app


LOOKING = N_("looking on this network for game")


def ask_name() -> str | None:
    name = text_dialog(_(TITLE), _("Your name at the table:"), load_name(), checked_name).run()
    if name is not None:
        save_name(name)
    return name


def ask_lang() -> None:
    """The language of every screen from now on, remembered for the next runs (ui.remembered, p2pnimmt.i18n)."""
    lang = radio_dialog(_(TITLE), "Language / Sprache", [(code, i18n.NAMES[code]) for code in i18n.LANGUAGES],
                        default=i18n.language()).run()
    if lang is not None:
        i18n.use(lang)
        save_lang(lang)


def plain_code(text: str) -> str:
    """A typed code, upper case, when it is 4 letters and digits, perhaps with its seat key (`ABCD-WXYZ`; cli passes
    the network's own check)."""
    code, _hyphen, key = text.strip().upper().partition("-")
    if len(code) != 4 or not code.isalnum() or (key and (len(key) != 4 or not key.isalnum())):
        raise ValueError(_("a game code is 4 letters and digits, got {text}").format(text=repr(text)))
    return f"{code}-{key}" if key else code


@dataclass(frozen=True)
class Listed:
    """A game in the menu's list: what to join or watch (`CODE`, or `CODE/HOST-KEY` when several games answer one
    code), its line, and why a seat cannot be taken now (None: it can; a game can always be watched)."""

    value: str
    text: str
    closed: str | None = None


CheckCode = Callable[[str, str], Awaitable[str | None]]  # (code, "join" or "watch") -> why not, or None


def choose(find_games: Callable[[], list[Listed]] = lambda: [], read_code: Callable[[str], str] = plain_code,
           check_code: CheckCode | None = None, last: Sequence[str] = ()) -> list[str] | None:
    """Ask what to do; the command line to run, or None to quit.

    `find_games` lists the games on the LAN (app.games.menu_games does); it is
    asked only when the user wants to join or watch. `read_code` turns a typed
    code into the code, or raises ValueError saying what is wrong
    (net.discovery.parse_code: the menu does not touch the network layer).
    `check_code` looks for a typed code on the network (app.games.code_problem):
    a code no game answers is asked again, with the reason.

    Esc (or Cancel) in a question goes back to the one before; in this first menu it quits. `last`: the closing
    lines of the game played before (its result, its transcript), shown above the question: the menu covers the
    terminal they were printed in.
    """
    what = "play"
    while True:
        question = _("What would you like to do?")
        what = radio_dialog(
            _(TITLE), "\n".join([_("The last game:"), *last, "", question]) if last else question,
            # The language first: the others keep their places (Down from the default, Play, as before).
            [("lang", _("Language: English") + "  (Sprache / language)"),
             ("play", _("Play against bots")), ("host", _("Host a game on the LAN")),
             ("join", _("Join a game")), ("watch", _("Watch a game (TV)")),
             ("watch-web", _("Watch on this screen in a browser")), ("quit", _("Quit"))],
            default=what,
        ).run()
        if what in (None, "quit"):
            return None
        if what == "lang":
            ask_lang()
            continue
        chosen = _command(what, find_games, read_code, check_code)
        if chosen is not None:
            return chosen


def _command(what: str, find_games: Callable[[], list[Listed]], read_code: Callable[[str], str],
             check_code: CheckCode | None) -> list[str] | None:
    """The questions after the first menu's choice, with Esc going back one; the command line, or None when
    Esc went back past the first question."""
    if what in ("watch", "watch-web"):
        picked = _steps([lambda: ask_code(find_games(), "watch", read_code, check_code)])
        return None if picked is None else ["watch", *game_args(picked[0])] + (["--web"] if what == "watch-web" else [])
    if what == "play":
        answers = _steps([
            ask_name,
            lambda: radio_dialog(_(TITLE), _("How many bots?"),
                                 [(str(k), ngettext("{n} bot", "{n} bots", k).format(n=k)) for k in range(1, 10)],
                                 default="3").run(),
            lambda: radio_dialog(_(TITLE), _("How strong are the bots?"),
                                 [(kind, _(BOT_TEXT[kind]) if kind in BOT_TEXT else kind) for kind in BOT_CHOICES],
                                 default="medium").run(),
        ])
        return None if answers is None else ["play", "--bots", answers[1], "--bot", answers[2], "--name", answers[0]]
    if what == "host":
        answers = _steps([ask_name, lambda: radio_dialog(_(TITLE), _("How many seats (players and bots)?"),
                                                         [(str(k), _("{n} seats").format(n=k)) for k in range(2, 11)],
                                                         default="4").run()])
        return None if answers is None else ["host", "--seats", answers[1], "--name", answers[0]]
    answers = _steps([ask_name, lambda: ask_code(find_games(), "join", read_code, check_code)])
    return None if answers is None else ["join", *game_args(answers[1]), "--name", answers[0]]


def _steps(asks: list[Callable[[], str | None]]) -> list[str] | None:
    """Ask each question in turn; Esc (None) goes back to the one before, and from the first one out (None)."""
    answers: list[str] = []
    while len(answers) < len(asks):
        answer = asks[len(answers)]()
        if answer is not None:
            answers.append(answer)
        elif answers:
            answers.pop()
        else:
            return None
    return answers


def game_args(picked: str) -> list[str]:
    """A picked game as a command's arguments: `CODE-SEATKEY`, or `CODE-SEATKEY --host-key KEY` for
    `CODE-SEATKEY/KEY` (one of several games that answer one code, app.games.menu_games), or an invite link as
    it is."""
    if "://" in picked:
        return [picked]
    code, _, key = picked.partition("/")
    return [code, "--host-key", key] if key else [code]


TYPE_A_CODE = N_("Type a code instead")


def read_seat_key(text: str) -> str:
    """A typed seat key: 4 characters of the code's alphabet, read as a code is (I and L as 1, O as 0); ValueError
    saying what is wrong."""
    key = plain(text)
    if len(key) != SEAT_KEY_LENGTH or not set(key) <= set(CODE_ALPHABET):
        raise ValueError(_("a seat key is the 4 letters and digits after the hyphen on the host's screen, got "
                           "{text}").format(text=repr(text)))
    return key


def with_seat_key(value: str) -> str | None:
    """`value` (`CODE`, `CODE/HOST-KEY`, `CODE-SEATKEY`, or an invite link) with its seat key: asked when it has
    none (protocol.md 14: nobody sits or watches without it); None if the person went back (Esc)."""
    if "://" in value:
        return value
    code, slash, host = value.partition("/")
    if "-" in code:
        return value
    key = text_dialog(_(TITLE), _("The seat key of {code}: the 4 characters after the hyphen on the host's screen "
                                  "({code}-XXXX):").format(code=code), check=read_seat_key).run()
    return None if key is None else f"{code}-{key}{slash}{host}"


def ask_code(games: list[Listed] | None, verb: str, read_code: Callable[[str], str] = plain_code,
             check_code: CheckCode | None = None) -> str | None:
    """The game to join or watch: picked from the list (to join: open lobbies first, the first of them
    highlighted; a game that has started or is full is marked and, picked, refused with the reason), or typed;
    Esc in the typed code goes back to the list, Esc in the list (or with no list) returns None."""
    games = list(games or [])
    if verb == "join":
        games.sort(key=lambda game: game.closed is not None)  # stable: open lobbies first, as found
    entries = [(g.value, g.text + ("  — " + _("{why}, cannot be joined").format(why=g.closed)
                                   if verb == "join" and g.closed else "")) for g in games]
    closed = {g.value: g.closed for g in games if g.closed} if verb == "join" else {}
    first = next((value for value, _ in entries if value not in closed), "")
    why = ""
    while True:
        if games:
            which = (_("Games on this network — which one to join?") if verb == "join"
                     else _("Games on this network — which one to watch?"))
            picked = radio_dialog(_(TITLE), f"{why}{which}", [*entries, ("", _(TYPE_A_CODE))], default=first).run()
            if picked is None:
                return None
            if picked in closed:
                why = _("Game {code} cannot be joined now ({why}): choose another, or Esc and Watch it.").format(
                    code=picked.partition('/')[0], why=closed[picked]) + "\n\n"
                continue
            if picked:
                keyed = with_seat_key(picked)
                if keyed is not None:
                    return keyed
                continue  # Esc in the seat key: back to the list
        confirm = (lambda code: check_code(code, verb)) if check_code is not None else None
        typed = text_dialog(_(TITLE), _("The game's code with its seat key as the host's screen shows it (ABCD-WXYZ; "
                                        "I reads as 1, O as 0), or its invite link:"),
                            check=read_code,
                            confirm=confirm).run()
        if typed is not None:
            keyed = with_seat_key(typed)
            if keyed is not None:
                return keyed
            continue  # Esc in the seat key: the code again
        if not games:
            return None
        why = ""
