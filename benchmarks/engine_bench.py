"""Engine speed: placements per second and whole games per second. Prints figures; asserts nothing.

    python benchmarks/engine_bench.py [--games N] [--repeat R]

Each figure is the best of R timed runs, timed in CPU seconds of this
process (time.process_time), so that other work on this noisy machine does
not count against the engine. One core: nothing here is parallel.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from p2pnimmt.bots import make_bot
from p2pnimmt.bots.match import deal_order, play_game
from p2pnimmt.engine import Round, RowChoiceRequired, Settings, resolve_turn


def best_rate(run, count: int, repeat: int) -> float:
    """The highest count per CPU second over `repeat` runs of `run()`."""
    best = 0.0
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = max(best, count / max(time.process_time() - start, 1e-9))
    return best


def recorded_turns(players: int, rounds: int, seed: int) -> list[tuple[list[list[int]], dict[int, int], int | None]]:
    """Real turns (rows before, plays, row choice) from random rounds, to replay through resolve_turn."""
    rng = random.Random(seed)
    turns = []
    for _ in range(rounds):
        rnd = Round.deal(deal_order(rng, range(1, 105), 10 * players + 4), players)
        while not rnd.over:
            plays = [h[int(rng.random() * len(h))] for h in rnd.hands]
            choice = int(rng.random() * 4)
            needed = rnd.chooser(plays) is not None
            turns.append(([list(r) for r in rnd.rows], dict(enumerate(plays)), choice if needed else None))
            rnd.play_turn(plays, choice if needed else None)
    return turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per timed run (default 1000)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per figure; the best counts (default 5)")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, best of {args.repeat} runs, "
          "per CPU second of one core")

    for players in (4, 10):
        turns = recorded_turns(players, 300, seed=players)
        placements = len(turns) * players

        def public() -> None:
            for rows, plays, choice in turns:
                resolve_turn(rows, plays, choice)

        rate = best_rate(public, placements, args.repeat)
        print(f"resolve_turn (validated, copying) {players:>2} players: {rate:>12,.0f} placements/s")

        def internal() -> None:
            rng = random.Random(1)
            for _ in range(300):
                rnd = Round.deal(deal_order(rng, range(1, 105), 10 * players + 4), players)
                while not rnd.over:
                    plays = [h[int(rng.random() * len(h))] for h in rnd.hands]
                    try:
                        rnd.play_turn(plays)
                    except RowChoiceRequired:
                        rnd.play_turn(plays, 0)

        rate = best_rate(internal, 300 * 10 * players, args.repeat)
        print(f"Round.play_turn (deal + random plays) {players:>2} players: {rate:>8,.0f} placements/s")

    for players, bot in ((4, "random"), (10, "random"), (4, "heuristic"), (10, "heuristic")):
        settings = Settings(players=players)
        bots = [make_bot(bot, seat) for seat in range(players)]
        rng = random.Random(7)
        games = args.games if bot == "random" else max(1, args.games // 10)
        rounds = []

        def run() -> None:
            for _ in range(games):
                rounds.append(play_game(settings, bots, rng).rounds_played)

        rate = best_rate(run, games, args.repeat)
        mean_rounds = sum(rounds) / len(rounds)
        print(f"full games to 66, {players:>2} {bot} bots: {rate:>8,.0f} games/s ({mean_rounds:.2f} rounds/game)")


if __name__ == "__main__":
    main()
