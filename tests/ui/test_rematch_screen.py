"""The game-over and round-end screens of an evening (issue 13 item 2): the evening's table, and `r` for a rematch,
on the real prompt_toolkit app fed keys through a pipe."""

import asyncio
import time
from types import SimpleNamespace

from prompt_toolkit.input import create_pipe_input
from screens import SizedOutput, until
from test_app import ENTER, play_to_the_end, table

from p2pnimmt.ui.app import TYPED_AHEAD, TableApp, screen_text
from p2pnimmt.ui.local import LocalSeat

ROWS = [SimpleNamespace(name="ann", games=2, wins=1, points=31), SimpleNamespace(name="bob", games=2, wins=1, points=40),
        SimpleNamespace(name="bot1", games=1, wins=0, points=12)]


def test_r_at_game_over_asks_for_a_rematch_and_the_evening_is_shown():
    async def main():
        model, tv, t = table(players=3, max_rounds=1, point_limit=None)
        model.evening = tv.evening = lambda: (2, ROWS)
        asked: list[bool] = []

        def again() -> str | None:
            asked.append(True)
            return "you asked for a rematch: waiting for ann to offer it (q to leave)" if len(asked) == 1 else None

        with create_pipe_input() as inp:
            ui = TableApp(model, LocalSeat(t), input=inp, output=SizedOutput(100, 40), again=again)
            task = asyncio.create_task(ui.app.run_async())
            t.start()
            await until(lambda: model.asked is not None, "the first ask")
            play_to_the_end(model, LocalSeat(t))
            round_screen = ui._round_text()  # what the round-end screen says (shown while the game goes on)
            assert "End of round 1" in round_screen and "The evening: 2 games" in round_screen
            inp.send_text(ENTER)
            await until(lambda: ui.results, "the game-over screen")
            screen = screen_text(ui, 100, 40)
            assert "GAME OVER" in screen and "The evening: 2 games" in screen
            assert "r: play again (same seats)" in screen
            for row in ROWS:
                assert f"{row.name}" in screen and f"{row.points}" in screen
            inp.send_text("r")
            await until(lambda: asked, "r to ask for a rematch")
            await until(lambda: "waiting for ann to offer it" in screen_text(ui, 100, 40), "the ask shown")
            assert not task.done(), "a player who asked waits for the host's offer on this screen"
            inp.send_text("r")  # the offer is in (again() says go): the screen closes for the rematch
            assert await asyncio.wait_for(task, 30) == "again"
        # The TV's game-over screen shows the evening too (a spectator follows every rematch by itself).
        with create_pipe_input() as inp:
            watch = TableApp(tv, None, input=inp, output=SizedOutput(100, 40), again=lambda: "follows")
            assert "The evening: 2 games" in screen_text(watch, 100, 40)
    asyncio.run(main())


def test_without_an_evening_the_game_over_screen_is_as_before():
    async def main():
        model, tv, t = table(players=2, max_rounds=1, point_limit=None)
        with create_pipe_input() as inp:
            ui = TableApp(model, LocalSeat(t), input=inp, output=SizedOutput(80, 24))
            task = asyncio.create_task(ui.app.run_async())
            t.start()
            await until(lambda: model.asked is not None, "the first ask")
            play_to_the_end(model, LocalSeat(t))
            inp.send_text(ENTER)
            await until(lambda: ui.results, "the game-over screen")
            screen = screen_text(ui, 80, 24)
            assert "The evening" not in screen and "r: play again" not in screen
            inp.send_text("r?")  # nothing to do without a rematch (the help shows once both keys are read)
            await until(lambda: ui.help, "the keys read")
            assert not task.done()
            inp.send_text("x")
            await until(lambda: time.monotonic() - ui.results_at >= TYPED_AHEAD, "Enter to count (not typed ahead)")
            inp.send_text(ENTER)
            assert await asyncio.wait_for(task, 30) == "over"
    asyncio.run(main())


def test_the_big_tv_view_shows_the_evening_under_the_scores():
    async def main():
        model, tv, t = table(players=3, max_rounds=1, point_limit=None)
        tv.evening = lambda: (2, ROWS)
        with create_pipe_input() as inp:
            watch = TableApp(tv, None, input=inp, output=SizedOutput(160, 48), code="ABCD")
            t.start()
            await until(lambda: tv.players, "the game to start")
            screen = screen_text(watch, 160, 48)
        assert "┌" in screen, "the big-card view"
        assert "The evening (2 games):  ann 1 won 31 pts   bob 1 won 40 pts   bot1 0 won 12 pts" in screen
        tv.evening = None
        with create_pipe_input() as inp:
            watch = TableApp(tv, None, input=inp, output=SizedOutput(160, 48), code="ABCD")
            assert "The evening" not in screen_text(watch, 160, 48)
    asyncio.run(main())


def test_the_second_games_results_fit_80x24_with_their_keys_line() -> None:
    """Played by hand at 80x24: the second game's results against three bots (3 rounds, the evening's table under
    them) were taller than the screen, and the frame cut off the transcript's verdict and the keys line (`r: play
    again`). Now the blank lines go first, then the scoresheet's rounds: the keys and the verdict stay."""
    async def main():
        model, tv, t = table(players=4, max_rounds=3, point_limit=None)
        rows = [*ROWS, SimpleNamespace(name="bot2", games=2, wins=0, points=77)]
        model.evening = lambda: (2, rows)
        with create_pipe_input() as inp:
            ui = TableApp(model, LocalSeat(t), input=inp, output=SizedOutput(80, 24), again=lambda: None)
            task = asyncio.create_task(ui.app.run_async())
            t.start()
            await until(lambda: model.asked is not None, "the first ask")
            play_to_the_end(model, LocalSeat(t))
            model.verified = "Transcript verified: 297 signed messages, every card and turn"
            inp.send_text(ENTER)
            await until(lambda: ui.results, "the game-over screen")
            screen = screen_text(ui, 80, 24)
            assert "GAME OVER" in screen and "The evening: 2 games" in screen, screen
            assert "r: play again (same seats)" in screen and "Transcript verified" in screen, screen
            assert all(f"{p.name}" in screen for p in model.players), screen
            tall = screen_text(ui, 100, 60)  # a tall terminal: everything, the rounds and the blank lines too
            assert "    3 " in tall and "r: play again (same seats)" in tall, tall
            ui.app.exit(result="over")
            await task
    asyncio.run(main())
