"""The rollout kernel: many rest-of-rounds played at once on numpy arrays (for the search bots only).

A batch holds N tables, each in a lean form: per row its end card, its
length and its bull heads (the cards under the end never matter again),
the bull heads each seat has taken, each seat's hand and which cards
nobody has seen yet. A turn's cards are laid on all N tables at once:
rule 4 (the lowest card, below every row end, takes the row given for
it), then every other card joins the row with the highest end below it,
the sixth card taking the five (rules 1-3). It is a second form of
`engine.table.place_turn`, kept to it by differential tests over many
random turns and whole playouts (tests/bots).

How it is fast (issue 15): inside `play_out` the rows of a table are kept
sorted by their end card (a card joins the row whose end is the highest
below it, so laying cards keeps that order; only rule 4 moves a row to the
front), so a card's row is four comparisons, and a turn's cards are laid
in one pass over the table's cards, not seat by seat: the cards bound for
one row are a run of the sorted turn, and the sixth of a row is found by
counting. Hands are compact, card-major arrays ([cards left, N x P]): a
played card is cut out (the hand stays ascending) and the arrays shrink
turn by turn. The heuristic's expected bull heads come from one lookup
table per (opponents, unseen cards): its entry (slots left, row bull
heads, gap) holds the exact float the plain-Python rule computes, so a
card's cost is two gathers (its row's block, its gap) and one lookup.
At a few hundred tables numpy's cost per call dominates: a turn's arrays
are flat or long-rowed (no reductions or comparisons along rows of 4 or
P), index arrays of a batch's shape are made once (`layout`), and the
four row arrays are views of one, so rule 4 moves a row with one gather.

Policies give each seat's card for a turn on all tables at once:
`random_plays` (uniform), and `heuristic_costs` + `choose` (the
heuristic's expected bull heads of this turn, the same rule as
`rollout.policy_plays`, played greedily or drawn from a softmax at a
temperature per seat; an infinite temperature is uniform play).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..engine import BULL_HEADS, HAND_SIZE, HIGHEST_CARD, ROW_COUNT, ROW_LIMIT
from .heuristic import poisson_at_least

GONE = HIGHEST_CARD + 1  # a hand's slot whose card was played: sorts after every card
WIDTH = GONE + 1  # per-table arrays indexed by card (GONE included)
HEADS = np.array(BULL_HEADS + (0,), dtype=np.int32)  # HEADS[card]; HEADS[GONE] = 0
STEPS = 50  # the Poisson tails are tabulated on means 0, 1/STEPS, ... (as in rollout.TAILS)
MAX_MEAN = 10
TAILS = np.array(
    [[poisson_at_least(k, i / STEPS) if k else 0.0 for i in range(MAX_MEAN * STEPS + 1)] for k in range(ROW_LIMIT + 1)]
)
FILLER_HEADS = 1.3

# The cost table of one (opponents, unseen) pair: blocks of GAPS entries, one per (slots left, row bull heads),
# then one per constant cost 0..MAX_HEADS-1 (a card below every row costs the cheapest row's heads).
GAPS = 128  # entries per block: gaps 0..104, and room for a constant block's offset
MAX_HEADS = 28  # a row holds at most five cards: 7 + 4 x 5 = 27 bull heads
CONST = (ROW_LIMIT + 1) * MAX_HEADS
SLICE = (CONST + MAX_HEADS) * GAPS
PAD = HAND_SIZE  # a constant block is entered PAD in, so the own-cards correction stays inside it


@lru_cache(maxsize=128)
def cost_slice(opponents: int, unseen: int) -> np.ndarray:
    """The heuristic's cost for every (slots, heads, gap) and the constant blocks, flat (SLICE floats).

    Entry ((slots * MAX_HEADS + heads) * GAPS + gap): the float `rollout.policy_plays` computes for a card
    with `gap` unseen cards (not its own) between its row's end and it, the row holding `heads` bull heads
    with `slots` places left, seen from a seat with `unseen` cards it has not seen and `opponents` others.
    """
    gap = np.arange(GAPS, dtype=np.float64)
    share = opponents / unseen if unseen > 0 else 0.0
    eps = 0.01 / unseen if unseen > 0 else 0.0
    mean = np.minimum(gap * share, opponents)
    tail_at = np.minimum((mean * STEPS).astype(np.int64), MAX_MEAN * STEPS)
    heads = np.arange(MAX_HEADS, dtype=np.float64)[:, None]
    out = np.empty((CONST + MAX_HEADS, GAPS))
    for slots in range(ROW_LIMIT + 1):
        block = out[slots * MAX_HEADS : (slots + 1) * MAX_HEADS]
        if slots:
            block[:] = TAILS[slots][tail_at] * (heads + FILLER_HEADS * np.minimum(slots, mean)) + eps * gap
        else:
            block[:] = heads + eps * gap
    out[CONST:] = heads
    out.setflags(write=False)
    return out.ravel()


def cost_table(unseen: np.ndarray, opponents: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The lookup table for hands with `unseen` cards not seen, and each one's offset into it (None: 0)."""
    first = int(unseen.flat[0]) if unseen.size else 0
    if unseen.size == 0 or (unseen == first).all():
        return cost_slice(opponents, first), None
    values, where = np.unique(unseen, return_inverse=True)
    table = np.concatenate([cost_slice(opponents, int(u)) for u in values])
    return table, where.reshape(unseen.shape).astype(np.int32) * SLICE


