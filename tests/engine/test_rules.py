"""The rules of 6 nimmt! as the rulebook states them, and every documented error of the engine."""

from __future__ import annotations

import copy

import pytest

from p2pnimmt.engine import (
    BULL_HEADS,
    Draft,
    Game,
    Placement,
    Round,
    RowChoiceRequired,
    Settings,
    TurnResult,
    bull_heads,
    deck,
    resolve_turn,
)

# --------------------------------------------------------------------------- bull heads

SPECIAL = {
    55: 7,
    **{c: 5 for c in (11, 22, 33, 44, 66, 77, 88, 99)},
    **{c: 3 for c in (10, 20, 30, 40, 50, 60, 70, 80, 90, 100)},
    **{c: 2 for c in (5, 15, 25, 35, 45, 65, 75, 85, 95)},
}


@pytest.mark.parametrize("card,heads", sorted(SPECIAL.items()))
def test_bull_heads_of_special_cards(card, heads):
    assert bull_heads(card) == heads
    assert BULL_HEADS[card] == heads


def test_every_other_card_has_one_bull_head():
    plain = [c for c in range(1, 105) if c not in SPECIAL]
    assert len(plain) == 104 - 28
    assert all(bull_heads(c) == 1 for c in plain)
    assert all(BULL_HEADS[c] == 1 for c in plain)


def test_bull_heads_rulebook_statements():
    # "Numbers ending in five have two, multiples of ten three, doubled numbers five; 55 has seven."
    assert bull_heads(55) == 7
    assert bull_heads(5) == 2 and bull_heads(15) == 2 and bull_heads(25) == 2
    assert bull_heads(10) == 3 and bull_heads(100) == 3
    assert bull_heads(11) == 5 and bull_heads(99) == 5


def test_deck_holds_171_bull_heads():
    assert sum(bull_heads(c) for c in range(1, 105)) == 171
    assert sum(BULL_HEADS) == 171  # index 0 is unused and holds 0
    assert BULL_HEADS[0] == 0
    assert len(BULL_HEADS) == 105


@pytest.mark.parametrize("bad", [0, 105, -1, 5.0, "5", None, True])
def test_bull_heads_rejects_non_cards(bad):
    with pytest.raises(ValueError, match="is not a card"):
        bull_heads(bad)


# --------------------------------------------------------------------------- the rulebook's worked turns

FIG1 = [[12], [37], [43], [58]]
FIG2 = ((12, 14, 15), (37,), (43, 44), (58, 61))
FIG3 = ((30, 36), (37,), (43, 44), (58, 61))
FIG4 = ((30, 36), (3, 9), (43, 44), (58, 61, 68, 83))


def test_rulebook_round_1_rules_1_and_2():
    result = resolve_turn(FIG1, {"A": 14, "B": 15, "C": 44, "D": 61})
    assert isinstance(result, TurnResult)
    assert result.rows == FIG2
    assert dict(result.taken) == {}
    assert result.penalties == {}
    assert result.placements == (
        Placement("A", 14, 0, ()),
        Placement("B", 15, 0, ()),
        Placement("C", 44, 2, ()),
        Placement("D", 61, 3, ()),
    )


def test_rulebook_round_2_rule_3_full_row():
    result = resolve_turn([list(r) for r in FIG2], {"A": 21, "B": 26, "C": 30, "D": 36})
    assert result.rows == FIG3
    assert dict(result.taken) == {"C": (12, 14, 15, 21, 26)}
    assert result.penalties == {"C": 1 + 1 + 2 + 1 + 1}
    assert result.placements == (
        Placement("A", 21, 0, ()),
        Placement("B", 26, 0, ()),  # the first row is now full: five cards
        Placement("C", 30, 0, (12, 14, 15, 21, 26)),  # the sixth card takes the five and starts the row
        Placement("D", 36, 0, ()),  # 36 follows the 30
    )
    assert result.placements[2].bull_heads == 6


