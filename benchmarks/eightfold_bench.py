"""The cost of the sealed deal's arrival check for values that differ by a small-order point (protocol.md 17.1,
"eightfolds"; session 28): eightfolds of one list of 104 values (a standard deck's shuffle output, the dealt values
of a ten-seat unlock) against 104 X25519 on that list with a fresh clamped scalar (libsodium, the reference's
backend), each the median of RUNS runs. A node checks every other shuffling seat's shuffle and unlock: 2(k - 1)
lists a round.

    python benchmarks/eightfold_bench.py [RUNS]
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nacl.bindings import crypto_scalarmult  # noqa: E402

from p2pnimmt.protocol import sealed_group as g  # noqa: E402
from p2pnimmt.protocol.sealed import initial_deck  # noqa: E402


def timed(fn, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    deck = initial_deck(range(1, 105))
    key = g.clamp(os.urandom(32))
    folds = timed(lambda: g.eightfolds(deck), runs)
    layers = timed(lambda: [crypto_scalarmult(key, v) for v in deck], runs)
    print(f"eightfolds of 104 values: {folds:.2f} ms; 104 X25519 (libsodium): {layers:.2f} ms; "
          f"a ten-seat round's checks (18 lists): {18 * folds:.0f} ms; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
