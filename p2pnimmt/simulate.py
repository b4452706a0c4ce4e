"""`p2pnimmt simulate`: bots play many whole games through the engine; statistics per bot.

Seats rotate: entry i sits at seat (i + g) mod n in game g, so no bot
gains from its seat. Ties share the win: each of k winners gets 1/k.
Intervals are 95% normal intervals (mean +- 1.96 s / sqrt(games)).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .bots import make_bot
from .bots.match import play_game
from .engine import Settings


@dataclass
class Sample:
    """Running mean and variance of one figure (Welford)."""

    n: int = 0
    mean: float = 0.0
    _m2: float = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self._m2 += delta * (x - self.mean)

    @property
    def half_width(self) -> float:
        """Half the width of the 95% interval of the mean."""
        if self.n < 2:
            return math.inf
        return 1.96 * math.sqrt(self._m2 / (self.n - 1) / self.n)

    def as_dict(self) -> dict[str, float | list[float] | None]:
        """The mean and its 95% interval; the interval is null (unknown) with fewer than 2 samples."""
        if self.n < 2:
            return {"mean": self.mean, "ci95": None}
        return {"mean": self.mean, "ci95": [self.mean - self.half_width, self.mean + self.half_width]}


@dataclass
class Entry:
    """One bot in the simulation and its figures."""

    index: int
    bot: str
    points_per_game: Sample = field(default_factory=Sample)
    points_per_round: Sample = field(default_factory=Sample)
    win_share: Sample = field(default_factory=Sample)

    @property
    def label(self) -> str:
        return f"{self.index + 1}:{self.bot}"


@dataclass
class Simulation:
    """The result of a run: settings, figures per entry, and speed."""

    settings: Settings
    games: int
    seed: int
    entries: list[Entry]
    rounds: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict:
        s = self.settings
        return {
            "players": s.players,
            "games": self.games,
            "seed": self.seed,
            "variant": s.variant,
            "point_limit": s.point_limit,
            "max_rounds": s.max_rounds,
            "rounds": self.rounds,
            "seconds": self.seconds,
            "games_per_second": self.games / self.seconds if self.seconds else None,
            "bots": [
                {
                    "entry": e.index + 1,
                    "bot": e.bot,
                    "points_per_game": e.points_per_game.as_dict(),
                    "points_per_round": e.points_per_round.as_dict(),
                    "win_share": e.win_share.as_dict(),
                }
                for e in self.entries
            ],
        }

    def table(self) -> str:
        s = self.settings
        end = " or ".join(
            part
            for part in (
                f"{s.point_limit} points" if s.point_limit else "",
                f"{s.max_rounds} rounds" if s.max_rounds else "",
            )
            if part
        )
        lines = [
            f"{s.players} players, {self.games} games ({self.rounds} rounds), variant {s.variant}, "
            f"end at {end}, seed {self.seed}, {self.games / max(self.seconds, 1e-9):.0f} games/s",
            f"{'entry':<14} {'points/game':>16} {'points/round':>15} {'win share':>17}",
        ]
        for e in self.entries:
            ppg, ppr, win = e.points_per_game, e.points_per_round, e.win_share
            lines.append(
                f"{e.label:<14} {ppg.mean:>8.2f} ± {ppg.half_width:<5.2f} {ppr.mean:>7.2f} ± {ppr.half_width:<5.2f}"
                f" {100 * win.mean:>7.1f}% ± {100 * win.half_width:<4.1f}%"
            )
        lines.append("± is the half width of the 95% interval; ties share the win.")
        return "\n".join(lines)


def simulate(
    settings: Settings,
    bots: Sequence[str],
    games: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
) -> Simulation:
    """Play `games` whole games with one bot of each named kind, rotating seats; return the figures."""
    n = settings.players
    if len(bots) != n:
        raise ValueError(f"{n} players need {n} bots, got {len(bots)}: {', '.join(bots)}")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    players = [make_bot(name, f"p2pnimmt-simulate/{seed}/{i}") for i, name in enumerate(bots)]
    entries = [Entry(i, name) for i, name in enumerate(bots)]
    deal_rng = random.Random(f"p2pnimmt-simulate/{seed}/deal")
    result = Simulation(settings, games, seed, entries)
    start = time.perf_counter()
    for g in range(games):
        seating = [(i - g) % n for i in range(n)]  # seating[seat] = entry at that seat
        game = play_game(settings, [players[i] for i in seating], deal_rng)
        rounds = game.rounds_played
        result.rounds += rounds
        winners = game.winners
        for seat, i in enumerate(seating):
            e = entries[i]
            points = game.scores[seat]
            e.points_per_game.add(points)
            e.points_per_round.add(points / rounds)
            e.win_share.add(1 / len(winners) if seat in winners else 0.0)
        if progress is not None:
            progress(g + 1, games)
    result.seconds = time.perf_counter() - start
    return result
