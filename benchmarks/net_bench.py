"""Network figures over loopback: discovery to connected, turn latency, a whole 10-bot game, memory per peer.

    python benchmarks/net_bench.py [--rounds N] [--peers N [N ...]] [--games N] [--by-turn]

Everything binds 127.0.0.1 (zeroconf included). Turn latency is measured
from the moment the last PLAY_COMMIT of a turn is sent to the moment the
last node has resolved that turn, with every peer a separate process on
this 2-core machine (clocks: CLOCK_MONOTONIC, shared by all processes).
With --peers, --games N plays N games at each size and pools their turns (the
p99 of 40 turns is their maximum; 4 games of 8 rounds at 10 peers give 320), and
--by-turn prints the latencies by the turn's index in its round (1 is the first
after the deal, the last comes before the round's end and its audit) with the
peers' CPU per turn and the load average. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench_procs import LO, p2p, wait_for


def start(args: list[str], out: Path, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(args, stdout=open(out, "wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env={**os.environ, **(env or {})})


async def discovery_to_connected(settle: float) -> tuple[float, float]:
    """In-process, real zeroconf on 127.0.0.1: a host starts and advertises; `settle` seconds later a joiner
    starts, browses for the code, dials, handshakes and joins with the seat key's proof. Returns (host start -> connected,
    joiner start -> connected)."""
    from p2pnimmt.engine import Settings
    from p2pnimmt.net.discovery import Advertiser, browse, game_code, open_zeroconf
    from p2pnimmt.net.node import Node
    from p2pnimmt.protocol.identity import Identity

    t0 = time.perf_counter()
    host = Node(Identity.generate(), name="host", interface="127.0.0.1", drop_after=0)
    await host.listen()
    await host.host(Settings(players=3, max_rounds=1, point_limit=None))  # 3 seats: the game does not start
    zc_host = open_zeroconf("127.0.0.1")
    ad = Advertiser(zc_host, host.game_id, host.identity.fingerprint, host.port, ["127.0.0.1"])
    await ad.start(1, 3, "lobby")
    await asyncio.sleep(max(0.0, settle - (time.perf_counter() - t0)))
    t_join = time.perf_counter()
    joiner = Node(Identity.generate(), name="joiner", interface="127.0.0.1", drop_after=0)
    await joiner.listen()
    zc_join = open_zeroconf("127.0.0.1")
    found = await browse(zc_join, 5, code=game_code(host.game_id))
    ad_found = [a for a in found if a.code == game_code(host.game_id)][0]
    joiner.seat_key = host.seat_key  # typed from the host's screen (protocol.md 14): the join proves it
    await joiner.join(ad_found.addresses[0], ad_found.port, ad_found.game_id)
    while joiner.identity.peer not in host.members:
        await asyncio.sleep(0.001)
    t_connected = time.perf_counter()
    for node in (joiner, host):
        await node.close()
    await ad.stop()
    await zc_host.async_close()
    await zc_join.async_close()
    return t_connected - t0, t_connected - t_join


def turn_latencies(peers: int, rounds: int, workdir: Path) -> list[float]:
    """Run a game of `peers` separate processes; per turn: last commit sent -> last node resolved."""
    return list(game_of_processes(peers, rounds, workdir).latencies.values())


class Game:
    """One game's stamps: per (round, turn) the latency, and each process's CPU seconds over its turns."""

    def __init__(self, outs: list[Path]) -> None:
        texts = [out.read_text() for out in outs]
        self.latencies = stamps_by_turn(texts)
        last: dict[tuple[str, int, int], float] = {}  # (kind, round, turn) -> the last node's stamp
        for text in texts:
            for kind, r, t, stamp in re.findall(r"timing (resolved|ended|dealt) (\d+) (\d+) ([\d.]+)", text):
                key = (kind, int(r), int(t))
                last[key] = max(last.get(key, 0.0), float(stamp))
        # between rounds: the round's last turn resolved at the last node -> its end at the last node (the sealed
        # deal's keys and audit, the ROUND_ENDs), and that -> the next round dealt at the last node (the deal)
        ends = sorted(k[1] for k in last if k[0] == "ended")
        self.round_ends = [last[("ended", r, 0)] - last[("resolved", r, t)] for r in ends for t in [max(
            k[2] for k in last if k[0] == "resolved" and k[1] == r)]]
        self.deals = [last[("dealt", r + 1, 0)] - last[("ended", r, 0)] for r in ends if ("dealt", r + 1, 0) in last]
        self.cpu_per_turn: list[float] = []  # each process: CPU from its first deal to its last resolution, a turn
        self.cpu_in_turn: list[float] = []  # each process and turn: CPU from its own commit to its resolution
        for text in texts:
            dealt = re.findall(r"timing dealt \d+ \d+ [\d.]+ ([\d.]+)", text)
            resolved = re.findall(r"timing resolved (\d+) (\d+) [\d.]+ ([\d.]+)", text)
            if dealt and resolved:
                self.cpu_per_turn.append((float(resolved[-1][2]) - float(dealt[0])) / len(resolved))
            committed = {(r, t): float(cpu) for r, t, cpu in re.findall(r"timing commit (\d+) (\d+) [\d.]+ ([\d.]+)",
                                                                         text)}
            self.cpu_in_turn += [float(cpu) - committed[(r, t)] for r, t, cpu in resolved if (r, t) in committed]


def game_of_processes(peers: int, rounds: int, workdir: Path) -> Game:
    """Run a game of `peers` separate processes and read their stamps."""
    env = {"P2PNIMMT_TIMING": "1"}
    host_out = workdir / f"h{peers}.out"
    procs = [start(p2p("host", "--headless", "--seats", str(peers), *LO, "--rounds", str(rounds), "--no-points",
                       "--transcript", str(workdir / f"h{peers}.p2pt")), host_out, env)]
    code = wait_for(host_out, r"code: (\w{4}-\w{4})").group(1)
    port = wait_for(host_out, r"listening on 127\.0\.0\.1:(\d+)").group(1)
    for i in range(peers - 1):
        procs.append(start(p2p("join", code, "--headless", *LO, "--peer", f"127.0.0.1:{port}",
                               "--transcript", str(workdir / f"j{peers}-{i}.p2pt")),
                           workdir / f"j{peers}-{i}.out", env))
    for proc in procs:
        proc.wait(300)
    return Game([host_out] + [workdir / f"j{peers}-{i}.out" for i in range(peers - 1)])


def in_process_latencies(peers: int, rounds: int, workdir: Path) -> list[float]:
    """The host with peers-1 bots in its own process (one event loop, real loopback TCP between the nodes)."""
    out = workdir / f"inproc{peers}.out"
    proc = start(p2p("host", "--headless", "--seats", str(peers), "--bots", str(peers - 1), *LO, "--rounds",
                     str(rounds), "--no-points", "--transcript", str(workdir / f"inproc{peers}.p2pt")), out,
                 {"P2PNIMMT_TIMING": "1"})
    proc.wait(300)
    return stamps([out])


def stamps(outs: list[Path]) -> list[float]:
    """Per turn: the last commit sent -> the last node resolved, from the timing lines of these outputs."""
    return list(stamps_by_turn([out.read_text() for out in outs]).values())


def stamps_by_turn(texts: list[str]) -> dict[tuple[int, int], float]:
    """(round, turn) -> the last commit sent -> the last node resolved, from the timing lines of these texts."""
    sent: dict[tuple[int, int], float] = {}
    resolved: dict[tuple[int, int], float] = {}
    for text in texts:
        for kind, r, t, stamp in re.findall(r"timing (commit|resolved) (\d+) (\d+) ([\d.]+)", text):
            key = (int(r), int(t))
            table = sent if kind == "commit" else resolved
            table[key] = max(table.get(key, 0.0), float(stamp))
    return {k: resolved[k] - sent[k] for k in sorted(sent) if k in resolved}


def by_turn_lines(games: list[Game]) -> list[str]:
    """The latencies by the turn's index in its round (median, p90, max ms, count), and the peers' CPU a turn."""
    per_index: dict[int, list[float]] = {}
    for game in games:
        for (_, turn), latency in game.latencies.items():
            per_index.setdefault(turn, []).append(latency * 1000)
    lines = ["  turn in round: median / p90 / max ms (turns)"]
    for turn in sorted(per_index):
        lat = sorted(per_index[turn])
        lines.append(f"  {turn:>3}: {statistics.median(lat):6.1f} / {lat[int(len(lat) * 0.9)]:6.1f} / "
                     f"{lat[-1]:6.1f} ({len(lat)})")
    ends = [e * 1000 for game in games for e in game.round_ends]
    deals = [d * 1000 for game in games for d in game.deals]
    if ends and deals:
        lines.append(f"  between rounds, at the last node: last turn resolved -> round ended (keys, audit) median "
                     f"{statistics.median(ends):.0f} ms; round ended -> next round dealt median "
                     f"{statistics.median(deals):.0f} ms ({len(deals)} deals)")
    cpu = [c * 1000 for game in games for c in game.cpu_per_turn]
    if cpu:
        lines.append(f"  CPU per peer per turn, deal to last resolution (each process's own time): mean "
                     f"{statistics.mean(cpu):.2f} ms, busiest {max(cpu):.2f} ms")
    inside = [c * 1000 for game in games for c in game.cpu_in_turn]
    if inside:
        lines.append(f"  CPU per peer inside a turn, its own commit sent to its resolution: mean "
                     f"{statistics.mean(inside):.2f} ms, median {statistics.median(inside):.2f} ms")
    return lines


def latency_line(peers: int, how: str, latencies: list[float]) -> str:
    lat = sorted(latencies)
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    return (f"{peers:>2} peers ({how}): turn latency median {statistics.median(lat) * 1000:.1f} ms, "
            f"p99 {p99 * 1000:.1f} ms over {len(lat)} turns")


def memory_and_wall(workdir: Path) -> tuple[float, list[float]]:
    """A 10-player game to 66: host with 9 in-process bots, wall time; then peak RSS of separate peers."""
    out = workdir / "wall.out"
    t0 = time.perf_counter()
    proc = start(p2p("host", "--headless", "--seats", "10", "--bots", "9", *LO,
                     "--transcript", str(workdir / "wall.p2pt")), out)
    proc.wait(600)
    wall = time.perf_counter() - t0
    host_out = workdir / "mem-h.out"
    procs = [start(["/usr/bin/time", "-f", "maxrss %M", *p2p("host", "--headless", "--seats", "3", *LO,
                    "--transcript", str(workdir / "mem-h.p2pt"))], host_out)]
    code = wait_for(host_out, r"code: (\w{4}-\w{4})").group(1)
    for i in range(2):
        procs.append(start(["/usr/bin/time", "-f", "maxrss %M", *p2p("join", code, "--headless", *LO,
                            "--transcript", str(workdir / f"mem-j{i}.p2pt"))], workdir / f"mem-j{i}.out"))
    for p in procs:
        p.wait(300)
    rss = []
    for f in [host_out, workdir / "mem-j0.out", workdir / "mem-j1.out"]:
        m = re.search(r"maxrss (\d+)", f.read_text())
        if m:
            rss.append(int(m.group(1)) / 1024)
    return wall, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds per latency game (default 2)")
    parser.add_argument("--peers", type=int, nargs="+",
                        help="only the latency games of separate processes at these table sizes (nothing else)")
    parser.add_argument("--games", type=int, default=1, help="with --peers: games at each size, turns pooled")
    parser.add_argument("--by-turn", action="store_true",
                        help="with --peers: the latencies by turn index in the round, the CPU a turn, the load")
    args = parser.parse_args()
    if args.peers:
        with tempfile.TemporaryDirectory() as tmp:
            for peers in args.peers:
                load = os.getloadavg()
                games = []
                for game in range(args.games):  # each game in a folder of its own (a transcript is never overwritten)
                    folder = Path(tmp) / f"{peers}-{game}"
                    folder.mkdir()
                    games.append(game_of_processes(peers, args.rounds, folder))
                print(latency_line(peers, "separate processes",
                                   [lat for game in games for lat in game.latencies.values()]))
                if args.by_turn:
                    print(f"  load average {load[0]:.2f} before, {os.getloadavg()[0]:.2f} after")
                    print("\n".join(by_turn_lines(games)))
        return
    total, _ = asyncio.run(discovery_to_connected(0.0))
    print(f"host start -> joiner connected, joiner started at once: {total * 1000:.0f} ms "
          "(mDNS answers a record at most once a second: the joiner waits out the host's announcement)")
    _, joining = asyncio.run(discovery_to_connected(3.0))
    print(f"joiner start -> connected, host already advertising: {joining * 1000:.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for peers in (2, 5, 10):
            print(latency_line(peers, "separate processes", turn_latencies(peers, args.rounds, workdir)))
        for peers in (2, 5, 10):
            print(latency_line(peers, "host + bots, one process", in_process_latencies(peers, args.rounds, workdir)))
        wall, rss = memory_and_wall(workdir)
        print(f"10-player game to 66 (host + 9 bots in one process): {wall:.2f} s wall, process start included")
        if rss:
            print(f"peak memory per peer process (3-player game): {', '.join(f'{r:.0f} MB' for r in rss)}")


if __name__ == "__main__":
    main()
