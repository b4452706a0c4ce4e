"""The full-screen app without a terminal: a pipe for keys, DummyOutput, the screen rendered to text."""

import asyncio
import re
import time
from contextlib import contextmanager

import pytest
from deadlines import OUTER
from fullscreen import seated
from prompt_toolkit.input import create_pipe_input
from screens import SizedOutput, until

from p2pnimmt import i18n
from p2pnimmt.engine import Settings
from p2pnimmt.ui.app import TYPED_AHEAD, TableApp, screen_text
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import TableModel

RIGHT, LEFT, ENTER = "\x1b[C", "\x1b[D", "\r"


def table(players=4, **kw):
    model, tv = TableModel(), TableModel()
    t = LocalTable(Settings(players=players, **kw), seed=bytes(32), spectators=1, on_event=model.update,
                   on_watch=tv.update)
    return model, tv, t


@contextmanager
def playing(**settings):
    """My seat's app at the local `table(**settings)`, its keys from a pipe, started: (model, app, pipe, its task)."""
    model, _tv, t = table(**settings)
    with seated(model, t) as (ui, _watch, inp, task):
        yield model, ui, inp, task


def test_a_whole_game_by_keys_with_row_choices_to_game_over():
    async def main():
        model, tv, t = table(point_limit=25)
        with seated(model, t, tv) as (ui, watch, inp, task):
            await until(lambda: ui.app.is_running, "the app")
            screen = screen_text(ui)
            assert "Your hand" in screen and "row 4" in screen and "!6!" in screen and "Your turn" in screen
            assert f"[{model.hand[0]:>3}*" in screen  # the first card is chosen
            rows_chosen = typed = 0
            while model.over is None:
                if ui.round_screen:
                    assert "End of round" in screen_text(ui)
                    inp.send_text(ENTER)
                    await until(lambda: not ui.round_screen, "the round screen to close")
                elif model.asked == "row":
                    screen = screen_text(ui)
                    assert "below every row" in screen and "[1]" in screen and "bull heads" in screen
                    rows_chosen += 1
                    before = len(model.log)
                    inp.send_text("2")
                    await until(lambda: len(model.log) > before and model.asked != "row", "the row taken")
                    assert any("You take row 2" in line for line in model.log)
                elif model.asked == "card":
                    turn, rnd, hand = model.turn, model.round, model.hand
                    if typed % 2 == 0:  # lowest card by number keys: row choices come often
                        inp.send_text(str(hand[0]) + ENTER)
                    else:
                        inp.send_text(RIGHT + LEFT + ENTER)  # arrows: the chosen card
                    typed += 1
                    await until(lambda: (model.turn, model.round, model.hand) != (turn, rnd, hand)
                                or model.asked == "row" or model.over is not None, "the turn to move on")
                else:
                    await asyncio.sleep(0.01)
            assert rows_chosen >= 1
            inp.send_text(ENTER + ENTER + "?")  # the second Enter is typed ahead: it does not leave the results
            await until(lambda: ui.help, "the keys after it read")
            assert ui.results and not task.done()
            inp.send_text("x")  # closes the help
            await until(lambda: not ui.help and time.monotonic() - ui.results_at >= TYPED_AHEAD, "a pause")
            screen = screen_text(ui)
            assert "GAME OVER" in screen and "Winner" in screen and "total" in screen
            assert "Transcript verified: " in screen  # our own transcript, checked as `p2pnimmt verify` does
            for name in model.winners():
                assert name in screen
            tv_screen = screen_text(watch)
            assert "Your hand" not in tv_screen and "bull heads" in tv_screen and "bot3" in tv_screen
            inp.send_text(ENTER)
            assert await asyncio.wait_for(task, 30) == "over"
    asyncio.run(main())


