"""Protocol CPU per peer per turn with each peer ALONE in its own process, as each player's node is: the reference's
side of web/peer/test/bench_alone.ts. Prints one JSON line; asserts nothing.

    python benchmarks/turn_cpu_alone.py [--seats 10] [--deal open] [--rounds 4] [--seed 0] [--keep FILE [--only-record]]

One game as benchmarks/turn_cpu_bench.py plays it (tests/protocol/harness.py, random bots, every signature checked
by each peer, the layers memo off), every peer's calls (its receives and moves, in order, with their arguments)
written down; then each peer plays its game again in a fresh Python process of its own (the same seed: the same
identity, the same entropy, so the same bytes out), with no other session in it. Its figure: the process's CPU
(time.process_time: Python runs the session on one thread, so that is the whole process's) from its first call to
its last, the loop that hands it the calls included (a list walked: next to nothing), the clock read at those two ends
only, as web/peer/test/bench_alone.ts reads the TypeScript node's (no clock inside the game on either side; issue 25's
twenty-second sitting). With --per-call each call is timed too and the sum of its calls alone printed (that clock's
reads then in the whole figure). Printed: {seats, deal, rounds, turns, busiest_ms_per_turn, mean_ms_per_turn,
per_node, calls_busiest_ms_per_turn, calls_mean_ms_per_turn, startup_ms} (the calls' figures null without --per-call;
startup_ms: the mean peer's process CPU before its game, imports and table included).
"""

from __future__ import annotations

import argparse
import json
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "protocol"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Net  # noqa: E402
from turn_cpu_bench import TIMED  # noqa: E402

from p2pnimmt.engine import HAND_SIZE, Settings  # noqa: E402
from p2pnimmt.protocol import envelope, sealed_group  # noqa: E402
from p2pnimmt.protocol.identity import verify_unmemoized  # noqa: E402

Call = tuple[str, tuple[Any, ...], dict[str, Any]]


def table(seats: int, deal: str, rounds: int, seed: int) -> Net:
    """turn_cpu_bench's table: every peer checks every signature itself, no layers shared."""
    envelope.verify = verify_unmemoized
    sealed_group.layers_memo = False
    settings = Settings(players=seats, max_rounds=rounds, point_limit=None, deal=deal)
    return Net(seats, settings=settings, bots="random", seed=seed, spectators=0, shuffle_delivery=False)


def noting(name: str, method: Any, log: list[Call], depth: list[int]) -> Any:
    """`method` that notes its call in `log` unless made inside another noted call of the session."""
    def noted(*args: Any, **kwargs: Any) -> Any:
        if not depth[0]:
            log.append((name, args, kwargs))
        depth[0] += 1
        try:
            return method(*args, **kwargs)
        finally:
            depth[0] -= 1

    return noted


def recorded(seats: int, deal: str, rounds: int, seed: int) -> tuple[list[list[Call]], int]:
    """Each peer's calls in order (a call made inside another's is part of it), and the game's turns."""
    net = table(seats, deal, rounds, seed)
    logs: list[list[Call]] = []
    for session in net.sessions.values():
        log: list[Call] = []
        depth = [0]
        for name in TIMED:
            setattr(session, name, noting(name, getattr(session, name), log, depth))
        logs.append(log)
    net.start()
    net.run()
    session = next(iter(net.sessions.values()))
    assert session.phase == "over", session.phase
    return logs, session.game.rounds_played * HAND_SIZE


def alone(seats: int, deal: str, rounds: int, seed: int, index: int, calls: list[Call],
          whole_game: bool = True, per_call: bool = False) -> tuple[float, float | None, float, int]:
    """(whole, calls, start-up, preempted): CPU ms of peer `index` replaying its calls alone in this process
    (`whole_game`: all of them, the game's end checked; `per_call`: each call timed too, else calls is None and the
    clock is read at the ends only; start-up: the process's CPU before the game, its imports and table included), and
    the times the game was preempted (involuntary context switches: on a loaded machine each one costs the caches'
    refill, docs/benchmarks.md's sitting of session 40)."""
    session = list(table(seats, deal, rounds, seed).sessions.values())[index]
    methods = [getattr(session, name) for name, _, _ in calls]
    spent = 0.0
    switches = resource.getrusage(resource.RUSAGE_SELF).ru_nivcsw
    start = time.process_time()
    if per_call:
        for method, (_, args, kwargs) in zip(methods, calls):
            t = time.process_time()
            method(*args, **kwargs)
            spent += time.process_time() - t
    else:
        for method, (_, args, kwargs) in zip(methods, calls):
            method(*args, **kwargs)
    whole = time.process_time() - start
    switches = resource.getrusage(resource.RUSAGE_SELF).ru_nivcsw - switches
    assert session.phase == "over" or not whole_game, session.phase
    return whole * 1e3, spent * 1e3 if per_call else None, start * 1e3, switches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--deal", default="open", choices=["open", "sealed"])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", metavar="FILE", help="also write every peer's calls to FILE (a pickle; to replay one "
                        "peer alone by hand, e.g. under valgrind: --peer N --calls FILE [--limit N])")
    parser.add_argument("--per-call", action="store_true", help="also time each call (its clock then in the figure)")
    parser.add_argument("--only-record", action="store_true", help="with --keep: play the game and write its calls, "
                        "replay no peer, print {turns} (benchmarks/peer_cpu_bench.py replays each peer itself, in turn "
                        "with the TypeScript nodes)")
    parser.add_argument("--peer", type=int, help=argparse.SUPPRESS)  # a child: this peer's replay
    parser.add_argument("--calls", help=argparse.SUPPRESS)  # a child: the file of every peer's calls
    parser.add_argument("--limit", type=int, help=argparse.SUPPRESS)  # a child: its first N calls only (valgrind)
    args = parser.parse_args()
    if args.only_record and not args.keep:
        parser.error("--only-record writes the calls to --keep FILE: give it")
    if args.peer is not None:
        logs = pickle.loads(Path(args.calls).read_bytes())
        print(json.dumps(alone(args.seats, args.deal, args.rounds, args.seed, args.peer,
                               logs[args.peer][:args.limit], args.limit is None, args.per_call)))
        return
    logs, turns = recorded(args.seats, args.deal, args.rounds, args.seed)
    if args.keep:
        Path(args.keep).write_bytes(pickle.dumps(logs))
        if args.only_record:
            print(json.dumps({"turns": turns}))
            return
    with tempfile.NamedTemporaryFile(suffix=".pickle") as file:
        file.write(pickle.dumps(logs))
        file.flush()
        figures = [json.loads(subprocess.run(
            [sys.executable, __file__, "--seats", str(args.seats), "--deal", args.deal, "--rounds", str(args.rounds),
             "--seed", str(args.seed), "--peer", str(i), "--calls", file.name] + (["--per-call"] if args.per_call else []),
            capture_output=True, text=True, check=True, timeout=600).stdout) for i in range(len(logs))]
    whole = [w / turns for w, _, _, _ in figures]
    own = [c / turns for _, c, _, _ in figures if c is not None]
    print(json.dumps({"seats": args.seats, "deal": args.deal, "rounds": args.rounds, "turns": turns,
                      "busiest_ms_per_turn": max(whole), "mean_ms_per_turn": sum(whole) / len(whole),
                      "per_node": whole, "calls_busiest_ms_per_turn": max(own) if own else None,
                      "calls_mean_ms_per_turn": sum(own) / len(own) if own else None,
                      "startup_ms": sum(s for _, _, s, _ in figures) / len(figures)}))


if __name__ == "__main__":
    main()
