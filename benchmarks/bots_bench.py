"""Bot speed: the wall-clock time of each decision, and the deals a search bot samples. Prints figures; asserts nothing.

    python benchmarks/bots_bench.py [--bot hard] [--players 5 10] [--games N]
                                    [--rollouts N | --budget SECONDS] [--seed S]

One bot of kind --bot sits at a table of heuristic bots and plays whole
games (to 66) through `play_game`; every choose_card and choose_row it
makes is timed. Printed per table size: decisions, median, 90th and 99th
percentile and maximum seconds, and for search bots the mean and
minimum deals sampled per card decision (a decision with one card left
samples none and is left out of the deal figures). One process, one core.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

from p2pnimmt.bots import make_bot, searches
from p2pnimmt.bots.match import play_game
from p2pnimmt.engine import Settings
from p2pnimmt.simulate import percentile


class Clocked:
    """Times a bot's decisions; keeps the deals a search bot sampled for each card."""

    def __init__(self, bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.card_seconds: list[float] = []
        self.row_seconds: list[float] = []
        self.deals: list[int] = []

    def choose_card(self, view):
        start = time.perf_counter()
        card = self.bot.choose_card(view)
        self.card_seconds.append(time.perf_counter() - start)
        if len(view.hand) > 1 and hasattr(self.bot, "last_deals"):
            self.deals.append(self.bot.last_deals)
        return card

    def choose_row(self, view, plays):
        start = time.perf_counter()
        row = self.bot.choose_row(view, plays)
        self.row_seconds.append(time.perf_counter() - start)
        return row

    def choose_pick(self, view):
        return self.bot.choose_pick(view)


def figures(seconds: list[float]) -> str:
    s = sorted(seconds)
    return (
        f"{len(s):>6} decisions  median {percentile(s, 0.5):.3f} s  p90 {percentile(s, 0.9):.3f} s  "
        f"p99 {percentile(s, 0.99):.3f} s  max {s[-1]:.3f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="hard", help="the bot to time (default hard)")
    parser.add_argument("--players", type=int, nargs="+", default=[5, 10], help="table sizes (default 5 10)")
    parser.add_argument("--games", type=int, default=5, help="games per table size (default 5)")
    parser.add_argument("--rollouts", type=int, default=None, help="search bots: deals per decision")
    parser.add_argument("--budget", type=float, default=None, help="search bots: seconds per decision")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    options = {k: v for k, v in (("rollouts", args.rollouts), ("budget", args.budget)) if v is not None}
    if not searches(args.bot):
        options = {}
    probe = make_bot(args.bot, 0, **options)
    mode = ""
    if searches(args.bot):
        mode = f", {probe.rollouts} deals" if probe.rollouts is not None else f", budget {probe.budget} s"
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus, "
        f"load {os.getloadavg()[0]:.2f}; bot {args.bot}{mode} vs heuristic bots, {args.games} games per table"
    )
    for players in args.players:
        settings = Settings(players)
        timed = []
        rng = random.Random(f"bots-bench/{args.seed}/{players}")
        start = time.perf_counter()
        for g in range(args.games):
            bot = Clocked(make_bot(args.bot, f"bots-bench/{args.seed}/{g}", **options))
            others = [make_bot("heuristic", f"bots-bench/{args.seed}/{g}/{i}") for i in range(players - 1)]
            seat = g % players
            play_game(settings, others[:seat] + [bot] + others[seat:], rng)
            timed.append(bot)
        wall = time.perf_counter() - start
        cards = [t for b in timed for t in b.card_seconds]
        rows = [t for b in timed for t in b.row_seconds]
        both = cards + rows
        print(f"{players} players ({wall:.0f} s):")
        print(f"  all   {figures(both)}")
        print(f"  cards {figures(cards)}")
        if rows:
            print(f"  rows  {figures(rows)}")
        deals = [d for b in timed for d in b.deals]
        if deals:
            print(
                f"  deals per card decision: mean {statistics.fmean(deals):.0f}, "
                f"median {statistics.median(deals):.0f}, min {min(deals)}, max {max(deals)}"
            )


if __name__ == "__main__":
    main()
