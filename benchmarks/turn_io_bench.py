"""What a peer's turn costs outside its own work, counted: wakeups, reads, writes, frames, bytes, system calls and
context switches per peer per turn, 10 processes on loopback (issue 24, session 41). Prints; asserts nothing.

    python benchmarks/turn_io_bench.py [--seats 10] [--deal open] [--rounds 4] [--games 1] [--trace]

The game of benchmarks/peers_cpu_bench.py --in-game (a headless host and seats-1 headless joiners, random bots,
everything on 127.0.0.1), each process counting from its game's start to its end, in Python (a wrapper around the
calls, so its CPU is not the figure: peers_cpu_bench.py's is): the event loop's waits (`epoll_wait`: the
selector's select), the waits that found something, the socket reads that brought bytes (the link's tap) and their
bytes, the frames handled and the frames queued, the socket writes (a transport's write) and their bytes, the
transcript's file writes (os.write); and from the kernel (/proc/self/status, /proc/self/io): the main thread's
voluntary and involuntary context switches, the read and write system calls on files (syscr, syscw). Each is summed
over the processes and divided by seats x turns. These counts do not depend on the CPU the machine gives, but
batching does: on a loaded machine more frames wait to be read together (fewer reads and wakeups), so hold one
tree against another in the same sitting.

--trace also runs `perf trace -s` on the first joiner from its game's start to its end (perf must be there and
allowed): its system calls by kind, per turn (the traced process is slowed a little by the tracepoints).

--grind runs the first joiner under valgrind's cachegrind (--cache-sim=no) in a game of 1 round and one of --rounds,
the others as they are (no counting): its instructions per turn, the difference over the turns between the games,
to hold against the same peer's work alone (benchmarks/instructions_bench.py: every peer's session in one process).
It slows that joiner some fifty-fold, so the others wait for it: its figure counts no lost race.

Run it from the folder of the tree to measure, with PYTHONPATH at it (the processes run `python -c`, which puts the
current folder first on the path).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import peers_cpu_bench
from peers_cpu_bench import game

from p2pnimmt.engine import HAND_SIZE

COUNT = r"""
import collections, json, os, selectors, signal, subprocess, sys, time
import asyncio.selector_events as se
import p2pnimmt.cli
from p2pnimmt.net import connection
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.events import GameOver, GameStarted
counts = collections.Counter()
live = [False]
select = selectors.EpollSelector.select
def _select(self, timeout=None):
    ready = select(self, timeout)
    if live[0]:
        counts['wait'] += 1
        counts['wait-ready'] += bool(ready)
    return ready
selectors.EpollSelector.select = _select
updated = connection._Tap.buffer_updated
def _updated(self, nbytes):
    if live[0]:
        counts['read'] += 1
        counts['read-bytes'] += nbytes
    return updated(self, nbytes)
connection._Tap.buffer_updated = _updated
parse = connection._parse
def _parse(data):
    kind, payload = parse(data)
    if live[0]:
        counts['frame-in'] += 1
        if kind != 'msg':
            counts['frame-in-' + kind] += 1
    return kind, payload
connection._parse = _parse
queue = connection.Connection._queue
def _queue(self, data, later=False):
    if live[0] and not (self.closed or self.writing_ended):
        counts['frame-out'] += 1
        counts['frame-out-now'] += not later
    return queue(self, data, later)
connection.Connection._queue = _queue
write = se._SelectorSocketTransport.write
def _write(self, data):
    if live[0] and data:
        counts['write'] += 1
        counts['write-bytes'] += len(data)
    return write(self, data)
se._SelectorSocketTransport.write = _write
import asyncio.base_events as be
call_soon = be.BaseEventLoop.call_soon
def _call_soon(self, callback, *args, context=None):
    if live[0]:
        counts['handle'] += 1
    return call_soon(self, callback, *args, context=context)
be.BaseEventLoop.call_soon = _call_soon
call_at = be.BaseEventLoop.call_at
def _call_at(self, when, callback, *args, context=None):
    if live[0]:
        counts['timer'] += 1
    return call_at(self, when, callback, *args, context=context)
