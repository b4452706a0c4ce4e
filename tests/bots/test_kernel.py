"""The rollout kernel against the engine: the same placements on many random turns, the same policy, the same
whole playouts; the search's hand prior against its plain form."""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right

import numpy as np

from p2pnimmt.bots.kernel import (
    FILLER_HEADS,
    GONE,
    STEPS,
    Tables,
    choose,
    deal_hands,
    draw,
    heuristic_costs,
    play_out,
    random_plays,
    take,
)
from p2pnimmt.bots.match import deal_order
from p2pnimmt.bots.model import GREEDY_MISS, LIKELIHOOD_TEMPS, MODELS, HandPrior
from p2pnimmt.bots.rollout import TAILS, play_out as python_play_out, policy_plays
from p2pnimmt.engine import BULL_HEADS, HAND_SIZE, ROW_COUNT, ROW_LIMIT, Game, Settings
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


def test_place_takes_a_row_twice_in_one_turn() -> None:
    """Ten cards for one row: the first takes it, the sixth takes again (a turn of 10 players), with and
    without a card below every row first (rule 4); as the engine."""
    rows = [[10], [20], [30], [50, 51, 52, 53, 54]]
    plays = [60, 55, 63, 57, 56, 64, 58, 59, 62, 61]
    for turn, low in ((plays, None), ([5] + plays[1:], 2)):
        tables = stack_rows([rows], 10)
        tables.place(np.array([turn]), np.array([low or 0]))
        engine_rows = [list(r) for r in rows]
        piles: list[list[int]] = [[] for _ in range(10)]
        place_turn(engine_rows, sorted(zip(turn, range(10))), low, piles)
        ends, lens, heads = lean(engine_rows)
        assert (tables.ends[0].tolist(), tables.lens[0].tolist(), tables.heads[0].tolist()) == (ends, lens, heads)
        assert tables.pens[0].tolist() == [sum(BULL_HEADS[c] for c in p) for p in piles]
        assert sum(1 for p in piles if p) == 2 + (low is not None)


def stack_rows(tables_rows, players: int) -> Tables:
    ends, lens, heads = zip(*(lean(rows) for rows in tables_rows))
    return Tables(np.array(ends), np.array(lens), np.array(heads), np.zeros((len(tables_rows), players), dtype=np.int64))


def test_play_out_is_the_plain_python_rollout_over_many_rounds() -> None:
    """Whole greedy playouts (2-10 players, both decks, every stage of a round): the kernel's penalties, rows
    and unseen cards at the end are those of rollout.play_out, which plays each turn through the engine."""
    rng = random.Random(5)
    checked = 0
    for batch in range(36):
        players = 2 + batch % 9
        variant = ("standard", "tactical")[batch % 2]
        pairs = [random_round(rng, players, variant) for _ in range(40)]
        by_size: dict[int, list] = {}
        for game, rnd in pairs:
            by_size.setdefault(len(rnd.hands[0]), []).append((game, rnd))
        for group in by_size.values():
            rounds = [rnd for _, rnd in group]
            tables = stack(rounds, players)
            hands = np.array([[sorted(h) for h in rnd.hands] for rnd in rounds])
            alive = np.zeros((len(rounds), GONE + 1), dtype=bool)
            for i, (game, rnd) in enumerate(group):
                alive[i, sorted(set(game.deck) - rnd.seen)] = True
            play_out(tables, hands, np.random.default_rng(batch), alive=alive, temps=np.zeros((len(rounds), players)))
            assert (hands == GONE).all()
            for i, (game, rnd) in enumerate(group):
                rows = [list(r) for r in rnd.rows]
                taken: list[list[int]] = [[] for _ in range(players)]
                left = sorted(set(game.deck) - rnd.seen)
                python_play_out(rows, [sorted(h) for h in rnd.hands], taken, left)
                ends, lens, heads = lean(rows)
                assert tables.ends[i].tolist() == ends and tables.lens[i].tolist() == lens
                assert tables.heads[i].tolist() == heads
                assert tables.pens[i].tolist() == [sum(BULL_HEADS[c] for c in t) for t in taken]
                assert np.flatnonzero(alive[i]).tolist() == left
                checked += 1
    assert checked == 36 * 40


