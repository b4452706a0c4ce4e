"""The start menu, driven by keys without a terminal: it returns the command line each choice stands for."""

from __future__ import annotations

import asyncio
import re
import sys

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from tmuxpane import needs_tmux

from p2pnimmt.bots import BOTS
from p2pnimmt.cli import build_parser
from p2pnimmt.net.discovery import parse_code
from p2pnimmt.net.invite import read_code_or_link
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


ESC = "\x1b"


def test_escape_in_a_question_goes_back_to_the_one_before_and_from_the_first_to_the_menu(keyboard) -> None:
    """play: name, Esc at the bots goes back to the name (remembered: one Enter), Esc at the bots again and Esc
    at the name go back to the first menu, which hosts instead (issue 23 item 5: Esc used to quit)."""
    keyboard([PICK, "ann" + TYPE, ESC, TYPE, ESC, ESC, DOWN + PICK, TYPE, PICK])
    assert menu.choose() == ["host", "--seats", "4", "--name", "ann"]


def test_escape_in_the_typed_code_goes_back_to_the_list_of_games(keyboard) -> None:
    """Esc in the typed code, and Esc in the seat key asked for a game picked from the list (protocol.md 14: the
    list shows no key), each go back to the list."""
    games = [menu.Listed("ABCD", "ABCD  ann  standard, sealed deal  seats 1/4  lobby")]
    # watch: Type a code, Esc: the list again, ABCD, Esc at its seat key: the list again, ABCD, its key
    keyboard([DOWN * 3 + PICK, DOWN + PICK, ESC, PICK, ESC, PICK, "wxyz" + TYPE])
    assert menu.choose(lambda: games) == ["watch", "ABCD-WXYZ"]


def test_the_join_list_has_open_lobbies_first_and_a_playing_game_picked_says_why_not(keyboard, monkeypatch) -> None:
    """The games as found: a game playing, one full, one open: the open one is listed first and highlighted (one
    Enter joins it); the others are marked, and picking one asks again, saying why (issue 23 item 4)."""
    games = [menu.Listed("PLAY", "PLAY  ann  standard, sealed deal  seats 2/2  playing", "the game has started"),
             menu.Listed("FULL", "FULL  cat  standard, sealed deal  seats 3/3  lobby", "every seat is taken"),
             menu.Listed("OPEN", "OPEN  dan  standard, sealed deal  seats 1/4  lobby")]
    asked: list[tuple[str, list]] = []
    radio = menu.radio_dialog
    monkeypatch.setattr(menu, "radio_dialog", lambda title, text, values, default=None: (
        asked.append((text, values, default)), radio(title, text, values, default))[1])
    keyboard([DOWN * 2 + PICK, "bob" + TYPE, DOWN + PICK, PICK, "wxyz" + TYPE])  # OPEN, then its seat key
    assert menu.choose(lambda: games) == ["join", "OPEN-WXYZ", "--name", "bob"]
    text, values, default = asked[1]
    assert [value for value, _ in values] == ["OPEN", "PLAY", "FULL", ""] and default == "OPEN"
    assert values[1][1].endswith("playing  — the game has started, cannot be joined")
    assert values[2][1].endswith("— every seat is taken, cannot be joined")
    text, values, default = asked[2]  # PLAY was picked: asked again, with the reason, OPEN highlighted again
    assert text.startswith("Game PLAY cannot be joined now (the game has started): choose another, or Esc and Watch")
    assert default == "OPEN"


def test_watch_lists_every_game_unmarked(keyboard) -> None:
    games = [menu.Listed("PLAY", "PLAY  ann  standard, sealed deal  seats 2/2  playing", "the game has started")]
    keyboard([DOWN * 3 + PICK, PICK, "wxyz" + TYPE])  # PLAY, then its seat key
    assert menu.choose(lambda: games) == ["watch", "PLAY-WXYZ"]


def test_host_asks_the_seats(keyboard) -> None:
    keyboard([DOWN + PICK, "dan" + TYPE, DOWN + PICK])
    assert menu.choose() == ["host", "--seats", "5", "--name", "dan"]


def test_join_offers_the_games_found_on_the_lan(keyboard) -> None:
    """A game picked from the list (mDNS carries no seat key) asks its seat key, as the host's screen shows it."""
    games = [menu.Listed("ABCD", "ABCD  ann  standard, sealed deal  seats 1/4  lobby")]
    keyboard([DOWN * 2 + PICK, "bob" + TYPE, PICK, "7q2k" + TYPE])
    assert menu.choose(lambda: games) == ["join", "ABCD-7Q2K", "--name", "bob"]


