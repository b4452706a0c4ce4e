"""`p2pnimmt replay FILE` in a real terminal (tmux, 80x24), in English and in German: the line under the table says it
is a replay, whose game (its host's) and where in it (round, turn, step), and q asks to close the replay. Before, the
replay read as a live game watched: "Watching. Waiting for: ..." under the table and "Leave the game? (y / n)" on q."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tmuxpane import needs_tmux

sys.path.insert(0, str(Path(__file__).parents[1] / "protocol"))

from harness import Net  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402

pytestmark = needs_tmux

WORDS = {
    "en": ("Replay of p0's game: round 1, turn 1 (step 1 of ", "Replay of p0's game: round 1, turn 1 (step 2 of ",
           "Close the replay? (y / n)", ("Watching", "Waiting for", "Leave the game", "you watch")),
    "de": ("Wiedergabe des Spiels von p0: Runde 1, Zug 1 (Schritt 1 von ",
           "Wiedergabe des Spiels von p0: Runde 1, Zug 1 (Schritt 2 von ",
           "Wiedergabe schließen? (j / n)", ("Zuschauer.", "Warten auf", "Spiel verlassen", "du schaust zu")),
}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_replay_says_it_is_one_and_asks_to_close_the_replay(tmp_path: Path, panes, lang: str) -> None:
    net = Net(3, settings=Settings(players=3, max_rounds=1, point_limit=None, deal="open"), bots="heuristic", seed=5)
    net.start()
    net.run()
    path = tmp_path / "game.p2pt"
    path.write_bytes(bytes(net.transcripts[net.identities[0].peer]))
    first, second, question, live = WORDS[lang]
    pane = panes(f"{sys.executable} -m p2pnimmt replay {path} --lang {lang}; sleep 300", 80, 24)
    shown = pane.wait(first, 30)
    assert not any(word in shown for word in live), shown
    assert ("(a replay)" if lang == "en" else "(eine Wiedergabe)") in shown, shown  # the log's first line said
    # "Game started: p0, p1, p2 (you watch)"
    pane.keys("Right")
    pane.wait(second, 10)
    pane.keys("q")
    shown = pane.wait(question, 10)
    assert not any(word in shown for word in live), shown