def test_rulebook_round_3_rule_4_requires_a_choice():
    rows = [list(r) for r in FIG3]
    before = copy.deepcopy(rows)
    plays = {"A": 3, "B": 9, "C": 68, "D": 83}
    with pytest.raises(RowChoiceRequired) as info:
        resolve_turn(rows, plays)
    assert info.value.player == "A"
    assert info.value.card == 3
    assert "'A'" in str(info.value) and "3" in str(info.value)
    assert rows == before  # nothing changed
    assert plays == {"A": 3, "B": 9, "C": 68, "D": 83}


def test_rulebook_round_3_rule_4_choosing_the_second_row():
    result = resolve_turn([list(r) for r in FIG3], {"A": 3, "B": 9, "C": 68, "D": 83}, row_choice=1)
    assert result.rows == FIG4
    assert dict(result.taken) == {"A": (37,)}
    assert result.penalties == {"A": 1}
    assert result.placements == (
        Placement("A", 3, 1, (37,)),
        Placement("B", 9, 1, ()),  # lucky: the 9 goes onto the 3
        Placement("C", 68, 3, ()),
        Placement("D", 83, 3, ()),
    )


@pytest.mark.parametrize("choice", [0, 1, 2, 3])
def test_rule_4_any_row_may_be_chosen(choice):
    result = resolve_turn([list(r) for r in FIG3], {"A": 3, "B": 9, "C": 68, "D": 83}, row_choice=choice)
    assert result.taken["A"] == FIG3[choice]
    assert result.rows[choice][:2] == (3, 9)
    assert sum(len(r) for r in result.rows) + len(result.taken["A"]) == 7 + 4


def test_rulebook_trap_1_lowest_difference_beats_the_row_you_hoped_for():
    # "You play 45 thinking it goes behind the 41 on the third row, but it goes behind
    # the 42 on the fourth row: the lowest difference. It is the sixth card: you take the fourth row."
    rows = [[7, 19], [60, 71], [27, 33, 41], [13, 18, 25, 37, 42]]
    result = resolve_turn(rows, {"you": 45})
    assert result.placements == (Placement("you", 45, 3, (13, 18, 25, 37, 42)),)
    assert result.rows == ((7, 19), (60, 71), (27, 33, 41), (45,))
    assert dict(result.taken) == {"you": (13, 18, 25, 37, 42)}
    assert result.penalties == {"you": 1 + 1 + 2 + 1 + 1}


def test_rulebook_trap_1_without_the_42_the_45_goes_behind_the_41():
    rows = [[7, 19], [60, 71], [27, 33, 41], [13, 18, 25, 37, 39]]
    result = resolve_turn(rows, {"you": 45})
    assert result.placements == (Placement("you", 45, 2, ()),)
    assert dict(result.taken) == {}


TRAP2_ROWS = [[33, 47, 60], [64, 66], [71, 80, 90], [35, 41, 48, 52, 57]]


def test_rulebook_trap_2_alone_the_62_would_go_on_the_first_row():
    result = resolve_turn(TRAP2_ROWS, {"you": 62})
    assert result.placements == (Placement("you", 62, 0, ()),)
    assert dict(result.taken) == {}


def test_rulebook_trap_2_a_low_29_takes_the_first_row_first():
    # "You play 62 expecting the first row. A fellow player plays 29 and takes the first row
    # (low card). Now your 62 must go on the fourth row - the full one - and you take it."
    rows = copy.deepcopy(TRAP2_ROWS)
    plays = {"other": 29, "you": 62}
    with pytest.raises(RowChoiceRequired) as info:
        resolve_turn(rows, plays)
    assert (info.value.player, info.value.card) == ("other", 29)
    result = resolve_turn(rows, plays, row_choice=0)
    assert result.placements == (
        Placement("other", 29, 0, (33, 47, 60)),
        Placement("you", 62, 3, (35, 41, 48, 52, 57)),
    )
    assert result.rows == ((29,), (64, 66), (71, 80, 90), (62,))
    assert dict(result.taken) == {"other": (33, 47, 60), "you": (35, 41, 48, 52, 57)}
    assert result.penalties == {"other": 5 + 1 + 3, "you": 2 + 1 + 1 + 1 + 1}
    assert rows == TRAP2_ROWS


