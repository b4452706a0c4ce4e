"""Cross-play: one bot against four copies of each level, and at a mixed table. Prints figures; asserts nothing.

    python benchmarks/bots_matrix.py [--bots hard,mcs100,heuristic,medium,random] [--tables mcs100,mixed]
                                     [--games G] [--seed S] [--jobs J] [--players 5]

The same report as `p2pnimmt simulate --matrix BOTS` (`p2pnimmt.matrix`,
which says what each figure is), with move times, and --tables to play
only some of its tables (opponent kinds and/or `mixed`, in that order).
"""

from __future__ import annotations

import argparse

from p2pnimmt.engine import Settings
from p2pnimmt.matrix import FOOTER, header, row, run_matrix


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
    settings = Settings(args.players)
    print(header(bots, settings, args.games, args.seed), flush=True)
    run_matrix(settings, bots, args.games, args.seed, tables=args.tables.split(",") if args.tables else None,
               jobs=args.jobs, times=True, done=lambda r: print(row(r), flush=True))
    print(FOOTER)


if __name__ == "__main__":
    main()
