"""The bots: legal moves in whole games, determinism, what a seat may see, heuristic sanity and strength."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from sweep import count

from p2pnimmt.bots import BOTS, HeuristicBot, make_bot, searches
from p2pnimmt.bots.heuristic import row_heads
from p2pnimmt.bots.match import deal_order, play_game, play_round
from p2pnimmt.engine import BULL_HEADS, HAND_SIZE, ROW_COUNT, Game, PlayerView, Round, Settings
from p2pnimmt.simulate import simulate

BOT_NAMES = sorted(BOTS)
VARIANTS = ("standard", "tactical", "draft")
PLAYER_COUNTS = (2, 3, 5, 7, 10)


# --- a referee that wraps every bot and checks every move ---------------------------------------


class Referee:
    """Shared by the proxies of one game: checks each turn as a whole (who must choose a row, live views)."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.turn_cards: dict[int, int] = {}
        self.turn_rows: dict[int, tuple[tuple[int, ...], ...]] = {}
        self.row_asked: list[int] = []
        self.last_hand: dict[int, tuple[int, ...]] = {}
        self.round_start_scores: list[tuple[int, ...]] = []
        self.turns_checked = 0
        self.row_choices = 0
        self.picks = 0
        self.moves: list[tuple] = []  # every decision, for determinism checks
        self.played_last: dict[int, int] = {}

    def card(self, seat: int, view: PlayerView, card: int) -> None:
        if seat == 0:
            self.finish_turn()
        hand = view.hand
        if view.turn == 0:
            assert len(hand) == HAND_SIZE
            if seat == 0:
                self.round_start_scores.append(view.scores)
        else:
            # the view is live: last turn's card has left the hand, nothing else changed
            previous = self.last_hand[seat]
            assert hand == tuple(c for c in previous if c != self.played_last[seat]), (previous, hand)
        assert len(hand) == HAND_SIZE - view.turn
        self.last_hand[seat] = hand
        self.turn_cards[seat] = card
        self.turn_rows[seat] = view.rows
        self.moves.append(("card", seat, card))

    def row(self, seat: int, view: PlayerView, plays: Sequence[int], row: int) -> None:
        assert len(plays) == self.players
        assert all(type(c) is int for c in plays)
        assert list(plays) == [self.turn_cards[s] for s in range(self.players)], "plays are the turn's cards by seat"
        ends = [r[-1] for r in view.rows]
        assert plays[seat] < min(ends), f"seat {seat} asked for a row though {plays[seat]} fits a row {ends}"
        assert plays[seat] == min(plays), "only the lowest card of the turn chooses a row"
        self.row_asked.append(seat)
        self.row_choices += 1
        self.moves.append(("row", seat, row))

    def pick(self, seat: int, card: int) -> None:
        self.picks += 1
        self.moves.append(("pick", seat, card))

    def finish_turn(self) -> None:
        """Check the turn just played: the chooser (if any) was asked, exactly once; nobody else was."""
        if not self.turn_cards:
            return
        assert sorted(self.turn_cards) == list(range(self.players))
        rows = self.turn_rows[0]
        assert all(r == rows for r in self.turn_rows.values()), "every seat sees the same table"
        low = min(self.turn_cards.values())
        low_seat = next(s for s, c in self.turn_cards.items() if c == low)
        expected = [low_seat] if low < min(r[-1] for r in rows) else []
        assert self.row_asked == expected, (self.turn_cards, rows, self.row_asked)
        self.played_last = dict(self.turn_cards)
        self.turn_cards = {}
        self.turn_rows = {}
        self.row_asked = []
        self.turns_checked += 1