def plain_costs(rows, hand: list[int], alive: list[int], players: int) -> list[float]:
    """Every card's cost by rollout.policy_plays' rule, own cards in the gap subtracted (the plain form)."""
    info = sorted((r[-1], len(r), sum(BULL_HEADS[c] for c in r)) for r in rows)
    cheapest = min(r[2] for r in info)
    opponents = players - 1
    unseen = len(alive) - len(hand)
    share = opponents / unseen if unseen else 0.0
    eps = 0.01 / unseen if unseen else 0.0
    out = []
    for i, c in enumerate(hand):
        below = [r for r in info if r[0] < c]
        if not below:
            out.append(float(cheapest))
            continue
        end, length, heads = below[-1]
        gap = bisect_left(alive, c) - bisect_right(alive, end) - (i - bisect_right(hand, end))
        slots = ROW_LIMIT - length
        mean = min(gap * share, opponents)
        if slots:
            out.append(TAILS[slots][int(mean * STEPS)] * (heads + FILLER_HEADS * min(slots, mean)) + eps * gap)
        else:
            out.append(heads + eps * gap)
    return out


def test_heuristic_costs_are_the_plain_rules_costs_for_every_card() -> None:
    """Not only the greedy pick: every card's cost (the soft models draw from them all) is the plain rule's
    float, own cards between the row end and the card included, with played (GONE) slots and unequal hands."""
    rng = random.Random(11)
    for batch in range(18):
        players = 2 + batch % 9
        variant = ("standard", "tactical")[batch % 2]
        pairs = [random_round(rng, players, variant) for _ in range(30)]
        rounds = [r for _, r in pairs]
        hands = np.full((len(rounds), players, HAND_SIZE), GONE)
        kept = []
        for i, rnd in enumerate(rounds):
            row = []
            for s, h in enumerate(rnd.hands):
                h = sorted(h)[: len(h) - (s + i) % 2]  # some hands one card short: unequal unseen counts
                hands[i, s, : len(h)] = h
                row.append(h)
            kept.append(row)
        alive = np.zeros((len(rounds), GONE + 1), dtype=bool)
        for i, (game, rnd) in enumerate(pairs):
            alive[i, sorted(set(game.deck) - rnd.seen)] = True
        costs = heuristic_costs(stack(rounds, players), hands, alive)
        for i, (game, rnd) in enumerate(pairs):
            left = sorted(set(game.deck) - rnd.seen)
            for s, h in enumerate(kept[i]):
                assert costs[i, s, : len(h)].tolist() == plain_costs(rnd.rows, h, left, players)
                assert np.isinf(costs[i, s, len(h) :]).all()


def test_draw_follows_its_temperature() -> None:
    """The playouts' draw on card-major costs: 0 greedy (first on ties), a middle one the softmax, inf uniform."""
    rng = np.random.default_rng(4)
    costs = np.tile(np.array([[1.0], [0.0], [0.0], [3.0]]), (1, 3 * 4000))
    temps = np.tile(np.array([0.0, 1.0, np.inf]), 4000)
    slots = draw(costs.copy(), temps, rng).reshape(4000, 3)
    assert (slots[:, 0] == 1).all()
    w = np.exp(-np.array([1.0, 0.0, 0.0, 3.0]))
    assert np.allclose([(slots[:, 1] == k).mean() for k in range(4)], w / w.sum(), atol=0.03)
    assert np.allclose([(slots[:, 2] == k).mean() for k in range(4)], 0.25, atol=0.03)


def test_deal_hands_deals_the_pool_without_repeats() -> None:
    rng = np.random.default_rng(9)
    pool = list(range(20, 80))
    hands = deal_hands(pool, 200, 5, 2, 9, rng)
    assert (hands[:, 2] == GONE).all()
    others = hands[:, [0, 1, 3, 4]].reshape(200, -1)
    assert all(len(set(row)) == 36 and set(row) <= set(pool) for row in others.tolist())
    assert (np.diff(hands[:, [0, 1, 3, 4]], axis=2) > 0).all()
    again = deal_hands(pool, 200, 5, 2, 9, np.random.default_rng(9))
    assert (again == hands).all()
    counts = np.bincount(others.ravel(), minlength=80)[20:80]
    assert counts.min() > 0.75 * counts.mean()  # every card about as often (36 of 60 per deal)