def test_card_goes_to_the_closest_lower_row_end_not_the_row_order():
    rows = [[50], [10], [40], [30]]
    result = resolve_turn(rows, {"p": 45, "q": 35, "r": 11, "s": 104})
    assert result.rows == ((50, 104), (10, 11), (40, 45), (30, 35))


def test_cards_are_placed_in_ascending_order_regardless_of_player_order():
    rows = [[10, 11, 12, 13, 14], [50], [60], [70]]
    # 16 comes after 15: the 15 is the sixth card and takes the row, the 16 follows it.
    result = resolve_turn(rows, {"z": 16, "a": 15})
    assert result.rows == ((15, 16), (50,), (60,), (70,))
    assert dict(result.taken) == {"a": (10, 11, 12, 13, 14)}
    assert [p.card for p in result.placements] == [15, 16]


def test_two_players_can_each_take_a_row_in_one_turn():
    # Two different players each take a full row in the same turn.
    rows = [[1, 2, 3, 4, 5], [20, 21, 22, 23, 24], [60], [70]]
    result = resolve_turn(rows, {"a": 6, "b": 25})
    assert dict(result.taken) == {"a": (1, 2, 3, 4, 5), "b": (20, 21, 22, 23, 24)}
    assert result.rows == ((6,), (25,), (60,), (70,))


def test_integer_player_keys_and_tuple_rows_are_accepted():
    result = resolve_turn(((12,), (37,), (43,), (58,)), {0: 14, 1: 15, 2: 44, 3: 61})
    assert result.rows == FIG2
    assert [p.player for p in result.placements] == [0, 1, 2, 3]


# --------------------------------------------------------------------------- resolve_turn: bad input

GOOD_ROWS = [[12], [37], [43], [58]]


