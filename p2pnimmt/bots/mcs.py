"""The `mcs` bot: determinized Monte-Carlo search over the rest of the round.

For a decision it repeatedly samples a *deal* (a determinization): the
unseen cards (the deck of the variant, less its own hand, the rows and
every card taken this round) dealt to the other seats, as many as each of
them holds. Deals are weighted by how well they explain what each
opponent played in the earlier turns of the round (`HandPrior`): of
`proposals` uniform deals, one is kept with probability proportional to
exp(-beta x the bull heads its hands would have given up, by the
heuristic's reckoning, to play the cards that were played). A seat that
never plays a cheap card while it could is thus unlikely to hold one. On that deal every candidate (each card of the
hand, or each row when it must take one) is played out to the end of the
round through the engine's placement (`place_turn`), every seat following
a fast policy: the heuristic bot's rule (the expected bull heads of this
turn, from the unseen cards between a row's end and the card), each seat
reasoning only from its own sampled hand and the table. Every candidate
meets the same deals (common random numbers); the one with the fewest
bull heads over the rest of the round, summed over the deals, is chosen.
Candidates clearly worse than the best (paired difference over 3 standard
errors) are dropped along the way, and the search stops once one is left
or the rest are as good as the best.

How many deals: a fixed number (`rollouts`: deterministic given the seed)
or as many as fit in a time budget per decision (`budget` seconds of CPU
time, capped in wall-clock time: play then depends on the speed of the
machine). The environment variables
P2PNIMMT_BOT_ROLLOUTS and P2PNIMMT_BOT_BUDGET set these for every search
bot built without explicit arguments (the tests set a small fixed count).

It sees only its PlayerView: the rounds it plays out are its own, built
from its own hand, the public table and sampled hands for the others.
The draft variant's picks are the heuristic bot's.
"""

from __future__ import annotations

import math
import os
import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from ..engine import BULL_HEADS, HIGHEST_CARD, MAX_PLAYERS, ROW_LIMIT, PlayerView
from ..engine.table import place_turn
from .base import SeededBot
from .heuristic import HeuristicBot, poisson_at_least

C = TypeVar("C", bound=Hashable)  # a search candidate: a card, or a row

ROLLOUTS_ENV = "P2PNIMMT_BOT_ROLLOUTS"
BUDGET_ENV = "P2PNIMMT_BOT_BUDGET"

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


class HandPrior:
    """How well sampled hands explain what each opponent played this round, if it played like the heuristic.

    For every earlier turn t it holds the heuristic's cost of each card on the table of turn t; a seat's
    hand at turn t is its sampled hand plus the cards it played from turn t on, and the weight of a sample
    is exp(-beta * (cost of the card it played - cost of its best card)) over seats and turns.
    """

    def __init__(self, tables: list[dict[int, float]], played: Sequence[Sequence[int]], seat: int, beta: float):
        self.tables = tables
        self.played = played
        self.seat = seat
        self.beta = beta

    def log_weight(self, hands: Sequence[Sequence[int] | None]) -> float:
        total = 0.0
        turns = len(self.tables)
        for s, hand in enumerate(hands):
            if s == self.seat or hand is None:
                continue
            held = list(hand)
            for t in range(turns - 1, -1, -1):
                card = self.played[t][s]
                held.append(card)
                table = self.tables[t]
                best = min(table.get(c, 0.0) for c in held)
                total += table.get(card, 0.0) - best
        return -self.beta * total


