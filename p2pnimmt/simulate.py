"""`p2pnimmt simulate`: bots play many whole games through the engine; statistics per bot (a tournament).

Seats rotate: entry i sits at seat (i + g) mod n in game g, so no bot
gains from its seat. Ties share the win: each of k winners gets 1/k.
Intervals are 95% normal intervals (mean +- 1.96 s / sqrt(games)).

Game g is dealt from its own random stream and played by bots built for
it from their own seeds, so the figures do not depend on how the games
are spread over worker processes (`jobs`). Entries of the same kind are
also pooled per game ("by bot"), and the ratio of two kinds' mean points
per round gets a 95% interval (delta method on the per-game pairs).
Move times (wall clock of each choose_card / choose_row / choose_pick)
are measured on request; they are the only figures that vary between runs
with the same seed, together with the play of time-budgeted bots (`hard`).
"""

from __future__ import annotations

import math
import multiprocessing
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from .bots import make_bot, searches
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


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) of ascending values, by linear interpolation."""
    if not sorted_values:
        return math.nan
    pos = q * (len(sorted_values) - 1)
    low = math.floor(pos)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (pos - low)


@dataclass
class MoveTimes:
    """Wall-clock seconds of every decision of one entry."""

    seconds: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, float | int | None]:
        s = sorted(self.seconds)
        if not s:
            return {"moves": 0, "median": None, "p99": None, "max": None}
        return {"moves": len(s), "median": percentile(s, 0.5), "p99": percentile(s, 0.99), "max": s[-1]}


@dataclass
class Entry:
    """One bot in the simulation and its figures."""

    index: int
    bot: str
    points_per_game: Sample = field(default_factory=Sample)
    points_per_round: Sample = field(default_factory=Sample)
    win_share: Sample = field(default_factory=Sample)
    move_times: MoveTimes | None = None

    @property
    def label(self) -> str:
        return f"{self.index + 1}:{self.bot}"


@dataclass
class Kind:
    """The entries of one kind of bot, pooled per game: mean points of its entries, its share of the win."""

    bot: str
    entries: list[int]
    points_per_game: Sample = field(default_factory=Sample)
    points_per_round: Sample = field(default_factory=Sample)
    win_share: Sample = field(default_factory=Sample)
    per_game: list[float] = field(default_factory=list)  # mean points per round of its entries, game by game


def ratio(xs: Sequence[float], ys: Sequence[float]) -> dict[str, float | list[float] | None]:
    """mean(xs) / mean(ys) over paired games, with its 95% interval (delta method); null interval if undefined."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    if my == 0:
        return {"mean": None, "ci95": None}
    r = mx / my
    if n < 2:
        return {"mean": r, "ci95": None}
    residuals = [x - r * y for x, y in zip(xs, ys)]
    half = 1.96 * math.sqrt(sum(d * d for d in residuals) / (n - 1) / n) / abs(my)
    return {"mean": r, "ci95": [r - half, r + half]}


