"""PROBE (session 35, redteam), HELD: a spectator with the seat key (a friend who misbehaves, or whoever saw the host's
screen) that joins and hangs up again and again, each time with a fresh key on a fresh connection.

The host announces its lobby to every member at each join and at each spectator's leave (net.lobby: announce): a
lobby frame of every member to every link, and each member takes it in (mirror, its fronts redrawn). A join again
over one link is bounded (connection.JOINS_PER_SECOND, since session 32); a join on a fresh connection, with a key
that costs nothing, is bounded only by the door (16 connections waiting per address) and the handshakes.

A 3-seat headless game (ann hosts, bob and cat join: real processes on 127.0.0.1, --bot-delay 0.1, 3 rounds,
P2PNIMMT_TIMING=1); once it has started, THREADS threads of this script each join the host as a spectator with a
fresh key and the seat key, wait for the lobby frame, and hang up, over and over (KIND churn; KIND none: nothing).
It prints the honest turn times (median, p90, as benchmarks/member_flood_bench.py reads them), the joins the host
admitted, the honest processes' CPU seconds, and whether the game finished, agreed and verified; it exits 1 if it
did not finish or agree, or the median turn took more than SLOWER (default 3) times the quiet one measured first.

What it found (one run, 4 threads, the 2-core reference machine shared with other work): quiet, turn median
0.112 s (p90 0.212 s); churn, 1,624 spectators admitted in the game (some 115 a second) and 414 refused, turn
median 0.148 s (p90 0.245 s), the host's CPU 2.3 s against 0.7 s, bob's and cat's 0.9 s: 1.3x, the game finished,
agreed and verified.

    python benchmarks/attacks/spectator_churn.py [THREADS] [SLOWER]
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import threading
import time
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from attacker import LOOPBACK, Attacker  # noqa: E402
from member_flood_bench import Sampler, turn_times  # noqa: E402
from procs import Proc  # noqa: E402

from p2pnimmt.protocol.verify import verify_transcript  # noqa: E402

LO = ["--interface", LOOPBACK]
HONEST = ("ann", "bob", "cat")


def churn(port: int, seat_key: str, stop: threading.Event, admitted: list[int], n: int) -> None:
    while not stop.is_set():
        try:
            link = Attacker.dial(port, source=f"127.0.0.{40 + n}")
        except (OSError, EOFError, AssertionError):
            time.sleep(0.05)
            continue
        try:
            link.join("spectator", name=f"tv{n}", seat_key=seat_key)
            link.sock.settimeout(10)
            while True:
                kind = link.read_frame()[0]
                if kind == "lobby":
                    admitted[0] += 1
                    break
                if kind == "refuse":
                    admitted[1] += 1
                    break
        except (OSError, EOFError):
            pass
        finally:
            link.close()


def game(threads: int, d: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "P2PNIMMT_TIMING": "1", "XDG_DATA_HOME": str(d),
           "XDG_RUNTIME_DIR": str(d)}
    common = [*LO, "--bot-delay", "0.1", "--drop-after", "20"]
    procs: dict[str, Proc] = {}

    def start(name: str, args: list[str]) -> None:
        procs[name] = Proc([*args, *common, "--name", name, "--transcript", str(d / f"{name}.p2pt")],
                           d / f"{name}.out", env=env)

    stop = threading.Event()
    admitted = [0, 0]
    workers: list[threading.Thread] = []
    try:
        start("ann", ["host", "--headless", "--seats", "3", "--rounds", "3", "--no-points"])
        port = int(procs["ann"].wait_for(r"listening on 127\.0\.0\.1:(\d+)", 120).group(1))
        code = procs["ann"].wait_for(r"code: (\w{4}-\w{4})", 120).group(1)
        for name in ("bob", "cat"):
            start(name, ["join", code, "--headless", "--peer", f"{LOOPBACK}:{port}"])
        procs["ann"].wait_for(r"timing dealt 0 ", 120)
        sampler = Sampler({name: procs[name].popen.pid for name in HONEST})
        sampler.start()
        since = time.monotonic()
        for n in range(threads):
            worker = threading.Thread(target=churn, args=(port, code[5:], stop, admitted, n), daemon=True)
            worker.start()
            workers.append(worker)
        codes = {name: procs[name].popen.wait(900) for name in HONEST}
        stop.set()
        sampler.stop.set()
        sampler.join()
    finally:
        stop.set()
        for worker in workers:
            worker.join(15)
        for proc in procs.values():
            proc.stop()
    times = [t for name in HONEST for t in turn_times(d / f"{name}.out", 0.0)]
    scores = set()
    verified = True
    for name in HONEST:
        verified = verified and verify_transcript((d / f"{name}.p2pt").read_bytes()).ok
        m = re.search(r"final scores: (.*)", (d / f"{name}.out").read_text(errors="replace"))
        scores.add(m.group(1) if m else None)
    return {"times": times, "codes": codes, "admitted": admitted, "cpu": sampler.cpu, "since": since,
            "ok": verified and len(scores) == 1 and None not in scores and set(codes.values()) == {0}}


def main() -> int:
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    slower = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    medians = {}
    ok = True
    for label, n in (("quiet", 0), ("churn", threads)):
        with TemporaryDirectory() as tmp:
            r = game(n, Path(tmp))
        times = sorted(r["times"])
        medians[label] = statistics.median(times)
        p90 = times[int(0.9 * (len(times) - 1))]
        print(f"{label}: turn median {medians[label]:.3f} s, p90 {p90:.3f} s ({len(times)} turns); spectators "
              f"admitted {r['admitted'][0]}, refused {r['admitted'][1]}; CPU s "
              + ", ".join(f"{k} {v:.1f}" for k, v in r["cpu"].items())
              + f"; finished, agreed and verified: {r['ok']}")
        ok = ok and r["ok"]
    slowed = medians["churn"] / medians["quiet"]
    print(f"\nthe churn made the median turn {slowed:.1f}x the quiet one; the game {'held' if ok else 'was lost'}")
    return 0 if ok and slowed <= slower else 1


if __name__ == "__main__":
    sys.exit(main())
