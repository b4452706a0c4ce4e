"""The rollout kernel against the engine: the same placements on many random turns, the same policy."""

from __future__ import annotations

import random

import numpy as np

from p2pnimmt.bots.kernel import GONE, Tables, choose, heuristic_costs, random_plays, take
from p2pnimmt.bots.match import deal_order
from p2pnimmt.bots.rollout import policy_plays
from p2pnimmt.engine import BULL_HEADS, HAND_SIZE, ROW_COUNT, Game, Settings
from p2pnimmt.engine.table import place_turn


def random_round(rng: random.Random, players: int, variant: str):
    """A round of a fresh game after a random number of random turns (rows of every length occur)."""
    game = Game(Settings(players, variant))
    game.start_round(deal_order(rng, game.deck, HAND_SIZE * players + ROW_COUNT))
    rnd = game.round
    for _ in range(rng.randint(0, HAND_SIZE - 1)):
        plays = [h[int(rng.random() * len(h))] for h in rnd.hands]
        rnd.play_turn(plays, rng.randrange(ROW_COUNT) if rnd.chooser(plays) is not None else None)
    return game, rnd


def lean(rows) -> tuple[list[int], list[int], list[int]]:
    return [r[-1] for r in rows], [len(r) for r in rows], [sum(BULL_HEADS[c] for c in r) for r in rows]


def stack(rounds, players: int) -> Tables:
    ends, lens, heads = zip(*(lean(r.rows) for r in rounds))
    n = len(rounds)
    return Tables(np.array(ends), np.array(lens), np.array(heads), np.zeros((n, players), dtype=np.int64))


def test_place_is_the_engines_placement_over_many_random_turns() -> None:
    """Many random turns (2-10 players, both decks): the kernel's rows, lengths, heads and penalties are the engine's."""
    rng = random.Random(15)
    turns = 0
    for batch in range(60):
        players = 2 + batch % 9
        variant = ("standard", "tactical")[batch % 2]
        rounds = [random_round(rng, players, variant)[1] for _ in range(50)]
        tables = stack(rounds, players)
        plays = np.array([[h[int(rng.random() * len(h))] for h in r.hands] for r in rounds])
        low_rows = np.array([rng.randrange(ROW_COUNT) for _ in rounds])
        needs_row = tables.needs_row(plays)
        tables.place(plays, low_rows)
        for i, rnd in enumerate(rounds):
            rows = [list(r) for r in rnd.rows]
            piles: list[list[int]] = [[] for _ in range(players)]
            order = sorted(zip(plays[i].tolist(), range(players)))
            needs = order[0][0] < min(r[-1] for r in rows)
            assert bool(needs_row[i]) == needs
            place_turn(rows, order, int(low_rows[i]) if needs else None, piles)
            ends, lens, heads = lean(rows)
            assert tables.ends[i].tolist() == ends
            assert tables.lens[i].tolist() == lens
            assert tables.heads[i].tolist() == heads
            assert tables.pens[i].tolist() == [sum(BULL_HEADS[c] for c in p) for p in piles]
            turns += 1
    assert turns == 3000


def test_cheapest_rows_is_the_heuristics_row() -> None:
    rng = random.Random(3)
    rounds = [random_round(rng, 4, "standard")[1] for _ in range(300)]
    tables = stack(rounds, 4)
    expected = [
        min(range(4), key=lambda j, r=r: (sum(BULL_HEADS[c] for c in r.rows[j]), -len(r.rows[j]), j)) for r in rounds
    ]
    assert tables.cheapest_rows().tolist() == expected


def test_heuristic_costs_choose_the_policys_cards() -> None:
    """Greedy choice on the kernel's costs is rollout.policy_plays' card for (nearly) every seat, with played slots."""
    rng = random.Random(8)
    agree = total = 0
    for batch in range(20):
        players = 2 + batch % 9
        variant = ("standard", "tactical")[batch % 2]
        pairs = [random_round(rng, players, variant) for _ in range(40)]
        rounds = [r for _, r in pairs]
        # every hand padded to HAND_SIZE slots with GONE at the end (as after plays)
        hands = np.full((len(rounds), players, HAND_SIZE), GONE)
        for i, rnd in enumerate(rounds):
            for s, h in enumerate(rnd.hands):
                hands[i, s, : len(h)] = sorted(h)
        alive = np.zeros((len(rounds), GONE + 1), dtype=bool)
        for i, (game, rnd) in enumerate(pairs):
            alive[i, sorted(set(game.deck) - rnd.seen)] = True
        costs = heuristic_costs(stack(rounds, players), hands, alive)
        picks = np.take_along_axis(hands, choose(costs, np.zeros((len(rounds), players)), None)[..., None], 2)
        for i, (game, rnd) in enumerate(pairs):
            expected, _ = policy_plays(rnd.rows, rnd.hands, sorted(set(game.deck) - rnd.seen))
            agree += sum(a == b for a, b in zip(picks[i, :, 0].tolist(), expected))
            total += players
    assert agree >= 0.995 * total, (agree, total)


def test_random_plays_and_take_keep_hands_and_alive_consistent() -> None:
    rng = np.random.default_rng(1)
    hands = np.array([[[3, 9, 40], [5, 60, 70]]] * 4)
    alive = np.zeros((4, GONE + 1), dtype=bool)
    alive[:, [3, 9, 40, 5, 60, 70, 80]] = True
    for left in (3, 2, 1):
        plays = take(hands, random_plays(hands, rng), alive)
        assert (plays != GONE).all()
        assert ((hands != GONE).sum(axis=2) == left - 1).all()
        assert not alive[np.arange(4)[:, None], plays].any()
    assert (hands == GONE).all() and alive.sum(axis=1).tolist() == [1] * 4


def test_soft_choice_follows_its_temperature() -> None:
    """Temperature 0 is greedy, infinite is uniform, a middle one prefers the cheap card but not always."""
    rng = np.random.default_rng(2)
    costs = np.tile(np.array([0.0, 1.0, 3.0]), (4000, 3, 1))
    temps = np.tile(np.array([0.0, 1.0, np.inf]), (4000, 1))
    slots = choose(costs, temps, rng)
    assert (slots[:, 0] == 0).all()
    share = [(slots[:, 1] == k).mean() for k in range(3)]
    w = np.exp(-np.array([0.0, 1.0, 3.0]))
    assert np.allclose(share, w / w.sum(), atol=0.03)
    assert np.allclose([(slots[:, 2] == k).mean() for k in range(3)], 1 / 3, atol=0.03)