SEAT_BITS = 4  # a turn's sort key: card << SEAT_BITS | seat (at most 16 seats)
SEAT_MASK = (1 << SEAT_BITS) - 1
COLUMNS = np.arange(ROW_COUNT)[None, :]
SHIFTED = np.maximum(COLUMNS - 1, 0)
SLOTS = np.arange(HAND_SIZE, dtype=np.int32)[:, None]


class Layout:
    """Index arrays of one batch shape (N tables, P seats), made once: flat indexes of the [N, P] cells."""

    __slots__ = ("seats", "at", "pen_base", "row_base", "first", "last", "hand_rows", "hand_cum", "table_cum")

    def __init__(self, n: int, players: int) -> None:
        table = np.arange(n, dtype=np.intp).repeat(players)
        self.seats = np.arange(players, dtype=np.int32)[None, :]
        self.at = np.arange(n * players, dtype=np.intp)
        self.pen_base = table * players
        self.row_base = table * ROW_COUNT
        col = self.at - self.pen_base
        self.first = col == 0
        self.last = col == players - 1
        self.hand_rows = table * (ROW_COUNT + 1)  # each hand's table, flat into [N, 5]
        self.hand_cum = table * WIDTH - 1  # and into [N, WIDTH], less one
        self.table_cum = np.arange(n, dtype=np.intp)[:, None] * WIDTH  # each table, flat into [N, WIDTH]
        for a in (self.at, self.pen_base, self.row_base, self.first, self.last, self.hand_rows, self.hand_cum,
                  self.table_cum):
            a.setflags(write=False)


@lru_cache(maxsize=64)
def layout(n: int, players: int) -> Layout:
    return Layout(n, players)


class Tables:
    """N tables in the lean form: row ends, lengths and bull heads ([N, 4], the engine's row order) and each
    seat's penalty ([N, P])."""

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
        rows = Sorted.of(self)
        rows.place(np.asarray(plays, dtype=np.int32), np.argmax(rows.ids == np.asarray(low_rows)[:, None], axis=1))
        rows.store(self)


