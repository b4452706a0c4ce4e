"""The `mcs` bot: determinized Monte-Carlo search over the rest of the round, with an opponent model that learns.

For a decision it samples *deals* (determinizations): the unseen cards
(the deck of the variant, less its own hand, the rows and every card
taken this round) dealt to the other seats, as many as each holds. Deals
are weighted by how well they explain what each opponent played in the
earlier turns of the round under that opponent's mixture of models
(`model.HandPrior`): of `proposals` uniform deals, one is kept in
proportion to its weight. A seat that never plays a cheap card while it
could is thus unlikely to hold one, if it plays like the heuristic; a
seat that plays at random tells nothing and its deals stay uniform.

On each deal every candidate (each card of the hand, or each row when it
must take one) is played out to the end of the round on the rollout
kernel (`kernel`, many playouts at once on numpy arrays, checked against
the engine's placement). In a playout each opponent plays the model drawn
for it in that deal (the heuristic's rule at the model's temperature, or
uniformly); this seat plays the heuristic's rule after its candidate.
Each opponent's models are weighted by the evidence of the game's
finished rounds (`model.OpponentModel`). Every candidate meets the same
deals (common random numbers); the one with the fewest bull heads over
the rest of the round, summed over the deals, is chosen. Candidates
clearly worse than the best (paired difference over 3 standard errors)
are dropped along the way, and the search stops once one is left or the
rest are as good as the best.

How many deals: a fixed number (`rollouts`: deterministic given the seed)
or as many as fit in a time budget per decision (`budget` seconds of CPU
time, capped in wall-clock time: play then depends on the speed of the
machine). The environment variables P2PNIMMT_BOT_ROLLOUTS and
P2PNIMMT_BOT_BUDGET set these for every search bot built without explicit
arguments (the tests set a small fixed count).

It sees only its PlayerView: the rounds it plays out are its own, built
from its own hand, the public table and sampled hands for the others.
The draft variant's picks are the heuristic bot's.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..engine import PlayerView
from .base import SeededBot
from .heuristic import HeuristicBot
from .rollout import cheapest_row, row_heads, turn_costs

if TYPE_CHECKING:  # numpy and the kernel load when a search bot is made (a headless seat's heuristic needs neither)
    import numpy as np

    from .model import HandPrior, OpponentModel

C = TypeVar("C", bound=Hashable)  # a search candidate: a card, or a row

ROLLOUTS_ENV = "P2PNIMMT_BOT_ROLLOUTS"
BUDGET_ENV = "P2PNIMMT_BOT_BUDGET"


def env_search() -> tuple[int | None, float | None]:
    """The search the environment asks for: (rollouts, None) by $P2PNIMMT_BOT_ROLLOUTS, else (None, budget) by
    $P2PNIMMT_BOT_BUDGET, else (None, None). A value that is no such number is a ValueError naming it (the command
    line says it before anything starts: cli.environment_problem)."""
    from ..i18n import _
    from ..neutral import shown

    env_rollouts, env_budget = os.environ.get(ROLLOUTS_ENV), os.environ.get(BUDGET_ENV)
    if env_rollouts:
        try:
            rollouts = int(env_rollouts)
        except ValueError:
            rollouts = 0
        if rollouts < 1:
            raise ValueError(_("{variable}={value} is not a whole number of 1 or more (the mcs bot's deals per "
                               "decision); unset it for the default").format(variable=ROLLOUTS_ENV,
                                                                            value=shown(env_rollouts, 40)))
        return rollouts, None
    if env_budget:
        try:
            budget = float(env_budget)
        except ValueError:
            budget = math.nan
        if not 0 < budget < math.inf:
            raise ValueError(_("{variable}={value} is not a number of seconds above 0 (the mcs bot's time per "
                               "decision); unset it for the default").format(variable=BUDGET_ENV,
                                                                            value=shown(env_budget, 40)))
        return None, budget
    return None, None


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
    max_rollouts = 4000
    wall_factor = 2.0  # a busy machine may stretch a decision to this many budgets of wall-clock time, no more
    check_every = 8  # deals of the first batch (and the least between prunings); the clocks are read per batch
    max_batch = 128  # deals per batch at most (batches grow with the deals sampled)
    z_drop = 3.0  # a candidate whose paired difference to the best exceeds z_drop standard errors is dropped
    indifference = 0.05  # bull heads: closer than this to the best (with z_drop standard errors) is as good
    proposals = 32  # hands sampled per deal, one kept by its weight under the HandPrior (1: uniform deals)
    learn = True  # weigh each opponent's models by the evidence (False: the default mixture for everyone)
    within_round = True  # in a deal's playouts, draw each opponent's model given its sampled hand and its plays
    # of this round too (False: by the evidence of the finished rounds only)

    def __init__(
        self,
        seed: int | str | bytes = 0,
        *,
        rollouts: int | None = None,
        budget: float | None = None,
    ) -> None:
        super().__init__(seed)
        if rollouts is None and budget is None:
            rollouts, budget = env_search()
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
        self.last_playouts = 0  # playouts (deals x candidates) of the last decision (for benchmarks)
        self.prior: HandPrior | None = None
        import numpy as np

        self.np_rng = np.random.default_rng(self.rng.getrandbits(128))
        self.model: OpponentModel | None = None
        self._tables: list[np.ndarray] = []  # the heuristic's cost table of each turn of the round seen


    # --- sampling ---------------------------------------------------------------------------------

    def deal_others(self, pool: list[int], deals: int, players: int, seat: int,
                    size: int) -> tuple[np.ndarray, np.ndarray | None]:
        """[deals, players, size] hands from `pool` for every seat but `seat` (GONE there): uniform, or with a
        prior, each the one of `proposals` uniform samples drawn in proportion to its weight; and with a
        prior, [deals, players, models]: each seat's chance of each model given its hand and its plays of
        this round (the hand and the model are drawn together from their joint posterior)."""
        import numpy as np

        from .kernel import deal_hands
        from .model import mixture, posterior

        rng = self.np_rng
        prior = self.prior
        if prior is None or self.proposals <= 1:
            return deal_hands(pool, deals, players, seat, size, rng), None
        m = self.proposals
        samples = deal_hands(pool, deals * m, players, seat, size, rng)
        joint = prior.joint(samples)
        logw = mixture(joint).sum(axis=1).reshape(deals, m)  # this seat's entries are 0
        gumbel = -np.log(-np.log(rng.random((deals, m)) + 1e-300) + 1e-300)
        pick = np.arange(deals) * m + np.argmax(logw + gumbel, axis=1)
        return samples[pick], posterior(joint[:, pick])

    def temps(self, deals: int, players: int, seat: int, weights: np.ndarray | None = None) -> np.ndarray:
        """[deals, players]: the temperature each seat plays at in each deal's playouts (its model drawn by
        `weights` of each deal if given, else by the game's weights)."""
        import numpy as np

        model = self.model
        if model is None or model.players != players or model.seat != seat:  # a view of another table
            return np.zeros((deals, players))
        return model.playout_temps(deals, weights if self.within_round else None)

    # --- the search -------------------------------------------------------------------------------

    def search(self, candidates: list[C], evaluate: Callable[[list[C], int], np.ndarray],
               tie_order: Callable[[C], Any], start: tuple[float, float] | None = None) -> C:
        """Sample deals in batches until the count or the time is spent or one candidate is left; the best.

        evaluate(alive, deals) -> [deals, len(alive)]: the bull heads of each candidate in `alive` on
        `deals` fresh deals. After each batch the clocks are read (from `start`: CPU and wall-clock
        seconds, now if not given); at growing intervals the candidates clearly worse than the best are
        dropped, and the search ends early once the rest are within `indifference` bull heads of it.
        """
        start_cpu, start_wall = start if start is not None else (time.thread_time(), time.perf_counter())
        values: dict[C, list[int]] = {c: [] for c in candidates}
        alive = list(candidates)
        deals = playouts = 0
        limit = self.rollouts if self.rollouts is not None else self.max_rollouts
        next_prune = 2 * self.check_every
        while deals < limit and len(alive) > 1:
            batch = min(limit - deals, max(self.check_every, min(self.max_batch, deals // 4)))
            block = evaluate(alive, batch)
            for j, c in enumerate(alive):
                values[c].extend(block[:, j].tolist())
            deals += batch
            playouts += batch * len(alive)
            if deals >= next_prune:
                next_prune = deals + max(self.check_every, deals // 4)
                alive, settled = self.prune(alive, values, deals)
                if settled:
                    break
            if self.budget is not None and deals >= self.min_rollouts:
                if (
                    time.thread_time() - start_cpu >= self.budget
                    or time.perf_counter() - start_wall >= self.wall_factor * self.budget
                ):
                    break
        self.last_deals = deals
        self.last_playouts = playouts
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

    def observe(self, view: PlayerView, rows: list[list[int]], alive: list[int]) -> None:
        """Learn from the plays seen (a new round: the round before) and keep this turn's table for the prior."""
        from .model import HandPrior, OpponentModel, table_costs

        if self.model is None or self.model.players != view.players or self.model.seat != view.seat:
            self.model = OpponentModel(view.players, view.seat, self.np_rng)
        if self.learn:
            self.model.observe(view)
        turn = view.turn
        if turn == 0 or len(self._tables) != turn:
            self._tables = []
        if len(self._tables) == turn:
            self._tables.append(table_costs(turn_costs(rows, alive, len(view.hand), view.players - 1)))
        played = view.played
        self.prior = None
        if turn > 0 and len(played) == turn and len(self._tables) == turn + 1:
            self.prior = HandPrior(self._tables[:turn], played, view.seat, self.model.weights())

    def row_prior(self, view: PlayerView, plays: list[int]) -> HandPrior | None:
        """The prior for a row decision: this round's plays so far and this turn's (its table was kept when
        this seat chose its card), so the hands sampled are the others' hands after this turn."""
        from .model import HandPrior

        turn, played = view.turn, view.played
        if self.model is None or len(played) != turn or len(self._tables) != turn + 1:
            return None
        return HandPrior(list(self._tables), (*played, tuple(plays)), view.seat, self.model.weights())

    def choose_card(self, view: PlayerView) -> int:
        import numpy as np

        from .kernel import GONE, Tables, choose, heuristic_costs, play_out, take

        start = (time.thread_time(), time.perf_counter())
        hand = list(view.hand)
        seat, players = view.seat, view.players
        rows = [list(r) for r in view.rows]
        pool = sorted(view.unseen)
        alive0 = sorted(pool + hand)
        self.observe(view, rows, alive0)
        self.last_deals = self.last_playouts = 0
        if len(hand) == 1:
            return hand[0]
        size = len(hand)
        costs = self.fallback.card_costs(view)
        if (players - 1) * size > len(pool):  # not a state of a real game: no deal fits it
            return min(hand, key=lambda c: (costs[c], c))
        mask = np.zeros(GONE + 1, dtype=bool)
        mask[alive0] = True
        index = {c: i for i, c in enumerate(hand)}
        rng = self.np_rng

        def evaluate(candidates: list[int], deals: int) -> np.ndarray:
            k = len(candidates)
            hands, weights = self.deal_others(pool, deals, players, seat, size)
            hands[:, seat] = hand
            alive = np.tile(mask, (deals, 1))
            temps = self.temps(deals, players, seat, weights)
            first = choose(heuristic_costs(Tables.of_rows(rows, deals, players), hands, alive), temps, rng)
            hands, alive, temps, first = (np.repeat(a, k, axis=0) for a in (hands, alive, temps, first))
            first[:, seat] = np.tile([index[c] for c in candidates], deals)
            tables = Tables.of_rows(rows, deals * k, players)
            tables.place(take(hands, first, alive), tables.cheapest_rows())
            play_out(tables, hands, rng, alive=alive, temps=temps)
            return tables.pens[:, seat].reshape(deals, k)

        return self.search(hand, evaluate, lambda c: (costs[c], c), start)

    def choose_row(self, view: PlayerView, plays: Sequence[int]) -> int:
        import numpy as np

        from .kernel import GONE, Tables, play_out

        start = (time.thread_time(), time.perf_counter())
        seat, players = view.seat, view.players
        rows = [list(r) for r in view.rows]
        plays = list(plays)
        self.prior = self.row_prior(view, plays)
        rest = [c for c in view.hand if c != plays[seat]]
        self.last_deals = self.last_playouts = 0
        if not rest:  # the last turn: only this turn's bull heads count
            return cheapest_row(rows)
        pool = sorted(set(view.unseen) - set(plays))
        size = len(rest)
        if (players - 1) * size > len(pool):  # not a state of a real game: no deal fits it
            return cheapest_row(rows)
        mask = np.zeros(GONE + 1, dtype=bool)
        mask[pool + rest] = True
        tie = {r: (row_heads(rows[r]), -len(rows[r]), r) for r in range(len(rows))}
        rng = self.np_rng
        turn_plays = np.asarray(plays)

        def evaluate(candidates: list[int], deals: int) -> np.ndarray:
            k = len(candidates)
            hands, weights = self.deal_others(pool, deals, players, seat, size)  # their hands after this turn
            hands[:, seat] = rest
            temps = self.temps(deals, players, seat, weights)
            hands, temps = np.repeat(hands, k, axis=0), np.repeat(temps, k, axis=0)
            tables = Tables.of_rows(rows, deals * k, players)
            tables.place(np.tile(turn_plays, (deals * k, 1)), np.tile(np.asarray(candidates), deals))
            play_out(tables, hands, rng, alive=np.tile(mask, (deals * k, 1)), temps=temps)
            return tables.pens[:, seat].reshape(deals, k)

        return self.search(list(range(len(rows))), evaluate, tie.__getitem__, start)

    def choose_pick(self, view: PlayerView) -> int:
        return self.fallback.choose_pick(view)
