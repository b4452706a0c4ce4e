"""A cross-play report (`p2pnimmt simulate --matrix A,B,C,...`): bot A against tables of each other kind.

The first bot named is the one measured. Each of the others fills every
other seat of one table (A with four B at five seats), and a mixed table
seats A with one of each of the others, as many as there are seats (the
list repeats if it is short; left out when there is only one other kind,
whose table it would be). Every table is one `simulate` run with the same
seed: seats rotate every game, so the figures of a table are exactly
those of `p2pnimmt simulate --bots A,B,B,B,B` with that seed. Reported
per table: A's points per round, the others' (pooled per game), the
table's mean, A's ratio to both with 95% intervals (paired per game,
delta method) and A's win share. A is below the table's mean with
confidence when the ratio's interval lies below 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .engine import Settings
from .i18n import N_, _
from .simulate import Sample, Simulation, percentile, ratio, simulate

MIXED = "mixed"


def matrix_tables(bots: Sequence[str], players: int) -> dict[str, list[str]]:
    """The tables of a matrix: name -> one bot per entry (the measured bot first)."""
    if len(bots) < 2:
        raise ValueError(_("a matrix needs the measured bot and at least one other, got {bots}").format(
            bots=",".join(bots)))
    if players < 2:
        raise ValueError(_("a table needs at least 2 players, got {players}").format(players=players))
    measured, rest = bots[0], list(dict.fromkeys(bots[1:]))
    if measured in rest:
        raise ValueError(_("{bot} is the bot measured; name each other kind once, not {bot} again").format(
            bot=measured))
    tables = {kind: [measured] + [kind] * (players - 1) for kind in rest}
    if len(rest) > 1:
        tables[MIXED] = [measured] + [rest[i % len(rest)] for i in range(players - 1)]
    return tables


@dataclass
class TableResult:
    """One table of the matrix: its seats, its simulation and the measured bot's figures there."""

    name: str
    seats: list[str]
    sim: Simulation
    measured: str

    def figures(self) -> dict:
        """The measured bot against the rest of the table (pooled per game) and against the table's mean."""
        sim, measured = self.sim, self.measured
        kinds = {k.bot: k for k in sim.kinds}
        me = kinds[measured]
        n = sim.settings.players
        games = len(me.per_game)
        others = [k for k in sim.kinds if k.bot != measured]
        others_per_game = [
            sum(len(k.entries) * k.per_game[g] for k in others) / (n - len(me.entries)) for g in range(games)
        ]
        mean_per_game = [sum(len(k.entries) * k.per_game[g] for k in sim.kinds) / n for g in range(games)]
        rest, table = Sample(), Sample()
        for x, y in zip(others_per_game, mean_per_game):
            rest.add(x)
            table.add(y)
        return {
            "bot": me.points_per_round,
            "others": rest,
            "table_mean": table,
            "to_others": ratio(me.per_game, others_per_game),
            "to_mean": ratio(me.per_game, mean_per_game),
            "win_share": me.win_share,
        }

    def move_seconds(self) -> list[float]:
        """The measured bot's move times (empty unless times were asked for)."""
        return sorted(t for e in self.sim.entries if e.bot == self.measured and e.move_times is not None
                      for t in e.move_times.seconds)

    def as_dict(self) -> dict:
        f = self.figures()
        data = {
            "table": self.name,
            "bots": list(self.seats),
            "games": self.sim.games,
            "rounds": self.sim.rounds,
            "points_per_round": f["bot"].as_dict(),
            "others_points_per_round": f["others"].as_dict(),
            "table_mean_points_per_round": f["table_mean"].as_dict(),
            "ratio_to_others": f["to_others"],
            "ratio_to_table_mean": f["to_mean"],
            "win_share": f["win_share"].as_dict(),
        }
        times = self.move_seconds()
        if times:
            data["move_seconds"] = {"moves": len(times), "median": percentile(times, 0.5),
                                    "p99": percentile(times, 0.99), "max": times[-1]}
        data["simulation"] = self.sim.as_dict()
        return data


