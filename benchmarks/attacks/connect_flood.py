"""FINDING (session 29, redteam9), fixed in session 30: a stranger who opens TCP connections to a host's port as fast
as one core can (non-blocking connects, each closed a moment later) kept every joiner out for as long as it went
on. A reproduction and a measure: it floods a headless host from ADDRESSES loopback addresses (127.0.0.10 on),
joins a seat meanwhile, prints what the joiner said, how long the join took and how much of a core the host
spent, and exits 1 if the join failed.

KIND of stranger:
  none   no stranger (the figures to compare with);
  churn  connects opened and dropped as fast as four threads can (the finding);
  under  the same, each address just under the rate at which the host shuts it out;
  idle   connections that send nothing, each held until the host cuts it (half-open, from the host's side);
  slow   connections that say their hello one byte a second (slowloris).

Before (session 29): the host accepted each connection in Python (a StreamReader and writer, a task, its hello
sent); the flood outran the accept loop, the listen queue (asyncio's default backlog, 100) stayed full, the kernel
dropped the joiner's dial and it gave up after 5 s ("cannot reach ...: no answer within 5 s"). Now the host's door
(p2pnimmt/net/door.py) counts each connection by address as it accepts it, before anything is made for it, and
resets one past PER_ADDRESS waiting from its address at once; its listen queue holds BACKLOG; a joiner dials its
host again while the port does not answer, up to its --give-up time. The figures: docs/lan-and-browser.md ("Holes
a red team found, and those still open").

    python benchmarks/attacks/connect_flood.py [SECONDS_OF_FLOOD_BEFORE_THE_JOIN] [ADDRESSES] [KIND]
"""

from __future__ import annotations

import os
import re
import resource
import secrets
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

from p2pnimmt.net.door import SHUT_AFTER, SHUT_WINDOW  # noqa: E402

# The stranger's threads run at this nice level (P2PNIMMT_FLOOD_NICE; 0: as the host): on a LAN its CPU is its own
# machine's, not the host's, while here the three share two cores.
NICE = int(os.environ.get("P2PNIMMT_FLOOD_NICE", "19"))
HELLO_BYTES = b"\x00\x00\x00\x50" + bytes(80)  # a frame's length and what could be a hello, said one byte a second


def strangers(n: int) -> list[str]:
    return [f"127.0.0.{10 + i}" for i in range(n)]


def churn(port: int, addresses: list[str], stop: threading.Event, opened: list[int], rate: float = 0.0) -> None:
    """Connects from `addresses` in turn, as fast as the thread can (or `rate` a second), each dropped soon after."""
    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
    held: list[socket.socket] = []
    turn = 0
    began = time.monotonic()
    while not stop.is_set():
        if rate and turn > rate * (time.monotonic() - began):
            time.sleep(0.001)
            continue
        try:
            sock = socket.socket()
            sock.setblocking(False)
            sock.bind((addresses[turn % len(addresses)], 0))
            turn += 1
            sock.connect_ex(("127.0.0.1", port))
            held.append(sock)
            opened[0] += 1
            if len(held) > 300:
                held.pop(0).close()
        except OSError:
            time.sleep(0.0005)
    for sock in held:
        sock.close()


