"""The search bot (mcs, hard) and the levels: legal moves, only its own view, determinism, budgets, options.

Strength is not tested here: `p2pnimmt simulate` measures it (docs/bots.md, "Tournament results").
"""

from __future__ import annotations

import math
import random
import time

import pytest

from p2pnimmt.bots import BOTS, LEVELS, EasyBot, HardBot, HeuristicBot, MCSBot, MediumBot, make_bot, searches
from p2pnimmt.bots.levels import HARD_BUDGET
from p2pnimmt.bots.match import deal_order, play_game
from p2pnimmt.bots.mcs import BUDGET_ENV, ROLLOUTS_ENV
from p2pnimmt.bots.model import MODELS
from p2pnimmt.bots.rollout import play_out, policy_plays
from p2pnimmt.engine import BULL_HEADS, HAND_SIZE, ROW_COUNT, Game, PlayerView, Round, Settings


def dealt_game(players: int, seed: int, variant: str = "standard", turns: int = 0) -> Game:
    """A game in its first round after `turns` turns of random play."""
    game = Game(Settings(players, variant))
    rng = random.Random(seed)
    if variant == "draft":
        draft = game.start_round()
        while not draft.done:
            draft.pick(draft.to_move, draft.open_cards[int(rng.random() * len(draft.open_cards))])
        game.finish_draft()
    else:
        game.start_round(deal_order(rng, game.deck, HAND_SIZE * players + ROW_COUNT))
    rnd = game.round
    for _ in range(turns):
        plays = [h[int(rng.random() * len(h))] for h in rnd.hands]
        rnd.play_turn(plays, 0 if rnd.chooser(plays) is not None else None)
    return game


class PublicOnly:
    """A stand-in for a PlayerView that serves only its public attributes and records what was read."""

    def __init__(self, view: PlayerView) -> None:
        object.__setattr__(self, "_view", view)
        object.__setattr__(self, "read", set())

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(f"the bot read the private attribute {name!r} of its view")
        self.read.add(name)
        return getattr(self._view, name)


def unseen_by_all(rnd: Round, deck) -> list[int]:
    """The cards nobody has seen yet: in some hand or not dealt, ascending."""
    return sorted(set(deck) - rnd.seen)


# --- the rollout policy ------------------------------------------------------------------------------


def test_rollout_policy_is_the_heuristic_rule() -> None:
    """policy_plays gives each seat the heuristic bot's card (up to the tabulated Poisson tails)."""
    agree = total = 0
    heuristic = HeuristicBot(0)
    for seed in range(40):
        players = 2 + seed % 9
        game = dealt_game(players, seed)
        rnd = game.round
        views = [PlayerView(game, s) for s in range(players)]
        while not rnd.over:
            plays, choice = policy_plays(rnd.rows, rnd.hands, unseen_by_all(rnd, game.deck))
            expected = [heuristic.choose_card(v) for v in views]
            agree += sum(a == b for a, b in zip(plays, expected))
            total += players
            rnd.play_turn(expected, lambda seat: heuristic.choose_row(views[seat], expected))
    assert agree >= 0.99 * total, (agree, total)


def test_fast_rollout_plays_exactly_the_policy() -> None:
    """play_out (the hot loop) ends every round exactly as turn-by-turn policy_plays through Round.play_turn."""
    for seed in range(300):
        rng = random.Random(seed)
        players = rng.randint(2, 10)
        variant = ("standard", "tactical")[seed % 2]
        game = dealt_game(players, seed, variant, turns=rng.randint(0, 9))
        rnd = game.round
        slow = rnd.copy()
        while not slow.over:
            plays, choice = policy_plays(slow.rows, slow.hands, unseen_by_all(slow, game.deck))
            slow.play_turn(plays, choice)
        fast = rnd.copy()
        alive = unseen_by_all(rnd, game.deck)
        play_out(fast.rows, fast.hands, fast.taken, alive)
        assert alive == unseen_by_all(fast, game.deck) == sorted(set(game.deck) - set(game.deck[:0]) - fast.seen)
        assert fast.rows == slow.rows and fast.taken == slow.taken and fast.hands == slow.hands
        assert sum(fast.penalties) == sum(slow.penalties)