be.BaseEventLoop.call_at = _call_at
relays = Node._relays
def _relays(self):
    if live[0]:
        counts['relay-wait'] += 1
        before = counts['write']
        relays(self)
        counts['relay-wait-writes'] += counts['write'] - before
        return
    relays(self)
Node._relays = _relays
oswrite = os.write
def _oswrite(fd, data):
    if live[0]:
        counts['file-write'] += 1
    return oswrite(fd, data)
os.write = _oswrite
def kernel():
    status = open('/proc/self/status').read()
    io = dict(line.split(': ') for line in open('/proc/self/io').read().splitlines())
    return {'vcsw': int(status.split('voluntary_ctxt_switches:')[1].split()[0]),
            'ivcsw': int(status.split('nonvoluntary_ctxt_switches:')[1].split()[0]),
            'syscr': int(io['syscr']), 'syscw': int(io['syscw'])}
marks = {}
tracer = []
seen = Node._event
def _event(self, event):
    if isinstance(event, GameStarted) and 'start' not in marks:
        if sys.argv[2] != '-':
            tracer.append(subprocess.Popen(['perf', 'trace', '-s', '-p', str(os.getpid()), '-o', sys.argv[2]],
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            time.sleep(0.5)  # perf attaches (the others wait for this seat: its turns' figures do not change)
        marks['start'] = kernel()
        marks['cpu-start'] = time.process_time()
        live[0] = True
    elif isinstance(event, GameOver) and 'over' not in marks:
        live[0] = False
        marks['cpu-over'] = time.process_time()
        marks['over'] = kernel()
        marks['counts'] = dict(counts)
        for proc in tracer:
            proc.send_signal(signal.SIGINT)
            proc.wait()
    seen(self, event)
Node._event = _event
code = p2pnimmt.cli.main(sys.argv[3:])
open(sys.argv[1], 'w').write(json.dumps(marks))
sys.exit(code)
"""

KEYS = [("wait", "event-loop waits (epoll_wait)"), ("wait-ready", "  of them with something ready"),
        ("read", "socket reads with bytes"), ("read-bytes", "  bytes read"), ("frame-in", "frames handled"),
        ("frame-in-heads", "  heads frames"), ("frame-in-ping", "  ping frames"),
        ("frame-out", "frames queued"), ("frame-out-now", "  of them to go at once or soon"), ("write", "socket writes"), ("write-bytes", "  bytes written"),
        ("relay-wait", "relays' waits run out (RELAY_WAIT)"), ("relay-wait-writes", "  socket writes they made"),
        ("handle", "callbacks called soon (call_soon)"), ("timer", "timers set (call_at)"),
        ("file-write", "transcript and secrets file writes (os.write)"),
        ("vcsw", "voluntary context switches (main thread)"), ("ivcsw", "involuntary context switches"),
        ("syscr", "file-read system calls (syscr: read, not recv)"),
        ("syscw", "file-write system calls (syscw: write, not send)"), ("cpu", "CPU ms (counted, not the figure)")]


def p2p(*args: str, profile: Path | None = None, marks: Path | None = None) -> list[str]:
    assert marks is not None
    if GRIND:  # no counting wrapper: the first joiner under cachegrind, the others as they are
        if marks.name.endswith("-j0.json"):
            return ["valgrind", "--tool=cachegrind", "--cache-sim=no",
                    f"--cachegrind-out-file={marks.with_suffix('.grind')}", sys.executable, "-m", "p2pnimmt", *args]
        return [sys.executable, "-m", "p2pnimmt", *args]
    trace = marks.with_suffix(".trace") if TRACE and marks.name.endswith("-j0.json") else None
    return [sys.executable, "-c", COUNT, str(marks), str(trace or "-"), *args]


TRACE = False
GRIND = False


def per_turn(workdir: Path, seats: int, deal: str, rounds: int) -> dict[str, float]:
    tag = f"{deal}{seats}r{rounds}"
    turns = rounds * HAND_SIZE
    totals: dict[str, float] = {}
    for who in ["host", *(f"j{i}" for i in range(seats - 1))]:
        marks = json.loads((workdir / f"{tag}-{who}.json").read_text())
        values = dict(marks["counts"])
        for key in marks["start"]:
            values[key] = marks["over"][key] - marks["start"][key]
        values["cpu"] = (marks["cpu-over"] - marks["cpu-start"]) * 1e3
        for key, value in values.items():
            totals[key] = totals.get(key, 0) + value
    return {key: value / seats / turns for key, value in totals.items()}


def print_trace(path: Path, turns: int) -> None:
    """perf trace -s's summary of the first joiner, per turn."""
    calls: dict[str, int] = {}
    for line in path.read_text(errors="replace").splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1].isdigit() and parts[0].isidentifier():
            calls[parts[0]] = calls.get(parts[0], 0) + int(parts[1])
    total = sum(calls.values())
    print(f"  first joiner, perf trace -s: {total / turns:.1f} system calls a turn: " + ", ".join(
        f"{name} {n / turns:.1f}" for name, n in sorted(calls.items(), key=lambda kv: -kv[1]) if n / turns >= 0.05))


def instructions(path: Path) -> int:
    """The total instructions of a cachegrind out file."""
    for line in path.read_text().splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise SystemExit(f"no summary in {path}")


def grind(seats: int, deal: str, rounds: int, tmp: Path) -> None:
    """The first joiner's instructions per turn: a game of 1 round and one of `rounds`, the difference over the
    turns between them (start-up, imports and shutdown cancel out)."""
    counted = []
    for r in (1, rounds):
        workdir = tmp / f"grind{r}"
        workdir.mkdir()
        game(seats, deal, r, workdir)
        counted.append(instructions(workdir / f"{deal}{seats}r{r}-j0.grind"))
    turns = (rounds - 1) * HAND_SIZE
    print(f"{deal} deal, {seats} processes: the first joiner's instructions per turn (cachegrind, games of 1 and "
          f"{rounds} rounds: {counted[0]:,} and {counted[1]:,}) {(counted[1] - counted[0]) / turns / 1e6:.2f}e6; "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--deal", default="open", choices=["sealed", "open"])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--games", type=int, default=1, help="games, each printed")
    parser.add_argument("--trace", action="store_true", help="perf trace -s the first joiner (see above)")
    parser.add_argument("--grind", action="store_true", help="the first joiner's instructions per turn (see above)")
    args = parser.parse_args()
    global TRACE, GRIND
    TRACE, GRIND = args.trace, args.grind
    if TRACE and shutil.which("perf") is None:
        raise SystemExit("--trace needs perf")
    peers_cpu_bench.in_game = True
    peers_cpu_bench.p2p = p2p  # the game's processes run the counting wrapper
    runs = []
    if GRIND:
        os.environ["PYTHONHASHSEED"] = "0"
        with tempfile.TemporaryDirectory() as tmp:
            for _n in range(args.games):
                grind(args.seats, args.deal, args.rounds, Path(tempfile.mkdtemp(dir=tmp)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.games):
            workdir = Path(tmp) / str(n)
            workdir.mkdir()
            game(args.seats, args.deal, args.rounds, workdir)
            figures = per_turn(workdir, args.seats, args.deal, args.rounds)
            runs.append(figures)
            print(f"{args.deal} deal, {args.seats} processes, {args.rounds} rounds, per peer per turn "
                  f"(load average {os.getloadavg()[0]:.2f}):")
            print("  " + "; ".join(f"{label} {figures.get(key, 0):.1f}" for key, label in KEYS))
            trace = workdir / f"{args.deal}{args.seats}r{args.rounds}-j0.trace"
            if TRACE and trace.exists():
                print_trace(trace, args.rounds * HAND_SIZE)
    if len(runs) > 1:
        print("medians: " + "; ".join(f"{label.strip()} {statistics.median(r.get(key, 0) for r in runs):.1f}"
                                      for key, label in KEYS))


if __name__ == "__main__":
    main()