@pytest.mark.parametrize(
    "rows,plays,row_choice,match",
    [
        # duplicate card in plays
        (GOOD_ROWS, {"A": 14, "B": 14}, None, r"card 14 played twice, by 'A' and 'B'"),
        # a card already on the table
        (GOOD_ROWS, {"A": 14, "B": 37}, None, r"'B' played 37, which already lies on the table"),
        # not 4 rows
        ([[12], [37], [43]], {"A": 14}, None, r"rows must be 4 sequences"),
        ([[12], [37], [43], [58], [70]], {"A": 14}, None, r"rows must be 4 sequences"),
        ([], {"A": 14}, None, r"rows must be 4 sequences"),
        ("abcd", {"A": 14}, None, r"rows must be 4 sequences"),
        # a row over 5 cards
        ([[1, 2, 3, 4, 5, 6], [37], [43], [58]], {"A": 14}, None, r"row 0 must hold 1\.\.5 cards, holds 6"),
        # a non-ascending row
        ([[12], [37], [50, 43], [58]], {"A": 14}, None, r"row 2 is not ascending"),
        # an empty row
        ([[12], [], [43], [58]], {"A": 14}, None, r"row 1 must hold 1\.\.5 cards, holds 0"),
        # the same card twice on the table
        ([[12], [37], [12, 43], [58]], {"A": 14}, None, r"card 12 lies on the table twice"),
        # a row that is not a sequence of cards
        ([[12], 37, [43], [58]], {"A": 14}, None, r"row 1 must be a sequence of cards"),
        # a bad card on a row
        ([[12], [37], [43], [58, 105]], {"A": 14}, None, r"row 3: 105 is not a card"),
        # row_choice out of 0..3
        (GOOD_ROWS, {"A": 3, "B": 9}, 4, r"row_choice must be a row 0\.\.3, got 4"),
        (GOOD_ROWS, {"A": 3, "B": 9}, -1, r"row_choice must be a row 0\.\.3, got -1"),
        (GOOD_ROWS, {"A": 3, "B": 9}, "1", r"row_choice must be a row 0\.\.3, got '1'"),
        (GOOD_ROWS, {"A": 3, "B": 9}, 1.0, r"row_choice must be a row 0\.\.3, got 1\.0"),
        (GOOD_ROWS, {"A": 3, "B": 9}, True, r"row_choice must be a row 0\.\.3, got True"),
        # row_choice given when nobody must choose
        (GOOD_ROWS, {"A": 14, "B": 15}, 0, r"row_choice 0 given, but card 14 fits a row: nobody chooses"),
        (GOOD_ROWS, {"A": 14, "B": 15}, 3, r"nobody chooses"),
        # non-int cards
        (GOOD_ROWS, {"A": 14.0}, None, r"player 'A': 14\.0 is not a card"),
        (GOOD_ROWS, {"A": "14"}, None, r"player 'A': '14' is not a card"),
        (GOOD_ROWS, {"A": None}, None, r"player 'A': None is not a card"),
        (GOOD_ROWS, {"A": True}, None, r"player 'A': True is not a card"),
        # card 0 or 105
        (GOOD_ROWS, {"A": 14, "B": 0}, None, r"player 'B': 0 is not a card \(1\.\.104\)"),
        (GOOD_ROWS, {"A": 105}, None, r"player 'A': 105 is not a card \(1\.\.104\)"),
        # no plays at all / not a mapping
        (GOOD_ROWS, {}, None, r"plays must be a non-empty mapping"),
        (GOOD_ROWS, [("A", 14)], None, r"plays must be a non-empty mapping"),
    ],
)
def test_resolve_turn_rejects_bad_input(rows, plays, row_choice, match):
    rows_before = copy.deepcopy(rows)
    plays_before = copy.deepcopy(plays)
    with pytest.raises(ValueError, match=match):
        resolve_turn(rows, plays, row_choice)
    assert rows == rows_before
    assert plays == plays_before


def test_resolve_turn_never_mutates_its_inputs():
    cases = [
        ([list(r) for r in FIG1], {"A": 14, "B": 15, "C": 44, "D": 61}, None),
        ([list(r) for r in FIG2], {"A": 21, "B": 26, "C": 30, "D": 36}, None),
        ([list(r) for r in FIG3], {"A": 3, "B": 9, "C": 68, "D": 83}, 1),
        (copy.deepcopy(TRAP2_ROWS), {"other": 29, "you": 62}, 0),
    ]
    for rows, plays, choice in cases:
        rows_before, plays_before = copy.deepcopy(rows), copy.deepcopy(plays)
        result = resolve_turn(rows, plays, choice)
        assert rows == rows_before
        assert plays == plays_before
        assert result.rows != tuple(tuple(r) for r in rows)
        # the result does not alias the input lists
        rows[0].append(999)
        assert 999 not in result.rows[0]


# --------------------------------------------------------------------------- Round.play_turn errors

HANDS = [
    [1, 5, 9, 13, 17, 21, 25, 29, 33, 37],
    [2, 6, 10, 14, 18, 22, 26, 30, 34, 38],
    [3, 7, 11, 15, 19, 23, 27, 31, 35, 39],
]
ROWS = [[40], [50], [60], [70]]


def make_round() -> Round:
    return Round(copy.deepcopy(HANDS), copy.deepcopy(ROWS))


def test_round_construction():
    rnd = make_round()
    assert rnd.players == 3
    assert rnd.turn == 0
    assert not rnd.over
    assert rnd.penalties == [0, 0, 0]
    assert rnd.seen == {40, 50, 60, 70}
    snap = rnd.snapshot()
    assert snap.rows == ((40,), (50,), (60,), (70,))
    assert snap.hands == tuple(tuple(h) for h in HANDS)
    assert snap.taken == ((), (), ())
    assert snap.turn == 0


