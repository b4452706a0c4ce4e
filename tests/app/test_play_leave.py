"""Leaving `p2pnimmt play` with q: exit 0 (the person chose to), and the scores stay in the scrollback."""

from __future__ import annotations

import asyncio

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pnimmt.app.play import farewell, run_full_screen
from p2pnimmt.engine import Settings
from p2pnimmt.ui.model import TableModel


def test_q_then_y_leaves_with_exit_0_and_the_scores_printed(capsys) -> None:
    async def main() -> int:
        model = TableModel()
        with create_pipe_input() as keys:
            game = asyncio.ensure_future(run_full_screen(Settings(players=3, deal="open"), seed=bytes(32),
                                                         model=model, input=keys, output=DummyOutput()))
            deadline = asyncio.get_running_loop().time() + 10
            while model.asked != "card":
                assert asyncio.get_running_loop().time() < deadline, "the game never asked for a card"
                await asyncio.sleep(0.01)
            keys.send_text("q")
            keys.send_text("y")
            return await asyncio.wait_for(game, 10)

    assert asyncio.run(main()) == 0
    out = capsys.readouterr().out
    assert "You left in round 1, turn 1. Scores so far: you 0, bot1 0, bot2 0." in out


def test_the_farewell_after_a_whole_game_names_the_winner() -> None:
    from types import SimpleNamespace

    model = SimpleNamespace(players=[SimpleNamespace(name="ann", score=3), SimpleNamespace(name="bob", score=9)],
                            over=SimpleNamespace(rounds=2), winners=lambda: ["ann"], round=1, turn=10)
    assert farewell(model) == ["Game over after 2 rounds: ann 3, bob 9.", "Winner: ann."]


def test_after_a_rematch_the_menu_keeps_the_last_games_lines_and_the_terminal_both(capsys, monkeypatch) -> None:
    """Played by hand: after an evening of two games from the start menu, the menu showed both games' closing lines
    (seven lines over its question, cut at 80x24). Every game's lines are still printed; the ones the menu shows
    (app.output.closing) are the last game's."""
    from p2pnimmt.app import output

    monkeypatch.setenv("P2PNIMMT_PLACE_DELAY", "0")

    async def main() -> int:
        model = TableModel()
        with create_pipe_input() as keys:
            game = asyncio.ensure_future(run_full_screen(Settings(players=2, deal="open", max_rounds=1,
                                                                  point_limit=None), seed=bytes(32), model=model,
                                                         input=keys, output=DummyOutput()))
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60
            asked = None
            while model.over is None:
                assert loop.time() < deadline, "the first game did not end"
                now = (model.asked, model.turn, model.placing_now)
                if now != asked and model.asked in ("card", "row") and not model.placing_now:
                    keys.send_text("\r" if model.asked == "card" else "1")
                    asked = now
                await asyncio.sleep(0.01)
            keys.send_text("r")  # play again: a new game, on a new screen, that the person leaves at once
            keys.send_text("q")
            keys.send_text("y")
            return await asyncio.wait_for(game, 30)

    output.closing.clear()
    assert asyncio.run(main()) == 0
    out = capsys.readouterr().out
    assert "Game over after 1 round: " in out and "You left in round 1, turn 1." in out, out
    assert out.count("Transcript: ") == 2, out
    assert len(output.closing) == 2, output.closing
    assert output.closing[0].startswith("You left in round 1, turn 1.") and "Transcript: " in output.closing[1]
