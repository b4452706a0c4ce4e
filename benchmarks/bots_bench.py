"""Bot speed: the wall-clock time of each decision, and the deals a search bot samples. Prints figures; asserts nothing.

    python benchmarks/bots_bench.py [--bot hard] [--players 5 10] [--games N]
                                    [--rollouts N | --budget SECONDS] [--seed S]

One bot of kind --bot sits at a table of heuristic bots and plays whole
games (to 66) through `play_game`; every choose_card and choose_row it
makes is timed. Printed per table size: decisions, median, 90th and 99th
percentile and maximum seconds, and for search bots the mean and
minimum deals sampled per card decision (a decision with one card left
samples none and is left out of the deal figures). One process, one core.

First, rollout speed at equal work (`--states`): rest-of-round playouts
with every seat on the heuristic rule from the same random mid-round
states, by the plain-Python loop (`rollout.play_out`, what the search ran
before the kernel) and by the numpy kernel (`kernel.play_out`, batches of
up to `--batch` tables, the states of one stage of a round together), in
playouts per CPU second (process time). On a shared machine each figure
is the best of `--repeat` runs, the two kinds run alternately.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

import numpy as np

from p2pnimmt.bots import kernel, make_bot, searches
from p2pnimmt.bots.match import deal_order, play_game
from p2pnimmt.bots.rollout import play_out as python_play_out
from p2pnimmt.engine import BULL_HEADS, HAND_SIZE, ROW_COUNT, Game, Settings
from p2pnimmt.simulate import percentile


class Clocked:
    """Times a bot's decisions; keeps the deals a search bot sampled for each card."""

    def __init__(self, bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.card_seconds: list[float] = []
        self.row_seconds: list[float] = []
        self.deals: list[int] = []
        self.playouts: list[int] = []
        self.cpu: list[float] = []

    def choose_card(self, view):
        start = time.perf_counter()
        cpu = time.thread_time()
        card = self.bot.choose_card(view)
        self.card_seconds.append(time.perf_counter() - start)
        if len(view.hand) > 1 and hasattr(self.bot, "last_deals"):
            self.deals.append(self.bot.last_deals)
            self.playouts.append(getattr(self.bot, "last_playouts", 0))
            self.cpu.append(time.thread_time() - cpu)
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


def mid_round_states(players: int, count: int, seed: int) -> list[tuple[Game, int]]:
    """`count` rounds after 0..4 random turns (a playout then has 6 to 10 turns left)."""
    rng = random.Random(f"bots-bench/states/{seed}")
    states = []
    for i in range(count):
        game = Game(Settings(players))
        game.start_round(deal_order(rng, game.deck, HAND_SIZE * players + ROW_COUNT))
        rnd = game.round
        assert rnd is not None
        turns = i % 5
        for _ in range(turns):
            plays = [h[int(rng.random() * len(h))] for h in rnd.hands]
            rnd.play_turn(plays, 0 if rnd.chooser(plays) is not None else None)
        states.append((game, turns))
    return states


def rollout_speed(players: int, count: int, batch: int, seed: int, repeat: int = 1) -> tuple[float, float]:
    """Playouts per CPU second, the best of `repeat` runs: the plain-Python loop, the kernel (same states,
    same policy)."""
    states = mid_round_states(players, count, seed)
    python_rate = kernel_rate = 0.0
    for _ in range(repeat):
        python_rate = max(python_rate, python_speed(states))
        kernel_rate = max(kernel_rate, kernel_speed(states, players, batch, seed))
    return python_rate, kernel_rate


def python_speed(states: list[tuple[Game, int]]) -> float:
    start = time.process_time()
    for game, _ in states:
        rnd = game.round
        assert rnd is not None
        python_play_out([r[:] for r in rnd.rows], [sorted(h) for h in rnd.hands], [[] for _ in rnd.hands],
                        sorted(set(game.deck) - rnd.seen))
    return len(states) / (time.process_time() - start)


def kernel_speed(states: list[tuple[Game, int]], players: int, batch: int, seed: int) -> float:
    count = len(states)
    rng = np.random.default_rng(seed)
    groups: dict[int, list[Game]] = {}
    for game, turns in states:
        groups.setdefault(turns, []).append(game)
    batches = []  # built before the clock starts: the search builds its batches from one view, not from games
    for games in groups.values():
        for at in range(0, len(games), batch):
            chunk = games[at : at + batch]
            n = len(chunk)
            rounds = [g.round for g in chunk]
            tables = kernel.Tables(
                np.array([[r[-1] for r in rnd.rows] for rnd in rounds]),
                np.array([[len(r) for r in rnd.rows] for rnd in rounds]),
                np.array([[sum(BULL_HEADS[c] for c in r) for r in rnd.rows] for rnd in rounds]),
                np.zeros((n, players), dtype=np.int64),
            )
            hands = np.array([[sorted(h) for h in rnd.hands] for rnd in rounds])
            alive = np.zeros((n, kernel.GONE + 1), dtype=bool)
            for i, (g, rnd) in enumerate(zip(chunk, rounds)):
                alive[i, sorted(set(g.deck) - rnd.seen)] = True
            batches.append((tables, hands, alive, np.zeros((n, players))))
    start = time.process_time()
    for tables, hands, alive, temps in batches:
        kernel.play_out(tables, hands, rng, alive=alive, temps=temps)
    return count / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="hard", help="the bot to time (default hard)")
    parser.add_argument("--players", type=int, nargs="+", default=[5, 10], help="table sizes (default 5 10)")
    parser.add_argument("--games", type=int, default=5, help="games per table size (default 5)")
    parser.add_argument("--rollouts", type=int, default=None, help="search bots: deals per decision")
    parser.add_argument("--budget", type=float, default=None, help="search bots: seconds per decision")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--states", type=int, default=4000, help="playouts per rollout-speed figure (0: skip)")
    parser.add_argument("--batch", type=int, default=1280, help="kernel playouts per batch at most (default 1280)")
    parser.add_argument("--repeat", type=int, default=3, help="rollout speed: the best of this many runs (default 3)")
    args = parser.parse_args()
    if args.states:
        print(f"rollout speed, {args.states} playouts from mid-round states, heuristic rule for every seat "
              f"(best of {args.repeat}; load {os.getloadavg()[0]:.2f}):")
        for players in args.players:
            before, after = rollout_speed(players, args.states, args.batch, args.seed, args.repeat)
            print(f"  {players} players: plain Python {before:,.0f} playouts per CPU second, "
                  f"kernel {after:,.0f} ({after / before:.1f}x)")
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
    for players in args.players if args.games else ():
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
        playouts = sum(p for b in timed for p in b.playouts)
        cpu = sum(c for b in timed for c in b.cpu)
        if playouts and cpu:
            print(f"  playouts (deals x candidates) per card decision: mean {playouts / len(deals):.0f}; "
                  f"{playouts / cpu:,.0f} per CPU second of its decisions (sampling and pruning included)")


if __name__ == "__main__":
    main()