# --- legal moves and whole games ---------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["standard", "tactical", "draft"])
def test_levels_and_mcs_play_whole_games_legally(variant: str) -> None:
    """A mixed table of every kind, with search bots on a few deals; play_game checks every card played."""
    names = ["easy", "medium", "hard", "mcs", "heuristic"]
    settings = Settings(5, variant, max_rounds=2)
    bots = [make_bot(name, f"mixed/{i}", **({"rollouts": 4} if searches(name) else {})) for i, name in enumerate(names)]
    game = play_game(settings, bots, random.Random(variant))
    assert game.rounds_played == 2
    assert sum(map(sum, game.history)) > 0


@pytest.mark.parametrize("players", [2, 10])
def test_choose_card_is_in_hand_at_every_turn(players: int) -> None:
    for turns in range(HAND_SIZE):
        game = dealt_game(players, 100 + turns, turns=turns)
        view = PlayerView(game, players - 1)
        bot = MCSBot(turns, rollouts=6)
        card = bot.choose_card(view)
        assert type(card) is int and card in view.hand
        if len(view.hand) == 1:
            assert bot.last_deals == 0
        else:
            assert 1 <= bot.last_deals <= 6


def forced_row_game() -> tuple[Game, list[int]]:
    """Seat 0 plays 2, below every row; the rows hold 1, 5, 12 and 4 bull heads."""
    game = Game(Settings(3, "standard"))
    rng = random.Random(9)
    rows = [[12], [44], [55, 66], [60, 61]]
    on_rows = {c for r in rows for c in r}
    rest = [c for c in range(1, 105) if c not in on_rows and c not in (2, 3, 4)]
    rng.shuffle(rest)
    hands = [[2] + rest[0:9], [3] + rest[9:18], [4] + rest[18:27]]
    game.round = Round(hands, rows)
    return game, [2, hands[1][5], hands[2][5]]


def test_choose_row_is_a_row_and_prefers_cheap_rows() -> None:
    game, plays = forced_row_game()
    view = PlayerView(game, 0)
    bot = MCSBot(1, rollouts=40)
    row = bot.choose_row(view, plays)
    assert type(row) is int and 0 <= row < ROW_COUNT
    heads = [sum(BULL_HEADS[c] for c in r) for r in view.rows]
    assert heads == [1, 5, 12, 4]
    assert row != 2, (row, heads)  # never the 12-head row
    # the same answer when the view's hand no longer holds the played card (as some front ends ask)
    view_after = PlayerView(game, 0)
    game.round.hands[0].remove(2)
    assert bot.choose_row(view_after, plays) in range(ROW_COUNT)


def test_choose_row_on_the_last_turn_takes_the_cheapest_row() -> None:
    game = Game(Settings(2, "standard"))
    game.round = Round([[1], [50]], [[10, 11], [20], [30, 33], [40]])
    assert MCSBot(0, rollouts=5).choose_row(PlayerView(game, 0), [1, 50]) == 1


def test_the_draft_pick_is_the_heuristic_pick() -> None:
    game = Game(Settings(3, "draft"))
    game.start_round()
    view = PlayerView(game, 0)
    assert MCSBot(0, rollouts=3).choose_pick(view) == HeuristicBot(0).choose_pick(view)


# --- only its own view ---------------------------------------------------------------------------------


@pytest.mark.parametrize("bot", ["mcs", "hard", "easy", "medium", "mcs100"])
def test_reads_only_public_attributes_of_its_view(bot: str) -> None:
    game = dealt_game(4, 3, turns=2)
    player = make_bot(bot, 1, **({"rollouts": 5} if searches(bot) else {}))
    view = PublicOnly(PlayerView(game, 1))
    card = player.choose_card(view)
    assert card in view.hand
    game_row, plays = forced_row_game()
    assert player.choose_row(PublicOnly(PlayerView(game_row, 0)), plays) in range(ROW_COUNT)


