"""CPU per peer per turn: TypeScript nodes under node next to the reference's figure of the same sitting (issue 25's
target: at 10 seats the TypeScript figure at most the Python one). Prints; asserts nothing.

    python benchmarks/peer_cpu_bench.py [--seats 10] [--deal open sealed] [--rounds 1] [--portable]

TypeScript: web/peer/test/bench.ts (compiled here with tsc into a scratch folder of web/peer/dist): SEATS signing
nodes in one node process, linked in memory, each checking every signature. Counted as the reference counts (each
node's own calls timed with CPU time, routing and the bots' choices left out): the busiest node's CPU over the turns
(the figure to hold against Python's) and the mean (the clock started once the start-up's work on V8's background
threads is over, the routing making no garbage: bench.ts says why); then the process's whole CPU from the START to the end over
seats x turns (routing included: an upper bound); and a turn's own cost (the calls begun in a turn: no deal, no
round end, so no sealed audit). Ed25519 on libsodium then OpenSSL (sodium-native, as the reference's PyNaCl then
OpenSSL; the figure's line names the backend) and X25519 likewise (libsodium, then OpenSSL), as `node peer.js verify` runs; with
--portable also the code a browser runs (@noble/curves), on node.
Python: benchmarks/turn_cpu_bench.py with the same seats, deal and rounds, --games 1 (its busiest peer; a sealed
round's audit counted in its turns, as here). --runs N repeats each figure N times, alternating the two, in one sitting.
--against REF also runs the TypeScript nodes of git REF's web/peer (compiled the same way), alternating with this
tree's in every run, and prints the medians of both (a change's before and after, in the same sitting).
Under each TypeScript figure, its floor: the signatures checked and made and the X25519 computed a node a turn (the
mean node), each at its cost measured in that run (best of 5 batches): what the figure cannot go below with that
library, to hold against Python's whole figure.
Beside these, two ways that count every CPU second a node causes (issue 25's twentieth sitting): (1) the same one
process, each call timed by the main thread's own CPU (Linux's per-thread schedstat: no worker's time in it) and V8's
worker threads' CPU over the game (compiling, collecting: for all ten nodes, caused by all) given out evenly; (2) EACH
NODE ALONE IN ITS OWN PROCESS, as a phone's page or a player's node is: the game recorded (bench.ts with
BENCH_RECORD), then each node plays it again alone (web/peer/test/bench_alone.ts: its process's CPU over the game,
its workers' included), against the reference's peers played again alone
the same way (benchmarks/turn_cpu_alone.py; run N's game has seed N-1, as TypeScript's is a new game each run), the
two sides' processes in turn, node i then peer i (`interleaved`: a burst of load falls on both alike; session 40).
Issue 25's target is held against (2): docs/benchmarks.md's twentieth sitting says why. With --against, REF's web/peer/src runs under this tree's bench files (the same harness for both).
--keep DIR keeps each run's recorded games of (2) there (by deal and run), for a node's game to be played again by
hand; the line of (2) also gives each node's main thread's own preemptions and its wait for a core (session 41).
Every node process runs with the project's V8 flags (web/peer/src/node_flags.ts, as the node of mixed tables does;
issue 25's twenty-second sitting): --node-flags "FLAGS" runs them with other flags instead (--node-flags "" with none,
as before that sitting); --against-flags "FLAGS" runs REF's nodes with other flags than this tree's (a flag's
before and after, the same source: --against HEAD --against-flags "").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEER = ROOT / "web" / "peer"
sys.path.insert(0, str(ROOT / "tests" / "peer"))
from nodepeer import NODE_FLAGS  # noqa: E402

FLAGS: dict[Path, list[str]] = {}  # the node flags of each compiled tree's folder (this tree's, --against's)


def flags(out: Path) -> list[str]:
    """The node flags of the tree compiled into `out` (the project's unless main says otherwise)."""
    return FLAGS.get(out, list(NODE_FLAGS))


def typescript(seats: int, deal: str, rounds: int, native: bool, out: Path, **env: str) -> dict:
    args = ["node", *flags(out), str(out / "test" / "bench.js"), str(seats), deal, str(rounds)] + (["native"] if native else [])
    done = subprocess.run(args, cwd=PEER, capture_output=True, text=True, timeout=3600, check=True,
                          env={**os.environ, **env})
    return json.loads(done.stdout)


def alone(seats: int, deal: str, rounds: int, out: Path) -> dict:
    """Each TypeScript node alone in its own process (node's crypto), over one recorded game."""
    record = out.parent / f"game-{uuid.uuid4().hex[:6]}.json"
    try:
        typescript(seats, deal, rounds, True, out, BENCH_RECORD=str(record))
        done = subprocess.run(["node", *flags(out), str(out / "test" / "bench_alone.js"), str(record)], cwd=PEER,
                              capture_output=True, text=True, timeout=3600, check=True)
        return json.loads(done.stdout)
    finally:
        record.unlink(missing_ok=True)


def interleaved(seats: int, deal: str, rounds: int, out: Path, seed: int, replays: int = 1,
                keep: Path | None = None) -> tuple[dict, dict]:
    """Issue 25's figure: each TypeScript node alone in its own process (a game recorded by bench.ts, then
    bench_alone.js RECORDING NODE) and each reference peer alone in its own (benchmarks/turn_cpu_alone.py's game of
    `seed`, then its replay of one peer), the two sides' processes taken IN TURN, node i then peer i (the order
    swapped at every i), so that a burst of the machine's load falls on both sides alike: the busiest of ten is the
    figure, and ten processes of one side run one after another while the other side's waited would give one side's
    maximum a load the other's never met (before session 40 all ten of TypeScript's ran, then all ten of Python's).
    With `replays` > 1 each node and each peer plays its game that many times, in turn, each time in a new process,
    and its figure is the median of them (a node's work is the same bytes each time: what differs is the machine's
    load, chiefly how often the game was preempted). Returns (TypeScript's, Python's): {busiest_ms_per_turn, mean_ms_per_turn, per_node, startup_ms, preempted (by
    node: the times its game was preempted, each costing it the caches' refill)} and, for TypeScript, its mean
    node's main_ms_per_turn and other_threads_ms_per_turn, and by node its main thread's own preemptions and the ms
    it waited runnable for a core (main_preempted, main_waited_ms: None where Linux's sched files are not). `keep`:
    a folder the run's recorded games are moved to (TypeScript's recording, the reference's calls) for a node's
    game to be played again by hand (e.g. under valgrind), else they are deleted."""
    tag = uuid.uuid4().hex[:6]
    record, calls = out.parent / f"game-{tag}.json", out.parent / f"calls-{tag}.pickle"
    script = str(ROOT / "benchmarks" / "turn_cpu_alone.py")
    game = ["--seats", str(seats), "--deal", deal, "--rounds", str(rounds), "--seed", str(seed)]
    try:
        typescript(seats, deal, rounds, True, out, BENCH_RECORD=str(record))
        turns = json.loads(subprocess.run([sys.executable, script, *game, "--keep", str(calls), "--only-record"],
                                          capture_output=True, text=True, timeout=3600, check=True).stdout)["turns"]
        nodes: list[dict] = []
        peers: list[list[float]] = []
        for i in range(seats):
            mine: list[dict] = []
            theirs: list[list[float]] = []
            for k in range(replays):
                for side in ("typescript", "python") if (i + k) % 2 == 0 else ("python", "typescript"):
                    if side == "typescript":
                        mine.append(json.loads(subprocess.run(
                            ["node", *flags(out), str(out / "test" / "bench_alone.js"), str(record), str(i)], cwd=PEER,
                            capture_output=True, text=True, timeout=3600, check=True).stdout))
                    else:
                        theirs.append(json.loads(subprocess.run(
                            [sys.executable, script, *game, "--peer", str(i), "--calls", str(calls)],
                            capture_output=True, text=True, timeout=3600, check=True).stdout))
            # the replay whose figure is the median of this node's (one replay: that one)
            nodes.append(sorted(mine, key=lambda n: n["own_ms_per_turn"])[(replays - 1) // 2])
            peers.append(sorted(theirs, key=lambda p: p[0])[(replays - 1) // 2])
    finally:
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            for file, name in ((record, f"{deal}-seed{seed}-typescript.json"), (calls, f"{deal}-seed{seed}-python.pickle")):
                if file.exists():
                    shutil.move(str(file), str(keep / name))
        record.unlink(missing_ok=True)
        calls.unlink(missing_ok=True)
    own = [n["own_ms_per_turn"] for n in nodes]
    whole = [p[0] / turns for p in peers]
    ts = {"busiest_ms_per_turn": max(own), "mean_ms_per_turn": statistics.fmean(own), "per_node": own,
          "main_ms_per_turn": statistics.fmean(n["main_ms_per_turn"] for n in nodes),
          "other_threads_ms_per_turn": statistics.fmean(n["other_threads_ms_per_turn"] for n in nodes),
          "startup_ms": statistics.fmean(n["startup_ms"] for n in nodes), "preempted": [n["preempted"] for n in nodes],
          "main_preempted": [n.get("main_preempted") for n in nodes],
          "main_waited_ms": [n.get("main_waited_ms") for n in nodes]}
    py = {"busiest_ms_per_turn": max(whole), "mean_ms_per_turn": statistics.fmean(whole), "per_node": whole,
          "startup_ms": statistics.fmean(p[2] for p in peers), "preempted": [p[3] for p in peers]}
    return ts, py


def compile_tree(out: Path, ref: str | None) -> Path:
    """This tree's web/peer (ref None), or git REF's, compiled by this tree's tsc into `out`; the folder to run."""
    tsc = str(PEER / "node_modules" / "typescript" / "bin" / "tsc")
    if ref is None:
        subprocess.run(["node", tsc, "-p", "tsconfig.json", "--outDir", str(out)], cwd=PEER, check=True, timeout=600)
        return out
    tree = out / "tree"  # inside web/peer/dist: its imports find web/peer/node_modules
    tree.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", ref, "web/peer/src", "web/peer/test", "web/peer/tsconfig.json",
                              "web/peer/package.json"], cwd=ROOT, capture_output=True, check=True, timeout=120).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True, timeout=120)
    for bench in (PEER / "test").glob("bench*.ts"):  # this tree's harness, REF's node
        shutil.copy(bench, tree / "web" / "peer" / "test" / bench.name)
    subprocess.run(["node", tsc, "-p", str(tree / "web" / "peer" / "tsconfig.json"), "--outDir",
                    str(tree / "web" / "peer" / "dist")], cwd=PEER, check=True, timeout=600)
    return tree / "web" / "peer" / "dist"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--deal", nargs="+", default=["open", "sealed"], choices=["open", "sealed"])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--portable", action="store_true")
    parser.add_argument("--runs", type=int, default=1, help="times each figure is measured (default 1)")
    parser.add_argument("--replays", type=int, default=1, help="each alone: times each node and each peer plays its "
                        "game again, in turn, its figure the median (default 1: the target's figure as it was)")
    parser.add_argument("--against", metavar="REF", help="git ref whose TypeScript nodes run too, alternating")
    parser.add_argument("--node-flags", metavar="FLAGS", help="this tree's nodes' V8 flags (default: the project's, "
                        f"{' '.join(NODE_FLAGS)})")
    parser.add_argument("--against-flags", metavar="FLAGS", help="REF's nodes' V8 flags (default: as this tree's)")
    parser.add_argument("--keep", metavar="DIR", type=Path, help="keep each run's recorded games (each node alone: "
                        "TypeScript's recording, the reference's calls) in DIR, named by deal and run")
    args = parser.parse_args()
    out = PEER / "dist" / f"bench-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    FLAGS[out] = list(NODE_FLAGS) if args.node_flags is None else args.node_flags.split()
    compile_tree(out, None)
    before = compile_tree(out / "against", args.against) if args.against else None
    if before is not None:
        FLAGS[before] = FLAGS[out] if args.against_flags is None else args.against_flags.split()
    print(f"load average {os.getloadavg()[0]:.1f}; node flags {' '.join(FLAGS[out]) or '(none)'}"
          + (f", {args.against}'s {' '.join(FLAGS[before]) or '(none)'}" if before is not None else ""))
    try:
        for deal in args.deal:
            pairs: list[tuple[float, float]] = []
            alone_pairs: list[tuple[float, float]] = []
            for run in range(args.runs):
                if before is not None:
                    theirs_alone = alone(args.seats, deal, args.rounds, before)
                    ours_alone = alone(args.seats, deal, args.rounds, out)
                    alone_pairs.append((theirs_alone["busiest_ms_per_turn"], ours_alone["busiest_ms_per_turn"]))
                    print(f"TypeScript ({args.against} | this tree), {deal} deal, each node alone: busiest node "
                          f"{alone_pairs[-1][0]:.2f} | {alone_pairs[-1][1]:.2f} ms, mean "
                          f"{theirs_alone['mean_ms_per_turn']:.2f} | {ours_alone['mean_ms_per_turn']:.2f} ms; "
                          f"load average {os.getloadavg()[0]:.1f}", flush=True)
                    theirs_ts = typescript(args.seats, deal, args.rounds, True, before)
                    ours_ts = typescript(args.seats, deal, args.rounds, True, out)
                    pairs.append((theirs_ts["busiest_ms_per_turn"], ours_ts["busiest_ms_per_turn"]))
                    print(f"TypeScript ({args.against} | this tree), {deal} deal, {theirs_ts.get('backend', 'OpenSSL')} | "
                          f"{ours_ts.get('backend', 'OpenSSL')}: busiest node "
                          f"{pairs[-1][0]:.2f} | {pairs[-1][1]:.2f} ms, mean {theirs_ts['mean_ms_per_turn']:.2f} | "
                          f"{ours_ts['mean_ms_per_turn']:.2f} ms; load average {os.getloadavg()[0]:.1f}", flush=True)
                ours = None
                for native in [True, False] if args.portable else [True]:
                    r = typescript(args.seats, deal, args.rounds, native, out)
                    ours = r["busiest_ms_per_turn"] if native else ours
                    print(f"TypeScript, {deal} deal, {args.seats} seats ({r.get('backend', 'OpenSSL' if native else 'portable')}): CPU "
                          f"per peer per turn {r['busiest_ms_per_turn']:.2f} ms (the busiest node; mean "
                          f"{r['mean_ms_per_turn']:.2f}; the whole process over seats x turns "
                          f"{r['cpu_ms_per_peer_per_turn']:.2f}; a turn's own, no deal or round end: busiest "
                          f"{r['turn_only_busiest_ms']:.2f}, mean {r['turn_only_mean_ms']:.2f}; {r['messages']} "
                          f"deliveries, game {r['wall_s']:.1f} s wall); load average {os.getloadavg()[0]:.1f}",
                          flush=True)
                    print(f"  its floor a node a turn: {r['verifies_per_turn']:.1f} checks x {r['verify_us']:.0f} µs + "
                          f"{r['signs_per_turn']:.1f} signatures x {r['sign_us']:.0f} µs + {r['x25519_per_turn']:.1f} "
                          f"X25519 x {r['x25519_us']:.0f} µs = {r['floor_ms_per_turn']:.2f} ms (the costs measured "
                          "here, best of 5)", flush=True)
                    if "idle_cpu_ms" in r:
                        print(f"  start-up's work on V8's threads waited out before the game's clock: "
                              f"{r['idle_cpu_ms']:.1f} ms CPU in {r['idle_ms']} ms", flush=True)
                t = typescript(args.seats, deal, args.rounds, True, out, BENCH_CLOCK="thread")
                print(f"  the same one process, each call by the main thread's own CPU, V8's workers' CPU over the game "
                      f"given out evenly ({t['other_threads_ms_per_peer_per_turn']:.2f} ms a node a turn): busiest "
                      f"{t['threads_busiest_ms_per_turn']:.2f}, mean {t['threads_mean_ms_per_turn']:.2f} ms",
                      flush=True)
                a, p = interleaved(args.seats, deal, args.rounds, out, run, args.replays, args.keep)
                replayed = f", each the median of {args.replays} replays" if args.replays > 1 else ""
                print(f"TypeScript, {deal} deal, {args.seats} seats, EACH NODE ALONE in its own process (node's crypto),"
                      f" in turn with Python's{replayed}: busiest {a['busiest_ms_per_turn']:.2f} ms (node "
                      f"{a['per_node'].index(a['busiest_ms_per_turn'])}), mean {a['mean_ms_per_turn']:.2f} (mean node: "
                      f"its main thread {a['main_ms_per_turn']:.2f} + V8's worker threads "
                      f"{a['other_threads_ms_per_turn']:.2f}; its process's start-up before the game "
                      f"{a['startup_ms']:.0f} ms CPU); by node {' '.join(f'{x:.2f}' for x in a['per_node'])}, "
                      f"preempted {' '.join(map(str, a['preempted']))} times"
                      + ("" if None in a["main_preempted"] else
                         f" (its main thread {' '.join(map(str, a['main_preempted']))} times; it waited for a core "
                         f"{' '.join(f'{w:.0f}' for w in a['main_waited_ms'])} ms)"), flush=True)
                print(f"Python, {deal} deal, {args.seats} seats, EACH PEER ALONE in its own process, in turn with "
                      f"TypeScript's (game seed {run}){replayed}: busiest {p['busiest_ms_per_turn']:.2f} ms (peer "
                      f"{p['per_node'].index(p['busiest_ms_per_turn'])}), mean {p['mean_ms_per_turn']:.2f} (its "
                      f"process's start-up before the game {p['startup_ms']:.0f} ms CPU); by peer "
                      f"{' '.join(f'{x:.2f}' for x in p['per_node'])}, preempted {' '.join(map(str, p['preempted']))} "
                      f"times; load average {os.getloadavg()[0]:.1f}",
                      flush=True)
                print(f"target (issue 25, {deal}, {args.seats} seats), each node alone{replayed} (the figure it is held against): "
                      f"TypeScript's busiest node <= Python's busiest peer: {a['busiest_ms_per_turn']:.2f} against "
                      f"{p['busiest_ms_per_turn']:.2f} ms, {a['busiest_ms_per_turn'] / p['busiest_ms_per_turn']:.2f}x: "
                      f"{'met' if a['busiest_ms_per_turn'] <= p['busiest_ms_per_turn'] else 'NOT met'} (means "
                      f"{a['mean_ms_per_turn']:.2f} against {p['mean_ms_per_turn']:.2f}, "
                      f"{a['mean_ms_per_turn'] / p['mean_ms_per_turn']:.2f}x)", flush=True)
                python = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "turn_cpu_bench.py"), "--seats",
                                         str(args.seats), "--deal", deal, "--rounds", str(args.rounds), "--games", "1"],
                                        capture_output=True, text=True, timeout=3600, check=True)
                for line in python.stdout.splitlines():
                    if "CPU per peer per turn" in line:
                        print(f"Python, {line.strip()}", flush=True)
                        theirs = re.search(r"CPU per peer per turn ([0-9.]+) ms", line)
                        if theirs and ours is not None:
                            print(f"one process's target line (as before): TypeScript's busiest node (node's crypto) "
                                  f"<= Python's busiest peer of the same sitting: {ours:.2f} against "
                                  f"{float(theirs[1]):.2f} ms, {ours / float(theirs[1]):.2f}x: "
                                  f"{'met' if ours <= float(theirs[1]) else 'NOT met'}", flush=True)
            if pairs:
                print(f"TypeScript, {deal} deal, busiest node, median of {len(pairs)} alternating pairs: "
                      f"{args.against} {statistics.median(p[0] for p in pairs):.2f} ms, this tree "
                      f"{statistics.median(p[1] for p in pairs):.2f} ms", flush=True)
            if alone_pairs:
                print(f"TypeScript, {deal} deal, each node alone, busiest node, median of {len(alone_pairs)} pairs: "
                      f"{args.against} {statistics.median(p[0] for p in alone_pairs):.2f} ms, this tree "
                      f"{statistics.median(p[1] for p in alone_pairs):.2f} ms", flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
