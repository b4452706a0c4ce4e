"""Instructions (valgrind) of one seeded in-memory game per peer per turn: a measure the machine's load does not move.
Prints; asserts nothing.

    python benchmarks/instructions_bench.py [--seats 10] [--rounds 2] [--deal open] [--against COMMIT ...] [--no-layers-memo]

The game is turn_cpu_bench's (tests/protocol/harness.py: random bots, relayed copies delivered, every peer writing
its transcript and checking every signature itself), with its seeds fixed and PYTHONHASHSEED=0, so the same tree
plays the same game to the instruction: two runs agree within about 0.1 %. It runs under valgrind's cachegrind tool
(no cache simulation) twice, once up to the game's start (the imports and the sessions made) and once to its end;
the difference is the game's, divided by the peers and the turns. Every tree named by --against (a commit, unpacked
with `git archive` into a folder of its own and run with PYTHONPATH at it) plays the same game, one after the other.
About half of an open game's instructions are libsodium's Ed25519 checks (the same in every tree): a change to the
session shows as a change of the rest. On this machine a 10-seat game of 2 rounds takes about 20 s a run.
--no-layers-memo switches off the memo of X25519 batches (sealed_group.layers_memo) that the peers of one process
share, so that each peer's sealed audit applies every layer itself, as a peer in a process of its own does.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GAME = """
import sys
sys.path.insert(0, "tests/protocol")
from harness import Net
from p2pnimmt.engine import Settings
from p2pnimmt.protocol import envelope, identity, sealed_group
seats, rounds, deal, play = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4] == "play"
sealed_group.layers_memo = sys.argv[5] == "memo"
settings = Settings(players=seats, max_rounds=rounds, point_limit=None, deal=deal)
net = Net(seats, settings=settings, bots="random", seed=0, spectators=0, shuffle_delivery=False)
envelope.verify = identity.verify_unmemoized  # every peer checks every signature, as separate processes do
if play:
    net.start()
    net.run()
    assert next(iter(net.sessions.values())).phase == "over"
"""


def instructions(tree: Path, seats: int, rounds: int, deal: str, play: bool, memo: bool = True) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(tree)}
    out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                          sys.executable, "-c", GAME, str(seats), str(rounds), deal, "play" if play else "setup",
                          "memo" if memo else "no-memo"],
                         cwd=tree, env=env, capture_output=True, text=True, check=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--deal", default="open", choices=["open", "sealed"])
    parser.add_argument("--against", nargs="*", default=[], help="commits to measure too (git archive)")
    parser.add_argument("--no-layers-memo", action="store_true",
                        help="each peer its own X25519 batches (sealed_group.layers_memo off), as separate processes")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    trees = [("this tree", ROOT)]
    with tempfile.TemporaryDirectory() as tmp:
        for commit in args.against:
            folder = Path(tmp) / commit
            folder.mkdir()
            archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
            trees.append((commit, folder))
        turns = args.rounds * 10
        for name, tree in trees:
            memo = not args.no_layers_memo
            game = instructions(tree, args.seats, args.rounds, args.deal, True, memo) - \
                instructions(tree, args.seats, args.rounds, args.deal, False, memo)
            print(f"{name}: {args.deal} deal, {args.seats} seats, {args.rounds} rounds: {game / 1e9:.4f}e9 instructions "
                  f"in the game, {game / args.seats / turns / 1e6:.2f}e6 per peer per turn")


if __name__ == "__main__":
    main()