@pytest.mark.parametrize("turns", [0, 4, 8])
def test_decisions_do_not_depend_on_hidden_cards(turns: int) -> None:
    """Two games with the same table and the same own hand but different hidden cards: the same decisions."""
    game_a = dealt_game(4, 21, turns=turns)
    rnd = game_a.round
    hidden = [c for s in (1, 2, 3) for c in rnd.hands[s]]
    undealt = sorted(set(game_a.deck) - rnd.seen - set(hidden) - set(rnd.hands[0]))
    # other hands: rebuilt from a reshuffle of the other hands' cards and the undealt cards
    pool = hidden + undealt
    random.Random(turns).shuffle(pool)
    size = len(rnd.hands[0])
    game_b = Game(Settings(4, "standard"))
    game_b.round = Round([rnd.hands[0]] + [pool[i * size : (i + 1) * size] for i in range(3)], rnd.rows)
    game_b.round.taken = [list(t) for t in rnd.taken]
    assert [sorted(h) for h in game_b.round.hands[1:]] != [sorted(h) for h in rnd.hands[1:]]
    view_a, view_b = PlayerView(game_a, 0), PlayerView(game_b, 0)
    assert (view_a.hand, view_a.rows, view_a.unseen) == (view_b.hand, view_b.rows, view_b.unseen)
    for name in ("mcs", "hard", "easy", "medium", "mcs100"):
        options = {"rollouts": 12} if searches(name) else {}
        a = make_bot(name, "same", **options).choose_card(view_a)
        b = make_bot(name, "same", **options).choose_card(view_b)
        assert a == b, name


# --- determinism, rollouts and budgets -------------------------------------------------------------------


def test_deterministic_given_seed_and_rollouts() -> None:
    views = [PlayerView(dealt_game(5, s, turns=s % 6), s % 5) for s in range(6)]

    def decisions(seed: str, cls=MCSBot) -> list[int]:
        bot = cls(seed, rollouts=10)
        return [bot.choose_card(v) for v in views]

    assert decisions("x") == decisions("x")
    assert decisions("x", HardBot) == decisions("x", HardBot)
    game, plays = forced_row_game()
    assert MCSBot("r", rollouts=10).choose_row(PlayerView(game, 0), plays) == MCSBot("r", rollouts=10).choose_row(
        PlayerView(game, 0), plays
    )


def test_a_time_budget_bounds_each_decision() -> None:
    game = dealt_game(10, 5)
    view = PlayerView(game, 0)
    bot = MCSBot(0, budget=0.05)
    assert bot.rollouts is None and bot.budget == 0.05
    start = time.perf_counter()
    card = bot.choose_card(view)
    elapsed = time.perf_counter() - start
    assert card in view.hand
    assert bot.last_deals >= bot.min_rollouts
    assert elapsed < 0.05 + 0.5, elapsed  # the clock is read every few deals; generous for a busy machine


def test_defaults_environment_and_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ROLLOUTS_ENV)
    hard, mcs = make_bot("hard"), make_bot("mcs")
    assert (hard.rollouts, hard.budget) == (None, HARD_BUDGET)  # hard: a time budget
    assert (mcs.rollouts, mcs.budget) == (100, None)  # mcs: a fixed number of deals
    monkeypatch.setenv(BUDGET_ENV, "0.25")
    assert (make_bot("hard").budget, make_bot("mcs").budget) == (0.25, 0.25)
    monkeypatch.setenv(ROLLOUTS_ENV, "7")  # a count wins over a budget
    assert (make_bot("hard").rollouts, make_bot("hard").budget) == (7, None)
    assert make_bot("hard", rollouts=3).rollouts == 3  # explicit arguments win over the environment
    assert make_bot("mcs", budget=0.1).budget == 0.1
    monkeypatch.setenv(ROLLOUTS_ENV, "many")
    with pytest.raises(ValueError, match=ROLLOUTS_ENV):
        make_bot("hard")
    for bad in ({"rollouts": 0}, {"rollouts": 2.5}, {"budget": 0}, {"budget": -1.0}):
        with pytest.raises(ValueError):
            MCSBot(0, **bad)
    with pytest.raises(TypeError, match="takes no options"):
        make_bot("heuristic", rollouts=3)


