"""Random playouts: about two thousand complete games through Game, Round and Draft with random
legal choices, checking the invariants of the table after every turn and of the scores after
every round.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from p2pnimmt.engine import (
    BULL_HEADS,
    Draft,
    Game,
    PlayerView,
    Round,
    RowChoiceRequired,
    Settings,
    pick_order,
    shuffle,
)

VARIANTS = ("standard", "tactical", "draft")
PLAYERS = range(2, 11)
GAMES_PER_CASE = 75  # 3 variants x 9 player counts x 75 = 2025 games
REPLAYS_PER_CASE = 4
ROUND_GUARD = 300  # no random game comes near this; a game that never ends is a failure


def random_settings(rng: random.Random, variant: str, players: int) -> Settings:
    kind = rng.randrange(3)
    if kind == 0:
        return Settings(players=players, variant=variant, point_limit=rng.choice([66, rng.randint(1, 80)]))
    if kind == 1:
        return Settings(players=players, variant=variant, point_limit=None, max_rounds=rng.randint(1, 5))
    return Settings(players=players, variant=variant, point_limit=rng.randint(1, 66), max_rounds=rng.randint(1, 5))


def expected_over(settings: Settings, scores: list[int], rounds: int) -> bool:
    if settings.max_rounds is not None and rounds >= settings.max_rounds:
        return True
    return settings.point_limit is not None and rounds > 0 and max(scores) >= settings.point_limit


def check_table(rnd: Round, universe: set[int]) -> None:
    """Every dealt card is in exactly one place; rows are legal; penalties match the piles."""
    places = [c for h in rnd.hands for c in h] + [c for r in rnd.rows for c in r] + [c for t in rnd.taken for c in t]
    counts = Counter(places)
    assert set(counts) == universe, (set(counts) ^ universe)
    assert all(k == 1 for k in counts.values()), [c for c, k in counts.items() if k > 1]
    assert len(rnd.rows) == 4
    for row in rnd.rows:
        assert 1 <= len(row) <= 5
        assert all(a < b for a, b in zip(row, row[1:])), row
    assert rnd.penalties == [sum(BULL_HEADS[c] for c in pile) for pile in rnd.taken]
    assert all(h == sorted(h) for h in rnd.hands)


def deal_round(game: Game, rng: random.Random) -> tuple[Round, set[int]]:
    n = game.settings.players
    r = game.rounds_played
    if game.settings.variant == "draft":
        draft = game.start_round()
        assert isinstance(draft, Draft)
        assert game.draft is draft and game.round is None
        order = pick_order(n, r)
        assert draft.order == order
        for k, seat in enumerate(order):
            assert draft.to_move == seat
            card = rng.choice(draft.open_cards)
            if rng.random() < 0.02:  # an out-of-turn pick is refused and changes nothing
                other = (seat + 1) % n
                open_before = list(draft.open_cards)
                with pytest.raises(ValueError, match="out of turn"):
                    draft.pick(other, card)
                assert draft.open_cards == open_before and draft.picks == k
            draft.pick(seat, card)
            assert card in draft.hands[seat] and card not in draft.open_cards
            assert sum(len(h) for h in draft.hands) == k + 1
        assert draft.done and draft.to_move is None
        assert all(len(h) == 10 for h in draft.hands)
        left = sorted(draft.open_cards)
        hands = [sorted(h) for h in draft.hands]
        rnd = game.finish_draft()
        assert game.draft is None and game.round is rnd
        assert rnd.hands == hands
        assert rnd.rows == [[c] for c in left]
        universe = set(game.deck)
    else:
        order = shuffle(rng.randbytes(32), game.deck)
        rnd = game.start_round(order)
        assert game.round is rnd
        for s in range(n):
            assert rnd.hands[s] == sorted(order[10 * s : 10 * s + 10])
        assert rnd.rows == [[c] for c in sorted(order[10 * n : 10 * n + 4])]
        universe = set(order[: 10 * n + 4])
    assert len(universe) == 10 * n + 4
    assert rnd.turn == 0 and not rnd.over
    assert rnd.taken == [[] for _ in range(n)]
    return rnd, universe


def check_copy_is_independent(rnd: Round, rng: random.Random) -> None:
    before = rnd.snapshot()
    other = rnd.copy()
    assert other.snapshot() == before
    other.play_turn([rng.choice(h) for h in other.hands], lambda seat: rng.randrange(4))
    other.rows[rng.randrange(4)].append(0)
    other.hands[rng.randrange(len(other.hands))].clear()
    other.taken[rng.randrange(len(other.taken))].append(0)
    assert rnd.snapshot() == before


def play_round(game: Game, rnd: Round, universe: set[int], rng: random.Random, trace: list) -> None:
    n = game.settings.players
    revealed = {r[0] for r in rnd.rows}
    copy_turn = rng.randrange(10)
    check_table(rnd, universe)
    for turn in range(10):
        if turn == copy_turn:
            check_copy_is_independent(rnd, rng)
        cards = [rng.choice(h) for h in rnd.hands]
        low = min(cards)
        needs_choice = all(low < r[-1] for r in rnd.rows)
        chooser = cards.index(low) if needs_choice else None
        assert rnd.chooser(cards) == chooser
        hands_before = [list(h) for h in rnd.hands]
        taken_before = [list(t) for t in rnd.taken]
        snap = rnd.snapshot()

        if needs_choice and rng.random() < 0.1:
            with pytest.raises(RowChoiceRequired) as info:
                rnd.play_turn(cards)
            assert (info.value.player, info.value.card) == (chooser, low)
            assert rnd.snapshot() == snap
        if not needs_choice and rng.random() < 0.05:
            with pytest.raises(ValueError, match="nobody chooses"):
                rnd.play_turn(cards, rng.randrange(4))
            assert rnd.snapshot() == snap

        asked = []
        if rng.random() < 0.5:
            choice = rng.randrange(4) if needs_choice else None
        else:

            def choice(seat, _row=rng.randrange(4)):  # noqa: B008  (the row is drawn once, here, on purpose)
                asked.append(seat)
                return _row

        placed = rnd.play_turn(cards, choice)
        trace.append(tuple(placed))

        if callable(choice):
            assert asked == ([chooser] if needs_choice else [])
        # one placement per seat, in ascending card order
        assert [c for _, c, _, _ in placed] == sorted(cards)
        assert sorted((s, c) for s, c, _, _ in placed) == list(enumerate(cards))
        # hands shrink by one: exactly the card played
        for s in range(n):
            assert len(rnd.hands[s]) == len(hands_before[s]) - 1 == 9 - turn
            expected = list(hands_before[s])
            expected.remove(cards[s])
            assert rnd.hands[s] == expected
        # piles only grow, by exactly what the placements say
        for s in range(n):
            gained = [c for seat, _, _, took in placed if seat == s for c in took]
            assert rnd.taken[s] == taken_before[s] + gained
        # at most one rule-4 take, by the chooser
        if needs_choice:
            assert placed[0][0] == chooser and placed[0][3] == snap.rows[placed[0][2]]
        assert rnd.turn == turn + 1
        revealed.update(cards)
        assert rnd.seen == revealed
        check_table(rnd, universe)
        if rng.random() < 0.05:
            seat = rng.randrange(n)
            view = PlayerView(game, seat)
            assert view.hand == tuple(rnd.hands[seat])
            assert view.rows == tuple(tuple(r) for r in rnd.rows)
            assert view.round_penalties == tuple(rnd.penalties)
            assert view.seen == frozenset(revealed)
            assert view.unseen == frozenset(game.deck) - set(rnd.hands[seat]) - revealed
    assert rnd.over
    assert all(h == [] for h in rnd.hands)


def play_game(seed: int, variant: str, players: int) -> tuple[list[int], list[tuple[int, ...]], list]:
    rng = random.Random(seed)
    settings = random_settings(rng, variant, players)
    game = Game(settings)
    trace: list = []
    scores = [0] * players
    assert not game.over and game.rounds_played == 0
    while not game.over:
        assert game.rounds_played < ROUND_GUARD, "the game never ends"
        rnd, universe = deal_round(game, rng)
        play_round(game, rnd, universe, rng, trace)
        pile_heads = tuple(sum(BULL_HEADS[c] for c in pile) for pile in rnd.taken)
        assert game.finish_round() == pile_heads
        assert game.round is None
        scores = [a + b for a, b in zip(scores, pile_heads)]
        assert game.scores == scores
        assert game.history[-1] == pile_heads
        assert [sum(col) for col in zip(*game.history)] == scores
        assert game.over == expected_over(settings, scores, game.rounds_played)
    # the game ended exactly when the end condition first held
    for r in range(1, game.rounds_played):
        partial = [sum(col) for col in zip(*game.history[:r])]
        assert not expected_over(settings, partial, r)
    if settings.max_rounds is not None:
        assert game.rounds_played <= settings.max_rounds
    low = min(scores)
    assert game.winners == tuple(s for s in range(players) if scores[s] == low)
    assert game.winners
    with pytest.raises(ValueError, match="the game is over"):
        game.start_round(None if variant == "draft" else list(game.deck))
    return game.scores, game.history, trace


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_random_playouts(variant, players):
    base = (VARIANTS.index(variant) * 100 + players) * 10_000
    results = {}
    for k in range(GAMES_PER_CASE):
        results[k] = play_game(base + k, variant, players)
    # determinism: the same seed replays the same game, turn by turn
    for k in range(REPLAYS_PER_CASE):
        assert play_game(base + k, variant, players) == results[k]
    # the games differ from each other (the seed is actually used)
    assert len({tuple(map(tuple, r[2][:1])) for r in results.values()}) > 1
