"""Network figures over loopback: discovery to connected, turn latency, a whole 10-bot game, memory per peer.

    python benchmarks/net_bench.py [--rounds N] [--peers N [N ...]]

Everything binds 127.0.0.1 (zeroconf included). Turn latency is measured
from the moment the last PLAY_COMMIT of a turn is sent to the moment the
last node has resolved that turn, with every peer a separate process on
this 2-core machine (clocks: CLOCK_MONOTONIC, shared by all processes).
Prints figures; asserts nothing.
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
    return stamps([host_out] + [workdir / f"j{peers}-{i}.out" for i in range(peers - 1)])


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
    sent: dict[tuple[int, int], float] = {}
    resolved: dict[tuple[int, int], float] = {}
    for out in outs:
        for kind, r, t, stamp in re.findall(r"timing (commit|resolved) (\d+) (\d+) ([\d.]+)", out.read_text()):
            key = (int(r), int(t))
            table = sent if kind == "commit" else resolved
            table[key] = max(table.get(key, 0.0), float(stamp))
    return [resolved[k] - sent[k] for k in sorted(sent) if k in resolved]


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
    args = parser.parse_args()
    if args.peers:
        with tempfile.TemporaryDirectory() as tmp:
            for peers in args.peers:
                print(latency_line(peers, "separate processes", turn_latencies(peers, args.rounds, Path(tmp))))
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