def test_join_by_typed_code_read_aloud(keyboard) -> None:
    """Lower case, and I/O/L typed for 1/0/1 (codes and seat keys have no I, L, O, U) give the code and the key as
    shown: typed apart (the key asked after a code without one) or together."""
    games = [menu.Listed("ABCD", "ABCD  ann  standard, sealed deal  seats 1/4  lobby")]
    keyboard([DOWN * 2 + PICK, "bob" + TYPE, DOWN + PICK, "io2z" + TYPE, "i0lk" + TYPE])
    assert menu.choose(lambda: games, parse_code) == ["join", "102Z-101K", "--name", "bob"]
    keyboard([DOWN * 2 + PICK, TYPE, DOWN + PICK, "io2z-i0lk" + TYPE])  # bob remembered: one Enter
    assert menu.choose(lambda: games, read_code_or_link) == ["join", "102Z-101K", "--name", "bob"]


def test_a_code_that_cannot_be_is_refused_in_the_field(keyboard) -> None:
    """'abcu' (U is not in codes) and 'abc' (3 characters) keep the dialog open; 'abcd' is taken; so in the seat
    key's field 'wxyu' and 'wxy'."""
    keyboard([DOWN * 3 + PICK, "abcu" + TYPE + "\x7f" + TYPE + "d" + TYPE, "wxyu" + TYPE + "\x7f" + TYPE + "z" + TYPE])
    assert menu.choose(read_code=parse_code) == ["watch", "ABCD-WXYZ"]


def test_watch_by_typed_code(keyboard) -> None:
    keyboard([DOWN * 3 + PICK, "wxyz-abcd" + TYPE])
    assert menu.choose() == ["watch", "WXYZ-ABCD"]


def test_watch_in_a_browser(keyboard) -> None:
    keyboard([DOWN * 4 + PICK, "wxyz-abcd" + TYPE])
    assert menu.choose() == ["watch", "WXYZ-ABCD", "--web"]


def test_quit(keyboard) -> None:
    keyboard([DOWN * 5 + PICK])
    assert menu.choose() is None


@needs_tmux
def test_bare_command_on_a_terminal_opens_the_menu_and_quits(panes) -> None:
    """The real console script under tmux: `p2pnimmt` shows the menu; Quit ends it (no LAN browsing happens)."""
    pane = panes(f"{sys.executable} -m p2pnimmt; echo exited-$?; sleep 300")
    shown = pane.wait("What would you like to do?", 15)
    assert "Play against bots" in shown and "Host a game on the LAN" in shown and "Watch a game" in shown
    pane.keys("Down", "Down", "Down", "Down", "Down", "Enter")  # Enter on Quit is enough
    pane.wait("exited-0", 15)


