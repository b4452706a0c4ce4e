"""FINDING (session 29, redteam9), not fixed: a stranger who opens TCP connections to a host's port as fast as one
core can (non-blocking connects from one address, some 25,000 a second on loopback, each closed a moment later)
keeps every joiner out for as long as it goes on. A reproduction, not a test: it prints what the joiner said and
exits 1 while the join fails.

The host accepts each connection in Python (a StreamReader and writer, a task, its hello sent) and cuts the oldest
past 128 waiting (since session 29 the oldest of the address holding the most: tests/net/test_pending_flood.py, so
a stream slow enough to be accepted no longer cuts a joiner's handshake). But the flood outruns the accept loop: the
listen queue (asyncio's default backlog, 100) stays full, the kernel drops the joiner's connection attempts, and its
dial gives up after 5 s ("cannot reach …: no answer within 5 s"); the host sits at 100% of a core meanwhile.

Why it matters: the LAN promise says no stranger can lock anyone out. Any TCP service on a LAN can be flooded, but
here one process on one address suffices, and nothing tells the host who is doing it (the log says only "cut off:
128 connections were waiting", once).

Candidate fixes: (1) take connections through a plain asyncio.Protocol that counts them by address before anything
else (as the page server's web.guard does) and closes one past a per-address bound at once, with no reader, writer,
task or hello; (2) a larger listen backlog; (3) a joiner that dials again for its --give-up time, not 5 s once, and
says that its host's port does not answer (a flood, or a host gone); (4) one log line naming the flooding address.

    python benchmarks/attacks/connect_flood.py [SECONDS_OF_FLOOD_BEFORE_THE_JOIN]
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
STRANGER = "127.0.0.7"


def main(before: float) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
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
            code = re.search(r"code: (\w{4})", (d / "h.out").read_text()).group(1)

            def flood() -> None:
                held: list[socket.socket] = []
                while not stop.is_set():
                    try:
                        sock = socket.socket()
                        sock.setblocking(False)
                        sock.bind((STRANGER, 0))
                        sock.connect_ex(("127.0.0.1", port))
                        held.append(sock)
                        opened[0] += 1
                        if len(held) > 300:
                            held.pop(0).close()
                    except OSError:
                        time.sleep(0.0005)
                for sock in held:
                    sock.close()

            threads = [threading.Thread(target=flood, daemon=True) for _ in range(4)]
            for thread in threads:
                thread.start()
            time.sleep(before)
            began = time.monotonic()
            joiner = subprocess.run([sys.executable, "-m", "p2pnimmt", "join", code, "--headless", "--interface",
                                     "127.0.0.1", "--peer", f"127.0.0.1:{port}", "--name", "bob", "--transcript",
                                     str(d / "b.p2pt")], capture_output=True, text=True, env=env, timeout=300)
            took = time.monotonic() - began
        finally:
            stop.set()
            for thread in threads:
                thread.join(30)
            if host.poll() is None:
                host.kill()  # by pid
            host.wait()
        said = (joiner.stdout + joiner.stderr).strip().splitlines()
        print(f"the stranger opened {opened[0]} connections; the join exited {joiner.returncode} after {took:.1f} s: "
              f"{said[-1] if said else '(nothing)'}")
        return 1 if joiner.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))