class CheckedBot:
    """A proxy around a real bot that asserts every call it gets and every answer it gives is legal."""

    def __init__(self, bot, seat: int, referee: Referee) -> None:
        self.bot = bot
        self.name = bot.name
        self.seat = seat
        self.referee = referee

    def check_view(self, view) -> None:
        assert type(view) is PlayerView, f"bot got a {type(view).__name__}, not a PlayerView"
        assert view.seat == self.seat
        assert view.players == self.referee.players

    def choose_card(self, view):
        self.check_view(view)
        hand = view.hand
        card = self.bot.choose_card(view)
        assert type(card) is int and card in hand, f"{self.name} played {card!r}, not in its hand {hand}"
        assert view.hand == hand, "choosing a card must not change the view"
        self.referee.card(self.seat, view, card)
        return card

    def choose_row(self, view, plays):
        self.check_view(view)
        row = self.bot.choose_row(view, plays)
        assert type(row) is int and 0 <= row < ROW_COUNT, f"{self.name} chose row {row!r}"
        if isinstance(self.bot, HeuristicBot):
            heads = [row_heads(r) for r in view.rows]
            assert heads[row] == min(heads), f"heuristic took a row of {heads[row]} bull heads, rows have {heads}"
        self.referee.row(self.seat, view, plays, row)
        return row

    def choose_pick(self, view):
        self.check_view(view)
        assert view.variant == "draft"
        cards = view.open_cards
        assert cards and not set(cards) & set(view.hand)
        card = self.bot.choose_pick(view)
        assert type(card) is int and card in cards, f"{self.name} picked {card!r}, not open: {cards}"
        self.referee.pick(self.seat, card)
        return card


def checked_game(settings: Settings, names: Sequence[str], seed: int) -> tuple[Game, Referee]:
    referee = Referee(settings.players)
    bots = [CheckedBot(make_bot(name, f"test/{seed}/{seat}"), seat, referee) for seat, name in enumerate(names)]
    game = play_game(settings, bots, random.Random(f"test/{seed}/deal"))
    referee.finish_turn()
    return game, referee


def check_finished(game: Game, referee: Referee) -> None:
    settings = game.settings
    assert game.over
    assert game.rounds_played >= 1
    assert referee.turns_checked == HAND_SIZE * game.rounds_played
    if settings.variant == "draft":
        assert referee.picks == HAND_SIZE * settings.players * game.rounds_played
    else:
        assert referee.picks == 0
    # scores add up the rounds, and each round's views showed the scores so far
    totals = [0] * settings.players
    assert len(referee.round_start_scores) == game.rounds_played
    for taken, shown in zip(game.history, referee.round_start_scores):
        assert shown == tuple(totals)
        totals = [t + x for t, x in zip(totals, taken)]
    assert totals == game.scores
    # with only a point limit, the game ends with the first round that reaches it
    if settings.point_limit is not None and settings.max_rounds is None:
        assert max(game.scores) >= settings.point_limit
        before = [sum(h[s] for h in game.history[:-1]) for s in range(settings.players)]
        assert max(before) < settings.point_limit


# --- legal moves in whole games -------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("bot", BOT_NAMES)
def test_every_move_is_legal_in_whole_games(bot: str, variant: str, players: int) -> None:
    """Every kind at every table size and variant; the bots that search or roll out (seconds a game) one seed,
    the rest two (the long sweeps: 2 and 4)."""
    settings = Settings(players, variant)
    for seed in range(count(1, 2) if searches(bot) or bot == "mcs100" else count(2, 4)):
        game, referee = checked_game(settings, [bot] * players, seed)
        check_finished(game, referee)


@pytest.mark.parametrize("variant", VARIANTS)
def test_mixed_tables_play_legally_and_row_choices_happen(variant: str) -> None:
    row_choices = 0
    for players in (2, 4, 6, 10):
        names = [BOT_NAMES[s % len(BOT_NAMES)] for s in range(players)]
        game, referee = checked_game(Settings(players, variant), names, 7)
        check_finished(game, referee)
        row_choices += referee.row_choices
    assert row_choices > 0, "the games never exercised choose_row"


def test_round_limit_without_point_limit_plays_exactly_that_many_rounds() -> None:
    names = [BOT_NAMES[s % len(BOT_NAMES)] for s in range(4)]
    game, referee = checked_game(Settings(4, "standard", point_limit=None, max_rounds=3), names, 3)
    check_finished(game, referee)
    assert game.rounds_played == 3


