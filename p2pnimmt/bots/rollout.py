"""The search's playout policy in plain Python: the heuristic rule for every seat, turn by turn.

`policy_plays` is the rule in its plain form and `play_out` the same rule
fast, on the engine's own `place_turn`; the rollout kernel (`kernel`) runs
the same rule on many tables at once and is tested against these.
`turn_costs` is the rule's cost of every unseen card on one table, for
the search's prior over hands.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from ..engine import BULL_HEADS, HIGHEST_CARD, MAX_PLAYERS, ROW_LIMIT
from ..engine.table import place_turn
from .heuristic import poisson_at_least

# Poisson tails P(X >= k) (the heuristic's chance that k fillers come first) for k = 1..5 on a grid of means
# 0, 1/STEPS, 2/STEPS, ... MAX_MEAN (a mean never exceeds the 9 opponents of a full table).
STEPS = 50
MAX_MEAN = 10
TAILS: tuple[tuple[float, ...], ...] = tuple(
    tuple(poisson_at_least(k, i / STEPS) for i in range(MAX_MEAN * STEPS + 1)) if k else ()
    for k in range(ROW_LIMIT + 1)
)

SEATS = range(MAX_PLAYERS)
FILLER_HEADS = 1.3  # the bull heads of an average filler card (as the heuristic bot assumes)


def row_heads(row: Sequence[int]) -> int:
    return sum(map(BULL_HEADS.__getitem__, row))


def cheapest_row(rows: Sequence[Sequence[int]]) -> int:
    """The row with the fewest bull heads; on ties the longer, then the first (the heuristic bot's choice)."""
    return min(range(len(rows)), key=lambda i: (row_heads(rows[i]), -len(rows[i]), i))


def policy_plays(rows: list[list[int]], hands: list[list[int]], alive: list[int]) -> tuple[list[int], int | None]:
    """One card per seat by the heuristic rule, each seat seeing only its own (sorted) hand, and the row choice.

    `alive` holds the cards nobody has seen yet (in some hand or not dealt),
    ascending. Returns the cards by seat and the row the lowest card takes
    if it is below every row end (else None). The plain form of the rule;
    `play_out` runs the same rule fast.
    """
    rowinfo = sorted((r[-1], len(r), row_heads(r)) for r in rows)
    e0, e1, e2, e3 = (r[0] for r in rowinfo)
    cheapest = min(r[2] for r in rowinfo)
    opponents = len(hands) - 1
    plays = []
    for hand in hands:
        unseen = len(alive) - len(hand)
        share = opponents / unseen if unseen else 0.0
        eps = 0.01 / unseen if unseen else 0.0
        best = hand[0]
        best_cost = math.inf
        cost: float
        for i, c in enumerate(hand):
            if c < e0:
                cost = cheapest
            else:
                end, length, heads = rowinfo[3 if c > e3 else 2 if c > e2 else 1 if c > e1 else 0]
                # unseen cards between the row end and c, from this seat: not seen, not in its own hand
                gap = bisect_left(alive, c) - bisect_right(alive, end) - (i - bisect_right(hand, end))
                slots = ROW_LIMIT - length
                mean = min(gap * share, opponents)
                if slots:
                    cost = TAILS[slots][int(mean * STEPS)] * (heads + FILLER_HEADS * min(slots, mean)) + eps * gap
                else:
                    cost = heads + eps * gap
            if cost < best_cost:
                best_cost = cost
                best = c
        plays.append(best)
    if min(plays) < e0:
        return plays, cheapest_row(rows)
    return plays, None


def play_out(rows: list[list[int]], hands: list[list[int]], taken: list[list[int]], alive: list[int]) -> None:
    """Play a round to its end with every seat on the policy (the heuristic rule, as in `policy_plays`).

    Changes `rows`, `hands` (sorted), `taken` and `alive` (the cards nobody
    has seen yet, ascending) in place; each turn goes through the engine's
    `place_turn`. This is the hot loop of the search. The cost of a card
    grows with the unseen cards between its row's end and it, so of the
    cards a hand would lay on the same row only the lowest can be best:
    each seat weighs at most five cards (the lowest below every row, and
    the lowest above each row end), found by bisection.
    """
    opponents = len(hands) - 1
    tails = TAILS
    heads_of = BULL_HEADS.__getitem__
    seats = SEATS
    r0, r1, r2, r3 = rows
    row_heads_now = [sum(map(heads_of, r0)), sum(map(heads_of, r1)), sum(map(heads_of, r2)), sum(map(heads_of, r3))]
    while len(hands[0]) > 1:
        unseen = len(alive) - len(hands[0])
        share = opponents / unseen if unseen else 0.0
        eps = 0.01 / unseen if unseen else 0.0
        r0, r1, r2, r3 = rows
        h0, h1, h2, h3 = row_heads_now
        info = sorted(((r0[-1], len(r0), h0), (r1[-1], len(r1), h1), (r2[-1], len(r2), h2), (r3[-1], len(r3), h3)))
        e0 = info[0][0]
        cheapest = min(h0, h1, h2, h3)
        # per row (ascending ends): its end, the next end, the unseen cards up to its end, slots left, bull heads
        segments = []
        for t in range(4):
            end, length, heads = info[t]
            slots = ROW_LIMIT - length
            upper = info[t + 1][0] if t < 3 else HIGHEST_CARD + 1
            segments.append((end, upper, bisect_right(alive, end), slots, heads, tails[slots]))
        plays = []
        for hand in hands:
            best_cost: float
            cost: float
            if hand[0] < e0:
                best_i = 0
                best_cost = cheapest
            else:
                best_i = -1
                best_cost = 1e9
            k = len(hand)
            for end, upper, base, slots, heads, tail in segments:
                i = bisect_right(hand, end)
                if i == k:
                    break
                c = hand[i]
                if c > upper:
                    continue
                gap = bisect_left(alive, c) - base
                if slots:
                    mean = gap * share
                    if mean > opponents:
                        mean = opponents
                    filler = FILLER_HEADS * (slots if slots < mean else mean)
                    cost = tail[int(mean * STEPS)] * (heads + filler) + eps * gap
                else:
                    cost = heads + eps * gap
                if cost < best_cost:
                    best_cost = cost
                    best_i = i
            plays.append(hand.pop(best_i))
        for c in plays:
            del alive[bisect_left(alive, c)]
        order = sorted(zip(plays, seats))
        choice = None
        if order[0][0] < e0:
            choice = min(range(4), key=lambda j: (row_heads_now[j], -len(rows[j]), j))
        for _, card, row, took in place_turn(rows, order, choice, taken):
            if took:
                row_heads_now[row] = heads_of(card)
            else:
                row_heads_now[row] += heads_of(card)
    if hands[0]:  # the last turn: every seat plays its last card
        order = sorted(zip((hand.pop() for hand in hands), seats))
        low_end = min(rows[0][-1], rows[1][-1], rows[2][-1], rows[3][-1])
        choice = None
        if order[0][0] < low_end:
            choice = min(range(4), key=lambda j: (row_heads_now[j], -len(rows[j]), j))
        place_turn(rows, order, choice, taken)
        for c, _ in order:
            del alive[bisect_left(alive, c)]


def turn_costs(rows: Sequence[Sequence[int]], alive: list[int], hand_size: int, opponents: int) -> dict[int, float]:
    """The heuristic's expected bull heads of each card of `alive` on this table, as a seat holding
    `hand_size` of them would reckon it (the own-hand correction to the gap left out: a table, not a hand)."""
    ends = sorted((r[-1], len(r), row_heads(r)) for r in rows)
    cheapest = min(h for _, _, h in ends)
    unseen = len(alive) - hand_size
    scale = unseen / len(alive) if alive else 0.0
    share = opponents / unseen if unseen > 0 else 0.0
    costs = {}
    for c in alive:
        target = None
        for row in ends:
            if row[0] < c:
                target = row
        if target is None:
            costs[c] = float(cheapest)
            continue
        end, length, heads = target
        slots = ROW_LIMIT - length
        gap = (bisect_left(alive, c) - bisect_right(alive, end)) * scale
        mean = min(gap * share, opponents)
        cost = (poisson_at_least(slots, mean) * (heads + FILLER_HEADS * min(slots, mean)) if slots else heads)
        costs[c] = cost + 0.01 * gap / max(unseen, 1)
    return costs
