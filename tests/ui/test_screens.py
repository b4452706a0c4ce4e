"""The full-screen table's sizes and words (issue 13, item 6 and 7), rendered to text without a terminal.

The real minimum (never prompt_toolkit's "Window too small"), the too-small screen and its quit question,
lines that fit 80 columns, names cut with a mark, the prompt waiting for the last turn's cards, and the big
TV view at 120x40 and larger.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from screens import SizedOutput, until

from p2pnimmt.engine import Settings
from p2pnimmt.ui import bigtable
from p2pnimmt.ui.app import MIN_HEIGHT, MIN_WIDTH, TableApp, screen_text
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import TableModel, heads
from p2pnimmt.ui.words import bull_heads, clip, wrap

README = Path(__file__).resolve().parents[2] / "README.md"
LONG = "bartholomew-the-great"


def table(players: int = 4, name: str = "you", turns: int = 0):
    """A table at which the person has played `turns` turns (the lowest card, row 1 when asked)."""
    model, tv = TableModel(), TableModel()
    t = LocalTable(Settings(players=players), seed=bytes(32), name=name, spectators=1, on_event=model.update,
                   on_watch=tv.update)
    t.start()
    seat = LocalSeat(t)
    while model.turn < turns:
        assert (seat.play(min(model.hand)) if model.asked == "card" else seat.choose_row(0)) is None
    return model, tv, t, seat


def test_the_minimum_is_80_columns_and_no_size_shows_prompt_toolkits_too_small_window() -> None:
    assert (MIN_WIDTH, MIN_HEIGHT) == (80, 20)
    for players in (2, 10):
        model, tv, _t, seat = table(players, name="x" * 40, turns=3)
        for m, s in ((model, seat), (tv, None)):
            out = SizedOutput()
            ui = TableApp(m, s, output=out, input=None)
            for columns in (50, 79, 80, 120, 160):
                for rows in (12, 19, 20, 21, 40):
                    out.size = Size(rows=rows, columns=columns)
                    shown = screen_text(ui, columns, rows)
                    assert "Window too small" not in shown, (players, s is None, columns, rows)
                    width, height = ui.needed()
                    small = columns < width or rows < height
                    assert ("The terminal is too small" in shown) == small, (columns, rows, shown)
                    if small:
                        assert f"needs at least {width}x{height}" in shown
            assert ui.needed()[0] == 80  # what the too-small screen states, at every table
            assert ui.needed()[1] == (21 if players == 10 and s is not None else 20)


def test_readme_states_the_real_minimum() -> None:
    text = (README.parent / "docs" / "playing.md").read_text()
    assert "78×20" not in text and "78x20" not in text
    assert "at least 80×20 (80×21 at a table of 10)" in text


def test_the_too_small_screen_fits_50x12_and_q_asks_there_visibly() -> None:
    async def main() -> None:
        model, _tv, t, _seat = table()
        with create_pipe_input() as keys:
            ui = TableApp(model, LocalSeat(t), input=keys, output=SizedOutput(50, 12))
            task = asyncio.create_task(ui.app.run_async())
            await until(lambda: ui.app.is_running, "the app")
            shown = screen_text(ui, 50, 12)
            for line in ("The terminal is too small: 50x12.", "This table needs at least 80x20.",
                         "Enlarge the window.", "q: leave the game"):
                assert line in shown.splitlines(), shown  # whole lines: nothing cut at 50 columns
            keys.send_text("q")
            await until(lambda: ui.confirm_quit, "the question")
            assert "Leave the game? (y / n)" in screen_text(ui, 50, 12)  # drawn on the too-small screen itself
            keys.send_text("n")
            await until(lambda: not ui.confirm_quit, "no")
            assert "Leave the game?" not in screen_text(ui, 50, 12) and not task.done()
            keys.send_text("q")
            await until(lambda: ui.confirm_quit, "the question again")
            keys.send_text("y")
            assert await asyncio.wait_for(task, 30) == "left"
    asyncio.run(main())


def test_the_typed_digits_go_on_a_line_of_their_own_at_80_columns() -> None:
    async def main() -> None:
        model, _tv, t, _seat = table()
        with create_pipe_input() as keys:
            ui = TableApp(model, LocalSeat(t), input=keys, output=SizedOutput())
            task = asyncio.create_task(ui.app.run_async())
            await until(lambda: ui.app.is_running, "the app")
            keys.send_text("12")
            await until(lambda: ui.typed == "12", "the digits")
            lines = screen_text(ui).splitlines()
            hint = next(line for line in lines if line.startswith("Your turn"))
            assert hint.endswith("and press Enter")  # the whole hint on its line, not wrapped mid-word
            assert lines[lines.index(hint) + 1] == "typed: 12"
            ui.leave()
            await asyncio.wait_for(task, 30)
    asyncio.run(main())


def test_two_takes_in_a_turn_are_two_lines_never_joined_or_cut_mid_word() -> None:
    model, tv, _t, seat = table(turns=0)
    while len(tv.takes) < 2:  # play on until a turn in which two players take a row
        assert (seat.play(min(model.hand)) if model.asked == "card" else seat.choose_row(0)) is None
        assert model.over is None
    for m, s in ((model, seat), (tv, None)):
        m.message = None
        ui = TableApp(m, s, output=SizedOutput(), input=None)
        lines = screen_text(ui).splitlines()
        for take in m.takes:
            width = 80 if s is not None else 80 - 31
            assert wrap(take, width)[0] in [line[:width].rstrip() for line in lines], (take, lines)
        for line in lines:
            assert sum(line.count(w) for w in (" takes ", " take ")) <= 1, line


def test_long_names_are_cut_with_a_mark_at_80_columns_and_shown_whole_when_there_is_room() -> None:
    model, tv, _t, seat = table(name=LONG, turns=1)
    narrow = screen_text(TableApp(model, seat, output=SizedOutput(), input=None))
    assert "*barthol… " in narrow and LONG not in narrow.split("\n", 1)[1].split("Your hand")[0]
    wide = screen_text(TableApp(model, seat, output=SizedOutput(160, 48), input=None), 160, 48)
    assert f"*{LONG} " in wide and "Window too small" not in wide
    assert clip(LONG, 8) == "barthol…" and clip("ann", 8) == "ann"


def test_words_singular_and_wrapped() -> None:
    assert bull_heads(1) == "1 bull head" and bull_heads(0) == "0 bull heads" and bull_heads(7) == "7 bull heads"
    assert wrap("one two three", 7) == ["one two", "three"] and wrap("abcdefghij", 5) == ["abcd…"]


def test_the_prompt_waits_for_the_last_turns_cards_and_row_totals_match_the_rows_drawn() -> None:
    async def main() -> None:
        model, _tv, t, _seat = table()
        with create_pipe_input() as keys:
            ui = TableApp(model, LocalSeat(t), input=keys, output=SizedOutput())
            ui.place_delay = 0.3
            task = asyncio.create_task(ui.app.run_async())
            await until(lambda: ui.app.is_running, "the app")
            prompts = waited = rows = 0
            while prompts < 6 and model.over is None:
                await until(lambda: model.asked in ("card", "row"), "a question")
                turn = model.turn
                if model.placing_now:  # the last turn's cards are still being placed: no prompt yet
                    shown = "\n".join(line for line in screen_text(ui).splitlines() if not line.startswith("│"))
                    assert "Your turn" not in shown and "below every row" not in shown
                    assert f"Placing the cards of turn {turn}" in shown
                    waited += 1
                await until(lambda: not model.placing_now, "the cards placed")
                shown = screen_text(ui)
                if model.asked == "row":
                    drawn = [int(m) for m in re.findall(r"!6!\s+(\d+)", shown)]
                    offered = [int(n) for n in re.findall(r"\[\d\] (\d+) bull heads?", shown)]
                    assert drawn == offered == [heads(r) for r in model.rows], shown
                    rows += 1
                    keys.send_text("1")
                else:
                    assert "Your turn" in shown
                    keys.send_text(str(min(model.hand)) + "\r")  # the lowest: rows to choose come often
                prompts += 1
                before = (model.round, model.turn, model.asked)
                await until(lambda: (model.round, model.turn, model.asked) != before or model.over is not None,
                            "the answer taken")
            assert waited >= 3 and rows >= 1  # both were seen: the prompt waiting, and a row to choose
            ui.leave()
            await asyncio.wait_for(task, 30)
    asyncio.run(main())


def test_the_tv_at_120x40_draws_big_cards_big_scores_and_the_code() -> None:
    model, tv, _t, seat = table(10, name=LONG, turns=2)
    for columns, rows in ((120, 40), (160, 48)):
        ui = TableApp(tv, None, output=SizedOutput(columns, rows), input=None, code="ABCD")
        shown = screen_text(ui, columns, rows)
        assert "Window too small" not in shown and "too small" not in shown
        assert "p2pnimmt watch ABCD" in shown  # the code for whoever arrives late
        card = tv.rows[0][0]
        digits = bigtable.big_digits(card)
        assert all(d in shown for d in digits)  # the first card's number, three lines high
        assert shown.count("┌─────────────┐") == sum(len(r) for r in tv.shown_rows())  # a box a card
        for p in tv.players:
            assert clip(p.name, max(12, min(24, columns // 10)) - 1) in shown
        assert "bot9" in shown
    small = screen_text(TableApp(tv, None, output=SizedOutput(119, 40), input=None, code="ABCD"), 119, 40)
    assert "┌─────────────┐" not in small and "row 1" in small and "bull head" in small  # the ordinary TV view
    seated = screen_text(TableApp(model, seat, output=SizedOutput(160, 48), input=None), 160, 48)
    assert "┌─────────────┐" not in seated and "Your hand" in seated  # only the TV view is drawn big


def test_big_digits() -> None:
    assert bigtable.big_digits(7) == ["▀▀█", "  █", "  ▀"]
    assert bigtable.big_digits(10) == ["▄█  █▀█", " █  █ █", "▀▀▀ ▀▀▀"]