def test_round_rejects_inconsistent_deals():
    with pytest.raises(ValueError, match="dealt twice"):
        Round([[1, 2], [2, 3]], ROWS)
    with pytest.raises(ValueError, match="dealt twice"):
        Round([[1, 40], [2, 3]], ROWS)
    with pytest.raises(ValueError, match="same number of cards"):
        Round([[1, 2], [3]], ROWS)
    with pytest.raises(ValueError, match="players must be 2..10"):
        Round([[1, 2]], ROWS)
    with pytest.raises(ValueError, match="hand: 0 is not a card"):
        Round([[1, 0], [2, 3]], ROWS)


@pytest.mark.parametrize(
    "cards,match",
    [
        ([1, 2, 4], r"seat 2 played 4, which is not in its hand"),
        ([2, 1, 3], r"seat 0 played 2, which is not in its hand"),
        ([1, 3, 3], r"seat 1 played 3, which is not in its hand"),
        ([1, 2, 40], r"seat 2 played 40, which is not in its hand"),
        ([1, 2, 105], r"seat 2 played 105, which is not in its hand"),
        ([1, 2, "3"], r"seat 2 played '3', which is not in its hand"),
        ([1, 2], r"expected one card for each of 3 seats"),
        ([1, 2, 3, 4], r"expected one card for each of 3 seats"),
        ([], r"expected one card for each of 3 seats"),
    ],
)
def test_play_turn_rejects_bad_cards_and_changes_nothing(cards, match):
    rnd = make_round()
    before = rnd.snapshot()
    with pytest.raises(ValueError, match=match):
        rnd.play_turn(cards)
    assert rnd.snapshot() == before


def test_play_turn_choice_needed_but_missing_changes_nothing():
    rnd = make_round()
    before = rnd.snapshot()
    with pytest.raises(RowChoiceRequired) as info:
        rnd.play_turn([5, 2, 39])
    assert info.value.player == 1  # the seat of the lowest card
    assert info.value.card == 2
    assert rnd.snapshot() == before
    assert rnd.chooser([5, 2, 39]) == 1


@pytest.mark.parametrize("bad", [4, -1, "0", 1.5, True, lambda seat: 9, lambda seat: None])
def test_play_turn_bad_row_choice_changes_nothing(bad):
    rnd = make_round()
    before = rnd.snapshot()
    with pytest.raises(ValueError, match=r"row_choice must be a row 0\.\.3"):
        rnd.play_turn([5, 2, 39], bad)
    assert rnd.snapshot() == before


def test_play_turn_row_choice_when_nobody_chooses_changes_nothing():
    rnd = make_round()
    rnd.play_turn([1, 2, 3], 0)  # seat 0's 1 takes row 0 (the 40); the 2 and 3 follow it
    before = rnd.snapshot()
    with pytest.raises(ValueError, match=r"row_choice 3 given, but card 5 fits a row: nobody chooses"):
        rnd.play_turn([5, 6, 7], 3)
    assert rnd.snapshot() == before


def test_play_turn_callable_row_choice_is_asked_with_the_chooser_seat_only_when_needed():
    rnd = make_round()
    asked = []

    def choose(seat):
        asked.append(seat)
        return 3

    placed = rnd.play_turn([5, 2, 3], choose)
    assert asked == [1]
    assert placed == [(1, 2, 3, (70,)), (2, 3, 3, ()), (0, 5, 3, ())]
    assert rnd.taken == [[], [70], []]
    # the rows end 40, 50, 60 and 5: nobody must choose; the callable is not asked
    asked.clear()
    placed = rnd.play_turn([9, 6, 7], choose)
    assert asked == []
    # 6 and 7 fill row 3 to five cards; the 9 is the sixth and takes them (rule 3)
    assert placed == [(1, 6, 3, ()), (2, 7, 3, ()), (0, 9, 3, (2, 3, 5, 6, 7))]
    assert rnd.rows == [[40], [50], [60], [9]]
    assert rnd.taken == [[2, 3, 5, 6, 7], [70], []]
    assert rnd.penalties == [1 + 1 + 2 + 1 + 1, 3, 0]