@dataclass
class Simulation:
    """The result of a run: settings, figures per entry and per kind, and speed."""

    settings: Settings
    games: int
    seed: int
    entries: list[Entry]
    kinds: list[Kind] = field(default_factory=list)
    options: dict = field(default_factory=dict)
    rounds: int = 0
    seconds: float = 0.0

    def ratios(self) -> list[tuple[str, str, dict]]:
        """(a, b, ratio of a's mean points per round to b's) for each pair of kinds, in order of appearance."""
        return [
            (a.bot, b.bot, ratio(a.per_game, b.per_game))
            for i, a in enumerate(self.kinds)
            for b in self.kinds[i + 1 :]
        ]

    def as_dict(self) -> dict:
        s = self.settings
        data = {
            "players": s.players,
            "games": self.games,
            "seed": self.seed,
            "variant": s.variant,
            "point_limit": s.point_limit,
            "max_rounds": s.max_rounds,
            "rounds": self.rounds,
            "seconds": self.seconds,
            "games_per_second": self.games / self.seconds if self.seconds else None,
            "bot_options": dict(self.options),
            "bots": [
                {
                    "entry": e.index + 1,
                    "bot": e.bot,
                    "points_per_game": e.points_per_game.as_dict(),
                    "points_per_round": e.points_per_round.as_dict(),
                    "win_share": e.win_share.as_dict(),
                    **({"move_seconds": e.move_times.as_dict()} if e.move_times is not None else {}),
                }
                for e in self.entries
            ],
            "kinds": [
                {
                    "bot": k.bot,
                    "entries": [i + 1 for i in k.entries],
                    "points_per_game": k.points_per_game.as_dict(),
                    "points_per_round": k.points_per_round.as_dict(),
                    "win_share": k.win_share.as_dict(),
                }
                for k in self.kinds
            ],
            "ratios": [{"bot": a, "to": b, "points_per_round": r} for a, b, r in self.ratios()],
        }
        return data

    def table(self) -> str:
        from .i18n import _, ngettext
        from .ui.words import end_text, variant_name

        s = self.settings
        options = "".join(f", {k} {v}" for k, v in self.options.items())
        rate = self.games / max(self.seconds, 1e-9)
        entry, per_game, per_round, share = _("entry"), _("points/game"), _("points/round"), _("win share")
        lines = [
            ngettext("{players} players, {games} game ({rounds} rounds), variant {variant}, end at {end}",
                     "{players} players, {games} games ({rounds} rounds), variant {variant}, end at {end}",
                     self.games).format(players=s.players, games=self.games, rounds=self.rounds,
                                        variant=variant_name(s.variant), end=end_text(s)),
            _("seed {seed}{options}, {rate} games/s").format(  # two lines: 80 columns each
                seed=self.seed, options=options, rate=f"{rate:.{0 if rate >= 10 else 3}f}"),
            f"{entry:<14} {per_game:>16} {per_round:>15} {share:>17}",
        ]
        for e in self.entries:
            ppg, ppr, win = e.points_per_game, e.points_per_round, e.win_share
            lines.append(
                f"{e.label:<14} {ppg.mean:>8.2f} ± {ppg.half_width:<5.2f} {ppr.mean:>7.2f} ± {ppr.half_width:<5.2f}"
                f" {100 * win.mean:>7.1f}% ± {100 * win.half_width:<4.1f}%"
            )
        if len(self.kinds) < len(self.entries):
            lines.append(_("by bot (its entries pooled in each game; win share: of the whole table)"))
            for k in self.kinds:
                ppg, ppr, win = k.points_per_game, k.points_per_round, k.win_share
                label = f"{k.bot} x{len(k.entries)}"
                lines.append(
                    f"{label:<14} {ppg.mean:>8.2f} ± {ppg.half_width:<5.2f} {ppr.mean:>7.2f} ± {ppr.half_width:<5.2f}"
                    f" {100 * win.mean:>7.1f}% ± {100 * win.half_width:<4.1f}%"
                )
        for a, b, r in self.ratios():
            if r["mean"] is None:
                continue
            interval = f"{r['ci95'][0]:.3f}..{r['ci95'][1]:.3f}" if r["ci95"] else _("unknown")
            lines.append(_("points/round of {a} / {b}: {mean} ({confidence} interval {interval})").format(
                a=a, b=b, mean=f"{r['mean']:.3f}", confidence="95%", interval=interval))
        timed = [(e.label, e.move_times) for e in self.entries if e.move_times is not None]
        if timed:
            time_, moves, median = _("move time"), _("moves"), _("median")
            lines.append(f"{time_:<14} {moves:>8} {median:>10} {'p99':>10} {'max':>10}")
            for label, move_times in timed:
                t = move_times.as_dict()
                if t["moves"]:
                    lines.append(
                        f"{label:<14} {t['moves']:>8} {t['median']:>9.4f}s {t['p99']:>9.4f}s {t['max']:>9.4f}s"
                    )
        lines.append(_("± is the half width of the {confidence} interval; ties share the win.").format(
            confidence="95%"))
        return "\n".join(lines)


class TimedBot:
    """Wraps a bot; records the wall-clock seconds of every decision."""

    def __init__(self, bot, seconds: list[float]) -> None:
        self.bot = bot
        self.name = bot.name
        self.seconds = seconds

    def choose_card(self, view):
        start = time.perf_counter()
        card = self.bot.choose_card(view)
        self.seconds.append(time.perf_counter() - start)
        return card

    def choose_row(self, view, plays):
        start = time.perf_counter()
        row = self.bot.choose_row(view, plays)
        self.seconds.append(time.perf_counter() - start)
        return row

    def choose_pick(self, view):
        start = time.perf_counter()
        card = self.bot.choose_pick(view)
        self.seconds.append(time.perf_counter() - start)
        return card