def plain_log_weights(prior: HandPrior, hands: np.ndarray) -> np.ndarray:
    """HandPrior.log_weights in its plain form: per model, turn and opponent, a log-sum-exp over its hand."""
    n, players, size = hands.shape
    turns = len(prior.tables)
    ll = np.zeros((len(MODELS), n, players))
    opponents = [s for s in range(players) if s != prior.seat]
    for m, temp in enumerate(LIKELIHOOD_TEMPS):
        for t in range(turns):
            for s in opponents:
                later = [prior.played[u][s] for u in range(t, turns)]
                if math.isinf(temp):
                    ll[m, :, s] -= math.log(size + len(later))
                    continue
                if temp == 0:  # greedy: the played card the cheapest of the hand then, else a miss
                    for i in range(n):
                        held = [int(c) for c in hands[i, s] if c != GONE] + later
                        cheapest = min(prior.tables[t][c] for c in held) >= prior.tables[t][prior.played[t][s]]
                        k = len(held)
                        ll[m, i, s] += math.log(1 - GREEDY_MISS) if cheapest else math.log(GREEDY_MISS / (k - 1))
                    continue
                x = -prior.tables[t] / temp
                x[GONE] = -np.inf
                both = np.concatenate([x[hands[:, s]], np.broadcast_to(x[later], (n, len(later)))], axis=1)
                top = both.max(axis=1, keepdims=True)
                ll[m, :, s] += x[prior.played[t][s]] - (top[:, 0] + np.log(np.exp(both - top).sum(axis=1)))
    logw = np.log(prior.weights.T[:, None, :] + 1e-300) + ll
    top = logw.max(axis=0)
    return (top + np.log(np.exp(logw - top).sum(axis=0)))[:, opponents].sum(axis=1)


def test_hand_prior_is_its_plain_form() -> None:
    rng = np.random.default_rng(0)
    for trial in range(12):
        players, turns = 2 + trial % 5, 1 + trial % 6
        seat = trial % players
        cards = rng.permutation(np.arange(1, 105))
        played = [[int(cards[t * players + s]) for s in range(players)] for t in range(turns)]
        pool = sorted(int(c) for c in cards[turns * players : turns * players + 60])
        tables = [np.where(np.arange(GONE + 1) > 0, rng.random(GONE + 1) * 25, 0.0) for _ in range(turns)]
        prior = HandPrior(tables, played, seat, rng.dirichlet(np.ones(len(MODELS)), size=players))
        hands = deal_hands(pool, 200, players, seat, HAND_SIZE - turns, rng)
        assert np.allclose(prior.log_weights(hands), plain_log_weights(prior, hands), rtol=1e-9, atol=1e-9)


def test_random_and_soft_play_outs_keep_every_bull_head() -> None:
    """Uniform play (as mcs100 and the model's mcs likelihood use it) and soft play (the search's opponents):
    every card laid, no bull head lost or made (rows + penalties = rows before + the cards played), every
    row five cards at most, and the same seed the same ends."""
    rng = random.Random(21)
    heads_of = np.array(BULL_HEADS + (0,))
    temps_by_seat = np.array([0.0, 0.1, 1.0, 3.0, np.inf])
    for batch in range(18):
        players = 2 + batch % 9
        variant = ("standard", "tactical")[batch % 2]
        by_size: dict[int, list] = {}
        for _, rnd in (random_round(rng, players, variant) for _ in range(40)):
            by_size.setdefault(len(rnd.hands[0]), []).append(rnd)
        for rounds in by_size.values():
            hands = np.array([[sorted(h) for h in rnd.hands] for rnd in rounds])
            before = stack(rounds, players).heads.sum(axis=1) + heads_of[hands].sum(axis=(1, 2))
            ends = []
            for seed in (0, 0, 1):
                tables = stack(rounds, players)
                play_out(tables, hands.copy(), np.random.default_rng(seed))
                assert (tables.heads.sum(axis=1) + tables.pens.sum(axis=1) == before).all()
                assert ((tables.lens >= 1) & (tables.lens <= ROW_LIMIT)).all()
                ends.append(tables.ends.tolist())
                alive = np.zeros((len(rounds), GONE + 1), dtype=bool)
                for i, rnd in enumerate(rounds):
                    alive[i, [c for h in rnd.hands for c in h]] = True
                soft = stack(rounds, players)
                temps = np.tile(temps_by_seat[np.arange(players) % 5], (len(rounds), 1))
                play_out(soft, hands.copy(), np.random.default_rng(seed), alive=alive, temps=temps)
                assert (soft.heads.sum(axis=1) + soft.pens.sum(axis=1) == before).all()
                assert not alive.any()
            assert ends[0] == ends[1]
