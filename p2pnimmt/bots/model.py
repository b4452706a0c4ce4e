"""What the search believes about how each opponent plays, learned from the plays it has seen this game.

Models of a player (MODELS), each a chance for every card of a hand:

- `greedy`: the heuristic's rule exactly: the card of the hand with the
  fewest expected bull heads this turn, all but surely (GREEDY_MISS is the
  chance of any other card: the seat's reckoning of an opponent's costs
  can differ from the opponent's own on a near tie); the heuristic bot;
- `sharp`, `warm`, `hot`: the heuristic's expected bull heads of this
  turn, drawn by a softmax at temperature 0.1, 1 and 3 bull heads (sharp
  is a heuristic player that slips on near ties; hot is nearly careless);
- `uniform`: any card of the hand alike (a random player);
- `mcs`: a flat Monte-Carlo player: a softmax at temperature 1 over each
  card's mean own bull heads in MCS_PLAYOUTS random playouts of the rest
  of the round (the `mcs100` bot's reckoning, with fewer playouts).

Evidence: when a round is over every card an opponent played in it is
known, so its hand at each turn is too (the cards it played from that
turn on; its last card, never revealed to this seat, is left out). For
each turn with a choice, the log chance of the card it played under each
model is added to that opponent's evidence. The weight of a model for an
opponent is its DEFAULT_WEIGHTS share times the likelihood of everything
that opponent played in the game's finished rounds (Bayes' rule); before
any round has finished, the default mixture, which does not bet on one
kind of player.

Use: the search samples deals in proportion to how well they explain
each opponent's plays of this round under its mixture (`HandPrior`), and
in each playout every opponent plays one model at the model's temperature
(`mcs` plays as `warm` there: a playout cannot afford a search inside
it), drawn by its posterior given that deal's hand and its plays of this
round: the game's weight times the model's chance of those plays
(`posterior`). So the hand and the model are drawn together from their
joint posterior, and the plays of the round being played teach the
playouts at once, the first round too (within a round the `mcs` model's
chance of a play is reckoned like `warm`'s, on the heuristic's costs: a
search per sampled hand would cost too much).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..engine import ROW_COUNT, PlayerView
from .kernel import GONE, Tables, deal_hands, heuristic_costs, play_out, take

MODELS = ("greedy", "sharp", "warm", "hot", "uniform", "mcs")
LIKELIHOOD_TEMPS = np.array([0.0, 0.1, 1.0, 3.0, np.inf, 1.0])  # 0: greedy; mcs: over its playout means
PLAYOUT_TEMPS = np.array([0.0, 0.1, 1.0, 3.0, np.inf, 1.0])  # how each model plays in the search's playouts
DEFAULT_WEIGHTS = np.array([0.15, 0.15, 0.2, 0.1, 0.2, 0.2])
MCS_PLAYOUTS = 64
GREEDY_MISS = 0.01  # the greedy model's chance of a card other than the cheapest (a near tie reckoned apart)


def log_greedy(cheapest: np.ndarray | bool, cards: int) -> np.ndarray:
    """The greedy model's log chance of a play: the cheapest card (ties alike) all but surely, any other of
    the `cards - 1` with GREEDY_MISS among them."""
    hit, miss = np.log1p(-GREEDY_MISS), np.log(GREEDY_MISS / max(cards - 1, 1))
    return np.asarray(np.where(cheapest, hit, miss), dtype=float)


def log_softmax_at(values: np.ndarray, pick: int, temp: float) -> float:
    """log of exp(-values[pick] / temp) / sum(exp(-values / temp)); uniform for an infinite temp, greedy
    (`log_greedy`) for 0."""
    if np.isinf(temp):
        return -float(np.log(len(values)))
    if temp == 0:
        return float(log_greedy(bool(values[pick] <= values.min()), len(values)))
    x = -values / temp
    top = x.max()
    return float(x[pick] - top - np.log(np.exp(x - top).sum()))


class OpponentModel:
    """Per opponent, the log evidence for each model from the finished rounds of the game."""

    def __init__(self, players: int, seat: int, rng: np.random.Generator) -> None:
        self.players = players
        self.seat = seat
        self.rng = rng
        self.evidence = np.zeros((players, len(MODELS)))
        self.turns_seen = 0  # turns of finished rounds that gave evidence, per opponent
        self._tables: dict[int, tuple[tuple[tuple[int, ...], ...], list[int]]] = {}  # turn -> rows, alive
        self._played: tuple[tuple[int, ...], ...] = ()

    def weights(self) -> np.ndarray:
        """[players, models]: each opponent's chance of each model (own seat: the default)."""
        logw = np.log(DEFAULT_WEIGHTS)[None, :] + self.evidence
        logw -= logw.max(axis=1, keepdims=True)
        w = np.exp(logw)
        return w / w.sum(axis=1, keepdims=True)

    def observe(self, view: PlayerView) -> None:
        """Record this turn's table; when a new round has begun, learn from the round before."""
        turn = view.turn
        if self._tables and (turn == 0 or turn <= max(self._tables)):
            self.finish_round()
        self._tables[turn] = (view.rows, sorted(set(view.unseen).union(view.hand)))
        self._played = view.played

    def finish_round(self) -> None:
        """Add the evidence of the round recorded so far (every opponent's hand at each turn it saw)."""
        played, tables = self._played, self._tables
        self._tables, self._played = {}, ()
        last = len(played)
        for t in sorted(tables):
            if t >= last - 1:
                continue  # its hand then is one known card: no choice to learn from
            rows, alive = tables[t]
            known = [sorted(played[u][s] for u in range(t, last)) for s in range(self.players)]
            self.learn_turn(rows, alive, known, [played[t][s] for s in range(self.players)])
            self.turns_seen += 1

    def learn_turn(self, rows, alive: list[int], known: list[list[int]], cards: list[int]) -> None:
        """Evidence of one turn: each opponent held `known[s]` (at least) and played `cards[s]`."""
        players, size = self.players, max(len(k) for k in known)
        hands = np.full((1, players, size), GONE, dtype=np.int64)
        for s, cards_known in enumerate(known):
            hands[0, s, : len(cards_known)] = cards_known
        mask = np.zeros((1, GONE + 1), dtype=bool)
        mask[0, alive] = True
        costs = heuristic_costs(Tables.of_rows(rows, 1, players), hands, mask)[0]
        values = self.playout_means(rows, alive, known)
        for s in range(players):
            if s == self.seat:
                continue
            k = len(known[s])
            pick = known[s].index(cards[s])
            for m, temp in enumerate(LIKELIHOOD_TEMPS):
                basis = values[s] if MODELS[m] == "mcs" else costs[s, :k]
                self.evidence[s, m] += log_softmax_at(basis, pick, float(temp))

    def playout_means(self, rows, alive: list[int], known: list[list[int]]) -> list[np.ndarray]:
        """Per opponent, each known card's mean own bull heads over MCS_PLAYOUTS random playouts from its seat
        (every seat holding as many cards as it knows: one batch of the kernel for all opponents)."""
        players, n, rng = self.players, MCS_PLAYOUTS, self.rng
        k = len(known[0])
        out = [np.zeros(len(h)) for h in known]
        blocks = []
        for s, hand in enumerate(known):
            pool = [c for c in alive if c not in set(hand)]
            if s != self.seat and k >= 2 and len(hand) == k and (players - 1) * k <= len(pool):
                hands = np.repeat(deal_hands(pool, n, players, s, k, rng), k, axis=0)
                hands[:, s] = hand
                blocks.append((s, hands))
        if not blocks:
            return out
        hands = np.concatenate([h for _, h in blocks])
        total = len(hands)
        slots = np.argmin(rng.random(hands.shape), axis=2)
        for b, (s, _) in enumerate(blocks):
            slots[b * n * k : (b + 1) * n * k, s] = np.tile(np.arange(k), n)
        tables = Tables.of_rows(rows, total, players)
        tables.place(take(hands, slots), rng.integers(0, ROW_COUNT, total))
        play_out(tables, hands, rng)
        for b, (s, _) in enumerate(blocks):
            out[s] = tables.pens[b * n * k : (b + 1) * n * k, s].reshape(n, k).mean(axis=0)
        return out

    def playout_temps(self, deals: int, weights: np.ndarray | None = None) -> np.ndarray:
        """[deals, players]: each opponent's temperature in each deal's playouts, its model drawn by weight
        (`weights`: [deals, players, models], each deal's own; by default the game's weights for every deal)."""
        w = self.weights()[None, :, :] if weights is None else weights
        draws = self.rng.random((deals, self.players))
        models = (draws[..., None] > np.cumsum(w, axis=2)).sum(axis=2)
        temps = PLAYOUT_TEMPS[np.minimum(models, len(MODELS) - 1)]
        temps[:, self.seat] = 0.0  # the searching seat plays the heuristic greedily after its candidate
        return temps