def test_the_row_i_take_is_logged_before_what_it_led_to():
    """`play`'s table resolves a turn (and ends a round) inside my row choice: "You take row 2" comes before that
    turn's outcome and before the round's end in the log (it came after them, even after "Round 2 begins")."""
    async def main():
        with playing(max_rounds=2, point_limit=None) as (model, ui, inp, task):
            await until(lambda: ui.app.is_running, "the app")
            choices = 0
            while model.over is None:
                if ui.round_screen:
                    inp.send_text(ENTER)
                    await until(lambda: not ui.round_screen, "the round screen to close")
                elif model.asked == "row":
                    before = len(model.log)
                    inp.send_text("2")
                    await until(lambda: model.asked != "row", "the row taken")
                    said = list(model.log)[before:]
                    mine = [i for i, line in enumerate(said) if line.startswith("You take row 2 (")]
                    outcome = [i for i, line in enumerate(said) if line.startswith("You choose row 2 with ")]
                    assert len(mine) == 1 and len(outcome) == 1, said
                    assert mine[0] < outcome[0], said
                    assert all(mine[0] < i for i, line in enumerate(said) if line.startswith("Round ")), said
                    choices += 1
                elif model.asked == "card":
                    turn, rnd = model.turn, model.round
                    inp.send_text(str(model.hand[0]) + ENTER)  # the lowest card: row choices come often
                    await until(lambda: (model.turn, model.round) != (turn, rnd) or model.asked == "row"
                                or model.over is not None, "the turn to move on")
                else:
                    await asyncio.sleep(0.01)
            assert choices >= 1
            ui.leave()
            await asyncio.wait_for(task, 30)
    asyncio.run(main())


def test_spectator_view_shows_table_and_players_but_no_hand():
    model, tv, t = table()
    t.start()
    watch = TableApp(tv, None, output=SizedOutput(), input=None)
    screen = screen_text(watch)
    assert "spectator" in screen and "Your hand" not in screen and "Your turn" not in screen
    assert all(f"row {i}" in screen for i in range(1, 5)) and "committed" in screen
    for card in (r[0] for r in tv.rows):
        assert str(card) in screen


def test_a_spectators_help_lists_no_key_of_a_seat():
    """A spectator (watch, the TV view) plays nothing: its `?` showed a seat's keys (choose and commit a card,
    take a row, the stand-in, the bell); now only what it can press, and that the table follows by itself."""
    model, tv, t = table()
    t.start()
    watch = TableApp(tv, None, output=SizedOutput(), input=None)
    watch.help = True
    shown = screen_text(watch)
    assert "this help" in shown and "The table follows the game by itself" in shown, shown
    assert "the chosen or typed card" not in shown and "stand-in" not in shown and "Backspace" not in shown, shown
    assert "the 6th card placed takes the row" in shown  # the cards' legend stays
    seated = TableApp(model, LocalSeat(t), output=SizedOutput(), input=None)
    seated.help = True
    assert "commit the chosen or typed card" in screen_text(seated)  # a seat's help is as it was


def test_too_small_terminal_says_so():
    model, tv, t = table()
    t.start()
    ui = TableApp(model, LocalSeat(t), output=SizedOutput(60, 15), input=None)
    screen = screen_text(ui, 60, 15)
    assert "too small: 60x15" in screen and "Your hand" not in screen


def test_help_and_quit_asks_first():
    async def main():
        with playing() as (model, ui, inp, task):
            inp.send_text("?")
            await until(lambda: ui.help, "help")
            assert "Keys" in screen_text(ui)
            inp.send_text("x")
            await until(lambda: not ui.help, "help closed")
            inp.send_text("q")
            await until(lambda: ui.confirm_quit, "the question")
            assert "Leave the game?" in screen_text(ui)
            inp.send_text("n")
            await until(lambda: not ui.confirm_quit, "no")
            assert not task.done() and model.asked == "card"  # nothing was played
            inp.send_text("q")
            await until(lambda: ui.confirm_quit, "the question again")
            inp.send_text("y")
            assert await asyncio.wait_for(task, 30) == "left"
    asyncio.run(main())


@pytest.mark.parametrize("lang", ["de", "en"])
def test_the_quit_question_takes_the_yes_it_shows(lang):
    """German asks "Spiel verlassen? (j / n)" and j leaves (it asked "(y / n)" and j only closed the question);
    y leaves in both; in English j is any other key: the question closes and the game goes on."""
    async def main():
        with playing() as (model, ui, inp, task):
            inp.send_text("q")
            await until(lambda: ui.confirm_quit, "the question")
            question = "Spiel verlassen? (j / n)" if lang == "de" else "Leave the game? (y / n)"
            assert question in screen_text(ui)
            inp.send_text("j")
            if lang == "de":
                assert await asyncio.wait_for(task, OUTER) == "left"
                return
            await until(lambda: not ui.confirm_quit, "the question closed")
            assert not task.done() and model.asked == "card"
            inp.send_text("q")
            await until(lambda: ui.confirm_quit, "the question again")
            inp.send_text("y")
            assert await asyncio.wait_for(task, OUTER) == "left"
    i18n.use(lang)
    try:
        asyncio.run(main())
    finally:
        i18n.use("en")


