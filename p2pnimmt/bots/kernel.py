"""The rollout kernel: many rest-of-rounds played at once on numpy arrays (for the search bots only).

A batch holds N tables, each in a lean form: per row its end card, its
length and its bull heads (the cards under the end never matter again),
the bull heads each seat has taken, each seat's hand (ascending, a played
card replaced by GONE) and which cards nobody has seen yet. One call of
`place` lays one turn's cards on all N tables: rule 4 (the lowest card,
below every row end, takes the row given for it), then every other card
joins the row with the highest end below it, the sixth card taking the
five (rules 1-3). It is a second form of `engine.table.place_turn`, kept
to it by a differential test over many random turns (tests/bots).

Policies give each seat's card for a turn on all tables at once:
`random_plays` (uniform), and `heuristic_costs` + `choose` (the
heuristic's expected bull heads of this turn, the same rule as
`mcs.policy_plays`, played greedily or drawn from a softmax at a
temperature per seat; an infinite temperature is uniform play).
"""

from __future__ import annotations

import numpy as np

from ..engine import BULL_HEADS, HIGHEST_CARD, ROW_COUNT, ROW_LIMIT
from .heuristic import poisson_at_least

GONE = HIGHEST_CARD + 1  # a hand's slot whose card was played: sorts after every card
HEADS = np.array(BULL_HEADS + (0,), dtype=np.int64)  # HEADS[card]; HEADS[GONE] = 0
STEPS = 50  # the Poisson tails are tabulated on means 0, 1/STEPS, ... (as in mcs.TAILS)
MAX_MEAN = 10
TAILS = np.array(
    [[poisson_at_least(k, i / STEPS) if k else 0.0 for i in range(MAX_MEAN * STEPS + 1)] for k in range(ROW_LIMIT + 1)]
)
FILLER_HEADS = 1.3


class Tables:
    """N tables in the lean form: row ends, lengths and bull heads ([N, 4]) and each seat's penalty ([N, P])."""

    __slots__ = ("ends", "lens", "heads", "pens")

    def __init__(self, ends: np.ndarray, lens: np.ndarray, heads: np.ndarray, pens: np.ndarray) -> None:
        self.ends = ends
        self.lens = lens
        self.heads = heads
        self.pens = pens

    @classmethod
    def of_rows(cls, rows, n: int, players: int) -> Tables:
        """N copies of one table (`rows`: four ascending rows of cards); nobody has taken anything."""
        ends = np.array([[r[-1] for r in rows]] * n, dtype=np.int64).reshape(n, ROW_COUNT)
        lens = np.array([[len(r) for r in rows]] * n, dtype=np.int64).reshape(n, ROW_COUNT)
        heads = np.array([[sum(BULL_HEADS[c] for c in r) for r in rows]] * n, dtype=np.int64).reshape(n, ROW_COUNT)
        return cls(ends, lens, heads, np.zeros((n, players), dtype=np.int64))

    def repeat(self, times: int) -> Tables:
        """Each table `times` times in a row (table i becomes tables i*times .. i*times+times-1)."""
        return Tables(*(np.repeat(a, times, axis=0) for a in (self.ends, self.lens, self.heads, self.pens)))

    def cheapest_rows(self) -> np.ndarray:
        """Per table the row with the fewest bull heads; on ties the longer, then the first (the heuristic's)."""
        return np.argmin(self.heads * (ROW_LIMIT + 1) + (ROW_LIMIT - self.lens), axis=1)

    def needs_row(self, plays: np.ndarray) -> np.ndarray:
        """Per table whether the turn's lowest card is below every row end (rule 4)."""
        return plays.min(axis=1) < self.ends.min(axis=1)

    def place(self, plays: np.ndarray, low_rows: np.ndarray) -> None:
        """Lay one turn's cards (plays[N, P], by seat) on every table; low_rows[N]: the row the lowest takes."""
        n, players = plays.shape
        at = np.arange(n)
        order = np.argsort(plays, axis=1, kind="stable")
        cards = np.take_along_axis(plays, order, axis=1)
        ends, lens, heads, pens = self.ends, self.lens, self.heads, self.pens
        low = cards[:, 0]
        need = low < ends.min(axis=1)
        if need.any():
            i = at[need]
            r = low_rows[need]
            pens[i, order[need, 0]] += heads[i, r]
            ends[i, r] = low[need]
            lens[i, r] = 1
            heads[i, r] = HEADS[low[need]]
        for j in range(players):
            c = cards[:, j]
            seat = order[:, j]
            if j == 0:
                idx = at[~need]
                c = c[idx]
                seat = seat[idx]
            else:
                idx = at
            e = ends[idx]
            target = np.argmax(np.where(e < c[:, None], e, -1), axis=1)
            full = lens[idx, target] == ROW_LIMIT
            pens[idx, seat] += np.where(full, heads[idx, target], 0)
            ends[idx, target] = c
            lens[idx, target] = np.where(full, 1, lens[idx, target] + 1)
            heads[idx, target] = np.where(full, 0, heads[idx, target]) + HEADS[c]