def test_play_turn_returns_placements_and_updates_hands_rows_taken():
    rnd = make_round()
    placed = rnd.play_turn([1, 2, 3], 2)
    # 1 takes row 2 (the 60), then 2 and 3 follow it
    assert placed == [(0, 1, 2, (60,)), (1, 2, 2, ()), (2, 3, 2, ())]
    assert rnd.rows == [[40], [50], [1, 2, 3], [70]]
    assert rnd.taken == [[60], [], []]
    assert rnd.penalties == [3, 0, 0]
    assert rnd.turn == 1
    assert rnd.hands[0] == HANDS[0][1:]
    assert rnd.hands[1] == HANDS[1][1:]
    assert rnd.hands[2] == HANDS[2][1:]
    assert rnd.seen == {40, 50, 60, 70, 1, 2, 3}


def test_round_copy_is_independent():
    rnd = make_round()
    rnd.play_turn([1, 2, 3], 2)
    before = rnd.snapshot()
    other = rnd.copy()
    assert other.snapshot() == before
    other.play_turn([5, 6, 7])
    other.rows[0].append(99)
    other.hands[0].clear()
    other.taken[1].append(50)
    assert rnd.snapshot() == before


def test_round_plays_out_to_over():
    rnd = make_round()
    for t in range(10):
        cards = [h[-1] for h in rnd.hands]
        rnd.play_turn(cards, lambda seat: 0)
        assert rnd.turn == t + 1
    assert rnd.over
    assert all(h == [] for h in rnd.hands)
    assert sum(len(r) for r in rnd.rows) + sum(len(t) for t in rnd.taken) == 34
    assert rnd.penalties == [sum(BULL_HEADS[c] for c in pile) for pile in rnd.taken]


# --------------------------------------------------------------------------- Game: end, winners, settings


def play_fixed_round(game: Game, penalties: list[int]) -> None:
    """Finish a round in which seat s took `penalties[s]` bull heads.

    The round is not played: its hands are emptied and its piles forged, so that the
    scores and the end of the game can be steered exactly. Game scores only `Round.penalties`.
    """
    n = game.settings.players
    order = list(game.deck)
    rnd = game.start_round(order)
    assert isinstance(rnd, Round)
    # empty the hands without playing (the scoring reads only the piles)
    for h in rnd.hands:
        h.clear()
    for s in range(n):
        rnd.taken[s] = [1] * penalties[s]  # a forged pile: card 1 carries one bull head
    assert game.finish_round() == tuple(penalties)


def test_game_ends_at_point_limit():
    game = Game(Settings(players=3, point_limit=10))
    assert not game.over
    play_fixed_round(game, [4, 5, 9])
    assert not game.over
    assert game.scores == [4, 5, 9]
    play_fixed_round(game, [5, 0, 0])  # seat 0 reaches 9, seat 2 stays at 9: no one at 10
    assert not game.over
    play_fixed_round(game, [0, 0, 1])  # seat 2 reaches exactly 10
    assert game.over
    assert game.scores == [9, 5, 10]
    assert game.winners == (1,)
    assert game.rounds_played == 3
    assert game.history == [(4, 5, 9), (5, 0, 0), (0, 0, 1)]
    with pytest.raises(ValueError, match="the game is over"):
        game.start_round(list(game.deck))


def test_game_ends_when_exceeding_the_point_limit():
    game = Game(Settings(players=2))  # the default limit is 66
    play_fixed_round(game, [65, 3])
    assert not game.over
    play_fixed_round(game, [10, 3])
    assert game.over
    assert game.winners == (1,)


