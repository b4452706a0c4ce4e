"""The browser front under a stranger's attack (issue 22, items 3 and 4): what the host keeps while it lasts.

    python benchmarks/web_attack_bench.py [--seconds 30] [--sources 30] [--each 40] [--nofile 1024] [--no-tv]

A real `p2pnimmt host --web` on 127.0.0.1 (zeroconf too), started under `prlimit --nofile=N:N` (the
issue's host had 1,024 open files and could not raise them). For `--seconds`, the attacker (this script)
holds `--sources` x `--each` half-open connections to the page's port from 127.0.0.2 and up (half send
nothing, half a request line and then a header byte a second; each one the server closes is opened
again), and opens 500 WebSockets with the TV page's token from ten addresses. Meanwhile, from 127.0.0.1:
the page is fetched every half second (its time), and a `p2pnimmt bot` joins on the game port (the time
until the host's lobby shows it). Printed: the connections the attack opened and the server closed, how
long the server let them live (median, 90th percentile, max), the host's open files (most seen, from
/proc) against its limit, the TV sockets accepted and refused, the page's fetch times and failures, the
join's time, the host's output in lines and bytes. Nothing binds or dials beyond 127.0.0.0/8; every
process started is ended by its pid. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "web")]

from bench_procs import p2p, wait_for  # noqa: E402
from slowloris import Slowloris, open_files  # noqa: E402


def start(args: list[str], out: Path, prefix: list[str], home: Path) -> subprocess.Popen:
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "c"), "XDG_DATA_HOME": str(home / "d"),
           "P2PNIMMT_SERVICE": f"_pnt-b{os.getpid() % 100000}._tcp.local."}
    return subprocess.Popen(prefix + p2p(*args), stdout=out.open("wb"),
                            stderr=subprocess.STDOUT, env=env)


def spread(values: list[float]) -> str:
    if not values:
        return "none"
    values = sorted(values)
    return (f"median {statistics.median(values):.2f} s, p90 {values[int(len(values) * 0.9)]:.2f} s, "
            f"max {values[-1]:.2f} s ({len(values)})")


async def tv_sockets(port: int, token: str) -> tuple[int, int, list]:
    """500 WebSockets with the TV's token from 127.0.0.50-59: (accepted, refused, what to close)."""
    sessions = [aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(f"127.0.0.{50 + n}", 0), limit=0))
                for n in range(10)]

    async def one(session):
        try:
            return await session.ws_connect(f"ws://127.0.0.1:{port}/ws?t={token}",
                                            headers={"Origin": f"http://127.0.0.1:{port}"})
        except (aiohttp.ClientError, OSError) as exc:
            return exc

    results = await asyncio.gather(*(one(s) for s in sessions for _ in range(50)))
    opened = [r for r in results if isinstance(r, aiohttp.ClientWebSocketResponse)]
    return len(opened), len(results) - len(opened), opened + sessions


async def run(options: argparse.Namespace, folder: Path) -> None:
    host_out, bot_out = folder / "host.out", folder / "bot.out"
    host = start(["host", "--web", "--no-open", "--seats", "3", "--bots", "1", "--interface", "127.0.0.1",
                  "--name", "ann"], host_out, ["prlimit", f"--nofile={options.nofile}:{options.nofile}", "--"], folder)
    bot = None
    try:
        page = wait_for(host_out, r"web: (http://127\.0\.0\.1:(\d+)/\?t=\S+)")
        url, port = page.group(1), int(page.group(2))
        tv_token = wait_for(host_out, r"tv: http://127\.0\.0\.1:\d+/\?t=(\S+)").group(1)
        code = wait_for(host_out, r"code: (\w{4}-\w{4})").group(1)
        game_port = wait_for(host_out, r"listening on 127\.0\.0\.1:(\d+)").group(1)
        attack = Slowloris(port, [f"127.0.0.{n}" for n in range(2, 2 + options.sources)], options.each,
                           budget=1_000_000)
        attack.start()
        accepted, refused, to_close = await tv_sockets(port, tv_token) if options.tv else (0, 0, [])
        most_files, limit = open_files(host.pid)
        fetches: list[float] = []
        failures = 0
        began = time.monotonic()
        joined_in = None
        async with aiohttp.ClientSession() as http:
            while time.monotonic() - began < options.seconds:
                if bot is None and time.monotonic() - began > options.seconds / 3:
                    bot_began = time.monotonic()
                    bot = start(["bot", code, "--interface", "127.0.0.1", "--peer", f"127.0.0.1:{game_port}"],
                                bot_out, [], folder)
                if bot is not None and joined_in is None and "3/3 seats" in host_out.read_text(errors="replace"):
                    joined_in = time.monotonic() - bot_began
                t0 = time.monotonic()
                try:
                    async with http.get(url, timeout=aiohttp.ClientTimeout(total=10)) as r:
                        await r.read()
                        if r.status == 200:
                            fetches.append(time.monotonic() - t0)
                        else:
                            failures += 1
                except (TimeoutError, aiohttp.ClientError):
                    failures += 1
                most_files = max(most_files, open_files(host.pid)[0])
                await asyncio.sleep(0.5)
        await attack.end()
        for item in to_close:
            await item.close()
        text = host_out.read_text(errors="replace")
        print(f"host: open-file limit {limit} (prlimit), most open files seen {most_files}")
        print(f"slowloris: {options.sources} addresses x {options.each} held for {options.seconds:.0f} s: "
              f"{attack.opened} connections opened, {attack.closed_by_server} closed by the server, "
              f"{attack.failed} connects failed")
        print(f"  their lifetimes until the server closed them: {spread(attack.lifetimes)}")
        if options.tv:
            print(f"TV-token WebSockets: 500 tried from 10 addresses, {accepted} accepted, {refused} refused")
        print(f"page fetched from 127.0.0.1 during the attack: {spread(fetches)}; {failures} failed")
        joined = f"{joined_in:.2f} s" if joined_in is not None else "not joined"
        print(f"bot join on the game port during the attack: {joined}")
        print(f"host output: {len(text.splitlines())} lines, {len(text.encode())} bytes, "
              f"{text.count('Traceback')} tracebacks")
    finally:
        for proc in (bot, host):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--sources", type=int, default=30)
    parser.add_argument("--each", type=int, default=40)
    parser.add_argument("--nofile", type=int, default=1024)
    parser.add_argument("--no-tv", dest="tv", action="store_false", help="no TV-token WebSockets")
    options = parser.parse_args()
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))  # the attacker's own sockets
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(run(options, Path(folder)))


if __name__ == "__main__":
    main()