def test_play_game_rejects_wrong_number_of_bots() -> None:
    with pytest.raises(ValueError, match="3 seats need 3 bots, got 2"):
        play_game(Settings(3), [make_bot("random"), make_bot("random")], random.Random(0))


def test_make_bot_unknown_name_lists_known_bots() -> None:
    with pytest.raises(ValueError) as info:
        make_bot("foo")
    assert "'foo'" in str(info.value)
    for name in BOTS:
        assert name in str(info.value)


def test_deal_order_is_a_random_selection_of_distinct_cards() -> None:
    deck = tuple(range(1, 105))
    rng = random.Random(5)
    first = deal_order(rng, deck, 54)
    assert len(first) == 54 and len(set(first)) == 54 and set(first) <= set(deck)
    second = deal_order(rng, deck, 54)
    assert first != second
    assert deal_order(random.Random(5), deck, 54) == first


# --- determinism ------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_same_seed_same_game_different_seed_different_play(variant: str) -> None:
    names = ["heuristic", "random", "random", "heuristic", "random"]
    settings = Settings(5, variant)
    game_a, ref_a = checked_game(settings, names, 11)
    game_b, ref_b = checked_game(settings, names, 11)
    assert game_a.scores == game_b.scores
    assert game_a.history == game_b.history
    assert ref_a.moves == ref_b.moves
    game_c, ref_c = checked_game(settings, names, 12)
    assert ref_c.moves != ref_a.moves
    assert (game_c.history, game_c.scores) != (game_a.history, game_a.scores)


@pytest.mark.parametrize("bot", BOT_NAMES)
def test_a_bot_is_deterministic_given_its_seed(bot: str) -> None:
    game = Game(Settings(4))
    game.start_round(deal_order(random.Random(1), game.deck, 44))
    views = [PlayerView(game, s) for s in range(4)]

    def decisions(seed):
        b = make_bot(bot, seed)
        return [b.choose_card(v) for v in views * 5]

    assert decisions("x") == decisions("x")
    if bot == "random":
        assert decisions("x") != decisions("y")


def test_simulate_is_deterministic_given_its_seed() -> None:
    settings = Settings(3, "standard")
    names = ["heuristic", "random", "random"]

    def figures(seed):
        result = simulate(settings, names, 20, seed)
        d = result.as_dict()
        d.pop("seconds")
        d.pop("games_per_second")
        return d

    assert figures(4) == figures(4)
    assert figures(4)["bots"] != figures(5)["bots"]


# --- what a seat may see ----------------------------------------------------------------------------


def as_card_collection(value) -> frozenset[int] | None:
    """The cards in `value` if it is a flat collection of ints, else None."""
    if isinstance(value, (tuple, list, set, frozenset)) and all(type(c) is int for c in value):
        return frozenset(value)
    return None


def public_values(view: PlayerView) -> dict[str, object]:
    values = {}
    for name in dir(view):
        if name.startswith("_"):
            continue
        value = getattr(view, name)
        assert not callable(value), f"PlayerView.{name} is callable; extend this test to cover it"
        values[name] = value
    return values


def flatten_cards(value) -> set[int]:
    if isinstance(value, int):
        return {value}
    if isinstance(value, (tuple, list, set, frozenset)):
        return set().union(*(flatten_cards(v) for v in value)) if value else set()
    return set()