def test_levels_are_registered_bots() -> None:
    assert LEVELS == ("easy", "medium", "hard")
    assert {"random", "heuristic", "mcs", "mcs100", "easy", "medium", "hard"} <= set(BOTS)
    assert not searches("mcs100")  # the baseline takes no options: 100 playouts per candidate, always
    assert (BOTS["easy"], BOTS["medium"], BOTS["hard"], BOTS["mcs"]) == (EasyBot, MediumBot, HardBot, MCSBot)
    assert [searches(name) for name in ("random", "heuristic", "easy", "medium", "mcs", "hard")] == [
        False, False, False, False, True, True,
    ]
    for name in BOTS:
        assert make_bot(name, 0).name == name


def test_easy_mixes_random_and_heuristic_cards() -> None:
    game = dealt_game(5, 8)
    view = PlayerView(game, 2)
    heuristic_card = HeuristicBot(0).choose_card(view)
    cards = [EasyBot(seed).choose_card(view) for seed in range(60)]
    assert all(c in view.hand for c in cards)
    share = cards.count(heuristic_card) / len(cards)
    assert 0.4 < share < 0.9, share  # half the time the heuristic's card, otherwise random (which may hit it too)
    assert len(set(cards)) > 2


# --- the prior over the opponents' hands -------------------------------------------------------------------


def test_the_prior_prefers_hands_that_explain_the_opponents_plays() -> None:
    """After turns of heuristic play, the true hands explain the plays better than random hands do, and a bot
    that saw every turn builds its prior from public attributes only (each turn's cards, the tables)."""
    from p2pnimmt.bots.model import HandPrior

    wins = trials = 0
    for seed in range(12):
        game = dealt_game(5, 100 + seed)
        rnd = game.round
        heuristic = HeuristicBot(seed)
        searcher = MCSBot(seed, rollouts=8)
        views = [PlayerView(game, s) for s in range(5)]
        for _ in range(6):
            searcher.choose_card(PublicOnly(views[0]))  # it records each turn's table
            plays = [heuristic.choose_card(v) for v in views]
            rnd.play_turn(plays, lambda s: heuristic.choose_row(views[s], plays))
        view = PublicOnly(views[0])
        searcher.choose_card(view)
        assert "played" in view.read and len(view.played) == 6
        prior = searcher.prior
        assert isinstance(prior, HandPrior) and len(prior.tables) == 6
        assert prior.weights.shape == (5, len(MODELS))
        truth = [None] + [list(h) for h in rnd.hands[1:]]
        pool = sorted(view.unseen)
        rng = random.Random(seed)
        for _ in range(20):
            rng.shuffle(pool)
            fake = [None] + [sorted(pool[i * 4 : i * 4 + 4]) for i in range(4)]
            wins += prior.log_weight(truth) > prior.log_weight(fake)
            trials += 1
        assert prior.log_weight(truth) > -4 * 6 * math.log(10)  # the truth is likelier than uniform plays
    assert wins >= 0.9 * trials, (wins, trials)


def test_a_bot_that_missed_turns_deals_uniformly() -> None:
    """No prior unless the bot saw the table of every earlier turn of this round (e.g. it joined mid-round)."""
    game = dealt_game(4, 5, turns=3)
    bot = MCSBot(1, rollouts=8)
    bot.choose_card(PlayerView(game, 0))
    assert bot.prior is None
