"""A stranger's flood of connections at a node's port, from inside a namespace (the address it shares with a
member there, as behind one NAT): it holds PER_ADDRESS connections (saying nothing), then connects and drops as
fast as one thread can for SECONDS. Prints one JSON line: its dials by outcome ("answered", "reset", "no answer":
dropped by the kernel, as at an address shut out).

    ip netns exec NS python tests/lan/door_flood.py ADDRESS PORT SECONDS
"""

from __future__ import annotations

import json
import socket
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from p2pnimmt.net.door import PER_ADDRESS  # noqa: E402


def flood(address: str, port: int, seconds: float) -> dict:
    held = [socket.create_connection((address, port), timeout=5) for _ in range(PER_ADDRESS)]
    counts: Counter = Counter()
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            try:
                sock = socket.create_connection((address, port), timeout=0.5)
            except TimeoutError:
                counts["no answer"] += 1
                continue
            except OSError:
                counts["reset"] += 1
                continue
            try:
                sock.settimeout(0.5)
                counts["answered" if sock.recv(4) else "reset"] += 1
            except OSError:
                counts["reset"] += 1
            finally:
                sock.close()
    finally:
        for sock in held:
            sock.close()
    return dict(counts)


if __name__ == "__main__":
    print(json.dumps(flood(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))), flush=True)
