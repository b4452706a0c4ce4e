"""Cross-play: one bot against four copies of each level, and at a mixed table. Prints figures; asserts nothing.

    python benchmarks/bots_matrix.py [--bots hard,mcs100,heuristic,medium,random] [--tables mcs100,mixed]
                                     [--games G] [--seed S] [--jobs J] [--players 5]

The first of --bots is the bot measured; each of the others fills the
other seats of one table (plus `mixed`: one of each of the others, as
many as there are seats, repeating the list if it is short). Every table
is a `simulate` run (seats rotate every game; standard deck, games to 66).
Printed per table: the measured bot's points per round, the others'
(pooled), the table's mean, the ratios to both with 95% intervals (paired
per game, delta method), and the measured bot's win share. The bot is
below the table's mean with confidence when the ratio's interval lies
below 1.
"""

from __future__ import annotations

import argparse
import sys
import time

from p2pnimmt.engine import Settings
from p2pnimmt.simulate import Sample, Simulation, percentile, ratio, simulate


def table_figures(sim: Simulation, measured: str) -> dict:
    """The measured bot's figures against the rest of the table and against the table's mean."""
    kinds = {k.bot: k for k in sim.kinds}
    me = kinds[measured]
    n = sim.settings.players
    games = len(me.per_game)
    others = [k for k in sim.kinds if k.bot != measured]
    others_per_game = [
        sum(len(k.entries) * k.per_game[g] for k in others) / (n - len(me.entries)) for g in range(games)
    ]
    mean_per_game = [
        sum(len(k.entries) * k.per_game[g] for k in sim.kinds) / n for g in range(games)
    ]
    rest = Sample()
    table = Sample()
    for x, y in zip(others_per_game, mean_per_game):
        rest.add(x)
        table.add(y)
    return {
        "games": sim.games,
        "rounds": sim.rounds,
        "bot": me.points_per_round,
        "others": rest,
        "table_mean": table,
        "to_others": ratio(me.per_game, others_per_game),
        "to_mean": ratio(me.per_game, mean_per_game),
        "win_share": me.win_share,
        "moves": [e.move_times for e in sim.entries if e.bot == measured and e.move_times is not None],
    }


def interval(r: dict) -> str:
    if r["mean"] is None:
        return "undefined"
    if r["ci95"] is None:
        return f"{r['mean']:.3f}"
    return f"{r['mean']:.3f} ({r['ci95'][0]:.3f}-{r['ci95'][1]:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="hard,mcs100,heuristic,medium,random")
    parser.add_argument("--tables", default=None, help="which tables (opponent kinds and/or mixed; default all)")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--players", type=int, default=5)
    args = parser.parse_args()
    bots = args.bots.split(",")
    measured, rest = bots[0], bots[1:]
    n = args.players
    tables = {kind: [measured] + [kind] * (n - 1) for kind in rest}
    tables["mixed"] = [measured] + [rest[i % len(rest)] for i in range(n - 1)]
    chosen = args.tables.split(",") if args.tables else list(tables)
    print(f"{measured} against four of each, {args.games} games per table, seed {args.seed}, jobs {args.jobs}")
    print(f"{'table':<34} {measured + ' pts/rnd':>14} {'others':>13} {'ratio to others':>22} "
          f"{'ratio to table mean':>22} {'win share':>14}")
    for name in chosen:
        seats = tables[name]
        start = time.perf_counter()
        sim = simulate(Settings(n), seats, args.games, args.seed, jobs=args.jobs, times=True)
        f = table_figures(sim, measured)
        me, others, win = f["bot"], f["others"], f["win_share"]
        label = f"{name} ({f['games']} games, {f['rounds']} rounds)"
        print(
            f"{label:<34} {me.mean:>7.2f} ± {me.half_width:<4.2f} {others.mean:>6.2f} ± {others.half_width:<4.2f} "
            f"{interval(f['to_others']):>22} {interval(f['to_mean']):>22} "
            f"{100 * win.mean:>6.1f}% ± {100 * win.half_width:<4.1f}%"
        )
        times = sorted(t for m in f["moves"] for t in m.seconds)
        if times:
            print(f"{'':<34} {measured} move times: median {percentile(times, 0.5):.3f} s, "
                  f"p99 {percentile(times, 0.99):.3f} s, max {times[-1]:.3f} s ({len(times)} decisions, "
                  f"{time.perf_counter() - start:.0f} s)")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