class HandPrior:
    """How well sampled hands explain what each opponent played this round, under its mixture of models.

    tables[t]: the heuristic's cost of every unseen card on the table of turn t (index: card). A seat's hand
    at turn t is its sampled hand plus the cards it played from turn t on; the log weight of a sample is,
    per opponent, log sum over models of weight x chance of all its plays of this round.
    """

    def __init__(self, tables: list[np.ndarray], played: Sequence[Sequence[int]], seat: int,
                 weights: np.ndarray) -> None:
        self.tables = tables
        self.played = played
        self.seat = seat
        self.weights = weights
        self.greedy_costs = [t.copy() for t in tables]  # the greedy model's: no card in an empty slot
        for cost in self.greedy_costs:
            cost[GONE] = np.inf

    def log_weights(self, hands: np.ndarray) -> np.ndarray:
        """[N] log weights of N samples (hands[N, P, H]: ascending, this seat's row ignored)."""
        return mixture(self.joint(hands))[:, [s for s in range(hands.shape[1]) if s != self.seat]].sum(axis=1)

    def joint(self, hands: np.ndarray) -> np.ndarray:
        """[M, N, P]: per model, sample and seat, log (the model's weight x the chance of the seat's plays of
        this round with that hand under the model); 0 for this seat.

        A seat's chance of its card at turn t under a softmax model is exp(x[card]) over the sum of exp(x)
        over its hand then (its sample and the cards it played from t on): the played cards' part is the
        same for every sample, so per turn and model one lookup of exp(x) over the samples does it.
        """
        n, players, size = hands.shape
        turns = len(self.tables)
        opponents = [s for s in range(players) if s != self.seat]
        others = len(opponents)
        cards = hands[:, opponents].reshape(n * others, size).T  # [H, N x opponents]
        index = (cards.reshape(size, n, others) + np.arange(others) * (GONE + 1)).reshape(size, n * others)
        played = np.array([[self.played[t][s] for s in opponents] for t in range(turns)])  # [T, opponents]
        by_seat = np.arange(others)
        ll = np.zeros((len(MODELS), n, players))
        for t in range(turns):
            later = played[t:]  # each opponent's cards played from turn t on (the last row: at t)
            for m, temp in enumerate(LIKELIHOOD_TEMPS):
                if np.isinf(temp):
                    ll[m][:, opponents] -= np.log(size + len(later))
                    continue
                if temp == 0:  # greedy: was the played card the cheapest of the hand then?
                    cost = self.greedy_costs[t]
                    low = np.minimum(cost[cards].min(axis=0).reshape(n, others), cost[later].min(axis=0))
                    ll[m][:, opponents] += log_greedy(cost[played[t]][None, :] <= low, size + len(later))
                    continue
                x = -self.tables[t] / float(temp)
                x[GONE] = -np.inf
                shift = x[later].max(axis=0)  # the played card is among them: a safe scale [opponents]
                ex = np.exp(x[None, :] - shift[:, None])  # [opponents, GONE+1]
                known = ex[by_seat, later].sum(axis=0)
                total = ex.ravel().take(index).sum(axis=0).reshape(n, others) + known
                ll[m][:, opponents] += (x[played[t]] - shift)[None, :] - np.log(total)
        logw = np.log(self.weights.T[:, None, :] + 1e-300) + ll  # [M, N, P]
        logw[:, :, self.seat] = 0.0
        return logw

    def log_weight(self, hands: Sequence[Sequence[int] | None]) -> float:
        """The log weight of one sample (a hand per seat, None for this seat)."""
        size = max(len(h) for h in hands if h is not None)
        arr = np.full((1, len(hands), size), GONE, dtype=np.int64)
        for s, h in enumerate(hands):
            if h is not None:
                arr[0, s, : len(h)] = sorted(h)
        return float(self.log_weights(arr)[0])


def mixture(joint: np.ndarray) -> np.ndarray:
    """[N, P]: log sum over models of a joint [M, N, P] (each seat's mixture chance of its plays)."""
    top = joint.max(axis=0)
    return top + np.log(np.exp(joint - top).sum(axis=0))


def posterior(joint: np.ndarray) -> np.ndarray:
    """[N, P, M]: each seat's chance of each model given its sampled hand and its plays (Bayes' rule)."""
    w = np.exp(joint - joint.max(axis=0))
    return (w / w.sum(axis=0)).transpose(1, 2, 0)


def table_costs(costs: dict[int, float]) -> np.ndarray:
    """A turn's cost table (card -> cost) as an array indexed by card (0 for cards not in it)."""
    out = np.zeros(GONE + 1)
    out[list(costs)] = list(costs.values())
    return out