class MCSBot(SeededBot):
    """Determinized Monte-Carlo search: the card (or row) with the fewest bull heads over sampled rest-of-rounds.

    rollouts: sampled deals per decision (deterministic play). budget:
    seconds of this thread's CPU time per decision instead (on an idle core
    the same as wall-clock time; a busy machine stretches a decision to at
    most `wall_factor` budgets of wall-clock time, then it stops anyway); at
    least `min_rollouts` deals, at most `max_rollouts`. Explicit arguments
    win over the environment (P2PNIMMT_BOT_ROLLOUTS, P2PNIMMT_BOT_BUDGET),
    which wins over the class defaults.
    """

    name = "mcs"
    default_rollouts: int | None = 100
    default_budget: float | None = None
    min_rollouts = 8
    max_rollouts = 2000
    wall_factor = 2.0  # a busy machine may stretch a decision to this many budgets of wall-clock time, no more
    check_every = 8  # deals between readings of the clocks (and the least between prunings)
    z_drop = 3.0  # a candidate whose paired difference to the best exceeds z_drop standard errors is dropped
    indifference = 0.05  # bull heads: closer than this to the best (with z_drop standard errors) is as good
    proposals = 32  # hands sampled per deal, one kept by its weight under the HandPrior (1: uniform deals)
    beta = 8.0  # how sure the prior is that opponents play like the heuristic (per bull head of cost)

    def __init__(
        self,
        seed: int | str | bytes = 0,
        *,
        rollouts: int | None = None,
        budget: float | None = None,
    ) -> None:
        super().__init__(seed)
        if rollouts is None and budget is None:
            env_rollouts = os.environ.get(ROLLOUTS_ENV)
            env_budget = os.environ.get(BUDGET_ENV)
            try:
                if env_rollouts:
                    rollouts = int(env_rollouts)
                elif env_budget:
                    budget = float(env_budget)
            except ValueError:
                raise ValueError(
                    f"{ROLLOUTS_ENV}={env_rollouts!r} / {BUDGET_ENV}={env_budget!r}: not a number"
                ) from None
            if rollouts is None and budget is None:
                rollouts, budget = self.default_rollouts, self.default_budget
        if rollouts is not None:
            if type(rollouts) is not int or rollouts < 1:
                raise ValueError(f"rollouts must be a positive whole number, got {rollouts!r}")
            budget = None
        elif budget is None or not budget > 0:
            raise ValueError(f"budget must be a positive number of seconds, got {budget!r}")
        self.rollouts = rollouts
        self.budget = budget
        self.fallback = HeuristicBot(seed)
        self.last_deals = 0  # deals sampled for the last decision (for benchmarks)
        self.prior: HandPrior | None = None
        self._tables: list[dict[int, float]] = []  # the heuristic's cost table of each turn of the round seen

    # --- sampling ---------------------------------------------------------------------------------

    def deal_others(self, pool: list[int], players: int, seat: int, size: int) -> list[list[int] | None]:
        """Hands of `size` cards from `pool` for every seat but `seat` (None there): uniform, or with a prior,
        the best explained of `proposals` uniform ones (drawn in proportion to their weights)."""
        prior = self.prior
        if prior is None or self.proposals <= 1:
            return self.uniform_hands(pool, players, seat, size)
        samples = [self.uniform_hands(pool, players, seat, size) for _ in range(self.proposals)]
        logs = [prior.log_weight(h) for h in samples]
        top = max(logs)
        weights = [math.exp(x - top) for x in logs]
        pick = self.random() * sum(weights)
        for hands, w in zip(samples, weights):
            pick -= w
            if pick <= 0:
                return hands
        return samples[-1]

    def uniform_hands(self, pool: list[int], players: int, seat: int, size: int) -> list[list[int] | None]:
        """Random hands of `size` cards from `pool` for every seat but `seat` (None there)."""
        rr = self.random
        deck = pool[:]
        top = len(deck) - 1
        need = (players - 1) * size
        for i in range(top, top - need, -1):
            j = int(rr() * (i + 1))
            deck[i], deck[j] = deck[j], deck[i]
        hands: list[list[int] | None] = []
        at = len(deck) - need
        for s in range(players):
            if s == seat:
                hands.append(None)
            else:
                hands.append(sorted(deck[at : at + size]))
                at += size
        return hands

    # --- the search -------------------------------------------------------------------------------

    def search(self, candidates: list[C], evaluate: Callable[[list[C]], list[int]],
               tie_order: Callable[[C], Any]) -> C:
        """Sample deals until the count or the time is spent or one candidate is left; return the best.

        evaluate(alive) -> the bull heads of each candidate in `alive` on one fresh deal.
        Every `check_every` deals the clocks are read; at growing intervals
        the candidates clearly worse than the best are dropped, and the
        search ends early once the rest are within `indifference` bull heads of it.
        """
        start_cpu = time.thread_time()
        start_wall = time.perf_counter()
        values: dict[C, list[int]] = {c: [] for c in candidates}
        alive = list(candidates)
        deals = 0
        limit = self.rollouts if self.rollouts is not None else self.max_rollouts
        next_prune = 2 * self.check_every
        while deals < limit and len(alive) > 1:
            for c, v in zip(alive, evaluate(alive)):
                values[c].append(v)
            deals += 1
            if deals >= next_prune:
                next_prune = deals + max(self.check_every, deals // 4)
                alive, settled = self.prune(alive, values, deals)
                if settled:
                    break
            if self.budget is not None and deals % self.check_every == 0 and deals >= self.min_rollouts:
                if (
                    time.thread_time() - start_cpu >= self.budget
                    or time.perf_counter() - start_wall >= self.wall_factor * self.budget
                ):
                    break
        self.last_deals = deals
        return min(alive, key=lambda c: (sum(values[c]), tie_order(c)))

    def prune(self, alive: list[C], values: dict[C, list[int]], deals: int) -> tuple[list[C], bool]:
        """The candidates not clearly worse than the best (paired differences on the same deals), and
        whether the search is settled: every one left is within `indifference` bull heads of the best."""
        best = min(alive, key=lambda c: sum(values[c]))
        b = values[best]
        keep = []
        settled = True
        for c in alive:
            if c == best:
                keep.append(c)
                continue
            diffs = [x - y for x, y in zip(values[c], b)]
            mean = sum(diffs) / deals
            se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (deals - 1) / deals)
            if mean > self.z_drop * se:
                continue
            keep.append(c)
            if mean + self.z_drop * se > self.indifference:
                settled = False
        return keep, settled

    # --- decisions --------------------------------------------------------------------------------

    def choose_card(self, view: PlayerView) -> int:
        hand = list(view.hand)
        if len(hand) == 1:
            self.last_deals = 0
            return hand[0]
        seat, players = view.seat, view.players
        rows = [list(r) for r in view.rows]
        pool = sorted(view.unseen)
        alive0 = sorted(pool + hand)
        size = len(hand)
        costs = self.fallback.card_costs(view)
        if (players - 1) * size > len(pool):  # not a state of a real game: no deal fits it
            self.last_deals = 0
            return min(hand, key=lambda c: (costs[c], c))

        low_end = min(r[-1] for r in rows)
        take = cheapest_row(rows)
        mine = {card: [c for c in hand if c != card] for card in hand}
        self.prior = self.hand_prior(view, rows, alive0)

        def evaluate(candidates: list[int]) -> list[int]:
            others = self.deal_others(pool, players, seat, size)
            hands = [h if h is not None else hand for h in others]
            plays, _ = policy_plays(rows, hands, alive0)  # the others' cards of this turn
            later = [[c for c in h if c != p] for h, p in zip(hands, plays)]
            theirs = {p for s, p in enumerate(plays) if s != seat}
            unseen_after = [c for c in alive0 if c not in theirs]
            out = []
            for card in candidates:
                plays[seat] = card
                rws = [r[:] for r in rows]
                hs = [h[:] for h in later]
                hs[seat] = mine[card][:]
                taken: list[list[int]] = [[] for _ in hands]
                order = sorted(zip(plays, SEATS))
                place_turn(rws, order, take if order[0][0] < low_end else None, taken)
                alive = unseen_after[:]
                alive.remove(card)
                play_out(rws, hs, taken, alive)
                out.append(sum(map(BULL_HEADS.__getitem__, taken[seat])))
            return out

        return self.search(hand, evaluate, lambda c: (costs[c], c))

    def hand_prior(self, view: PlayerView, rows: list[list[int]], alive: list[int]) -> HandPrior | None:
        """Remember this turn's table; the prior over hands from the turns before, if this bot saw them all."""
        turn = view.turn
        if turn == 0:
            self._tables = []
        if len(self._tables) != turn or self.beta <= 0:
            self._tables = []
            return None
        self._tables.append(turn_costs(rows, alive, len(view.hand), view.players - 1))  # once per turn
        played = view.played
        if turn == 0 or len(played) != turn:
            return None
        tables = self._tables[:turn]
        return HandPrior(tables, played, view.seat, self.beta)

    def choose_row(self, view: PlayerView, plays: Sequence[int]) -> int:
        self.prior = None
        seat, players = view.seat, view.players
        rows = [list(r) for r in view.rows]
        plays = list(plays)
        mine = plays[seat]
        hand = list(view.hand)
        rest = [c for c in hand if c != mine]
        if not rest:  # the last turn: only this turn's bull heads count
            self.last_deals = 0
            return cheapest_row(rows)
        played = set(plays)
        pool = sorted(set(view.unseen) - played)
        size = len(rest)
        if (players - 1) * size > len(pool):  # not a state of a real game: no deal fits it
            self.last_deals = 0
            return cheapest_row(rows)
        alive0 = sorted(pool + rest)
        tie = {r: (row_heads(rows[r]), -len(rows[r]), r) for r in range(len(rows))}
        order = sorted(zip(plays, SEATS))

        def evaluate(candidates: list[int]) -> list[int]:
            others = self.deal_others(pool, players, seat, size)  # their hands after this turn
            later = [h if h is not None else rest for h in others]
            out = []
            for row in candidates:
                rws = [r[:] for r in rows]
                hs = [h[:] for h in later]
                taken: list[list[int]] = [[] for _ in later]
                place_turn(rws, order, row, taken)
                play_out(rws, hs, taken, alive0[:])
                out.append(sum(map(BULL_HEADS.__getitem__, taken[seat])))
            return out

        return self.search(list(range(len(rows))), evaluate, tie.__getitem__)

    def choose_pick(self, view: PlayerView) -> int:
        return self.fallback.choose_pick(view)
