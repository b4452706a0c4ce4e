"""`p2pnimmt play`: a real console game against bots, played by this test through pipes.

Prompts from input() carry no newline, so the output is read in chunks as it
comes (a reader thread) and the test answers whenever the output so far ends
in a prompt. One overall deadline bounds every game.
"""

from __future__ import annotations

import codecs
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from p2pnimmt.engine import BULL_HEADS

SEED = "06" * 32  # with "always play the lowest card" the human must take a row in round 1
CARD_PROMPT = "your card> "
ROW_PROMPT = "take row (1-4)> "
PICK_PROMPT = "pick> "
AGAIN_PROMPT = "again> "  # at game over: play again against the same bots? (Enter leaves)
PROMPTS = (CARD_PROMPT, ROW_PROMPT, PICK_PROMPT, AGAIN_PROMPT)
DEADLINE_SECONDS = 60
STARTED: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def no_leftover_processes():
    """A test that fails mid-game leaves its game waiting for input: end it."""
    yield
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class Console:
    """One `python -m p2pnimmt play ...` process, its output so far and a way to answer its prompts."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONUTF8="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "p2pnimmt", "play", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        STARTED.append(self.proc)
        self.deadline = time.monotonic() + DEADLINE_SECONDS
        self.chunks: queue.Queue[bytes | None] = queue.Queue()
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text = ""  # the output as received
        self.screen = ""  # the output with each answer echoed after its prompt, as a terminal shows it
        self.answered_at = 0  # output before this index has been answered
        self.eof = False
        self.stderr = b""
        threading.Thread(target=self._pump, args=(self.proc.stdout.fileno(), self.chunks.put), daemon=True).start()
        self.stderr_reader = threading.Thread(target=self._drain_stderr, daemon=True)
        self.stderr_reader.start()

    @staticmethod
    def _pump(fd: int, put) -> None:
        while True:
            chunk = os.read(fd, 4096)
            put(chunk or None)
            if not chunk:
                return

    def _drain_stderr(self) -> None:
        self.stderr = self.proc.stderr.read()

    def fail(self, why: str) -> None:
        self.proc.kill()
        self.proc.wait()
        pytest.fail(f"{why}\n--- output so far ---\n{self.screen[-3000:]}\n--- stderr ---\n{self.stderr.decode()}")

    def next_prompt(self) -> str | None:
        """Wait until the output since the last answer ends in a prompt (returned), or the output ends (None)."""
        while True:
            pending = self.text[self.answered_at :]
            for prompt in PROMPTS:
                if pending.endswith(prompt):
                    return prompt
            if self.eof:
                return None
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                self.fail(f"no prompt and no exit within {DEADLINE_SECONDS} s")
            try:
                chunk = self.chunks.get(timeout=remaining)
            except queue.Empty:
                self.fail(f"no prompt and no exit within {DEADLINE_SECONDS} s")
            if chunk is None:
                self.eof = True
                decoded = self.decoder.decode(b"", final=True)
            else:
                decoded = self.decoder.decode(chunk)
            self.text += decoded
            self.screen += decoded

    def pending(self) -> str:
        """The output since the last answer."""
        return self.text[self.answered_at :]

    def answer(self, text: str) -> None:
        self.answered_at = len(self.text)
        self.screen += text + "\n"
        self.proc.stdin.write(text.encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def close_input(self) -> None:
        self.answered_at = len(self.text)
        self.screen += "\n"
        self.proc.stdin.close()

    def finish(self) -> int:
        """Read to the end of the output; return the exit status."""
        while self.next_prompt() is not None:
            self.fail("the game asked for more input after the test stopped answering")
        try:
            code = self.proc.wait(timeout=max(0.1, self.deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.fail("the output ended but the process did not exit")
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        self.stderr_reader.join(timeout=max(0.1, self.deadline - time.monotonic()))
        return code


def cards_of(line: str) -> list[int]:
    """'4*1 22*5 55*7' -> [4, 22, 55]; checks each printed bull-head count."""
    cards = []
    for item in line.split():
        number, heads = item.split("*")
        assert BULL_HEADS[int(number)] == int(heads), item
        cards.append(int(number))
    return cards


def latest(text: str, pattern: str) -> re.Match:
    matches = list(re.finditer(pattern, text, re.MULTILINE))
    assert matches, f"no line matching {pattern!r}"
    return matches[-1]


def row_heads_offered(text: str) -> list[int]:
    line = latest(text, r"^  row 1: (\d+) bull heads?  row 2: (\d+) bull heads?  row 3: (\d+) bull heads?  row 4: (\d+) bull heads?$")
    return [int(line[i]) for i in range(1, 5)]


def play_lowest(console: Console, *, try_invalid: bool = True) -> dict:
    """Answer every prompt until the game ends: the lowest card, the cheapest row, the lowest open card."""
    played: list[int] = []
    hands: list[list[int]] = []
    rows_taken: list[tuple[int, int, int]] = []  # (row 1..4, card, bull heads offered)
    picks: list[int] = []
    invalid_done = not try_invalid
    while (prompt := console.next_prompt()) is not None:
        if prompt == CARD_PROMPT:
            hand = cards_of(latest(console.screen, r"^  your hand: (.*)$")[1])
            if not invalid_done:
                console.answer("0")
                assert console.next_prompt() == CARD_PROMPT
                hint = console.pending()
                assert "  your hand:" not in hint, "an invalid card must not advance the game"
                expected = f"'0' is not a card in your hand; type one of: {' '.join(map(str, hand))}"
                assert expected in hint, hint
                table_card = int(latest(console.screen, r"^  row 1: +(\d+)\*")[1])
                console.answer(str(table_card))
                assert console.next_prompt() == CARD_PROMPT
                assert f"'{table_card}' is not a card in your hand" in console.pending()
                invalid_done = True
            if hands:
                # the previous card left the hand
                assert hand == [c for c in hands[-1] if c != played[-1]] or len(hand) == 10
            hands.append(hand)
            played.append(min(hand))
            console.answer(str(min(hand)))
        elif prompt == ROW_PROMPT:
            card = int(latest(console.screen, r"^Your (\d+) is below every row: you take a row of your choice\.$")[1])
            assert card == played[-1]
            heads = row_heads_offered(console.screen)
            row = heads.index(min(heads)) + 1
            rows_taken.append((row, card, heads[row - 1]))
            console.answer(str(row))
        elif prompt == AGAIN_PROMPT:
            assert "Winner" in console.screen or "winner" in console.screen, "play again is asked at game over only"
            console.answer("")
        else:
            assert prompt == PICK_PROMPT
            open_cards = cards_of(latest(console.screen, r"^  open: (.*)$")[1])
            assert open_cards == sorted(open_cards) and not set(open_cards) & set(picks)
            picks.append(open_cards[0])
            console.answer(str(open_cards[0]))
    return {"played": played, "hands": hands, "rows_taken": rows_taken, "picks": picks}


def check_transcript(text: str, moves: dict, rounds: int = 1) -> None:
    """The printed game agrees with the moves the test made, and ends with the result."""
    played = moves["played"]
    assert len(played) == 10 * rounds
    assert text.startswith(f"New game: you and 3 bots. Seed {SEED}")
    revealed = re.findall(r"^  revealed: (.*)$", text, re.MULTILINE)
    assert len(revealed) == 10 * rounds
    for line, card in zip(revealed, played):
        seats = dict(item.rsplit(" ", 1)[::-1] for item in line.split(", "))
        assert seats[str(card)] == "you", line
        numbers = [int(c) for c in seats]
        assert numbers == sorted(numbers), "cards are revealed in ascending order"
    for turn in range(1, 11):
        assert f"Round 1, turn {turn}/10" in text
    assert "Round 2," not in text
    # each row the human took is reported with the bull heads that were offered
    for row, card, heads in moves["rows_taken"]:
        assert f"  you take row {row} with {card}: {heads} bull head{'' if heads == 1 else 's'}" in text
    took = sum(int(h) for h in re.findall(r"^  you take row \d with \d+: (\d+) bull heads?$", text, re.MULTILINE))
    end = latest(text, r"^End of round 1: (.*)$")[1]
    gained = {name: int(points) for name, points in re.findall(r"(.+?) \+(\d+)(?:, |$)", end)}
    assert list(gained) == ["you", "bot1 (heuristic)", "bot2 (heuristic)", "bot3 (heuristic)"]
    assert gained["you"] == took
    over = latest(text, r"^Game over\. (.*)$")[1]
    scores = {name: int(points) for name, points in re.findall(r"(.+?) (\d+)(?:, |$)", over)}
    assert scores == gained  # one round, no earlier points
    low = min(scores.values())
    winners = [name for name, points in scores.items() if points == low]
    label = "Winners: " if len(winners) > 1 else "Winner: "
    assert re.search(
        rf"^{label}{re.escape(', '.join(winners))} with {low} points?\.$", text, re.MULTILINE  # (the score: points)
    ), text[-500:]
    last = text.rstrip().splitlines()
    # the result, the transcript kept (as any game's), then the offer to play again, which Enter declined
    assert last[-4].startswith("Winner") and last[-3].startswith("Transcript: "), last[-4:]
    assert last[-2:] == ["type again to play again with the same bots (Enter leaves)", "again>"], last[-4:]


def test_console_game_played_to_the_end() -> None:
    console = Console("--bots", "3", "--seed", SEED, "--rounds", "1", "--no-points")
    moves = play_lowest(console)
    code = console.finish()
    assert code == 0, console.stderr.decode()
    assert moves["rows_taken"], "the seed was chosen so that the human takes a row; it did not happen"
    assert moves["picks"] == []
    check_transcript(console.screen, moves)
    assert "Game over." in console.text
    assert console.stderr == b""


def test_console_game_is_replayable_from_its_seed() -> None:
    first = Console("--bots", "3", "--seed", SEED, "--rounds", "1", "--no-points")
    play_lowest(first, try_invalid=False)
    assert first.finish() == 0
    second = Console("--bots", "3", "--seed", SEED, "--rounds", "1", "--no-points")
    play_lowest(second, try_invalid=False)
    assert second.finish() == 0
    kept = [Path(re.search(r"^Transcript: (\S+) ", c.text, re.MULTILINE).group(1)) for c in (first, second)]
    assert kept[1].name == kept[0].name.replace(".p2pt", "-2.p2pt")  # the replay is kept beside the first game
    assert kept[0].read_bytes() == kept[1].read_bytes()  # and is the same game, signature for signature
    assert first.text.replace(kept[0].name, kept[1].name) == second.text


def test_closing_input_mid_game_abandons_it() -> None:
    console = Console("--bots", "3", "--seed", SEED, "--rounds", "1", "--no-points")
    for _ in range(3):
        assert console.next_prompt() == CARD_PROMPT
        hand = cards_of(latest(console.screen, r"^  your hand: (.*)$")[1])
        console.answer(str(hand[-1]))  # the highest card: no row prompt in between
    assert console.next_prompt() == CARD_PROMPT
    assert "Round 1, turn 4/10" in console.text
    console.close_input()
    code = console.finish()
    assert code == 1
    assert "Input closed" in console.pending()
    assert "Game over." not in console.text


def test_draft_console_game() -> None:
    console = Console("--bots", "3", "--seed", SEED, "--rounds", "1", "--no-points", "--variant", "draft")
    moves = play_lowest(console, try_invalid=False)
    code = console.finish()
    assert code == 0, console.stderr.decode()
    assert len(moves["picks"]) == 10
    assert moves["hands"][0] == sorted(moves["picks"]), "the hand is exactly the cards picked"
    assert "Draft: the cards lie open; pick your hand in turn." in console.text
    assert len(re.findall(r"^  bot\d \(heuristic\) picks \d+\*\d$", console.screen, re.MULTILINE)) == 30
    check_transcript(console.screen, moves)


@pytest.mark.parametrize("variant, prompt", [("standard", CARD_PROMPT), ("draft", PICK_PROMPT)])
def test_non_ascii_digit_is_rejected_not_a_crash(variant: str, prompt: str) -> None:
    """'²' is a digit to str.isdigit() but not to int(): the game must ask again, not die with a traceback."""
    console = Console("--bots", "3", "--seed", SEED, "--rounds", "1", "--no-points", "--variant", variant)
    assert console.next_prompt() == prompt
    console.answer("²")
    again = console.next_prompt()
    if again is None:
        code = console.finish()
        pytest.fail(f"the game exited ({code}) after '²' instead of asking again:\n{console.stderr.decode()[-300:]}")
    assert again == prompt
    assert "'²' is not" in console.pending()
    console.close_input()
    assert console.finish() == 1


def test_an_empty_line_is_asked_again_without_quoting_nothing() -> None:
    """Enter on its own at `your card> ` said "'' is not a card in your hand; ...": it names no card, so the
    line says what to type, the hand's cards."""
    console = Console("--bots", "3", "--seed", SEED, "--rounds", "1", "--no-points")
    assert console.next_prompt() == CARD_PROMPT
    hand = cards_of(latest(console.screen, r"^  your hand: (.*)$")[1])
    console.answer("")
    assert console.next_prompt() == CARD_PROMPT
    hint = console.pending()
    assert "''" not in hint and f"type a card of your hand: {' '.join(map(str, hand))}" in hint, hint
    console.close_input()
    assert console.finish() == 1