def run_matrix(
    settings: Settings,
    bots: Sequence[str],
    games: int,
    seed: int,
    *,
    tables: Sequence[str] | None = None,
    jobs: int = 1,
    rollouts: int | None = None,
    budget: float | None = None,
    times: bool = False,
    progress: Callable[[int, int], None] | None = None,
    done: Callable[[TableResult], None] | None = None,
) -> list[TableResult]:
    """Play the matrix's tables (all, or those named in `tables`, in that order); `done` is told of each."""
    every = matrix_tables(bots, settings.players)
    chosen = list(tables) if tables else list(every)
    unknown = [t for t in chosen if t not in every]
    if unknown:
        raise ValueError(_("no table {tables} in this matrix; it has {every}").format(tables=", ".join(unknown),
                                                                                   every=", ".join(every)))
    results = []
    for name in chosen:
        sim = simulate(settings, every[name], games, seed, progress, jobs=jobs, rollouts=rollouts, budget=budget,
                       times=times)
        result = TableResult(name, every[name], sim, bots[0])
        results.append(result)
        if done is not None:
            done(result)
    return results


def interval(r: dict) -> str:
    if r["mean"] is None:
        return _("undefined")
    if r["ci95"] is None:
        return f"{r['mean']:.3f}"
    return f"{r['mean']:.3f} ({r['ci95'][0]:.3f}-{r['ci95'][1]:.3f})"


def header(bots: Sequence[str], settings: Settings, games: int, seed: int) -> str:
    from .ui.words import end_text, variant_name

    s = settings
    measured, tables = bots[0], matrix_tables(bots, s.players)
    kinds = [t for t in tables if t != MIXED]
    against = f"{s.players - 1} {kinds[0]}" if len(kinds) == 1 else \
        _("{n} of each of {kinds}, and at a mixed table").format(n=s.players - 1, kinds=", ".join(kinds))
    table, pts, others, to_others, to_mean, share = (_("table"), measured[:7] + " " + _("pts/rnd"), _("others"),
                                                     _("ratio to others"), _("ratio to table mean"), _("win share"))
    return "\n".join([
        _("{measured} against {against}; {players} players, {games} games per table, variant {variant}, end at {end}, "
          "seed {seed}").format(measured=measured, against=against, players=s.players, games=games,
                                variant=variant_name(s.variant), end=end_text(s), seed=seed),
        f"{table:<34} {pts:>15} {others:>14} {to_others:>22} {to_mean:>22} {share:>15}",
    ])


def row(result: TableResult) -> str:
    f = result.figures()
    me, others, win = f["bot"], f["others"], f["win_share"]
    label = _("{table} ({games} games, {rounds} rounds)").format(table=result.name, games=result.sim.games,
                                                                 rounds=result.sim.rounds)
    lines = [
        f"{label:<34} {me.mean:>8.2f} ± {me.half_width:<4.2f} {others.mean:>7.2f} ± {others.half_width:<4.2f} "
        f"{interval(f['to_others']):>22} {interval(f['to_mean']):>22} "
        f"{100 * win.mean:>6.1f}% ± {100 * win.half_width:.1f}%"
    ]
    times = result.move_seconds()
    if times:
        said = _("{bot} move times: median {median} s, p99 {p99} s, max {most} s ({n} decisions)")
        lines.append(" " * 35 + said.format(
            bot=result.measured, median=f"{percentile(times, 0.5):.3f}", p99=f"{percentile(times, 0.99):.3f}",
            most=f"{times[-1]:.3f}", n=len(times)))
    return "\n".join(lines)


FOOTER = N_("± is the half width of the {confidence} interval; ratios are paired per game (delta method); ties share "
            "the win.")  # shown as _(FOOTER).format(confidence="95%")


def matrix_dict(results: Sequence[TableResult], settings: Settings, games: int, seed: int) -> dict:
    return {
        "measured": results[0].measured if results else None,
        "players": settings.players,
        "variant": settings.variant,
        "point_limit": settings.point_limit,
        "max_rounds": settings.max_rounds,
        "games": games,
        "seed": seed,
        "tables": [r.as_dict() for r in results],
    }