def test_wrong_number_is_a_message(monkeypatch):
    async def main():
        with playing() as (model, ui, inp, task):
            missing = next(c for c in range(1, 105) if c not in model.hand)
            inp.send_text(f"{missing}{ENTER}")
            await until(lambda: model.message, "the message")
            assert f"{missing} is not in your hand" in screen_text(ui)
            assert model.asked == "card"
            ui.leave()
            await asyncio.wait_for(task, 30)
    asyncio.run(main())


@pytest.mark.parametrize("no_color", [True, False])
def test_no_color(monkeypatch, no_color):
    from prompt_toolkit.output.color_depth import ColorDepth

    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    model, tv, t = table()
    ui = TableApp(model, LocalSeat(t), output=SizedOutput(), input=None)
    if no_color:
        assert ui.app.color_depth == ColorDepth.DEPTH_1_BIT
    else:
        assert ui.app._color_depth is None  # the terminal's own depth


def play_to_the_end(model, seat, until=None) -> None:
    """Play a local game to its end (or until `until()`) from the person's seat: the first card, the first row."""
    while model.over is None and not (until is not None and until()):
        if model.asked == "card":
            seat.play(model.hand[0])
        elif model.asked == "row":
            seat.choose_row(0)
        else:
            raise AssertionError(f"the game waits for nothing I can do: {model.asked}")


def test_at_game_over_the_keys_line_names_only_the_keys_left():
    """The keys line said "←/→ digits Enter: play  1-4: row  a: stand-in" after the last card too; at game over it
    says what Enter and q do (the results, then leaving)."""
    async def main():
        model, tv, t = table(max_rounds=1, point_limit=None)
        seat = LocalSeat(t)
        with create_pipe_input() as inp:
            ui = TableApp(model, seat, input=inp, output=SizedOutput())
            t.start()
            task = asyncio.create_task(ui.app.run_async())
            assert "1-4: row" in screen_text(ui).splitlines()[-1]
            play_to_the_end(model, seat)
            keys = screen_text(ui).splitlines()[-1]
            assert keys.strip() == "Enter: the results  q: leave", keys
            inp.send_text(ENTER)
            await until(lambda: ui.results, "the results")
            keys = screen_text(ui).splitlines()[-1]
            assert keys.strip() == "Enter / q: leave", keys
            ui.again = lambda: "asked"  # a front that follows rematches (app.play, app.host) gives one: r is named
            assert screen_text(ui).splitlines()[-1].strip() == "r: play again  Enter / q: leave"
            ui.leave()
            await asyncio.wait_for(task, OUTER)
    asyncio.run(main())


def test_game_over_ranks_all_ten_players_at_80x24():
    """Placings 1st..10th with points and ties fit an 80x24 screen (the scoresheet used to stop at bot7)."""
    from p2pnimmt.ui import widgets

    async def main():
        model, tv, t = table(players=10, max_rounds=1, point_limit=None)
        seat = LocalSeat(t)
        with create_pipe_input() as inp:
            watch = TableApp(tv, None, input=inp, output=SizedOutput(80, 24))
            t.start()
            play_to_the_end(model, seat)
            await until(lambda: tv.over is not None, "the TV to see the end")
            screen = screen_text(watch, 80, 24)
        scores = [p.score for p in tv.players]
        assert len(tv.players) == 10
        for player in tv.players:
            assert re.search(rf"\b{re.escape(player.name)}\s+{player.score} points?\b", screen), (player.name, screen)
        assert "1st" in screen and "10th" in screen or scores.count(max(scores)) > 1
        ranks = widgets.placings(tv)
        assert len(ranks) == 10
        # fewest points first; equal points share a place and are marked
        assert [int(line.split()[-2]) for line in ranks] == sorted(scores)
        for line in ranks:
            score = int(line.split()[-2])
            assert ("=" in line.split()[0]) == (scores.count(score) > 1)
    asyncio.run(main())


def test_places_share_ties():
    from types import SimpleNamespace

    from p2pnimmt.ui import widgets

    model = SimpleNamespace(players=[SimpleNamespace(name=n, score=s) for n, s in
                                     [("ann", 10), ("bob", 3), ("cat", 10), ("dan", 1), ("eve", 11)]])
    assert [line.split()[0] for line in widgets.placings(model)] == ["1st", "2nd", "3rd=", "3rd=", "5th"]
    assert [widgets.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]