def test_game_ends_after_max_rounds():
    game = Game(Settings(players=2, point_limit=None, max_rounds=2))
    play_fixed_round(game, [100, 0])
    assert not game.over  # no point limit: 100 points do not end it
    play_fixed_round(game, [0, 0])
    assert game.over
    assert game.winners == (1,)
    with pytest.raises(ValueError, match="the game is over"):
        game.start_round(list(game.deck))


@pytest.mark.parametrize(
    "rounds,over_after",
    [
        ([[3, 3], [3, 3], [3, 3]], 3),  # the round limit comes first
        ([[3, 3], [10, 0], [3, 3]], 2),  # the point limit comes first
        ([[12, 0], [0, 0], [0, 0]], 1),  # the point limit in round 1
    ],
)
def test_game_ends_at_whichever_comes_first(rounds, over_after):
    game = Game(Settings(players=2, point_limit=12, max_rounds=3))
    for i, pens in enumerate(rounds, 1):
        play_fixed_round(game, pens)
        assert game.over == (i >= over_after)
        if game.over:
            break
    assert game.rounds_played == over_after


def test_winners_share_ties():
    game = Game(Settings(players=4, max_rounds=1, point_limit=None))
    play_fixed_round(game, [5, 2, 7, 2])
    assert game.over
    assert game.winners == (1, 3)


def test_all_seats_win_when_all_tie():
    game = Game(Settings(players=3, max_rounds=1, point_limit=None))
    play_fixed_round(game, [0, 0, 0])
    assert game.winners == (0, 1, 2)


def test_game_round_lifecycle_errors():
    game = Game(Settings(players=2))
    with pytest.raises(ValueError, match="a deck order is needed"):
        game.start_round()
    with pytest.raises(ValueError, match="no finished round"):
        game.finish_round()
    with pytest.raises(ValueError, match="no draft in progress"):
        game.finish_draft()
    rnd = game.start_round(list(game.deck))
    with pytest.raises(ValueError, match="a round is in progress"):
        game.start_round(list(game.deck))
    with pytest.raises(ValueError, match="no finished round"):
        game.finish_round()  # the round is not over yet
    assert rnd.turn == 0


def test_game_rejects_deck_orders_outside_its_deck():
    game = Game(Settings(players=2, variant="tactical"))
    assert game.deck == tuple(range(1, 25))
    order = list(range(104, 0, -1))
    with pytest.raises(ValueError, match="not in the deck"):
        game.start_round(order)
    with pytest.raises(ValueError, match="needs 24 distinct cards"):
        game.start_round([1] * 24)
    assert game.round is None


def test_draft_game_opens_a_draft_and_rejects_an_order():
    game = Game(Settings(players=2, variant="draft"))
    with pytest.raises(ValueError, match="deals no deck order"):
        game.start_round(list(range(1, 25)))
    draft = game.start_round()
    assert isinstance(draft, Draft)
    assert draft.open_cards == list(range(1, 25))
    with pytest.raises(ValueError, match="the draft is not over"):
        game.finish_draft()
    with pytest.raises(ValueError, match=r"seat 1 picked out of turn: seat 0 picks now"):
        draft.pick(1, 5)
    with pytest.raises(ValueError, match="not among the open cards"):
        draft.pick(0, 25)
    draft.pick(0, 5)
    with pytest.raises(ValueError, match="not among the open cards"):
        draft.pick(1, 5)
    while not draft.done:
        draft.pick(draft.to_move, draft.open_cards[-1])
    with pytest.raises(ValueError, match="the draft is over"):
        draft.pick(0, draft.open_cards[0])
    rnd = game.finish_draft()
    assert game.draft is None
    assert game.round is rnd
    assert rnd.rows == [[1], [2], [3], [4]]
    assert sorted(c for h in rnd.hands for c in h) == list(range(5, 25))


