"""Sealed deal cost: the deal (every shuffle and unlock step) and the round-end audit for 2, 5 and 10 players.

    python benchmarks/sealed_bench.py [--repeat N] [--vectors]
    python benchmarks/sealed_bench.py --loopback [--rounds R] [--players 2,5,10] [--repeat N]

All seats' work runs in this one process, each published list checked once
as its receivers would (no network): on a LAN the steps are sequential, so
this is the deal's computing time on its critical path, plus one receipt
check per step. Targets (issue 24): a 10-player deal and its audit at most
0.3 s wall on loopback, so about 50 ms CPU or less per node on two cores.
`--vectors` prints the test vectors (JSON) for protocol.md; they must equal
VECTORS in tests/protocol/test_sealed.py. Prints figures; asserts nothing.

`--loopback` prints the in-process figures above, then plays real games,
every player a separate `p2pnimmt` process on 127.0.0.1 (host --headless
--seats N --rounds R --no-points, joiners --peer 127.0.0.1:PORT, bots play),
once with --deal sealed and once with --deal open, and reads the
P2PNIMMT_TIMING stamps (CLOCK_MONOTONIC, shared by all processes) per round:

  deal      the last node's `ended R-1` -> the last node's `dealt R`; for
            round 0 from the last node's "game started" line, stamped by this
            process as it reads the line from the pipe (a little late, so
            round 0 reads a little short; the lag is printed). Round 0 also
            pays the mesh dialing and the card encodings' first computation.
  round end the last node's `resolved R <last turn>` -> the last node's
            `ended R`: key reveal, audit and the signed result.

and, from the CPU time each stamp carries (the node's process time), each
node's own CPU: for the deal of round R >= 1 its `ended R-1` -> its `dealt R`,
for the round end its `resolved R <last turn>` -> its `ended R` (median and
max over the nodes and rounds). Wall times on a loaded machine mean little;
the CPU per node is what to compare, old code against new in one sitting.
The load average is printed with every game. `--profile FILE` runs the last
joiner under cProfile (FILE.sealed10 etc., one per game; a profile costs that
node time, so its figures are not comparable).

On loopback every node's receipt checks and its own round-end audit share
this machine's cores (each node audits the whole deal), where a LAN gives
each node its own: expect loopback well above the in-process figures on a
2-core machine. Everything binds 127.0.0.1; every process started is ended.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from p2pnimmt.engine import deck
from p2pnimmt.protocol import sealed_group
from p2pnimmt.protocol.sealed import Layout, audit, new_secrets, permutation, shuffle_step
from p2pnimmt.protocol.sealed_group import (
    CARD_TAG,
    S0,
    S0_TAG,
    L,
    apply_all,
    clamp,
    clamped_representative,
    encodings,
    hash_to_curve,
    new_key_pair,
    point_error,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "protocol"))

from sealed_support import deck_order, simulate_deal  # noqa: E402  (test helpers, kept out of p2pnimmt)


def stream(label: bytes):
    """Deterministic entropy: SHA-256(label || counter as 4 bytes big-endian), concatenated."""
    counter = 0
    buffer = b""

    def entropy(n: int) -> bytes:
        nonlocal counter, buffer
        while len(buffer) < n:
            buffer += hashlib.sha256(label + counter.to_bytes(4, "big")).digest()
            counter += 1
        out, buffer = buffer[:n], buffer[n:]
        return out

    return entropy


def vectors() -> dict:
    """The test vectors: card encodings, one key pair (first draw rejected), one shuffle step."""
    cards = {}
    for k in (1, 2, 3, 4, 104):
        counter, u = hash_to_curve(k)
        cards[str(k)] = {"counter": counter, "u": u.hex(), "encoding": encodings()[k].hex()}
    draws = [hashlib.sha256(b"p2pnimmt/sealed/vector/key" + bytes([i])).digest() for i in range(64)]
    usable = [clamped_representative(pow(int.from_bytes(clamp(x), "little"), -1, L)) is not None for x in draws]
    first = next(i for i in range(63) if not usable[i] and usable[i + 1])  # show one rejection
    pair = new_key_pair(_feed(draws[first:first + 2]))
    seed = bytes(range(32))
    step_in = [encodings()[k] for k in (1, 2, 3, 4)]
    return {
        "s0_tag": S0_TAG.decode(),
        "s0": S0.hex(),
        "card_tag": CARD_TAG.decode(),
        "card_encodings": cards,
        "key_pair": {"draws": [draws[first].hex(), draws[first + 1].hex()], "e": pair.e.hex(), "d": pair.d.hex()},
        "shuffle_step": {
            "input": [x.hex() for x in step_in],
            "e": pair.e.hex(),
            "seed": seed.hex(),
            "permutation": list(permutation(seed, 4)),
            "layered": [x.hex() for x in apply_all(pair.e, step_in)],
            "output": [x.hex() for x in shuffle_step(pair.e, seed, step_in)],
        },
    }


def _feed(chunks: list[bytes]):
    queue = list(chunks)
    return lambda n: queue.pop(0)


counted = [0]  # X25519 operations so far (core() counts them)


def _counting(real):
    def mult(scalar: bytes, point: bytes) -> bytes:
        counted[0] += 1
        return real(scalar, point)

    return mult


def bench(players: int, repeat: int) -> tuple[float, float, float, tuple[int, int]]:
    """(deal, audit, audit again in this process) medians in CPU seconds (process time), and (X25519 operations of
    the deal, of one audit), counted.

    The deal and the first audit run with the memo of layers off (a node's own cost: it applies every other
    seat's key); the second audit with it on, after the first: what another session of the same process
    (a host's bot, a guest seat) pays for the same round."""
    cards = deck("standard", players)
    layout = Layout(players, len(cards))
    deal_times, audit_times, again_times = [], [], []
    ops = (0, 0)
    for r in range(repeat):
        entropy = stream(f"bench/{players}/{r}".encode())
        secrets = {s: new_secrets(entropy) for s in range(players)}
        before = counted[0]
        t = time.process_time()
        record = simulate_deal(cards, players, secrets)
        deal_times.append(time.process_time() - t)
        deal_ops = counted[0] - before
        order = deck_order(cards, [secrets[s].seed for s in range(players)])
        plays = [(s, order[p], p) for s in range(players) for p in layout.hand(s)]
        keys = {s: (secrets[s].key.e, secrets[s].seed) for s in range(players)}
        before = counted[0]
        t = time.process_time()
        fault = audit(cards, players, range(players), record.shuffles, record.unlocks, keys, plays)
        audit_times.append(time.process_time() - t)
        ops = (deal_ops, counted[0] - before)
        assert fault is None, fault
        sealed_group.layers_memo = True
        audit(cards, players, range(players), record.shuffles, record.unlocks, keys, plays)
        t = time.process_time()
        fault = audit(cards, players, range(players), record.shuffles, record.unlocks, keys, plays)
        again_times.append(time.process_time() - t)
        sealed_group.layers_memo = False
        sealed_group.clear_layers_memo()
        assert fault is None, fault
    return statistics.median(deal_times), statistics.median(audit_times), statistics.median(again_times), ops


LO = ["--interface", "127.0.0.1"]


class Reader:
    """One started process: its output lines, each with the monotonic moment this process read it."""

    def __init__(self, args: list[str], log: Path, env: dict) -> None:
        self.lines: list[tuple[float, str]] = []
        self.log = log
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=env)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with open(self.log, "w") as log:
            for raw in self.proc.stdout:
                now = time.monotonic()
                line = raw.decode(errors="replace").rstrip("\n")
                self.lines.append((now, line))
                log.write(line + "\n")

    def find(self, pattern: str, timeout: float) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for _, line in list(self.lines):
                m = re.search(pattern, line)
                if m:
                    return m
            if self.proc.poll() is not None and not self.thread.is_alive():
                break
            time.sleep(0.01)
        raise RuntimeError(f"no {pattern!r} from {self.proc.args[3:5]} within {timeout} s:\n"
                           + "\n".join(line for _, line in self.lines))


def loopback_game(players: int, deal: str, rounds: int, workdir: Path, timeout: float,
                  profile: str | None = None) -> dict:
    """One game of `players` separate processes on 127.0.0.1; per round the deal and round-end times (s)."""
    env = {**os.environ, "P2PNIMMT_TIMING": "1", "XDG_DATA_HOME": str(workdir / "data")}
    p2p = [sys.executable, "-m", "p2pnimmt"]
    profiled = [sys.executable, "-m", "cProfile", "-o", f"{profile}.{deal}{players}", "-m", "p2pnimmt"]
    tag = f"{deal}{players}"
    nodes: list[Reader] = []
    try:
        host = Reader([*p2p, "host", "--headless", "--seats", str(players), *LO, "--rounds", str(rounds),
                       "--no-points", "--deal", deal, "--transcript", str(workdir / f"{tag}-h.p2pt")],
                      workdir / f"{tag}-h.out", env)
        nodes.append(host)
        code = host.find(r"code: (\w{4}-\w{4})", 60).group(1)
        port = host.find(r"listening on 127\.0\.0\.1:(\d+)", 60).group(1)
        for i in range(players - 1):
            last = profile is not None and i == players - 2
            nodes.append(Reader([*(profiled if last else p2p), "join", code, "--headless", *LO, "--peer", f"127.0.0.1:{port}",
                                 "--transcript", str(workdir / f"{tag}-j{i}.p2pt")], workdir / f"{tag}-j{i}.out", env))
        deadline = time.monotonic() + timeout
        for node in nodes:
            node.proc.wait(max(0.1, deadline - time.monotonic()))
            node.thread.join(10)
        failed = [n.log.name for n in nodes if n.proc.returncode != 0]
        if failed:
            raise RuntimeError(f"{tag}: exit status not 0 for {failed}:\n" + nodes[0].log.read_text(errors="replace"))
    finally:
        for node in nodes:  # only the processes started here, by their Popen handles
            if node.proc.poll() is None:
                node.proc.terminate()
                try:
                    node.proc.wait(5)
                except subprocess.TimeoutExpired:
                    node.proc.kill()
                    node.proc.wait(5)
    return stamps(nodes, rounds)


def stamps(nodes: list[Reader], rounds: int) -> dict:
    """The last node's moment of each event, then the deal and round-end time of every round."""
    last: dict[tuple, float] = {}
    seen: dict[tuple, int] = {}
    lags = []
    cpus: list[dict[tuple, float]] = []  # per node: (kind, round, turn) -> its process time then
    for node in nodes:
        cpu: dict[tuple, float] = {}
        cpus.append(cpu)
        for read_at, line in node.lines:
            m = re.fullmatch(r"timing (\w+) (\d+) (\d+) ([\d.]+)(?: ([\d.]+))?", line)
            if m:
                key, stamp = (m.group(1), int(m.group(2)), int(m.group(3))), float(m.group(4))
                lags.append(read_at - stamp)
                if m.group(5):
                    cpu[key] = float(m.group(5))
            elif line.startswith("game started:"):
                key, stamp = ("started", 0, 0), read_at
            else:
                continue
            last[key] = max(last.get(key, stamp), stamp)
            seen[key] = seen.get(key, 0) + 1
    everyone = len(nodes)

    def at(kind: str, r: int, t: int = 0) -> float | None:
        return last.get((kind, r, t)) if seen.get((kind, r, t)) == everyone else None

    deals, ends, problems = {}, {}, []
    for r in range(rounds):
        begin = at("started", 0) if r == 0 else at("ended", r - 1)
        dealt, ended = at("dealt", r), at("ended", r)
        turns = [t for (kind, rr, t) in last if kind == "resolved" and rr == r]
        resolved = at("resolved", r, max(turns)) if turns else None
        if begin is not None and dealt is not None:
            deals[r] = dealt - begin
        else:
            problems.append(f"round {r}: no deal time (a node lacks its stamp)")
        if resolved is not None and ended is not None:
            ends[r] = ended - resolved
        else:
            problems.append(f"round {r}: no round-end time (a node lacks its stamp; void round?)")
    deal_cpu, end_cpu = [], []
    for cpu in cpus:
        for r in range(rounds):
            last_turn = max((t for (kind, rr, t) in cpu if kind == "resolved" and rr == r), default=None)
            if r >= 1 and ("ended", r - 1, 0) in cpu and ("dealt", r, 0) in cpu:
                deal_cpu.append(cpu[("dealt", r, 0)] - cpu[("ended", r - 1, 0)])
            if last_turn is not None and ("ended", r, 0) in cpu:
                end_cpu.append(cpu[("ended", r, 0)] - cpu[("resolved", r, last_turn)])
    return {"deal": deals, "end": ends, "lag": lags, "problems": problems, "deal_cpu": deal_cpu, "end_cpu": end_cpu}


def load() -> str:
    return "load " + " ".join(f"{v:.1f}" for v in os.getloadavg())


def cpu_figures(values: list[float]) -> str:
    if not values:
        return "-"
    return f"median {statistics.median(values) * 1000:.1f}, max {max(values) * 1000:.1f} ms"


def loopback(player_counts: list[int], rounds: int, repeat: int, timeout: float, deals: tuple[str, ...] = ("sealed", "open"),
             profile: str | None = None) -> None:
    print(f"\nloopback: every player a separate process on 127.0.0.1, {rounds} rounds per game, "
          f"{repeat} game(s) per row, bots play; times from the last node to the last node")
    results: dict[tuple[int, str], dict] = {}
    with tempfile.TemporaryDirectory(prefix="sealed-bench-") as tmp:
        workdir = Path(tmp)
        for players in player_counts:
            for deal in deals:
                merged = {"deal": [], "end": [], "round0": [], "later": [], "lag": [], "problems": [], "deal_cpu": [],
                          "end_cpu": []}
                for g in range(repeat):
                    gamedir = workdir / f"g{players}-{deal}-{g}"
                    gamedir.mkdir()
                    before = load()
                    got = loopback_game(players, deal, rounds, gamedir, timeout, profile)
                    print(f"  {players:>2} players, {deal:<6}, game {g + 1}: {before} before, {load()} after; CPU per "
                          f"node: deal (rounds >= 1) {cpu_figures(got['deal_cpu'])}, round end "
                          f"{cpu_figures(got['end_cpu'])}", flush=True)
                    merged["deal_cpu"] += got["deal_cpu"]
                    merged["end_cpu"] += got["end_cpu"]
                    merged["deal"] += list(got["deal"].values())
                    merged["end"] += list(got["end"].values())
                    merged["round0"] += [v for r, v in got["deal"].items() if r == 0]
                    merged["later"] += [v for r, v in got["deal"].items() if r > 0]
                    merged["lag"] += got["lag"]
                    merged["problems"] += got["problems"]
                results[(players, deal)] = merged
                print(f"  {players:>2} players, {deal:<6}: deals " + " ".join(f"{v * 1000:.0f}" for v in merged["deal"])
                      + " ms; round ends " + " ".join(f"{v * 1000:.0f}" for v in merged["end"]) + " ms"
                      + ("; " + "; ".join(merged["problems"]) if merged["problems"] else ""), flush=True)

    def ms(values: list[float], how) -> str:
        return f"{how(values) * 1000:7.0f}" if values else "      -"

    print("\n                   deal (ms)                               round end (ms)")
    print("players  deal     median     max  round 0  rounds>=1 med     median     max")
    for (players, deal), m in results.items():
        print(f"{players:>7}  {deal:<6} {ms(m['deal'], statistics.median)} {ms(m['deal'], max)}  "
              f"{ms(m['round0'], statistics.median)}        {ms(m['later'], statistics.median)}    "
              f"{ms(m['end'], statistics.median)} {ms(m['end'], max)}")
    print("\nCPU per node (its own process time; deal: rounds >= 1, ended R-1 -> dealt R; round end: resolved -> ended)")
    for (players, deal), m in results.items():
        print(f"{players:>7}  {deal:<6} deal {cpu_figures(m['deal_cpu'])}; round end {cpu_figures(m['end_cpu'])}")
    lags = sorted(v for m in results.values() for v in m["lag"])
    if lags:
        print(f"pipe lag (a line's own stamp -> read here): median {statistics.median(lags) * 1000:.1f} ms, "
              f"max {lags[-1] * 1000:.1f} ms: round 0 deals read short by about this much")
    for deal in ("sealed",):
        m = results.get((10, deal))
        if m and m["deal"] and m["end"]:
            print(f"targets, 10 players sealed on loopback: deal <= 300 ms: "
                  f"{'met' if max(m['deal']) <= 0.3 else 'NOT met'} (max {max(m['deal']) * 1000:.0f} ms, median "
                  f"{statistics.median(m['deal']) * 1000:.0f} ms); round end (audit) <= 300 ms: "
                  f"{'met' if max(m['end']) <= 0.3 else 'NOT met'} (max {max(m['end']) * 1000:.0f} ms)")


def core(repeat: int) -> None:
    """The in-process figures: per-value costs, then deal and audit for 2, 5 and 10 players."""
    sealed_group.layers_memo = False  # each figure is one node's own work (bench() times the memo apart)
    sealed_group.crypto_scalarmult = _counting(sealed_group.crypto_scalarmult)
    t = time.process_time()
    encodings()
    print(f"card encodings (104 hash-to-curve, once per process): {(time.process_time() - t) * 1000:.1f} ms")
    pair = new_key_pair(stream(b"bench/key"))
    points = apply_all(pair.e, encodings()[1:]) * 10
    t = time.process_time()
    apply_all(pair.d, points)
    apply_us = (time.process_time() - t) / len(points) * 1e6
    t = time.process_time()
    for x in points:
        point_error(x)
    check_us = (time.process_time() - t) / len(points) * 1e6
    print(f"per value, CPU: X25519 {apply_us:.0f} us, receipt check (canonical, on the curve) {check_us:.0f} us")
    for players in (2, 5, 10):
        deal_s, audit_s, again_s, ops = bench(players, repeat)
        print(f"{players:>2} players, standard deck, CPU: deal {deal_s * 1000:6.1f} ms ({ops[0]} X25519), audit "
              f"{audit_s * 1000:6.1f} ms ({ops[1]} X25519; medians of {repeat}); the same audit by another session of "
              f"this process {again_s * 1000:.1f} ms (memo of layers)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=None,
                        help="in-process runs per figure (default 5); with --loopback, games per row (default 1)")
    parser.add_argument("--vectors", action="store_true", help="print the protocol.md test vectors and stop")
    parser.add_argument("--loopback", action="store_true",
                        help="also play real games, one process per player on 127.0.0.1, sealed and open deal")
    parser.add_argument("--rounds", type=int, default=2, help="rounds per loopback game (default 2)")
    parser.add_argument("--players", default="2,5,10", help="loopback player counts (default 2,5,10)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds a loopback game may take")
    parser.add_argument("--deals", default="sealed,open", help="loopback deals (default sealed,open)")
    parser.add_argument("--no-core", action="store_true", help="with --loopback, skip the in-process figures")
    parser.add_argument("--profile", metavar="FILE", help="with --loopback, run the last joiner under cProfile")
    args = parser.parse_args()
    if args.vectors:
        print(json.dumps(vectors(), indent=2))
        return
    if args.loopback:
        if not args.no_core:
            core(5)
        loopback([int(n) for n in args.players.split(",")], args.rounds, args.repeat or 1, args.timeout,
                 tuple(args.deals.split(",")), args.profile)
        return
    core(args.repeat or 5)
    print("vectors for protocol.md (python benchmarks/sealed_bench.py --vectors):")
    print(json.dumps(vectors(), indent=2))


if __name__ == "__main__":
    main()
