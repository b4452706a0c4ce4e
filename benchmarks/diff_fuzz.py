"""The differential fuzzer's long run: both verifiers of protocol.md on many structurally mutated transcripts.

    python benchmarks/diff_fuzz.py [--cases N] [--seed S] [--game NAME ...] [--mutation NAME ...] [--show K]

tests/peer/difffuzz.py makes each case (a game of tests/protocol/harness.py taken apart, one of its MUTATIONS
applied, the messages re-signed with their seats' keys and the file resealed with the recorder's); the reference's
verify_transcript and the TypeScript verifier (web/peer/test/verify_lines.ts, compiled here by tsc into a scratch
folder inside web/peer) judge it: the verdict, its record, words and peer, and every fault the replay found on the
way (record, code, peer, detail, fatal, in order) and the scores it reached. Prints one line per game and mutation
(cases, how many verified, how many differ), the verdicts reached, the faults found along the way, then the first K
disagreements of each, and exits 1 if any. tests/peer/test_difffuzz_agrees.py runs a
bounded number of the same cases in CI, through hypothesis.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "peer"))

from difffuzz import GAMES, MUTATIONS, Seeded, TypeScript, base_game, difference  # noqa: E402

PEER = ROOT / "web" / "peer"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000, help="cases in all (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="the first case's seed (default 0)")
    parser.add_argument("--game", action="append", choices=sorted(GAMES), help="only these games (repeatable)")
    parser.add_argument("--mutation", action="append", choices=sorted(MUTATIONS),
                        help="only these mutations (repeatable)")
    parser.add_argument("--show", type=int, default=3, help="disagreements printed per game and mutation")
    args = parser.parse_args()
    node = shutil.which("node")
    if node is None:
        sys.exit("node is not installed")
    out = PEER / "dist" / f"diff-fuzz-{int(time.time())}"
    subprocess.run([node, str(PEER / "node_modules" / "typescript" / "bin" / "tsc"), "-p", "tsconfig.json",
                    "--outDir", str(out)], cwd=PEER, check=True)
    games, mutations = args.game or sorted(GAMES), args.mutation or sorted(MUTATIONS)
    cases: Counter[tuple[str, str]] = Counter()
    verified: Counter[tuple[str, str]] = Counter()
    kinds: Counter[str] = Counter()  # the kinds of verdict reached: how deep the cases go
    found: Counter[str] = Counter()  # the faults the replays found along the way (compared one by one)
    differ: dict[tuple[str, str], list[str]] = {}
    typescript = TypeScript(node, out)
    started = time.monotonic()
    try:
        for n in range(args.seed, args.seed + args.cases):
            draws = Seeded(n)
            name, mutation = draws.choice(games), draws.choice(mutations)
            data = MUTATIONS[mutation](base_game(name), draws)
            theirs = typescript.answer(data)
            cases[name, mutation] += 1
            verified[name, mutation] += bool(theirs.get("ok"))
            kinds["verified" if theirs.get("ok") else str(theirs.get("text")).split(":")[0].split(" (")[0][:60]] += 1
            found.update(f"{'fatal' if fault[4] else 'non-fatal'} {fault[1]}" for fault in theirs.get("found") or [])
            problem = difference(data, theirs)
            if problem:
                differ.setdefault((name, mutation), []).append(f"seed {n}: {problem}")
                print(f"seed {n} ({name}, {mutation}) differs", flush=True)
            if (n - args.seed + 1) % 250 == 0:
                print(f"{n - args.seed + 1} cases, {sum(len(v) for v in differ.values())} differ, "
                      f"{time.monotonic() - started:.0f} s", flush=True)
    finally:
        typescript.close()
        shutil.rmtree(out, ignore_errors=True)
    for key in sorted(cases):
        print(f"{key[0]:12} {key[1]:10} {cases[key]:6} cases {verified[key]:6} verified "
              f"{len(differ.get(key, [])):6} differ")
    print("\nverdicts reached:")
    for kind, n in kinds.most_common():
        print(f"{n:7}  {kind}")
    print(f"\nfaults the replays found along the way ({sum(found.values())}, each compared):")
    for kind, n in found.most_common():
        print(f"{n:7}  {kind}")
    for key, lines in sorted(differ.items()):
        print(f"\n{key[0]} {key[1]}: {len(lines)} differ")
        for line in lines[: args.show]:
            print("  " + line)
    print(f"\n{sum(cases.values())} cases, {sum(len(v) for v in differ.values())} differ, "
          f"{time.monotonic() - started:.0f} s")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
