"""What grinding a game code costs (issue 22 item 5; protocol.md 14, "The game code").

A stranger who wants its own game to answer another game's code tries salts (its game id is bound to its key
and a salt it draws, section 8) until the code drawn from the game id is the one wanted: 2^20 tries expected
for one given code (20 bits). Before issue 22 the code was the game id's first 20 bits, one SHA-256 per try;
now it is scrypt(game id) with N = 2^15, r = 8, p = 1 (32 MiB), one scrypt per try. This prints, for one core of
this machine: tries per second both ways, and the expected time to grind one code, to a 50 % chance, and to
cover every code ahead (a table of salts for all 2^20 codes: ~2^20 ln 2^20 tries).

    python benchmarks/code_grind_bench.py [--seconds S]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from p2pnimmt.protocol.gamecode import CODE_N, CODE_P, CODE_R, game_code  # noqa: E402
from p2pnimmt.protocol.identity import Identity, game_id_for  # noqa: E402

CODES = 2**20


def rate(step, seconds: float) -> float:
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step(count)
        count += 1
    return count / (time.perf_counter() - start)


def hours(tries: float, per_second: float) -> str:
    secs = tries / per_second
    return f"{secs:,.1f} s" if secs < 3600 else f"{secs / 3600:,.1f} core-hours"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0, help="measure each way this long (default 5)")
    args = parser.parse_args()
    key = Identity.generate().public_key
    old = rate(lambda i: game_id_for(key, i.to_bytes(16, "big"))[:3], args.seconds)
    new = rate(lambda i: game_code.__wrapped__(game_id_for(key, i.to_bytes(16, "big"))), args.seconds)
    memory = 128 * CODE_R * CODE_N * CODE_P / 2**20
    print(f"one core of this machine; scrypt N={CODE_N}, r={CODE_R}, p={CODE_P} ({memory:.0f} MiB a try)")
    for label, per_second in (("before (SHA-256 game id, first 20 bits)", old), ("now (scrypt of the game id)", new)):
        print(f"{label}: {per_second:,.1f} tries/s")
        print(f"  one given code, expected {CODES:,} tries: {hours(CODES, per_second)}; "
              f"50 % chance ({math.log(2) * CODES:,.0f} tries): {hours(math.log(2) * CODES, per_second)}")
        every = CODES * math.log(CODES)
        print(f"  a table for every code ahead ({every:,.0f} tries): {hours(every, per_second)}")


if __name__ == "__main__":
    main()