@pytest.mark.parametrize("players", [0, 1, 11, 12, -2, 2.0, "4", None, True])
def test_settings_reject_bad_player_counts(players):
    with pytest.raises(ValueError, match=r"players must be 2\.\.10, got"):
        Settings(players=players)


def test_settings_reject_unknown_variant():
    with pytest.raises(ValueError, match=r"unknown variant 'logic'; expected one of standard, tactical, draft"):
        Settings(players=4, variant="logic")


def test_settings_need_an_end():
    with pytest.raises(ValueError, match="a game needs an end"):
        Settings(players=4, point_limit=None, max_rounds=None)


@pytest.mark.parametrize("field", ["point_limit", "max_rounds"])
@pytest.mark.parametrize("value", [0, -5, 1.5, "66", True])
def test_settings_reject_bad_limits(field, value):
    with pytest.raises(ValueError, match=f"{field} must be a positive integer or None"):
        Settings(players=4, **{field: value})


def test_settings_defaults_and_valid_extremes():
    s = Settings(players=4)
    assert (s.variant, s.point_limit, s.max_rounds) == ("standard", 66, None)
    Settings(players=2, point_limit=None, max_rounds=1)
    Settings(players=10, point_limit=1, max_rounds=1)


# --------------------------------------------------------------------------- decks


@pytest.mark.parametrize("players", range(2, 11))
def test_deck_sizes_per_variant(players):
    assert deck("standard", players) == tuple(range(1, 105))
    assert deck("tactical", players) == tuple(range(1, 10 * players + 5))
    assert deck("draft", players) == tuple(range(1, 10 * players + 5))
    assert len(deck("tactical", players)) == 10 * players + 4
    for variant in ("standard", "tactical", "draft"):
        assert Settings(players=players, variant=variant).deck == deck(variant, players)
        assert Game(Settings(players=players, variant=variant)).deck == deck(variant, players)


def test_tactical_deck_for_ten_players_is_the_whole_deck():
    assert deck("tactical", 10) == deck("standard", 10)


def test_deck_rejects_bad_arguments():
    with pytest.raises(ValueError, match="unknown variant"):
        deck("pro", 4)
    with pytest.raises(ValueError, match=r"players must be 2\.\.10"):
        deck("standard", 1)
    with pytest.raises(ValueError, match=r"players must be 2\.\.10"):
        deck("tactical", 11)


# --------------------------------------------------------------------------- non-int "cards" equal to a card
# A card is an int 1..104 (check_card: `type(card) is not int` is refused). resolve_turn,
# Round(...) and bull_heads refuse True, 1.0, 5.0. Round.play_turn, Draft.pick and Round.deal
# check only membership (`in`), and 5.0 == 5, True == 1 - so they accept such values and put
# them into the hands and rows, where the engine's own validation later rejects them.


@pytest.mark.parametrize("bad", [True, 1.0])
def test_play_turn_rejects_a_non_int_equal_to_a_hand_card(bad):
    rnd = make_round()  # seat 0 holds the card 1
    before = rnd.snapshot()
    with pytest.raises(ValueError):
        rnd.play_turn([bad, 2, 3], 0)
    assert rnd.snapshot() == before
    assert all(type(c) is int for row in rnd.rows for c in row)


def test_draft_pick_rejects_a_non_int_equal_to_an_open_card():
    game = Game(Settings(players=2, variant="draft"))
    draft = game.start_round()
    with pytest.raises(ValueError):
        draft.pick(0, 5.0)
    # Had the pick been accepted, the finished draft could never be dealt:
    # finish_draft() raises "hand: 5.0 is not a card" and the game is stuck with the draft open.


def test_deal_rejects_a_non_int_equal_to_a_deck_card():
    game = Game(Settings(players=2, variant="tactical"))
    order = [float(c) if c == 7 else c for c in range(1, 25)]
    with pytest.raises(ValueError):
        game.start_round(order)
    assert game.round is None