@dataclass(frozen=True)
class Plan:
    """Everything a worker needs to play game g on its own."""

    settings: Settings
    bots: tuple[str, ...]
    seed: int
    options: tuple[tuple[str, object], ...]
    times: bool


def play_one(plan: Plan, g: int) -> tuple[list[int], int, tuple[int, ...], list[list[float]] | None]:
    """Play game g: (scores by entry, rounds, winning entries, move seconds by entry or None)."""
    n = plan.settings.players
    options = dict(plan.options)
    players = [
        make_bot(name, f"p2pnimmt-simulate/{plan.seed}/{g}/{i}", **(options if searches(name) else {}))
        for i, name in enumerate(plan.bots)
    ]
    times: list[list[float]] | None = None
    if plan.times:
        times = [[] for _ in players]
        players = [TimedBot(bot, t) for bot, t in zip(players, times)]
    seating = [(i - g) % n for i in range(n)]  # seating[seat] = entry at that seat
    deal_rng = random.Random(f"p2pnimmt-simulate/{plan.seed}/deal/{g}")
    game = play_game(plan.settings, [players[i] for i in seating], deal_rng)
    scores = [0] * n
    for seat, i in enumerate(seating):
        scores[i] = game.scores[seat]
    return scores, game.rounds_played, tuple(seating[s] for s in game.winners), times


_PLAN: Plan | None = None  # the plan of a worker process


def _init_worker(plan: Plan) -> None:
    global _PLAN
    _PLAN = plan


def _play_in_worker(g: int):
    assert _PLAN is not None
    return play_one(_PLAN, g)


def play_all(plan: Plan, games: int, jobs: int) -> Iterator:
    """The results of games 0..games-1, in order; spread over `jobs` processes (fork) if more than one."""
    if jobs > 1 and games > 1 and "fork" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("fork")
        with context.Pool(min(jobs, games), initializer=_init_worker, initargs=(plan,)) as pool:
            yield from pool.imap(_play_in_worker, range(games))
        return
    for g in range(games):
        yield play_one(plan, g)


def simulate(
    settings: Settings,
    bots: Sequence[str],
    games: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    *,
    jobs: int = 1,
    rollouts: int | None = None,
    budget: float | None = None,
    times: bool = False,
) -> Simulation:
    """Play `games` whole games with one bot of each named kind, rotating seats; return the figures.

    rollouts / budget configure the search bots (mcs, hard); times records move times.
    """
    n = settings.players
    if len(bots) != n:
        raise ValueError(f"{n} players need {n} bots, got {len(bots)}: {', '.join(bots)}")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    options = {k: v for k, v in (("rollouts", rollouts), ("budget", budget)) if v is not None}
    for name in bots:
        make_bot(name, 0, **(options if searches(name) else {}))  # unknown names and bad options fail here, early
    entries = [Entry(i, name, move_times=MoveTimes() if times else None) for i, name in enumerate(bots)]
    kinds: list[Kind] = []
    for i, name in enumerate(bots):
        kind = next((k for k in kinds if k.bot == name), None)
        if kind is None:
            kinds.append(Kind(name, [i]))
        else:
            kind.entries.append(i)
    result = Simulation(settings, games, seed, entries, kinds, options)
    plan = Plan(settings, tuple(bots), seed, tuple(sorted(options.items())), times)
    start = time.perf_counter()
    for g, (scores, rounds, winners, seconds) in enumerate(play_all(plan, games, jobs)):
        result.rounds += rounds
        shares = [1 / len(winners) if i in winners else 0.0 for i in range(n)]
        for i, e in enumerate(entries):
            e.points_per_game.add(scores[i])
            e.points_per_round.add(scores[i] / rounds)
            e.win_share.add(shares[i])
            if seconds is not None:
                assert e.move_times is not None  # times were asked for: every entry keeps them
                e.move_times.seconds.extend(seconds[i])
        for k in kinds:
            m = len(k.entries)
            k.points_per_game.add(sum(scores[i] for i in k.entries) / m)
            ppr = sum(scores[i] for i in k.entries) / m / rounds
            k.points_per_round.add(ppr)
            k.per_game.append(ppr)
            k.win_share.add(sum(shares[i] for i in k.entries))
        if progress is not None:
            progress(g + 1, games)
    result.seconds = time.perf_counter() - start
    return result