def cheapest_place(heads: np.ndarray, lens: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Per table ([N, 4] rows in sorted order) the place of the row with the fewest bull heads; on ties the
    longer, then the first in the engine's order (the heuristic's choice)."""
    return np.argmin((heads * (ROW_LIMIT + 1) + (ROW_LIMIT - lens)) * ROW_COUNT + ids, axis=1)


class Sorted:
    """N tables with each table's rows sorted by end card (ids: each row's place in the engine's order)."""

    __slots__ = ("ends", "lens", "heads", "ids", "pens", "state")

    def __init__(self, ends: np.ndarray, lens: np.ndarray, heads: np.ndarray, ids: np.ndarray,
                 pens: np.ndarray) -> None:
        # the four [N, 4] arrays are views of one (int32): a row moved in rule 4 moves in all of them at once
        self.state = np.empty((4, *np.shape(ends)), dtype=np.int32)
        for k, a in enumerate((ends, lens, heads, ids)):
            self.state[k] = a
        self.ends, self.lens, self.heads, self.ids = self.state
        self.pens = pens

    @classmethod
    def of(cls, tables: Tables) -> Sorted:
        ids = np.argsort(tables.ends, axis=1)
        ends, lens, heads = (np.take_along_axis(a, ids, axis=1) for a in (tables.ends, tables.lens, tables.heads))
        return cls(ends, lens, heads, ids, tables.pens.astype(np.int32))

    def store(self, tables: Tables) -> None:
        """Write the rows back in the engine's order, and the penalties."""
        for src, dst in ((self.ends, tables.ends), (self.lens, tables.lens), (self.heads, tables.heads)):
            np.put_along_axis(dst, self.ids, src, axis=1)
        tables.pens[...] = self.pens

    def place(self, plays: np.ndarray, low_pos: np.ndarray | None = None) -> None:
        """Lay one turn's cards (plays[N, P], by seat); low_pos[N]: the place (sorted order) of the row the
        lowest card takes if it is below every row end (None: the cheapest row, `cheapest_place`)."""
        n, players = plays.shape
        ends, lens, heads, pens = self.ends, self.lens, self.heads, self.pens
        lay = layout(n, players)
        # the turn's cards in order, table by table, each with its seat in the low bits (one sort of short rows)
        keys = np.left_shift(plays, SEAT_BITS, dtype=np.int32)
        keys |= lay.seats
        keys.sort(axis=1)
        cards = keys >> SEAT_BITS
        owner = lay.pen_base + (keys & SEAT_MASK).ravel()  # flat into pens [N, P]
        low = cards[:, 0]
        need = low < ends[:, 0]
        if need.any():  # rule 4: the row is taken and its new end, the lowest card, puts it first
            i = np.flatnonzero(need)
            flat = self.state.reshape(4, n * ROW_COUNT)
            base = i * ROW_COUNT
            if low_pos is None:
                _, lens_i, heads_i, ids_i = flat.take(base[:, None] + COLUMNS, axis=1)
                r = cheapest_place(heads_i, lens_i, ids_i)
            else:
                r = np.asarray(low_pos)[i]
            cell = base + r
            pens.ravel()[owner[i * players]] += heads.ravel().take(cell)
            # rows 0..r-1 move one place up, row r comes first (in all four arrays at once)
            src = np.where(COLUMNS <= r[:, None], SHIFTED, COLUMNS)
            src += base[:, None]
            moved = flat.take(src, axis=1)
            lowi = low[i]
            moved[0, :, 0] = lowi
            moved[1, :, 0] = 1
            moved[2, :, 0] = HEADS.take(lowi)
            moved[3, :, 0] = self.ids.ravel().take(cell)
            flat[:, base[:, None] + COLUMNS] = moved
        # each card's row: its place in sorted order, +1 (0: none, the lowest card that took a row)
        flat_cards = cards.ravel()
        by_card = np.repeat(ends.T, players, axis=1)  # [4, N x P]: each card's table's row ends
        seg = (flat_cards > by_card[0]).view(np.int8) + (flat_cards > by_card[1]).view(np.int8)
        seg += (flat_cards > by_card[2]).view(np.int8)
        seg += (flat_cards > by_card[3]).view(np.int8)
        row = np.maximum(seg - 1, 0).astype(np.intp)
        row += lay.row_base  # flat into [N, 4]
        # where each card's run (the turn's cards bound for its row) begins, flat: a table's first card starts one
        starts = np.empty(n * players, dtype=bool)
        starts[0] = True
        np.not_equal(seg[1:], seg[:-1], out=starts[1:])
        starts |= lay.first
        run = np.where(starts, lay.at, 0)
        np.maximum.accumulate(run, out=run)
        rank = lay.at - run
        before = heads.ravel().take(row)  # the row's bull heads before this turn
        length = lens.ravel().take(row)
        length += rank  # the row's length when the card comes
        cycle = length % ROW_LIMIT  # 0: the sixth card, which takes the row
        sums = np.zeros(n * players + 1, dtype=np.int32)  # bull heads of the turn's cards, summed over the batch
        np.cumsum(HEADS.take(flat_cards), out=sums[1:])
        takes = cycle == 0
        takes &= seg > 0
        if takes.any():
            t = np.flatnonzero(takes)
            took = np.where(rank[t] < ROW_LIMIT, before[t], 0) + sums[t] - sums.take(np.maximum(t - ROW_LIMIT, run[t]))
            pens.ravel()[owner[t]] += took
        last = np.empty(n * players, dtype=bool)
        last[-1] = True
        np.not_equal(seg[:-1], seg[1:], out=last[:-1])
        last |= lay.last
        last &= seg > 0
        pick = np.flatnonzero(last)
        row, cycle, length, before, run = (a.take(pick) for a in (row, cycle, length, before, run))
        since = np.maximum(pick - cycle, run)  # the row's first card after this turn (or where the run began)
        ends.ravel()[row] = flat_cards.take(pick)
        lens.ravel()[row] = cycle + 1
        kept = np.where(length < ROW_LIMIT, before, 0)  # nothing taken: the row keeps its cards
        heads.ravel()[row] = sums.take(pick + 1) - sums.take(since) + kept