def check_isolation(game: Game, rnd: Round) -> None:
    n = game.settings.players
    on_rows = {c for row in rnd.rows for c in row}
    for seat in range(n):
        view = PlayerView(game, seat)
        own = set(rnd.hands[seat])
        others = [set(rnd.hands[s]) for s in range(n) if s != seat]
        assert view.hand == tuple(rnd.hands[seat])
        assert not view.unseen & own
        assert not view.unseen & on_rows
        for hand in others:
            assert hand <= view.unseen
        values = public_values(view)
        assert {"hand", "rows", "unseen", "seen", "scores", "open_cards"} <= set(values)
        for name, value in values.items():
            # no attribute is another seat's hand, nor holds one as an element
            candidates = [value]
            if isinstance(value, (tuple, list, set, frozenset)):
                candidates += list(value)
            for candidate in candidates:
                cards = as_card_collection(candidate)
                if cards:
                    for hand in others:
                        assert cards != hand, f"PlayerView.{name} reveals another seat's hand"
            # attributes that list cards (not the undifferentiated unseen/deck sets) hold none of another hand
            if name in ("hand", "rows", "seen", "open_cards"):
                for hand in others:
                    assert not flatten_cards(value) & hand, f"PlayerView.{name} holds another seat's card"


@pytest.mark.parametrize("players", (2, 4, 10))
def test_view_exposes_only_own_hand_at_deal_and_mid_round(players: int) -> None:
    game = Game(Settings(players, "standard"))
    rng = random.Random(players)
    rnd = game.start_round(deal_order(rng, game.deck, HAND_SIZE * players + ROW_COUNT))
    check_isolation(game, rnd)
    bots = [make_bot("random", s) for s in range(players)]
    views = [PlayerView(game, s) for s in range(players)]
    for _ in range(4):
        plays = [b.choose_card(v) for b, v in zip(bots, views)]
        rnd.play_turn(plays, lambda seat: bots[seat].choose_row(views[seat], plays))
        check_isolation(game, rnd)
        for seat in range(players):
            view = PlayerView(game, seat)
            assert view.seen == frozenset(rnd.seen)
            assert view.unseen == frozenset(game.deck) - set(rnd.hands[seat]) - rnd.seen


@pytest.mark.parametrize("players", (2, 5))
def test_tactical_view_unseen_is_exactly_the_other_hands(players: int) -> None:
    game = Game(Settings(players, "tactical"))
    rnd = game.start_round(deal_order(random.Random(3), game.deck, HAND_SIZE * players + ROW_COUNT))
    for seat in range(players):
        view = PlayerView(game, seat)
        assert view.hand == tuple(rnd.hands[seat])
        others = set().union(*(rnd.hands[s] for s in range(players) if s != seat))
        assert view.unseen == others  # every card is dealt: this is public deduction, not a leak
        assert not set(view.hand) & set(view.unseen)


def test_draft_view_shows_own_picks_and_open_cards() -> None:
    game = Game(Settings(3, "draft"))
    draft = game.start_round()
    bots = [make_bot("random", s) for s in range(3)]
    views = [PlayerView(game, s) for s in range(3)]
    while not draft.done:
        seat = draft.to_move
        for s in range(3):
            assert views[s].hand == tuple(draft.hands[s])
            assert views[s].open_cards == tuple(draft.open_cards)
            for other in range(3):
                if other != s and draft.hands[other]:
                    assert not set(draft.hands[other]) & set(views[s].hand)
        draft.pick(seat, bots[seat].choose_pick(views[seat]))
    game.finish_draft()
    assert PlayerView(game, 0).open_cards == ()
    check_isolation(game, game.round)


def test_view_refuses_when_no_round_is_in_progress() -> None:
    with pytest.raises(ValueError):
        PlayerView(Game(Settings(3)), 0)


def test_bots_receive_only_player_views() -> None:
    """play_round hands each bot its own seat's PlayerView (the proxy asserts type and seat)."""
    for variant in VARIANTS:
        referee = Referee(4)
        bots = [CheckedBot(make_bot(BOT_NAMES[s % 2], s), s, referee) for s in range(4)]
        game = Game(Settings(4, variant, point_limit=None, max_rounds=1))
        taken = play_round(game, bots, random.Random(0))
        referee.finish_turn()
        assert referee.turns_checked == HAND_SIZE
        assert sum(taken) == sum(game.scores)


# --- heuristic sanity -------------------------------------------------------------------------------


def constructed_game(hands, rows) -> Game:
    game = Game(Settings(len(hands), "standard"))
    game.round = Round(hands, rows)
    return game


