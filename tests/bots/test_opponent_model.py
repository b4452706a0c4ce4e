"""The opponent model: it starts from the default mixture and converges to the model that plays each opponent.

Convergence, not strength: the search bot watches whole rounds of four
opponents of one kind and the weight of the matching model must come to
dominate (heuristic -> sharp, random -> uniform, mcs100 -> mcs).
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
    [("heuristic", "sharp", 5, 12), ("random", "uniform", 5, 11), ("mcs100", "mcs", 8, 9)],
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