def holding(port: int, addresses: list[str], stop: threading.Event, opened: list[int], slow: bool) -> None:
    """Connections kept open (up to 64 an address), each saying nothing, or its hello a byte a second."""
    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
    held: list[tuple[socket.socket, int]] = []
    turn = 0
    last_byte = time.monotonic()
    while not stop.is_set():
        held = [(s, n) for s, n in held if s.fileno() != -1]
        if len(held) < 64 * len(addresses):
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=2,
                                                source_address=(addresses[turn % len(addresses)], 0))
                sock.setblocking(False)
                held.append((sock, 0))
                opened[0] += 1
            except OSError:
                pass
            turn += 1
        else:
            time.sleep(0.01)
        if slow and time.monotonic() - last_byte >= 1.0:
            last_byte = time.monotonic()
            for i, (sock, n) in enumerate(held):
                try:
                    sock.send(HELLO_BYTES[n % len(HELLO_BYTES):][:1])
                    held[i] = (sock, n + 1)
                except OSError:
                    sock.close()
    for sock, _ in held:
        sock.close()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(before: float, n_addresses: int, kind: str) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    addresses = strangers(n_addresses)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "P2PNIMMT_SERVICE": f"_pnt-r9{secrets.token_hex(3)}._tcp.local."}
    with TemporaryDirectory() as folder:
        d = Path(folder)
        host = subprocess.Popen([sys.executable, "-m", "p2pnimmt", "host", "--headless", "--seats", "2",
                                 "--interface", "127.0.0.1", "--rounds", "1", "--no-points", "--deal", "open",
                                 "--name", "ann", "--transcript", str(d / "h.p2pt")],
                                stdout=open(d / "h.out", "wb"), stderr=subprocess.STDOUT, env=env)
        stop = threading.Event()
        opened = [0]
        threads: list[threading.Thread] = []
        try:
            deadline = time.monotonic() + 60
            while not (found := re.search(r"listening on 127\.0\.0\.1:(\d+)", (d / "h.out").read_text())):
                if time.monotonic() > deadline or host.poll() is not None:
                    raise SystemExit((d / "h.out").read_text())
                time.sleep(0.05)
            port = int(found.group(1))
            code = re.search(r"code: (\w{4}-\w{4})", (d / "h.out").read_text()).group(1)
            if kind == "none":  # the figures without a stranger, to compare
                threads = []
            elif kind in ("churn", "under"):
                # under: each address just under the rate that shuts it out (net.door: SHUT_AFTER in SHUT_WINDOW s)
                rate = 0.9 * SHUT_AFTER / SHUT_WINDOW * len(addresses) / 4 if kind == "under" else 0.0
                threads = [threading.Thread(target=churn, args=(port, addresses, stop, opened, rate), daemon=True)
                           for _ in range(4)]
            else:
                threads = [threading.Thread(target=holding, args=(port, addresses, stop, opened, kind == "slow"),
                                            daemon=True)]
            for thread in threads:
                thread.start()
            time.sleep(before)
            cpu_before, began = cpu_seconds(host.pid), time.monotonic()
            joiner = subprocess.Popen([sys.executable, "-m", "p2pnimmt", "join", code, "--headless", "--interface",
                                       "127.0.0.1", "--peer", f"127.0.0.1:{port}", "--name", "bob", "--give-up", "60",
                                       "--transcript", str(d / "b.p2pt")], stdout=open(d / "b.out", "wb"),
                                      stderr=subprocess.STDOUT, env=env)
            seated = float("nan")
            cpu, busy = 0.0, 0.0  # the host's CPU and the time it was read at, last read while it ran (it ends with the game)
            while joiner.poll() is None:
                if seated != seated and "joined" in (d / "b.out").read_text(errors="replace"):
                    seated = time.monotonic() - began
                if host.poll() is None:
                    cpu, busy = cpu_seconds(host.pid) - cpu_before, time.monotonic() - began
                time.sleep(0.05)
            took = time.monotonic() - began
        finally:
            stop.set()
            for thread in threads:
                thread.join(30)
            if host.poll() is None:
                host.kill()  # by pid
            host.wait()
        said = (d / "b.out").read_text(errors="replace").strip().splitlines()
        named = [line for line in (d / "h.out").read_text(errors="replace").splitlines() if "refused connections" in
                 line or "cut off:" in line or "shut out" in line]
        print(f"{kind} from {n_addresses} address(es), nice {NICE}: the stranger opened {opened[0]} connections; the joiner had "
              f"its seat after {seated:.1f} s and exited {joiner.returncode} after {took:.1f} s (a game of one round), "
              f"the host busy {cpu / busy if busy else 0.0:.0%} of a core meanwhile: {said[-1] if said else '(nothing)'}")
        for line in named[:2] + ([f"... {len(named) - 2} more"] if len(named) > 2 else []):
            print(f"  host: {line.strip()[:200]}")
        return 1 if joiner.returncode != 0 else 0


if __name__ == "__main__":
    argv = sys.argv[1:]
    sys.exit(main(float(argv[0]) if argv else 1.0, int(argv[1]) if len(argv) > 1 else 1,
                  argv[2] if len(argv) > 2 else "churn"))
