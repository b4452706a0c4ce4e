"""Bots playing whole rounds and games through the one engine (for simulate, tests and rollouts)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..engine import HAND_SIZE, ROW_COUNT, Draft, Game, PlayerView, Settings
from .base import Bot


def deal_order(rng: random.Random, cards: Sequence[int], count: int) -> list[int]:
    """`count` cards of `cards` in random order, by a partial Fisher-Yates on `rng` (for simulations only).

    Networked games deal with the specified `engine.shuffle` instead; this
    one is just fast.
    """
    deck = list(cards)
    rr = rng.random
    top = len(deck) - 1
    for i in range(top, top - count, -1):
        j = int(rr() * (i + 1))
        deck[i], deck[j] = deck[j], deck[i]
    return deck[len(deck) - count :]


def play_round(game: Game, bots: Sequence[Bot], deal_rng: random.Random) -> tuple[int, ...]:
    """Deal (or draft) and play one round of `game` with one bot per seat; return each seat's bull heads."""
    players = game.settings.players
    if game.settings.variant == "draft":
        draft = game.start_round()
        assert isinstance(draft, Draft)  # the draft variant opens a draft
        views = [PlayerView(game, seat) for seat in range(players)]
        while not draft.done:
            seat = draft.to_move
            assert seat is not None  # somebody moves until the draft is done
            draft.pick(seat, bots[seat].choose_pick(views[seat]))
        game.finish_draft()
    else:
        game.start_round(deal_order(deal_rng, game.deck, HAND_SIZE * players + ROW_COUNT))
    rnd = game.round
    assert rnd is not None  # dealt, or drafted and finished
    views = [PlayerView(game, seat) for seat in range(players)]
    moves = [(bot.choose_card, view) for bot, view in zip(bots, views)]
    plays: list[int] = []  # this turn's cards, read by ask_row

    def ask_row(seat: int) -> int:
        return bots[seat].choose_row(views[seat], plays)

    for _turn in range(HAND_SIZE):
        plays = [choose(view) for choose, view in moves]
        rnd.play_turn(plays, ask_row)
    return game.finish_round()


def play_game(settings: Settings, bots: Sequence[Bot], deal_rng: random.Random) -> Game:
    """Play rounds until the game is over; return the finished game (scores, history, winners)."""
    if len(bots) != settings.players:
        raise ValueError(f"{settings.players} seats need {settings.players} bots, got {len(bots)}")
    game = Game(settings)
    while not game.over:
        play_round(game, bots, deal_rng)
    return game
