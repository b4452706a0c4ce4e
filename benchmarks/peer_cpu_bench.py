"""CPU per peer per turn: TypeScript nodes under node next to the reference's figure of the same sitting (issue 25's
target: at 10 seats the TypeScript figure at most the Python one). Prints; asserts nothing.

    python benchmarks/peer_cpu_bench.py [--seats 10] [--deal open sealed] [--rounds 1] [--portable]

TypeScript: web/peer/test/bench.ts (compiled here with tsc into a scratch folder of web/peer/dist): SEATS signing
nodes in one node process, linked in memory, each checking every signature; the process's whole CPU time from the
START to the end over seats x turns (routing included: an upper bound). Ed25519 and X25519 on node's OpenSSL, as
`node peer.js verify` runs; with --portable also the code a browser runs (@noble/curves), on node.
Python: benchmarks/turn_cpu_bench.py with the same seats, deal and rounds, one game (its busiest peer).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEER = ROOT / "web" / "peer"


def typescript(seats: int, deal: str, rounds: int, native: bool, out: Path) -> dict:
    args = ["node", str(out / "test" / "bench.js"), str(seats), deal, str(rounds)] + (["native"] if native else [])
    done = subprocess.run(args, cwd=PEER, capture_output=True, text=True, timeout=3600, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--deal", nargs="+", default=["open", "sealed"], choices=["open", "sealed"])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--portable", action="store_true")
    args = parser.parse_args()
    out = PEER / "dist" / f"bench-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    subprocess.run(["node", str(PEER / "node_modules" / "typescript" / "bin" / "tsc"), "-p", "tsconfig.json",
                    "--outDir", str(out)], cwd=PEER, check=True, timeout=600)
    print(f"load average {os.getloadavg()[0]:.1f}")
    try:
        for deal in args.deal:
            for native in [True, False] if args.portable else [True]:
                r = typescript(args.seats, deal, args.rounds, native, out)
                print(f"TypeScript, {deal} deal, {args.seats} seats ({'OpenSSL' if native else 'portable'}): CPU per "
                      f"peer per turn {r['cpu_ms_per_peer_per_turn']:.2f} ms ({r['messages']} deliveries, game "
                      f"{r['wall_s']:.1f} s wall)", flush=True)
            python = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "turn_cpu_bench.py"), "--seats",
                                     str(args.seats), "--deal", deal, "--rounds", str(args.rounds), "--games", "1"],
                                    capture_output=True, text=True, timeout=3600, check=True)
            for line in python.stdout.splitlines():
                if "CPU per peer per turn" in line:
                    print(f"Python, {line.strip()}", flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
