"""Properties of resolve_turn over random legal tables and plays, checked with hypothesis.

A small reference implementation of rules 1-4 in this file (cards placed one at a time,
the row chosen by scanning for the lowest difference) must agree with the engine exactly.
"""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings, strategies as st
from sweep import examples

from p2pnimmt.engine import BULL_HEADS, Round, RowChoiceRequired, resolve_turn

PROPERTY_SETTINGS = settings(max_examples=examples(150, 300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw, min_plays: int = 2, max_plays: int = 10):
    """(rows, plays, row_choice): 4 ascending rows of 1..5 cards, distinct other cards played by players."""
    sizes = [draw(st.integers(1, 5)) for _ in range(4)]
    n_plays = draw(st.integers(min_plays, max_plays))
    total = sum(sizes) + n_plays
    cards = draw(st.lists(st.integers(1, 104), min_size=total, max_size=total, unique=True))
    rows, k = [], 0
    for size in sizes:
        rows.append(sorted(cards[k : k + size]))
        k += size
    played = cards[k:]
    # players are named, not numbered in card order, so that placement order must come from the cards
    plays = {f"p{i}": card for i, card in enumerate(played)}
    low = min(played)
    needs_choice = all(low < row[-1] for row in rows)
    row_choice = draw(st.integers(0, 3)) if needs_choice else None
    return rows, plays, row_choice


def reference_turn(rows, plays, row_choice):
    """Rules 1-4 straight from the rulebook: place the cards one by one, lowest first."""
    rows = [list(r) for r in rows]
    taken: dict[str, list[int]] = {}
    placements = []
    for player, card in sorted(plays.items(), key=lambda pc: pc[1]):
        candidates = [i for i in range(4) if rows[i][-1] < card]  # rule 1: ascending
        if not candidates:  # rule 4: a low card takes the row its player chooses
            assert row_choice is not None
            i = row_choice
            took = list(rows[i])
            rows[i] = [card]
        else:
            i = min(candidates, key=lambda r: card - rows[r][-1])  # rule 2: lowest difference
            if len(rows[i]) == 5:  # rule 3: the sixth card takes the five
                took = list(rows[i])
                rows[i] = [card]
            else:
                took = []
                rows[i].append(card)
        if took:
            taken.setdefault(player, []).extend(took)
        placements.append((player, card, i, tuple(took)))
    return rows, taken, placements


@PROPERTY_SETTINGS
@given(tables())
def test_turn_matches_the_reference_rules(table):
    rows, plays, row_choice = table
    result = resolve_turn(rows, plays, row_choice)
    ref_rows, ref_taken, ref_placements = reference_turn(rows, plays, row_choice)
    assert [list(r) for r in result.rows] == ref_rows
    assert {p: list(c) for p, c in result.taken.items()} == ref_taken
    assert [(p.player, p.card, p.row, p.taken) for p in result.placements] == ref_placements


@PROPERTY_SETTINGS
@given(tables())
def test_cards_and_bull_heads_are_conserved(table):
    rows, plays, row_choice = table
    result = resolve_turn(rows, plays, row_choice)
    before = [c for r in rows for c in r] + list(plays.values())
    after = [c for r in result.rows for c in r] + [c for cards in result.taken.values() for c in cards]
    assert sorted(after) == sorted(before)
    assert len(after) == len(set(after))
    assert sum(BULL_HEADS[c] for c in after) == sum(BULL_HEADS[c] for c in before)
    assert sum(result.penalties.values()) == sum(p.bull_heads for p in result.placements)
    # nobody ends up with an empty entry in taken
    assert all(result.taken.values())


@PROPERTY_SETTINGS
@given(tables())
def test_rows_stay_ascending_and_at_most_five(table):
    rows, plays, row_choice = table
    result = resolve_turn(rows, plays, row_choice)
    assert len(result.rows) == 4
    for row in result.rows:
        assert 1 <= len(row) <= 5
        assert list(row) == sorted(set(row))


@PROPERTY_SETTINGS
@given(tables())
def test_placements_are_in_card_order_and_consistent(table):
    rows, plays, row_choice = table
    result = resolve_turn(rows, plays, row_choice)
    cards = [p.card for p in result.placements]
    assert cards == sorted(plays.values())
    assert {p.player: p.card for p in result.placements} == plays
    taken_again: dict[str, list[int]] = {}
    for p in result.placements:
        if p.taken:
            taken_again.setdefault(p.player, []).extend(p.taken)
    assert {k: tuple(v) for k, v in taken_again.items()} == dict(result.taken)
    # the last card placed on each row is that row's end now; untouched rows are as they were
    last_on_row = {p.row: p.card for p in result.placements}
    for i, row in enumerate(result.rows):
        assert row[-1] == last_on_row.get(i, rows[i][-1])
        if i not in last_on_row:
            assert list(row) == rows[i]


@PROPERTY_SETTINGS
@given(tables())
def test_at_most_one_rule_4_placement_and_only_the_lowest_card(table):
    rows, plays, row_choice = table
    result = resolve_turn(rows, plays, row_choice)
    # Replay the placements to see, for each, the row ends just before it was placed.
    work = [list(r) for r in rows]
    low_takes = []
    for k, p in enumerate(result.placements):
        below_every_end = all(p.card < r[-1] for r in work)
        if below_every_end:
            low_takes.append(k)
            assert p.row == row_choice
            assert p.taken == tuple(work[p.row])
        elif p.taken:  # rule 3
            assert len(work[p.row]) == 5
            assert p.taken == tuple(work[p.row])
        if p.taken:
            work[p.row] = [p.card]
        else:
            work[p.row].append(p.card)
    assert [list(r) for r in result.rows] == work
    assert low_takes in ([], [0])
    assert (low_takes == [0]) == (row_choice is not None)


@PROPERTY_SETTINGS
@given(tables())
def test_inputs_are_untouched(table):
    rows, plays, row_choice = table
    rows_before, plays_before = copy.deepcopy(rows), copy.deepcopy(plays)
    resolve_turn(rows, plays, row_choice)
    assert rows == rows_before
    assert plays == plays_before
    if row_choice is not None:
        try:
            resolve_turn(rows, plays)
        except RowChoiceRequired as e:
            assert plays[e.player] == e.card == min(plays.values())
        else:
            raise AssertionError("a row choice was needed but not asked for")
        assert rows == rows_before
        assert plays == plays_before


@PROPERTY_SETTINGS
@given(tables(), st.integers(0, 3))
def test_row_choice_is_refused_exactly_when_nobody_chooses(table, extra_choice):
    rows, plays, row_choice = table
    if row_choice is None:
        try:
            resolve_turn(rows, plays, extra_choice)
        except ValueError as e:
            assert "nobody chooses" in str(e)
        else:
            raise AssertionError("a row choice was accepted although no card is below every row end")
    else:
        # any row 0..3 is a legal choice
        result = resolve_turn(rows, plays, extra_choice)
        assert result.placements[0].row == extra_choice


@PROPERTY_SETTINGS
@given(tables(min_plays=2, max_plays=10))
def test_round_play_turn_agrees_with_resolve_turn(table):
    # The same turn played through Round (seat numbers as players) gives the same rows and piles.
    rows, plays, row_choice = table
    cards = list(plays.values())
    hands = [[c] for c in cards]  # one card per seat: a one-turn round
    rnd = Round(hands, rows)
    placed = rnd.play_turn(cards, row_choice)
    by_seat = {s: c for s, c in enumerate(cards)}
    result = resolve_turn(rows, by_seat, row_choice)
    assert [tuple(r) for r in rnd.rows] == list(result.rows)
    assert placed == [(p.player, p.card, p.row, p.taken) for p in result.placements]
    for seat in range(len(cards)):
        assert tuple(rnd.taken[seat]) == result.taken.get(seat, ())
    assert rnd.over
