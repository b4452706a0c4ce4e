"""Protocol CPU per peer per turn with every peer a separate process on loopback. Prints; asserts nothing.

    python benchmarks/peers_cpu_bench.py [--seats 2 5 10] [--deal sealed] [--rounds 1 3] [--games 1]

A headless host and seats-1 headless joiners (random bots, --bot-delay 0,
everything bound to 127.0.0.1) play a game of R1 rounds, then one of R2
rounds; each process's CPU time (user + system, from wait4's rusage) is
read when it exits. The difference between the two games, divided by the
turns between them ((R2 - R1) x 10), is what a turn costs a peer: start-up,
imports, discovery and shutdown cancel out. A sealed deal's round-end audit
counts in it (each round has one). Printed with it: the signature floor of a
turn (2 signatures made and 2(n-1) checked, at the costs measured in this
process in this run, with the library the peers use), the ratio; with
--in-game also the floor with the round's own messages (open: SEED_COMMIT,
SEED_REVEAL, ROUND_END; sealed: SEALED_SHUFFLE, SEALED_UNLOCK, SEALED_KEYS,
ROUND_END) spread over its 10 turns, what a peer checks at least; each
game's wall time, peak RSS (the largest process's, and the median joiner's:
a headless seat), and the load average.

--gc-freeze starts each process through a wrapper that imports the node's
modules and calls gc.freeze() before the command runs: what a node would
save if the collector no longer scanned the objects of its imports.

--in-game plays one game of R2 rounds instead, each process reading its own
CPU time (time.process_time) when its game starts and when it is over, and
its RSS (VmRSS) when it is over: CPU per turn without the start-up's noise
(on a loaded machine a process's start-up varies by more than 20 turns cost).

--profile FILE runs the first joiner of the longer game under cProfile (CPU time) and
writes its stats to FILE (read them with `python -m pstats FILE`, or
--profile-top N prints the N costliest functions by own time); with --in-game,
from its game's start to its end only (a FILE ending in .samples: the Python stacks
sampled by SIGPROF, asked for every 0.5 ms of the process's CPU (the kernel
delivers them at its tick, about every 4 ms here), as JSON; `--profile-top N`
prints each function's share of the samples, inclusive and its own). --in-game also prints the kernel's share
of the CPU per turn (system time, os.times) and the minor page faults per peer per turn; --uvloop (with --in-game) runs
every process on uvloop's event loop instead of asyncio's.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from turn_cpu_bench import per_message  # the same sign and verify costs

from p2pnimmt.engine import HAND_SIZE
from p2pnimmt.protocol import identity

LO = ["--interface", "127.0.0.1"]


FREEZE = ("import gc, sys\nimport p2pnimmt.cli, p2pnimmt.app.host, p2pnimmt.app.join\ngc.freeze()\n"
          "sys.exit(p2pnimmt.cli.main(sys.argv[1:]))")
freeze = False


PROFILE = ("import cProfile, sys, time\nimport p2pnimmt.cli\nprofile = cProfile.Profile(time.process_time)\n"
           "code = profile.runcall(p2pnimmt.cli.main, sys.argv[2:])\nprofile.dump_stats(sys.argv[1])\nsys.exit(code)")


IN_GAME = ("import json, os, resource, sys, time\nimport p2pnimmt.cli\nfrom p2pnimmt.net.node import Node\n"
           "if os.environ.get('BENCH_UVLOOP'):\n"
           "    import asyncio, uvloop\n    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())\n"
           "from p2pnimmt.protocol.events import GameOver, GameStarted\nmarks = {}\nseen = Node._event\n"
           "profile = None\nif sys.argv[2].endswith('.samples'):\n"
           "    import collections, signal\n    stacks = collections.Counter()\n"
           "    def sample(signum, frame):\n"
           "        names = []\n"
           "        while frame is not None:\n"
           "            names.append('/'.join(frame.f_code.co_filename.split('/')[-2:]) + ':' + frame.f_code.co_qualname)\n"
           "            frame = frame.f_back\n"
           "        stacks[' < '.join(names)] += 1\n"
           "    class Sampler:\n"
           "        def enable(self):\n"
           "            signal.signal(signal.SIGPROF, sample)\n"
           "            signal.setitimer(signal.ITIMER_PROF, 0.0005, 0.0005)\n"
           "        def disable(self):\n"
           "            signal.setitimer(signal.ITIMER_PROF, 0, 0)\n"
           "        def dump_stats(self, path):\n"
           "            open(path, 'w').write(json.dumps(stacks))\n"
           "    profile = Sampler()\n"
           "elif sys.argv[2] != '-':\n"
           "    import cProfile\n    profile = cProfile.Profile(time.process_time)\n"
           "def _event(self, event):\n"
           "    if isinstance(event, (GameStarted, GameOver)):\n"
           "        name = type(event).__name__\n"
           "        if name not in marks:\n"
           "            marks[name] = time.process_time()\n"
           "            marks[name + '-sys'] = os.times().system\n"
           "            marks[name + '-faults'] = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
           "            if profile is not None:\n"
           "                profile.enable() if name == 'GameStarted' else profile.disable()\n"
           "        if isinstance(event, GameOver):\n"
           "            marks.setdefault('rss', int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0]))\n"
           "    seen(self, event)\n"
           "Node._event = _event\ncode = p2pnimmt.cli.main(sys.argv[3:])\n"
           "open(sys.argv[1], 'w').write(json.dumps(marks))\n"
           "if profile is not None:\n    profile.dump_stats(sys.argv[2])\nsys.exit(code)")
in_game = False


def p2p(*args: str, profile: Path | None = None, marks: Path | None = None) -> list[str]:
    if in_game and marks is not None:  # --profile with --in-game: the game only, from its start to its end
        return [sys.executable, "-c", IN_GAME, str(marks), str(profile or "-"), *args]
    if profile is not None:
        return [sys.executable, "-c", PROFILE, str(profile), *args]
    return [sys.executable, *(("-c", FREEZE) if freeze else ("-m", "p2pnimmt")), *args]


def wait_for(path: Path, pattern: str, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = re.search(pattern, path.read_text(errors="replace"))
        if m:
            return m
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    raise SystemExit(f"no {pattern!r} in {path}:\n{path.read_text(errors='replace')}")


def game(seats: int, deal: str, rounds: int, workdir: Path,
         profile: Path | None = None) -> tuple[list[float], float, list[float]]:
    """(CPU seconds per process, wall seconds from the host's start to the last exit, peak RSS MB per process)."""
    env = {**os.environ, "HOME": str(workdir), "XDG_DATA_HOME": str(workdir / "data"),
           "XDG_CONFIG_HOME": str(workdir / "config"), "XDG_STATE_HOME": str(workdir / "state")}
    tag = f"{deal}{seats}r{rounds}"
    outs = [workdir / f"{tag}-host.out"] + [workdir / f"{tag}-j{i}.out" for i in range(seats - 1)]
    common = ["--headless", *LO, "--bot", "random", "--drop-after", "0"]
    t0 = time.perf_counter()
    procs = [subprocess.Popen(p2p("host", *common, "--seats", str(seats), "--rounds", str(rounds), "--no-points",
                                  "--deal", deal, "--transcript", str(workdir / f"{tag}-host.p2pt"),
                                  marks=workdir / f"{tag}-host.json"),
                              stdout=open(outs[0], "wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              env=env)]
    code = wait_for(outs[0], r"code: (\w{4}-\w{4})", procs[0]).group(1)
    port = wait_for(outs[0], r"listening on 127\.0\.0\.1:(\d+)", procs[0]).group(1)
    for i in range(seats - 1):
        procs.append(subprocess.Popen(p2p("join", code, *common, "--peer", f"127.0.0.1:{port}",
                                          "--transcript", str(workdir / f"{tag}-j{i}.p2pt"),
                                          profile=profile if i == 0 else None, marks=workdir / f"{tag}-j{i}.json"),
                                      stdout=open(outs[i + 1], "wb"), stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, env=env))
    cpu, rss = [], []
    for proc, out in zip(procs, outs):
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"{out.name} exited {proc.returncode}:\n{out.read_text(errors='replace')[-2000:]}")
        cpu.append(usage.ru_utime + usage.ru_stime)
        rss.append(usage.ru_maxrss / 1024)
    return cpu, time.perf_counter() - t0, rss


def in_game_figures(seats: int, deal: str, rounds: int, workdir: Path, floor: float, round_floor: float,
                    profile: Path | None = None) -> None:
    """One game; each process's CPU between its game's start and its end, per turn; RSS at the end."""
    _cpu, wall, _rss = game(seats, deal, rounds, workdir, profile)
    tag = f"{deal}{seats}r{rounds}"
    marks = [json.loads((workdir / f"{tag}-{who}.json").read_text())
             for who in ["host", *(f"j{i}" for i in range(seats - 1))]]
    turns = rounds * HAND_SIZE
    per_turn = [(m["GameOver"] - m["GameStarted"]) / turns * 1e3 for m in marks]
    system = sum(m["GameOver-sys"] - m["GameStarted-sys"] for m in marks) / turns * 1e3 / seats
    faults = sum(m["GameOver-faults"] - m["GameStarted-faults"] for m in marks) / turns / seats
    joiners = sorted(per_turn[1:])
    rss = sorted(m["rss"] / 1024 for m in marks[1:])
    print(f"{deal} deal, {seats:>2} separate processes, in game ({rounds} rounds{', uvloop' if os.environ.get('BENCH_UVLOOP') else ''}): CPU per peer per turn "
          f"{sum(per_turn) / seats:.2f} ms (host {per_turn[0]:.2f}, joiners {joiners[0]:.2f}-{joiners[-1]:.2f}; "
          f"the kernel's share {system:.2f}, page faults {faults:.0f}); "
          f"signature floor {floor:.2f} ms, ratio {sum(per_turn) / seats / floor:.1f} (with the round's messages "
          f"{round_floor:.2f} ms, ratio {sum(per_turn) / seats / round_floor:.1f}); "
          f"a headless joiner's RSS at game over {rss[len(rss) // 2]:.1f} MB (median; {rss[0]:.1f}-{rss[-1]:.1f}); "
          f"game {wall:.1f} s wall; load average {os.getloadavg()[0]:.2f}", flush=True)


def print_samples(path: Path, top: int) -> None:
    """Each function's share of the samples: on the stack (inclusive) and at its top (own)."""
    stacks: dict[str, int] = json.loads(path.read_text())
    total = sum(stacks.values())
    inclusive: dict[str, int] = {}
    own: dict[str, int] = {}
    for stack, n in stacks.items():
        names = stack.split(" < ")
        own[names[0]] = own.get(names[0], 0) + n
        for name in set(names):
            inclusive[name] = inclusive.get(name, 0) + n
    print(f"{total} samples (asked for every 0.5 ms of CPU, delivered at the kernel's tick: read the shares)")
    for title, counts in (("inclusive", inclusive), ("own", own)):
        print(f"-- {title}")
        for name, n in sorted(counts.items(), key=lambda kv: -kv[1])[:top]:
            print(f"{100 * n / total:6.1f} %  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 5, 10])
    parser.add_argument("--deal", default="sealed", choices=["sealed", "open"])
    parser.add_argument("--rounds", type=int, nargs=2, default=[1, 3], metavar=("R1", "R2"))
    parser.add_argument("--games", type=int, default=1, help="pairs of games per table size; the best counts")
    parser.add_argument("--gc-freeze", action="store_true", help="gc.freeze() after the imports (see above)")
    parser.add_argument("--in-game", action="store_true", help="one game; CPU read by each process (see above)")
    parser.add_argument("--uvloop", action="store_true",
                        help="with --in-game: every process runs on uvloop's event loop (uvloop must be importable)")
    parser.add_argument("--profile", type=Path, help="cProfile the first joiner of the longer game into this file")
    parser.add_argument("--profile-top", type=int, default=0, help="print the profile's N costliest functions")
    args = parser.parse_args()
    global freeze, in_game
    freeze, in_game = args.gc_freeze, args.in_game
    if args.uvloop:
        importlib.import_module("uvloop")  # here, so a missing uvloop says so before any game starts
        os.environ["BENCH_UVLOOP"] = "1"
    r1, r2 = args.rounds
    sign_us, verify_us = per_message()
    print(f"signature costs (CPU, best of 5 x 400): sign {sign_us:.0f} µs, verify {verify_us:.0f} µs "
          f"({getattr(identity, 'BACKEND', 'cryptography')}); load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        for seats in args.seats:
            best = None
            for n in range(args.games):
                workdir = Path(tmp) / f"{seats}-{n}"
                workdir.mkdir()
                if in_game:
                    per_round = 2 * HAND_SIZE + (4 if args.deal == "sealed" else 3)  # messages a seat signs a round
                    in_game_figures(seats, args.deal, r2, workdir, (2 * sign_us + 2 * (seats - 1) * verify_us) / 1e3,
                                    per_round * (sign_us + (seats - 1) * verify_us) / HAND_SIZE / 1e3, args.profile)
                    continue
                short, wall1, _ = game(seats, args.deal, r1, workdir)
                long, wall2, rss = game(seats, args.deal, r2, workdir, args.profile)
                turns = (r2 - r1) * HAND_SIZE
                mean = (sum(long) - sum(short)) / seats / turns * 1e3
                busiest = (max(long) - max(short)) / turns * 1e3
                if best is None or mean < best[0]:
                    seat_rss = sorted(rss[1:])[(len(rss) - 1) // 2]  # the median joiner's peak
                    best = (mean, busiest, wall1, wall2, max(rss), seat_rss, os.getloadavg()[0])
            if in_game:
                continue
            assert best is not None
            mean, busiest, wall1, wall2, rss_max, seat_rss, load = best
            floor = (2 * sign_us + 2 * (seats - 1) * verify_us) / 1e3
            print(f"{args.deal} deal, {seats:>2} separate processes{' (gc.freeze)' if freeze else ''}: CPU per peer per turn {mean:.2f} ms "
                  f"(busiest {busiest:.2f}); signature floor {floor:.2f} ms, ratio {mean / floor:.2f}; "
                  f"games of {r1} and {r2} rounds {wall1:.1f} s and {wall2:.1f} s wall; peak RSS {rss_max:.0f} MB "
                  f"(a headless joiner {seat_rss:.0f} MB); "
                  f"load average {load:.2f}")
    if args.profile is not None and args.profile_top and args.profile.suffix == ".samples":
        print_samples(args.profile, args.profile_top)
    elif args.profile is not None and args.profile_top:
        import pstats
        pstats.Stats(str(args.profile)).sort_stats("tottime").print_stats(args.profile_top)


if __name__ == "__main__":
    main()
