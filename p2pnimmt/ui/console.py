"""`p2pnimmt play`: one person against bots in a plain terminal, line by line (no network).

The deal uses the specified shuffle (`engine.shuffle`) from a fresh 32-byte
seed, printed at the start so a game can be replayed with `--seed`.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from typing import TextIO

from ..bots import Bot, make_bot
from ..engine import BULL_HEADS, Game, PlayerView, Round, Settings, shuffle


class InputClosed(Exception):
    """The player's input ended before the game did."""


def card_text(card: int) -> str:
    """A card with its bull heads, e.g. '55*7'."""
    return f"{card}*{BULL_HEADS[card]}"


def table_text(rows: Sequence[Sequence[int]]) -> list[str]:
    """The four rows, each with its bull-head total and free slots; the sixth slot shows as '!'."""
    lines = []
    for i, row in enumerate(rows):
        cards = " ".join(f"{card_text(c):>6}" for c in row)
        free = " ".join("     ." for _ in range(5 - len(row)))
        heads = sum(BULL_HEADS[c] for c in row)
        lines.append(f"  row {i + 1}: {cards} {free}      ! ({heads} bull heads)")
    return lines


class ConsoleGame:
    """Seat 0 is the person at the keyboard; the other seats are bots."""

    def __init__(
        self,
        settings: Settings,
        bots: Sequence[Bot],
        names: Sequence[str],
        seed: bytes,
        read: Callable[[str], str],
        out: TextIO,
    ) -> None:
        self.game = Game(settings)
        self.bots = bots
        self.names = names
        self.seed = seed
        self.read = read
        self.out = out

    def say(self, *lines: str) -> None:
        for line in lines:
            print(line, file=self.out)

    def ask(self, prompt: str, valid: Callable[[str], int | None], hint: Callable[[str], str]) -> int:
        while True:
            try:
                answer = self.read(prompt).strip()
            except EOFError:
                raise InputClosed from None
            value = valid(answer)
            if value is not None:
                return value
            self.say(hint(answer))

    def ask_card(self, hand: Sequence[int]) -> int:
        def valid(text: str) -> int | None:
            return int(text) if text.isascii() and text.isdigit() and int(text) in hand else None

        return self.ask(
            "your card> ",
            valid,
            lambda text: f"'{text}' is not a card in your hand; type one of: {' '.join(map(str, hand))}",
        )

    def ask_row(self, rnd: Round, card: int) -> int:
        heads = [sum(BULL_HEADS[c] for c in row) for row in rnd.rows]
        self.say(
            f"Your {card} is below every row: you take a row of your choice.",
            "  " + "  ".join(f"row {i + 1}: {h} bull heads" for i, h in enumerate(heads)),
        )

        def valid(text: str) -> int | None:
            return int(text) - 1 if text in ("1", "2", "3", "4") else None

        return self.ask("take row (1-4)> ", valid, lambda text: f"'{text}' is not a row; type 1, 2, 3 or 4")

    def play(self) -> tuple[int, ...]:
        """Play rounds until the game is over; return the winning seats."""
        game = self.game
        n = game.settings.players
        self.say(f"New game: you and {n - 1} bots. Seed {self.seed.hex()}")
        while not game.over:
            r = game.rounds_played
            if game.settings.variant == "draft":
                self.draft_round()
            else:
                order = shuffle(round_seed(self.seed, r), game.deck)
                game.start_round(order)
            self.play_round(r + 1)
        low = min(game.scores)
        winners = game.winners
        self.say(
            "Game over. " + ", ".join(f"{self.names[s]} {game.scores[s]}" for s in range(n)),
            "Winner" + ("s: " if len(winners) > 1 else ": ") + ", ".join(self.names[s] for s in winners)
            + f" with {low} bull heads.",
        )
        return winners

    def draft_round(self) -> None:
        game = self.game
        draft = game.start_round()
        views = [PlayerView(game, s) for s in range(game.settings.players)]
        self.say("Draft: the cards lie open; pick your hand in turn.")
        while not draft.done:
            seat = draft.to_move
            if seat == 0:
                cards = draft.open_cards
                self.say("  open: " + " ".join(card_text(c) for c in cards))

                def valid(text: str) -> int | None:
                    return int(text) if text.isascii() and text.isdigit() and int(text) in cards else None

                card = self.ask("pick> ", valid, lambda text: f"'{text}' is not an open card")
            else:
                card = self.bots[seat].choose_pick(views[seat])
                self.say(f"  {self.names[seat]} picks {card_text(card)}")
            draft.pick(seat, card)
        game.finish_draft()

    def play_round(self, number: int) -> None:
        game = self.game
        rnd = game.round
        n = game.settings.players
        views = [PlayerView(game, s) for s in range(n)]
        for turn in range(1, 11):
            self.say("", f"Round {number}, turn {turn}/10", *table_text(rnd.rows))
            self.say("  your hand: " + " ".join(card_text(c) for c in rnd.hands[0]))
            plays = [self.ask_card(rnd.hands[0])] + [self.bots[s].choose_card(views[s]) for s in range(1, n)]
            self.say("  revealed: " + ", ".join(f"{self.names[s]} {plays[s]}" for s in sorted(range(n), key=plays.__getitem__)))

            def choose(seat: int) -> int:
                if seat == 0:
                    return self.ask_row(rnd, plays[0])
                return self.bots[seat].choose_row(views[seat], plays)

            for seat, card, row, taken in rnd.play_turn(plays, choose):
                if taken:
                    heads = sum(BULL_HEADS[c] for c in taken)
                    self.say(f"  {self.names[seat]} takes row {row + 1} with {card}: {heads} bull heads")
        taken = game.finish_round()
        self.say(
            "",
            f"End of round {number}: " + ", ".join(f"{self.names[s]} +{taken[s]}" for s in range(n)),
            "Scores: " + ", ".join(f"{self.names[s]} {game.scores[s]}" for s in range(n)),
        )


def round_seed(seed: bytes, round_index: int) -> bytes:
    """The shuffle seed of one round of a local game."""
    return hashlib.sha256(b"p2pnimmt/local-round" + seed + round_index.to_bytes(4, "big")).digest()


def run(settings: Settings, bot: str, seed: bytes | None, name: str, read: Callable[[str], str], out: TextIO) -> int:
    """Play a console game; return the process exit status."""
    seed = seed if seed is not None else secrets.token_bytes(32)
    bots = [make_bot(bot, seed + bytes([s])) for s in range(settings.players)]
    names = [name] + [f"bot{s} ({bot})" for s in range(1, settings.players)]
    try:
        ConsoleGame(settings, bots, names, seed, read, out).play()
    except InputClosed:
        print("\nInput closed: game abandoned.", file=out)
        return 1
    except KeyboardInterrupt:
        print("\nGame abandoned.", file=out)
        return 130
    return 0
