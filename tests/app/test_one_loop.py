"""One loop plays games: `play --lines` and the full-screen `play` sit at the same table of Sessions.

The same seed and the same choices (always the lowest card, always the
cheapest row) give the same game in both fronts: the same hands and rows
dealt, the same cards revealed every turn, the same scores.
"""

from __future__ import annotations

import asyncio
import io
import re

from prompt_toolkit.input import create_pipe_input
from screens import SizedOutput

from p2pnimmt.app.play import run_full_screen, run_lines
from p2pnimmt.engine import HAND_SIZE, Settings
from p2pnimmt.protocol.events import GameOver, PlayNeeded, Revealed, RoundStarted
from p2pnimmt.ui.model import TableModel, heads

SEED = bytes.fromhex("06" * 32)
ENTER = "\r"
SETTINGS = Settings(players=4, max_rounds=2, point_limit=None)  # deal "open", as `play` deals


def lines_game(settings: Settings) -> tuple[int, str]:
    """`play --lines` in this process: the person types the lowest card, the cheapest row, the lowest open card."""
    out = io.StringIO()

    def read(prompt: str) -> str:
        text = out.getvalue()
        out.write(prompt + "\n")
        if prompt == "your card> ":
            hand = re.findall(r"^  your hand: (.*)$", text, re.MULTILINE)[-1]
            return str(min(int(card.split("*")[0]) for card in hand.split()))
        if prompt == "pick> ":
            open_cards = re.findall(r"^  open: (.*)$", text, re.MULTILINE)[-1]
            return str(min(int(card.split("*")[0]) for card in open_cards.split()))
        if prompt == "again> ":
            return ""  # Enter: no second game
        assert prompt == "take row (1-4)> ", prompt
        offered = re.findall(r"^  row 1: (\d+) bull heads?  row 2: (\d+) bull heads?  row 3: (\d+) bull heads?"
                             r"  row 4: (\d+) bull heads?$", text, re.MULTILINE)[-1]
        heads_offered = [int(h) for h in offered]
        return str(heads_offered.index(min(heads_offered)) + 1)

    status = run_lines(settings, "heuristic", SEED, "you", read, out)
    return status, out.getvalue()


def lines_record(text: str, players: int) -> dict:
    """The game as the lines front printed it, by seat."""
    names = ["you"] + [f"bot{s} (heuristic)" for s in range(1, players)]
    revealed = []
    for line in re.findall(r"^  revealed: (.*)$", text, re.MULTILINE):
        by_name = {name: int(card) for name, card in (item.rsplit(" ", 1) for item in line.split(", "))}
        revealed.append(tuple(by_name[name] for name in names))
    hands = [tuple(int(c.split("*")[0]) for c in hand.split())
             for hand in re.findall(rf"^Round \d+, turn 1/{HAND_SIZE}\n(?:  row .*\n){{4}}  your hand: (.*)$", text,
                                    re.MULTILINE)]
    rows = [tuple((int(c.split("*")[0]),) for c in re.findall(r"^  row \d: +(\d+\*\d+) ", block, re.MULTILINE))
            for block in re.findall(rf"^Round \d+, turn 1/{HAND_SIZE}\n((?:  row .*\n){{4}})", text, re.MULTILINE)]
    over = re.findall(r"^Game over\. (.*)$", text, re.MULTILINE)[-1]
    scores = dict(item.rsplit(" ", 1) for item in over.split(", "))
    return {"revealed": revealed, "hands": hands, "rows": rows,
            "scores": tuple(int(scores[name]) for name in names)}


class RecordingModel(TableModel):
    """The full screen's model, noting the game as the person's session reports it."""

    def __init__(self) -> None:
        super().__init__()
        self.record: dict = {"revealed": [], "hands": [], "rows": [], "scores": None}

    def update(self, session, event) -> None:
        if isinstance(event, RoundStarted):
            self.record["rows"].append(event.rows)
        elif isinstance(event, PlayNeeded) and event.turn == 0:
            self.record["hands"].append(tuple(session.game.round.hands[session.seat]))
        elif isinstance(event, Revealed):
            self.record["revealed"].append(event.cards)
        elif isinstance(event, GameOver):
            self.record["scores"] = event.scores
        super().update(session, event)


async def full_screen_game(settings: Settings) -> tuple[int, dict]:
    """`play` full screen in this process, fed keys: the lowest card by its number, the cheapest row by its digit."""
    model = RecordingModel()
    loop = asyncio.get_running_loop()
    with create_pipe_input() as keys:
        game = asyncio.ensure_future(run_full_screen(settings, bot="heuristic", name="you", seed=SEED, model=model,
                                                     input=keys, output=SizedOutput()))
        deadline = loop.time() + 60
        rounds_seen, sent = -1, None
        while not game.done():
            assert loop.time() < deadline, "the full-screen game did not end within 60 s"
            state = (model.round, model.turn, model.asked, model.over is not None, model.round_over)
            if state == sent:
                await asyncio.sleep(0.005)  # the app has not taken in the last keys yet
                continue
            if model.over is not None:
                keys.send_text(ENTER + "q")  # the results, then leave (a second Enter at once is typed ahead)
            elif model.round_over is not None and model.round_over[0] > rounds_seen:
                rounds_seen = model.round_over[0]
                keys.send_text(ENTER)  # close the round's screen
                continue
            elif model.asked == "card":
                keys.send_text(str(min(model.hand)) + ENTER)
            elif model.asked == "row":
                offered = [heads(row) for row in model.rows]
                keys.send_text(str(offered.index(min(offered)) + 1))
            else:
                await asyncio.sleep(0.005)
                continue
            sent = state
        return game.result(), model.record


def test_lines_and_full_screen_play_the_same_game_from_one_seed(monkeypatch) -> None:
    monkeypatch.setenv("P2PNIMMT_PLACE_DELAY", "0")
    status, text = lines_game(SETTINGS)
    assert status == 0, text[-500:]
    lines = lines_record(text, SETTINGS.players)
    assert len(lines["revealed"]) == HAND_SIZE * 2 and len(lines["hands"]) == 2
    assert "is below every row: you take a row" in text, "the seed was chosen so that the person takes a row"

    status, screen = asyncio.run(full_screen_game(SETTINGS))
    assert status == 0
    assert screen["hands"] == lines["hands"], "the same hands are dealt"
    assert [tuple((row[0],) for row in rows) for rows in screen["rows"]] == lines["rows"], "the same rows are dealt"
    assert [tuple(cards) for cards in screen["revealed"]] == lines["revealed"], "the same cards every turn"
    assert tuple(screen["scores"]) == lines["scores"], "the same scores"


def test_a_lines_game_is_the_same_game_again_from_its_seed() -> None:
    first = lines_game(Settings(players=3, max_rounds=1, point_limit=None, variant="draft"))
    again = lines_game(Settings(players=3, max_rounds=1, point_limit=None, variant="draft"))
    assert first[0] == again[0] == 0
    assert first[1] == again[1].replace("-2.p2pt", ".p2pt")  # the same game, kept a second time as -2
    assert "Draft: the cards lie open; pick your hand in turn." in first[1]
