"""`play` against bots under a name a bot would have ("bot1", "Bot2"): the bots are named around it, so no two
seats look alike (issue 23 item 1; protocol.md 9). Before, the game was aborted at once: its START named two
seats "bot1", a roster every session refuses."""

from __future__ import annotations

import re

import pytest
from procs import Terminal


@pytest.mark.parametrize(("name", "bots"), [("bot1", ["bot2", "bot3"]), ("Bot2", ["bot1", "bot3"])])
def test_a_person_named_like_a_bot_plays_beside_bots_named_otherwise(name: str, bots: list[str]) -> None:
    game = Terminal(["play", "--lines", "--bots", "2", "--rounds", "1", "--no-points", "--seed", "3",
                     "--name", name])
    try:
        game.play_lines(until="Winner")
        game.wait_for(r"again> ")  # play again against the same bots? Enter leaves
        game.type("")
        assert game.popen.wait(60) == 0, game.text
        text = game.text
        assert "aborted" not in text, text
        scores = re.search(r"Scores: (.*)", text)
        assert scores is not None, text
        assert [s.rsplit(" ", 1)[0] for s in scores.group(1).rstrip(".").split(", ")] == [name, *(f"{b} (heuristic)" for b in bots)], text
    finally:
        game.stop()
