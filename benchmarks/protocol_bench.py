"""Protocol cost in memory: per-turn overhead (sign, verify, hash) and whole 10-player games per second.

    python benchmarks/protocol_bench.py [--games N]

Sessions are linked in memory (no sockets): what is measured is the
protocol's own work. Relayed copies are delivered too, as on a real mesh.
Per-operation figures are CPU time (time.process_time); whole games print
CPU time next to wall time and the load average, since wall seconds on a
loaded machine say little. Every peer in one process checks each signature
once (the memo): benchmarks/turn_cpu_bench.py measures a turn per peer with
every peer checking every signature. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "protocol"))

from harness import Net  # noqa: E402

from p2pnimmt.protocol.envelope import NO_PREVIOUS, open_envelope, seal  # noqa: E402
from p2pnimmt.protocol.identity import Identity, verify_unmemoized  # noqa: E402


def per_operation() -> None:
    ident = Identity(bytes(32))
    env = seal(ident, bytes(16), 0, NO_PREVIOUS, "PLAY_COMMIT",
               {"round": 0, "turn": 0, "commit": bytes(32), "state": bytes(32)})
    n = 2000
    t = time.process_time()
    for i in range(n):
        seal(ident, bytes(16), i, NO_PREVIOUS, "PLAY_COMMIT", {"round": 0, "turn": 0, "commit": bytes(32), "state": bytes(32)})
    sign_us = (time.process_time() - t) / n * 1e6
    t = time.process_time()
    for _ in range(n):
        verify_unmemoized(ident.public_key, env.signature, b"p2pnimmt/message/v1" + env.signed)
    verify_us = (time.process_time() - t) / n * 1e6
    t = time.process_time()
    for _ in range(n):
        open_envelope(env.wire)
    open_us = (time.process_time() - t) / n * 1e6
    t = time.process_time()
    for _ in range(n):
        hashlib.sha256(env.signed).digest()
    hash_us = (time.process_time() - t) / n * 1e6
    print(f"one message ({len(env.wire)} bytes): seal+sign {sign_us:.0f} us, verify {verify_us:.0f} us, "
          f"decode {open_us:.1f} us, hash {hash_us:.1f} us")
    for players in (2, 5, 10):
        # Per turn each peer signs 2 messages (commit, reveal) and verifies the other 2(n-1).
        cost = 2 * sign_us + 2 * (players - 1) * (verify_us + open_us + hash_us)
        print(f"{players:>2} players: protocol work per peer per turn (sign 2, verify {2 * (players - 1)}): "
              f"{cost / 1000:.2f} ms")


def games(players: int, count: int) -> None:
    turns = messages = deliveries = 0
    start, wall = time.process_time(), time.perf_counter()
    for seed in range(count):
        net = Net(players, seed=seed, spectators=0)
        net.start()
        net.run()
        session = next(iter(net.sessions.values()))
        assert session.phase == "over", session.phase
        turns += session.game.rounds_played * 10
        messages += len(session.journal.messages)
        deliveries += net.delivered
    seconds, wall = time.process_time() - start, time.perf_counter() - wall
    print(f"{players:>2} players: {count / seconds:6.2f} games per CPU second ({count / wall:.2f} per wall second, "
          f"load average {os.getloadavg()[0]:.2f}), {seconds / turns * 1e3:6.2f} ms CPU per turn "
          f"(every peer's work in one process), {messages / count:.0f} messages and {deliveries / count:.0f} "
          f"deliveries per game")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="games per player count (default 5)")
    args = parser.parse_args()
    per_operation()
    for players in (2, 5, 10):
        games(players, args.games)


if __name__ == "__main__":
    main()