def test_heuristic_avoids_being_the_sixth_card_on_an_expensive_row() -> None:
    rows = [[10, 11, 22, 33, 44], [60], [80], [100]]
    assert row_heads(rows[0]) == 23
    # 45 would be the sixth card on a 23-bull-head row; 61 follows 60 with no card between: perfectly safe
    game = constructed_game([[45, 61], [1, 2]], rows)
    view = PlayerView(game, 0)
    bot = HeuristicBot(0)
    costs = bot.card_costs(view)
    assert costs[45] >= 23
    assert costs[61] < 1
    assert bot.choose_card(view) == 61
    # also in a full hand at a five-player table: three sixth cards (45..47), six cards below every row
    # (each would cost a 3-bull-head row), and 61, the safe one
    own = [5, 6, 7, 8, 9, 12, 45, 46, 47, 61]
    rows = [[10, 11, 22, 33, 44], [60], [90], [100]]
    used = set(own) | {c for r in rows for c in r}
    pool = [c for c in range(1, 105) if c not in used]
    clean = [own] + [pool[10 * k : 10 * k + 10] for k in range(4)]
    game = constructed_game(clean, rows)
    view = PlayerView(game, 0)
    assert HeuristicBot(0).choose_card(view) == 61


def test_heuristic_prefers_a_cheap_row_take_to_an_expensive_sixth_card() -> None:
    rows = [[20, 21, 22, 23, 24], [31], [71], [91]]  # row 0 holds 3+1+5+1+1 = 11 bull heads
    game = constructed_game([[3, 25], [50, 51]], rows)
    view = PlayerView(game, 0)
    costs = HeuristicBot(0).card_costs(view)
    assert costs[3] == 1.0  # below every row: costs the cheapest row, one bull head
    assert costs[25] >= 11
    assert HeuristicBot(0).choose_card(view) == 3


def test_heuristic_takes_the_row_with_fewest_bull_heads() -> None:
    rows = [[20], [44], [56, 57], [70, 71, 72]]
    heads = [row_heads(r) for r in rows]
    assert heads == [3, 5, 2, 5]
    # the cheapest row is neither the first, the shortest, nor the one with the lowest end
    game = constructed_game([[5, 80], [6, 81]], rows)
    bot = HeuristicBot(0)
    assert bot.choose_row(PlayerView(game, 0), [5, 6]) == 2
    # and through the engine: the heuristic seat takes that row's two bull heads
    rnd = game.round
    placed = rnd.play_turn([5, 6], lambda seat: bot.choose_row(PlayerView(game, seat), [5, 6]))
    assert placed[0][:3] == (0, 5, 2)
    assert sum(BULL_HEADS[c] for c in rnd.taken[0]) == 2


def test_heuristic_pick_is_an_open_card_with_fewest_bull_heads() -> None:
    game = Game(Settings(2, "draft"))
    game.start_round()
    view = PlayerView(game, 0)
    card = HeuristicBot(0).choose_pick(view)
    assert card in view.open_cards
    assert BULL_HEADS[card] == min(BULL_HEADS[c] for c in view.open_cards)


# --- strength ---------------------------------------------------------------------------------------


def test_heuristic_beats_random_bots_clearly() -> None:
    result = simulate(Settings(5), ["heuristic", "random", "random", "random", "random"], 300, seed=2024)
    figures = result.as_dict()["bots"]
    assert [b["bot"] for b in figures] == ["heuristic", "random", "random", "random", "random"]
    heuristic = figures[0]["points_per_game"]
    h_low, h_high = heuristic["ci95"]
    assert h_low < heuristic["mean"] < h_high
    for other in figures[1:]:
        ppg = other["points_per_game"]
        low, high = ppg["ci95"]
        assert heuristic["mean"] < ppg["mean"]
        assert h_high < low, f"intervals overlap: heuristic {heuristic}, random {ppg}"
    assert figures[0]["win_share"]["mean"] > max(b["win_share"]["mean"] for b in figures[1:])
    assert result.rounds >= 300