@needs_tmux
def test_bare_command_play_against_bots_takes_one_key_a_dialog(tmp_path, panes) -> None:
    """The real console script under tmux: Enter on "Play against bots", the name and one Enter, Up and Enter
    (2 bots), Up and Enter (easy): the table opens with two bots; q, y leave it, back to the start menu (on main
    it left to the shell), whose Quit ends it."""
    pane = panes(f"{sys.executable} -m p2pnimmt; echo exited-$?; sleep 300",
                 env={"XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)})
    pane.wait("What would you like to do?", 15)
    pane.keys("Enter")
    pane.wait("Your name at the table", 15)
    pane.keys("ann", "Enter")
    pane.wait("How many bots?", 15)
    pane.keys("Up", "Enter")
    shown = pane.wait("How strong are the bots?", 15)
    assert "easy" in shown and "medium" in shown and "hard" in shown and "mcs100" in shown
    pane.keys("Up", "Enter")
    shown = pane.wait("vs bots", 15)
    assert "bot1" in shown and "bot2" in shown and "bot3" not in shown and "ann" in shown, shown
    pane.keys("q")
    pane.wait("Leave the game?", 15)
    pane.keys("y")
    shown = pane.wait("What would you like to do?", 15)
    assert "exited" not in shown, shown
    pane.keys("Down", "Down", "Down", "Down", "Down", "Enter")  # Quit
    shown = pane.wait("exited-0", 15)
    assert "You left in round 1" in shown, shown  # what the game said stays in the terminal


@needs_tmux
def test_from_the_menu_host_with_three_bots_play_to_game_over_while_a_second_terminal_watches(tmp_path,
                                                                                               panes) -> None:
    """The issue's walk-through, under tmux: bare `p2pnimmt` -> host -> name -> seats -> three bots by keys;
    the game starts, a second terminal watches it live, and the keyboard alone plays it to game over.
    P2PNIMMT_INTERFACE keeps every process on 127.0.0.1 (TCP and mDNS)."""
    env = {"P2PNIMMT_INTERFACE": "127.0.0.1", "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path),
           "P2PNIMMT_PLACE_DELAY": "0"}
    host = panes(f"{sys.executable} -m p2pnimmt; echo exited-$?; sleep 300", env=env)
    host.wait("What would you like to do?", 20)
    host.keys("Down", "Enter")  # Host a game on the LAN: Enter on it chooses it
    host.wait("Your name", 20)
    host.keys("ann", "Enter")  # one Enter
    host.wait("How many seats", 20)
    host.keys("Enter")  # 4 seats (the default)
    shown = host.wait("p2pnimmt lobby", 20)
    code = re.search(r"\|\s+((?:\w   ){4}-(?:   \w){4})\s+\|", shown).group(1).replace(" ", "")  # CODE-KEY
    tv = panes(f"{sys.executable} -m p2pnimmt watch {code}; sleep 300", env=env)
    tv.wait("p2pnimmt lobby", 20)
    host.keys("b")
    host.wait("Seats 2/4", 20)
    host.keys("b")
    host.wait("Seats 3/4", 20)
    host.keys("b")  # the fourth seat: the game starts
    host.wait("Your turn", 20)
    tv.wait("row 4", 20)  # the TV shows the table
    shown = host.play_to_results(150)
    assert "GAME OVER" in shown and "Transcript verified" in shown, shown
    watched = tv.wait("GAME OVER", 30)  # the TV followed the whole game live and shows the results itself
    assert "Your hand" not in watched and "Transcript verified" in watched
    host.keys("q")  # leaves the results (an Enter within 0.8 s of them would be taken as typed ahead)
    host.wait("What would you like to do?", 20)  # back to the start menu
    host.keys("Escape")  # Esc in the first menu quits
    host.wait("exited-0", 20)


def test_the_bare_command_gives_the_menu_the_networks_own_code_check(monkeypatch) -> None:
    """cli.main on a terminal hands choose() net.invite.read_code_or_link, which reads a code as
    net.discovery.parse_code does, or an invite link (the menu itself never imports net/)."""
    import sys

    from p2pnimmt import cli

    given = []
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(menu, "choose", lambda find_games, read_code, check_code, last=(): given.append(read_code))
    assert cli.main([]) == 0 and given == [read_code_or_link]


def test_join_by_a_typed_invite_link_and_a_bad_link_refused_in_the_field(keyboard) -> None:
    """The code field takes an invite link too (issue 27): a bad one keeps the dialog open, a good one is
    handed to `join` whole, which dials it (no mDNS)."""
    link = "p2pnimmt://10.0.0.5:4000/qm5z-7q2k#nlkp-hqtu-2g77-zuj5-pmqi-2vm4"
    bad = "p2pnimmt://10.0.0.5:99999/QM5Z-7Q2K#NLKP-HQTU-2G77-ZUJ5-PMQI-2VM4"
    keyless = "p2pnimmt://10.0.0.5:4000/QM5Z#NLKP-HQTU-2G77-ZUJ5-PMQI-2VM4"  # no seat key: not an invite link
    keyboard([DOWN * 2 + PICK, "bob" + TYPE, bad + TYPE + "\x15" + keyless + TYPE + "\x15" + link + TYPE])
    chosen = menu.choose(read_code=read_code_or_link)
    assert chosen == ["join", "p2pnimmt://10.0.0.5:4000/QM5Z-7Q2K#NLKP-HQTU-2G77-ZUJ5-PMQI-2VM4", "--name", "bob"]
    assert build_parser().parse_args(chosen).code == chosen[1]
    with pytest.raises(ValueError, match="not a good invite link: the port of '10.0.0.5:99999' must be"):
        read_code_or_link(bad)
    with pytest.raises(ValueError, match="the link has no seat key after its code"):
        read_code_or_link(keyless)


def _arrows(values: list[tuple[str, str]], keys: int = 0) -> tuple[bool, bool]:
    """(an up arrow drawn, a down arrow drawn) beside the list of a radio dialog at 80x24, its entry `keys` highlighted."""
    from types import SimpleNamespace

    from p2pnimmt.ui.app import screen_text

    app = menu.radio_dialog("title", "Pick one", values)
    choices = app.layout.current_control.text.__self__  # the focused list (its control draws its fragments)
    assert isinstance(choices, menu.RadioList)
    choices._selected_index = keys
    screen = screen_text(SimpleNamespace(app=app))  # twice: a window scrolls to the highlighted entry as it is drawn
    screen = screen_text(SimpleNamespace(app=app))
    return (any(re.search(r"\^ +│$", line) for line in screen.splitlines()),
            any(re.search(r"v +│$", line) for line in screen.splitlines()))


def test_a_list_that_fits_shows_no_scroll_arrows_and_a_long_one_only_toward_what_is_hidden() -> None:
    """The menu's lists drew `^` and `v` beside every list, even the first menu's six entries, all in sight."""
    assert _arrows([(str(i), f"entry {i}") for i in range(6)]) == (False, False)
    many = [(str(i), f"entry {i}") for i in range(40)]
    assert _arrows(many) == (False, True)  # the top: more below
    assert _arrows(many, 39) == (True, False)  # the end: more above
    assert _arrows(many, 20) == (True, True)


@needs_tmux
def test_a_lan_game_left_mid_way_from_the_menu_comes_back_to_the_menu_after_enter(tmp_path, panes) -> None:
    """Played by hand: a game hosted from the menu and left before its end (q, y) ends `host` with status 1 and a
    line saying how to resume it; the menu must not cover that line, nor the shell take over: Enter brings the
    start menu back (on main: the shell)."""
    env = {"P2PNIMMT_INTERFACE": "127.0.0.1", "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    host = panes(f"{sys.executable} -m p2pnimmt; echo exited-$?; sleep 300", env=env)
    host.wait("What would you like to do?", 20)
    host.keys("Down", "Enter")  # Host a game on the LAN
    host.wait("Your name", 20)
    host.keys("ann", "Enter")
    host.wait("How many seats", 20)
    host.keys("Up", "Up", "Enter")  # 2 seats
    host.wait("p2pnimmt lobby", 20)
    host.keys("b")  # a bot takes the second seat: the game starts
    host.wait("Your turn", 30)
    host.keys("q")
    host.wait("Leave the game?", 15)
    host.keys("y")
    shown = host.wait("Press Enter for the start menu", 30)
    assert "You left the game in round 1, before its end" in shown and "exited" not in shown, shown
    host.keys("Enter")
    host.wait("What would you like to do?", 20)
    host.keys("Escape")
    host.wait("exited-0", 20)


def test_a_long_question_is_broken_between_words_in_german() -> None:
    """Played by hand in German at 80x24: the seat key's question broke "Bildschirm" into "Bild" and "schirm"
    (prompt_toolkit's Label breaks a long line anywhere). Now its lines break between words."""
    from types import SimpleNamespace

    from p2pnimmt import i18n
    from p2pnimmt.ui.app import screen_text

    i18n.use("de")
    try:
        text = i18n._("The seat key of {code}: the 4 characters after the hyphen on the host's screen "
                      "({code}-XXXX):").format(code="0ZF0")

        async def drawn() -> str:  # the dialog's field wants a running loop
            return screen_text(SimpleNamespace(app=menu.text_dialog("title", text)))
        screen = " ".join(asyncio.run(drawn()).replace("│", " ").split())
    finally:
        i18n.use("en")
    assert "auf dem Bildschirm des Gastgebers" in screen, screen


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_dialog_button_has_a_space_either_side_of_its_label(lang: str) -> None:
    """Played by hand in German: the Cancel button read "<Abbrechen >" (prompt_toolkit's buttons are 12 columns,
    10 between '<' and '>', and the label was pushed against the left one). Now each button of the menu's two kinds
    of dialog, the list and the text field, is as wide as its label needs, in English and in German."""
    from types import SimpleNamespace

    from p2pnimmt import i18n
    from p2pnimmt.ui.app import screen_text

    i18n.use(lang)
    try:
        async def drawn() -> list[str]:  # the dialogs' fields want a running loop
            return [screen_text(SimpleNamespace(app=menu.radio_dialog("title", "text", [("a", "A"), ("b", "B")]))),
                    screen_text(SimpleNamespace(app=menu.text_dialog("title", "text")))]
        screens = asyncio.run(drawn())
        labels = [i18n._("OK"), i18n._("Cancel")]
    finally:
        i18n.use("en")
    for screen in screens:
        buttons = re.findall(r"<[^<>│]*>", screen)
        assert [b.strip("<>").strip() for b in buttons] == labels, screen
        assert all(re.fullmatch(r"< +\S+ +>", b) for b in buttons), buttons


@needs_tmux
@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_menu_after_a_game_shows_how_it_ended(tmp_path, panes, lang: str) -> None:
    """Played by hand: a game from the start menu, left (or over), came back to the menu, which covered what the game
    had printed (the scores, the transcript's file) until Quit. Now the menu shows the last game's closing lines
    above its question, in the language of the screens."""
    pane = panes(f"{sys.executable} -m p2pnimmt --lang {lang}; echo exited-$?; sleep 300",
                 env={"XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)})
    question = "What would you like to do?" if lang == "en" else "Was möchtest du tun?"
    shown = pane.wait(question, 15)
    assert "The last game" not in shown and "Das letzte Spiel" not in shown, shown
    pane.keys("Enter")
    pane.wait("Your name at the table" if lang == "en" else "Dein Name am Tisch", 15)
    pane.keys("ann", "Enter")
    pane.wait("How many bots?" if lang == "en" else "Wie viele Bots?", 15)
    pane.keys("Up", "Enter")
    pane.wait("How strong are the bots?" if lang == "en" else "Wie stark spielen die Bots?", 15)
    pane.keys("Up", "Enter")
    pane.wait("bot2", 15)
    pane.keys("q")
    pane.wait("Leave the game?" if lang == "en" else "Spiel verlassen?", 15)
    pane.keys("y")
    shown = pane.wait(question, 15)
    flat = " ".join(shown.replace("│", " ").split())
    if lang == "en":
        assert "The last game: You left in round 1, turn 1. Scores so far: ann 0, bot1 0, bot2 0." in flat, shown
        assert "Transcript: " in flat and ".p2pt" in flat, shown
    else:
        assert "Das letzte Spiel: Du bist in Runde 1, Zug 1 gegangen. Punkte bis dahin: ann 0, bot1 0, bot2 0." in flat, \
            shown
        assert "Spielprotokoll: " in flat and ".p2pt" in flat, shown
    assert "exited" not in shown, shown


def test_a_name_typed_over_the_remembered_one_replaces_it(keyboard) -> None:
    """Played by hand: the name field offers the remembered name, and typing the name again made "annann". Now what
    is typed first replaces the offered name; a key that edits first (Backspace, an arrow) keeps it to edit."""
    menu.save_name("ann")
    keyboard([PICK, "ann" + TYPE, PICK, PICK])
    assert menu.choose() == ["play", "--bots", "3", "--bot", "medium", "--name", "ann"]
    keyboard([PICK, "\x7f" + "e" + TYPE, PICK, PICK])  # Backspace first: "an", then "e"
    assert menu.choose() == ["play", "--bots", "3", "--bot", "medium", "--name", "ane"]


@needs_tmux
def test_a_long_refusal_under_a_typed_code_is_broken_between_words_not_cut(tmp_path, panes) -> None:
    """Played by hand in German at 80x24: a code typed wrong in the menu's code question (a command pasted there)
    was refused on one line cut at the dialog's edge: "ein Spielcode mit Platzschlüssel hat 4 + 4 Buchstaben und
    Ziffern, wie sie d". Now the whole reason shows under the field, broken between words."""
    pane = panes(f"{sys.executable} -m p2pnimmt --lang de; sleep 300", env={"XDG_CONFIG_HOME": str(tmp_path)})
    pane.wait("Was möchtest du tun?", 15)
    pane.keys("Down", "Down", "Down", "Enter")  # watch a game: no game on this LAN, the code is asked
    pane.wait("Einladungslink:", 15)
    pane.keys("pn host --seats 3", "Enter")
    shown = pane.wait("Buchstaben und Ziffern", 10)
    said = " ".join(shown.replace("│", " ").split())
    assert "wie sie der Bildschirm des Gastgebers zeigt (ABCD-WXYZ), erhalten: 'pn host --seats 3'" in said, shown
