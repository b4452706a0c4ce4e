"""The opponent model: it starts from the default mixture and converges to the model that plays each opponent.

Convergence, not strength: the search bot watches whole rounds of four
opponents of one kind and the weight of the matching model must come to
dominate (heuristic -> greedy, random -> uniform, mcs100 -> mcs).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from p2pnimmt.bots import make_bot
from p2pnimmt.bots.match import play_game
from p2pnimmt.bots.mcs import MCSBot
from p2pnimmt.bots.model import DEFAULT_WEIGHTS, MODELS, OpponentModel
from p2pnimmt.engine import PlayerView, Settings


class PublicOnly:
    """A view that serves only its public attributes."""

    def __init__(self, view: PlayerView) -> None:
        self._view = view

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(f"the bot read the private attribute {name!r} of its view")
        return getattr(self._view, name)


def watched_weights(kind: str, seed: int, rounds: int = 5) -> np.ndarray:
    """The weights a search bot holds for its four opponents of `kind` after `rounds` rounds (one deal each)."""
    watcher = MCSBot(f"watch/{seed}", rollouts=1)
    bots = [watcher] + [make_bot(kind, f"opponent/{seed}/{i}") for i in range(4)]
    play_game(Settings(5, point_limit=None, max_rounds=rounds), bots, random.Random(seed))
    assert watcher.model is not None and watcher.model.turns_seen == 8 * (rounds - 1)  # 8 turns with a choice
    return watcher.model.weights()[1:]


@pytest.mark.parametrize(
    ("kind", "model", "rounds", "least"),
    [("heuristic", "greedy", 5, 12), ("random", "uniform", 5, 11), ("mcs100", "mcs", 8, 9)],
)
def test_converges_to_the_model_that_plays(kind: str, model: str, rounds: int, least: int) -> None:
    """After 4 finished rounds (7 against mcs100, whose plays are noisier), the right model leads for at least
    `least` of 12 opponents and holds at least 0.7 of the weight on average (a random player can look like
    the hot heuristic, which is nearly careless, for a while)."""
    m = MODELS.index(model)
    weights = np.concatenate([watched_weights(kind, seed, rounds) for seed in range(3)])  # 12 opponents
    assert weights[:, m].mean() >= 0.7, weights.round(2)
    assert (weights.argmax(axis=1) == m).sum() >= least, weights.round(2)


def test_no_evidence_is_the_default_mixture() -> None:
    model = OpponentModel(4, 0, np.random.default_rng(0))
    assert np.allclose(model.weights(), DEFAULT_WEIGHTS)
    game_weights = watched_weights("heuristic", 7, rounds=1)  # the first round is still being played
    assert np.allclose(game_weights, DEFAULT_WEIGHTS)


def test_playout_temperatures_follow_the_weights() -> None:
    model = OpponentModel(3, 1, np.random.default_rng(4))
    model.evidence[0, MODELS.index("uniform")] = 50.0  # seat 0: surely random
    temps = model.playout_temps(2000)
    assert (temps[:, 1] == 0).all()  # this seat plays greedily after its candidate
    assert np.isinf(temps[:, 0]).all()
    share_sharp = (temps[:, 2] == 0.1).mean()  # seat 2: the default mixture
    assert abs(share_sharp - DEFAULT_WEIGHTS[MODELS.index("sharp")]) < 0.05


def test_learning_reads_only_public_attributes() -> None:
    """The model learns from view.played, rows, unseen and hand only (the view-isolation test of test_mcs
    covers the decisions; here a whole game through views that refuse private attributes)."""
    class Guarded(MCSBot):
        def choose_card(self, view):
            return super().choose_card(PublicOnly(view))

    watcher = Guarded("g", rollouts=1)
    bots = [watcher] + [make_bot("random", i) for i in range(3)]
    play_game(Settings(4, point_limit=None, max_rounds=2), bots, random.Random(1))
    assert watcher.model is not None and watcher.model.turns_seen == 8


class Recorder(MCSBot):
    """A search bot that keeps, per turn of the round, its opponents' mean chance of each model in the deals
    it sampled (the posterior given each sampled hand and the opponent's plays of this round)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.by_turn: dict[int, np.ndarray] = {}
        self.turn = -1

    def choose_card(self, view):
        self.turn = view.turn
        return super().choose_card(view)

    def deal_others(self, *args):
        hands, weights = super().deal_others(*args)
        if weights is not None and self.turn not in self.by_turn:
            self.by_turn[self.turn] = np.delete(weights, self.seat, axis=1).mean(axis=0)  # [opponents, models]
        return hands, weights

    @property
    def seat(self) -> int:
        assert self.model is not None
        return self.model.seat


def first_round_posterior(kind: str, turn: int) -> np.ndarray:
    """[12, models]: the mean posterior of 12 opponents of `kind` at `turn` of the game's first round."""
    out = []
    for seed in range(3):
        watcher = Recorder(f"within/{seed}", rollouts=16)
        bots = [watcher] + [make_bot(kind, f"opponent/{seed}/{i}") for i in range(4)]
        play_game(Settings(5, point_limit=None, max_rounds=1), bots, random.Random(seed))
        assert watcher.model is not None and watcher.model.turns_seen == 0  # no round has finished yet
        out.append(watcher.by_turn[turn])
    return np.concatenate(out)


@pytest.mark.parametrize(
    ("kind", "model", "least", "share", "other", "most"),
    [("heuristic", "greedy", 10, 0.45, "uniform", 0.1), ("random", "uniform", 9, 0.5, "greedy", 0.01)],
)
def test_the_first_round_already_teaches_the_playouts(kind: str, model: str, least: int, share: float,
                                                      other: str, most: float) -> None:
    """Within the first round (no finished round, so the game's weights are still the default mixture) the
    playouts draw each opponent's model given its sampled hand and its plays so far: by the 7th turn the
    right model leads for `least` of 12 opponents (a random player can look hot for a while; a sampled hand
    that a heuristic player could not have held makes it look sharp or warm), holds well over its default
    share on average, and the opposite model is all but ruled out."""
    m, o = MODELS.index(model), MODELS.index(other)
    posterior = first_round_posterior(kind, 6)
    assert (posterior.argmax(axis=1) == m).sum() >= least, posterior.round(2)
    assert posterior[:, m].mean() >= share > 2 * DEFAULT_WEIGHTS[m], posterior.round(2)
    assert posterior[:, o].mean() <= most < DEFAULT_WEIGHTS[o] / 1.5, posterior.round(2)
    assert np.allclose(posterior.sum(axis=1), 1.0)


def test_without_the_round_the_playouts_follow_the_game_weights() -> None:
    """`within_round = False`: the deals are still drawn by the prior, the playouts by the game's weights."""
    bot = MCSBot("w", rollouts=8)
    bot.within_round = False
    bot.model = OpponentModel(3, 0, np.random.default_rng(2))
    bot.model.evidence[1, MODELS.index("uniform")] = 80.0
    weights = np.zeros((500, 3, len(MODELS)))
    weights[:, :, MODELS.index("sharp")] = 1.0  # a deal's posterior saying sharp: ignored
    temps = bot.temps(500, 3, 0, weights)
    assert np.isinf(temps[:, 1]).all()
    bot.within_round = True
    assert (bot.temps(500, 3, 0, weights)[:, 1:] == 0.1).all()


def test_a_row_decision_reads_this_turns_plays_too() -> None:
    """When it must take a row, the search samples the others' hands after this turn from a prior that
    includes this turn's revealed cards (and every earlier turn's table of the round)."""
    priors = []

    class Rows(MCSBot):
        def choose_row(self, view, plays):
            row = super().choose_row(view, plays)
            priors.append((view.turn, tuple(plays), self.prior))
            return row

    bots = [Rows("rows", rollouts=8)] + [make_bot("heuristic", i) for i in range(4)]
    play_game(Settings(5, point_limit=None, max_rounds=6), bots, random.Random(5))
    with_prior = [(t, plays, p) for t, plays, p in priors if p is not None]
    assert with_prior, "the bot never took a row with a prior"
    for turn, plays, prior in with_prior:
        assert len(prior.tables) == turn + 1 and tuple(prior.played[-1]) == plays
