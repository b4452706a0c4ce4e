"""`play --lines` against bots: at game over `again` plays again with the same bots (as the full screen's `r`),
the evening's table adds the games up, and each game is kept, the second as a rematch of the first."""

from __future__ import annotations

import io
import re

from p2pnimmt.app.history import games, transcripts_dir
from p2pnimmt.app.play import run_lines
from p2pnimmt.engine import Settings

SETTINGS = Settings(players=3, max_rounds=1, point_limit=None)


def test_again_at_game_over_plays_a_second_game_and_the_evening_adds_them_up() -> None:
    out = io.StringIO()
    answers = iter(["again", ""])  # again after the first game, Enter after the second
    asked: list[str] = []

    def read(prompt: str) -> str:
        asked.append(prompt)
        if prompt == "again> ":
            return next(answers)
        if prompt == "your card> ":
            hand = re.findall(r"^  your hand: (.*)$", out.getvalue(), re.MULTILINE)[-1]
            return hand.split()[0].split("*")[0]
        return "1"  # take row 1

    status = run_lines(SETTINGS, "heuristic", bytes(32), "ann", read, out)
    text = out.getvalue()
    assert status == 0, text
    assert asked.count("again> ") == 2, text  # on main: no question, the game over ended the command
    assert text.count("Game over.") == 2, text
    assert "type again to play again with the same bots (Enter leaves)" in text
    evening = text[text.index("The evening: 2 games"):]
    assert re.search(r"^  ann +2 ", evening, re.MULTILINE) and re.search(r"^  bot1 +2 ", evening, re.MULTILINE), text
    kept = [g for g in games(transcripts_dir()) if g.verified]
    assert len(kept) == 2 and kept[0].previous is None and kept[1].previous == kept[0].game_id, kept
    assert text.count("Transcript: ") == 2, text


def test_enter_at_game_over_leaves_after_one_game() -> None:
    out = io.StringIO()

    def read(prompt: str) -> str:
        if prompt == "your card> ":
            hand = re.findall(r"^  your hand: (.*)$", out.getvalue(), re.MULTILINE)[-1]
            return hand.split()[0].split("*")[0]
        return "" if prompt == "again> " else "1"

    assert run_lines(SETTINGS, "heuristic", bytes(32), "ann", read, out) == 0
    assert out.getvalue().count("Game over.") == 1