def random_plays(hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Slot index of a uniformly random card of each hand (hands[N, P, H], GONE for played slots)."""
    keys = rng.random(hands.shape)
    keys[hands == GONE] = 2.0
    return np.argmin(keys, axis=2)


def heuristic_costs(tables: Tables, hands: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """The heuristic's expected bull heads of this turn for every card of every hand ([N, P, H]; GONE: inf).

    hands[N, P, H]: ascending, played slots GONE at the end (as `take` leaves them). alive[N, GONE+1]
    marks the cards nobody has seen (in some hand or not dealt). Each seat reckons from its own hand:
    the unseen cards between a row's end and its card, less its own.
    """
    n, players, size = hands.shape
    opponents = players - 1
    width = GONE + 1
    order = np.argsort(tables.ends, axis=1)
    ends = np.take_along_axis(tables.ends, order, axis=1)
    lens = np.take_along_axis(tables.lens, order, axis=1)
    heads = np.take_along_axis(tables.heads, order, axis=1)
    base = (np.arange(n) * width)[:, None]
    cum = np.cumsum(alive, axis=1).ravel()  # cum[x]: cards nobody has seen up to x
    marks = np.zeros(n * width, dtype=np.int64)
    np.add.at(marks, (base + ends + 1).ravel(), 1)
    rowpos = (np.cumsum(marks.reshape(n, width), axis=1) - 1).ravel()  # rowpos[x]: the row x joins, -1: none
    gone = hands == GONE
    held = size - gone.sum(axis=2)  # cards in each hand [N, P]
    unseen = alive.sum(axis=1)[:, None] - held  # from each seat: not seen, not its own [N, P]
    safe = np.maximum(unseen, 1)
    share = np.where(unseen > 0, opponents / safe, 0.0)[..., None]
    eps = np.where(unseen > 0, 0.01 / safe, 0.0)[..., None]
    flat = base[:, :, None] + hands  # [N, P, H] indexes into the per-table arrays
    t = rowpos[flat]
    row = (np.arange(n) * ROW_COUNT)[:, None, None] + np.maximum(t, 0)
    end = ends.ravel()[row]
    slots = ROW_LIMIT - lens.ravel()[row]
    rh = heads.ravel()[row]
    # own cards between the row end and the card: a hand is ascending, so the cards that join the same
    # row are a run; the card's place in its run counts them
    slot = np.arange(size)[None, None, :]
    starts = np.ones(t.shape, dtype=bool)
    starts[..., 1:] = t[..., 1:] != t[..., :-1]
    run_start = np.maximum.accumulate(np.where(starts, slot, 0), axis=2)
    gap = cum[flat - 1] - cum[base[:, :, None] + end] - (slot - run_start)
    mean = np.minimum(gap * share, opponents)
    tail = TAILS.ravel()[slots * TAILS.shape[1] + (mean * STEPS).astype(np.int64)]
    cost = np.where(slots > 0, tail * (rh + FILLER_HEADS * np.minimum(slots, mean)), rh) + eps * gap
    cheapest = tables.heads.min(axis=1)[:, None, None]
    cost = np.where(t < 0, cheapest.astype(np.float64), cost)
    return np.where(gone, np.inf, cost)


def choose(costs: np.ndarray, temps: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Slot index per hand: the cheapest card where temps[N, P] is 0 (first on ties), else a draw with
    chance in proportion to exp(-cost / temp) (inf: uniform over the hand)."""
    greedy = np.argmin(costs, axis=2)
    soft = temps > 0
    if not soft.any():
        return greedy
    inv = np.where(soft, 1.0 / np.where(soft, temps, 1.0), 0.0)
    gumbel = -np.log(-np.log(rng.random(costs.shape) + 1e-300) + 1e-300)
    finite = np.where(np.isinf(costs), 0.0, costs)
    score = finite * inv[..., None] - gumbel
    score[np.isinf(costs)] = np.inf
    return np.where(soft, np.argmin(score, axis=2), greedy)


def take(hands: np.ndarray, slots: np.ndarray, alive: np.ndarray | None = None) -> np.ndarray:
    """The cards at `slots` [N, P]; they leave the hands (and `alive`) in place (hands stay ascending, GONE last)."""
    plays = np.take_along_axis(hands, slots[..., None], axis=2)[..., 0]
    np.put_along_axis(hands, slots[..., None], GONE, axis=2)
    hands.sort(axis=2)  # ascending again, GONE last
    if alive is not None:
        alive[np.arange(len(plays))[:, None], plays] = False
    return plays


def play_out(tables: Tables, hands: np.ndarray, rng: np.random.Generator, *,
             alive: np.ndarray | None = None, temps: np.ndarray | None = None) -> None:
    """Play every table's round to its end, in place.

    Without `alive`: every seat plays uniformly at random and a lowest card below every row takes a
    random row. With `alive` (and `temps`, [N, P]): each seat plays the heuristic at its temperature
    (0: greedy) and such a card takes the cheapest row.
    """
    n = len(hands)
    left = int((hands[0, 0] != GONE).sum()) if n else 0  # every hand holds as many cards
    for _ in range(left):
        if alive is None:
            slots = random_plays(hands, rng)
            low_rows = rng.integers(0, ROW_COUNT, n)
        else:
            assert temps is not None
            slots = choose(heuristic_costs(tables, hands, alive), temps, rng)
            low_rows = tables.cheapest_rows()
        tables.place(take(hands, slots, alive), low_rows)


def deal_hands(pool: list[int], n: int, players: int, seat: int, size: int,
               rng: np.random.Generator) -> np.ndarray:
    """N uniform deals of `size` cards of `pool` to every seat but `seat` ([N, P, size], ascending;
    `seat`'s hand left GONE for the caller to fill)."""
    keys = rng.random((n, len(pool)))
    picked = np.asarray(pool)[np.argsort(keys, axis=1)[:, : (players - 1) * size]]
    others = np.sort(picked.reshape(n, players - 1, size), axis=2)
    hands = np.full((n, players, size), GONE, dtype=np.int64)
    hands[:, [s for s in range(players) if s != seat]] = others
    return hands
