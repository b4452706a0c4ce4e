"""Papercuts of the full-screen table (issue 23 item 9) on the real prompt_toolkit app, keys through a pipe: a name
of emoji keeps the points column where it is at 80 columns; a spectator's game-over screen offers no key to
play again."""

import asyncio
import re

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.utils import get_cwidth
from screens import SizedOutput, until
from test_app import play_to_the_end

from p2pnimmt.engine import Settings
from p2pnimmt.ui.app import TableApp, screen_text
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import TableModel

COW = "🐮🐮🐮🐮🐮🐮🐮🐮 die Kuh"  # 8 emoji, 16 columns before the words


def test_an_emoji_name_keeps_the_points_column_at_80_columns():
    async def main():
        model, tv = TableModel(), TableModel()
        t = LocalTable(Settings(players=4, max_rounds=1, point_limit=None), name=COW, seed=bytes(32),
                       spectators=1, on_event=model.update, on_watch=tv.update)
        with create_pipe_input() as inp:
            ui = TableApp(model, LocalSeat(t), input=inp, output=SizedOutput(80, 24))
            task = asyncio.create_task(ui.app.run_async())
            t.start()
            await until(lambda: model.asked is not None, "the first ask")
            screen = screen_text(ui, 80, 24)
            lines = screen.splitlines()
            head = next(line for line in lines if "status" in line and "pts" in line)
            end = get_cwidth(head[: head.index("pts") + 3])
            below = lines[lines.index(head) + 1:]
            for p in model.players:
                row = next(line for line in below if p.name[:2] in line)
                assert str(p.score) in row, (p.name, row, below)
                at = row.rindex(str(p.score)) + len(str(p.score))
                assert get_cwidth(row[:at]) == end, (p.name, row, head)
            for line in lines:
                assert get_cwidth(line) <= 80, line
            play_to_the_end(model, LocalSeat(t))
            for line in ui._round_text().splitlines() + ui._over_text().splitlines():  # the boxes' text
                assert get_cwidth(line) <= 76, line
            task.cancel()
    asyncio.run(main())


def test_a_spectators_game_over_screen_offers_no_key_to_play_again():
    async def main():
        model, tv = TableModel(), TableModel()
        t = LocalTable(Settings(players=3, max_rounds=1, point_limit=None), seed=bytes(32), spectators=1,
                       on_event=model.update, on_watch=tv.update)
        with create_pipe_input() as inp:
            watch = TableApp(tv, None, input=inp, output=SizedOutput(80, 24), again=lambda: "follows")
            t.start()
            await until(lambda: model.asked is not None, "the first ask")
            play_to_the_end(model, LocalSeat(t))
            tv.rematch = "ann offers a rematch: this screen follows it"
            screen = screen_text(watch, 80, 24)
            assert "GAME OVER" in screen, screen
            assert not re.search(r"\br:|play again", screen), screen
            assert "this screen follows it" in screen, screen
    asyncio.run(main())