def random_plays(hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Slot index of a uniformly random card of each hand (hands[N, P, H], GONE for played slots)."""
    keys = rng.random(hands.shape)
    keys[hands == GONE] = 2.0
    return np.argmin(keys, axis=2)


def card_costs(cards: np.ndarray, ends: np.ndarray, lens: np.ndarray, heads: np.ndarray, cum: np.ndarray,
               players: int, unseen: np.ndarray) -> np.ndarray:
    """The heuristic's expected bull heads of each card of card-major hands ([W, N x P], hand n*P+s ascending).

    ends, lens, heads: [N, 4] sorted by end; cum[N, WIDTH]: cards nobody has seen up to each card;
    unseen[N x P]: cards each seat has not seen (not its own). A GONE slot costs some finite value.
    """
    w, hands = cards.shape
    n = len(ends)
    table, offset = cost_table(unseen, players - 1)
    # per table and row (0: below every row) the index of its block, less the unseen cards up to its end
    block = np.empty((n, ROW_COUNT + 1), dtype=np.intp)  # codes as intp: the last lookup takes them as they are
    lay = layout(n, players)
    cheapest = np.minimum(np.minimum(heads[:, 0], heads[:, 1]), np.minimum(heads[:, 2], heads[:, 3]))
    block[:, 0] = cheapest * GAPS + (CONST * GAPS + PAD)
    block[:, 1:] = ((ROW_LIMIT - lens) * MAX_HEADS + heads) * GAPS - cum.ravel().take(lay.table_cum + ends)
    by_hand = np.repeat(ends.T, players, axis=1)  # [4, hands]: each hand's row ends (long rows compare fast)
    seg = (cards > by_hand[0]).view(np.int8) + (cards > by_hand[1]).view(np.int8)
    seg += (cards > by_hand[2]).view(np.int8)
    seg += (cards > by_hand[3]).view(np.int8)
    code = block.ravel().take(lay.hand_rows + seg)
    code += cum.ravel().take(lay.hand_cum + cards)
    if offset is not None:
        code += offset
    if w > 1:  # less the own cards between the row's end and the card: its place in its run of the hand
        run = np.zeros((w, hands), dtype=np.int32)  # per slot the slot its run begins at, slot by slot
        np.not_equal(seg[1:], seg[:-1], out=run[1:])
        run *= SLOTS[:w]
        for k in range(1, w):
            np.maximum(run[k], run[k - 1], out=run[k])
        run -= SLOTS[:w]
        code += run
    return table.take(code)


def heuristic_costs(tables: Tables, hands: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """The heuristic's expected bull heads of this turn for every card of every hand ([N, P, H]; GONE: inf).

    hands[N, P, H]: ascending, played slots GONE at the end (as `take` leaves them). alive[N, GONE+1]
    marks the cards nobody has seen (in some hand or not dealt). Each seat reckons from its own hand:
    the unseen cards between a row's end and its card, less its own.
    """
    n, players, size = hands.shape
    rows = Sorted.of(tables)
    held = (hands != GONE).sum(axis=2)
    unseen = (alive.sum(axis=1)[:, None] - held).ravel()
    cum = np.cumsum(alive, axis=1)
    cards = hands.reshape(n * players, size).T
    costs = card_costs(cards, rows.ends, rows.lens, rows.heads, cum, players, unseen)
    return np.where(hands == GONE, np.inf, costs.T.reshape(n, players, size))


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


def draw(costs: np.ndarray, temps: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`choose` for card-major costs ([W, hands], changed in place): per hand the slot of the cheapest card
    where temps[hands] is 0 (first on ties), else drawn in proportion to exp(-cost / temp) (inf: uniform)."""
    soft = temps > 0
    if soft.any():  # Gumbel-max: the least of cost + temp x log(Exp(1)); uniform: of log(Exp(1)) alone
        uniform = np.isinf(temps)
        costs *= np.where(uniform, 0.0, 1.0)
        costs += np.where(uniform, 1.0, np.where(soft, temps, 0.0)) * np.log(rng.standard_exponential(costs.shape))
    return np.argmin(costs, axis=0)


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
    """Play every table's round to its end, in place (the hands are spent: all GONE after).

    Every hand holds as many cards (ascending, GONE last). Without `alive`: every seat plays uniformly at
    random and a lowest card below every row takes a random row. With `alive` (and `temps`, [N, P]): each
    seat plays the heuristic at its temperature (0: greedy; inf: uniform) and such a card takes the
    cheapest row; `alive` is kept up to date.
    """
    n, players, size = hands.shape
    left = int((hands[0, 0] != GONE).sum()) if n else 0
    if left == 0:
        return
    rows = Sorted.of(tables)
    count = n * players
    cards = hands[:, :, :left].reshape(count, left).T.astype(np.int32)  # [left, N x P], a copy
    hands[...] = GONE
    every = np.arange(count)
    mine = np.repeat(np.arange(n), players) * WIDTH  # each hand's table, as an offset into [N, WIDTH]
    seat_temps = np.zeros(count) if temps is None else temps.reshape(count)
    if alive is not None:
        assert alive.flags.c_contiguous
        flat_alive = alive.reshape(-1)  # a view
    for w in range(left, 0, -1):
        if w == 1:
            plays = cards[0]
        else:
            if alive is None:
                slot = rng.integers(0, w, count)
            else:
                cum = np.cumsum(alive, axis=1, dtype=np.int32)
                unseen = np.repeat(cum[:, -1] - w, players)
                costs = card_costs(cards, rows.ends, rows.lens, rows.heads, cum, players, unseen)
                slot = draw(costs, seat_temps, rng)
            plays = cards.ravel().take(slot * count + every)
            keep = np.arange(w - 1)[:, None] >= slot[None, :]
            cards = np.where(keep, cards[1:], cards[:-1])
        if alive is not None:
            flat_alive[mine + plays] = False
        rows.place(plays.reshape(n, players), np.asarray(rng.integers(0, ROW_COUNT, size=n)) if alive is None else None)
    rows.store(tables)


def deal_hands(pool: list[int], n: int, players: int, seat: int, size: int,
               rng: np.random.Generator) -> np.ndarray:
    """N uniform deals of `size` cards of `pool` to every seat but `seat` ([N, P, size], ascending;
    `seat`'s hand left GONE for the caller to fill)."""
    picked = rng.permuted(np.broadcast_to(np.asarray(pool, dtype=np.int64), (n, len(pool))), axis=1)
    others = np.sort(picked[:, : (players - 1) * size].reshape(n, players - 1, size), axis=2)
    hands = np.full((n, players, size), GONE, dtype=np.int64)
    hands[:, [s for s in range(players) if s != seat]] = others
    return hands
