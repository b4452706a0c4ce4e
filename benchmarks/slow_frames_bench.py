"""A link's frames read however a peer cuts them: CPU of the Python node's two readers of a link's bytes, a
Connection's served link (net.connection) and a phone relay's door (web.relaydoor.Watch, until the page's join), fed
in the cuts a peer (or a relay) chooses. Prints; asserts nothing.

    python benchmarks/slow_frames_bench.py [--repeat 3]

Cases: one frame at the 65 KiB limit a byte at a time (a TCP segment each) to a served link, to the door from the
page and from its peer; and a 64 KiB piece of 10-byte `ping` frames to the door from the page. Best of --repeat, CPU
time of the process (time.process_time). Before the session-42 review both readers joined their held bytes to every
piece (and the door cut its buffer at every frame): quadratic in the frame (protocol.pieces now keeps pieces apart).
The bytes go in through the link's transport protocol (its `_Tap`) and the door's `up`/`down`, as a socket's reads
would bring them, on one real loopback connection (127.0.0.1) whose writer the link needs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from p2pnimmt.net.connection import FRAME_LIMIT, HELLO, Connection, ConnectionFailed, frame
from p2pnimmt.web.relaydoor import Watch

BIG = frame(["ping", bytes(FRAME_LIMIT - 16)])  # one frame at the limit
PINGS = frame(["ping", None]) * (64 * 1024 // len(frame(["ping", None])))
PAGE = frame([HELLO, 1, bytes(16), b"k" * 32, b"n" * 16]) + frame(["auth", b"t" * 64])
PEER = frame([HELLO, 1, b"g" * 16, b"K" * 32, b"N" * 16]) + frame(["auth", b"s" * 64])


def bytewise(data: bytes) -> list[bytes]:
    return [data[i:i + 1] for i in range(len(data))]


async def served_link() -> float:
    """CPU seconds for a served link to take BIG a byte at a time."""
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    conn = Connection(reader, writer, bytes(32), bytes(16))
    got: list[str] = []
    serving = asyncio.create_task(conn.serve(lambda kind, payload: got.append(kind)))
    while conn._served is None:  # (serve hands the socket's bytes to its link once it began)
        await asyncio.sleep(0)
    pieces = bytewise(BIG)
    start = time.process_time()
    for piece in pieces:
        conn._tap.data_received(piece)
    spent = time.process_time() - start
    assert got == ["ping"], got
    conn.close()
    try:
        await serving
    except ConnectionFailed:
        pass
    server.close()
    return spent


def door(up: list[bytes], down: list[bytes]) -> float:
    """CPU seconds for a door whose handshake went by to take `down` from the peer, then `up` from the page."""
    watch = Watch()
    watch.down(PEER)
    watch.up(PAGE)
    start = time.process_time()
    for piece in down:
        watch.down(piece)
    for piece in up:
        watch.up(piece)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cases = {
        "served link, a 65 KiB frame a byte at a time": lambda: asyncio.run(served_link()),
        "door from the page, a 65 KiB frame a byte at a time": lambda: door(bytewise(BIG), []),
        "door from the peer, a 65 KiB frame a byte at a time": lambda: door([], bytewise(BIG)),
        "door from the page, a 64 KiB piece of 10-byte pings": lambda: door([PINGS], []),
    }
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for name, run in cases.items():
        best = min(run() for _ in range(args.repeat))
        print(f"{name}: {best * 1000:.1f} ms CPU (best of {args.repeat})")


if __name__ == "__main__":
    main()
