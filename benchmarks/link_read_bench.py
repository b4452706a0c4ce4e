"""A link's receive path: CPU per frame of reading session messages off a real socket on 127.0.0.1. Prints; asserts
nothing.

    python benchmarks/link_read_bench.py [--frames 20000] [--burst 1 4 16] [--size 300] [--repeat 5]

A writer sends `--frames` msg frames of `--size` bytes of wire, `--burst` frames per write (a turn's messages
from one peer come a few at a time; relays in bursts); the reader takes them with Connection.receive (a burst
read at once, msg frames sliced) and, beside it in the same run, the way a link read before issue 24's change
(read_frame: readexactly of the length, then of the frame, under an asyncio.timeout each, then msgpack's
decode and the [kind, payload] check). CPU time of the whole process (reader and writer), best of --repeat,
divided by the frames; the writer's share is the same for both.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from p2pnimmt.net.connection import IDLE_TIMEOUT, Connection, ConnectionFailed, msg_frame, read_frame


async def _run(frames: int, burst: int, size: int, way: str) -> float:
    wire = os.urandom(size)
    chunk = msg_frame(wire) * burst

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(frames // burst):
            writer.write(chunk)
            await writer.drain()
            await asyncio.sleep(0)  # let the reader run: frames come in bursts, not all at once
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    conn = Connection(reader, writer, bytes(32), bytes(16))
    got = 0
    start = time.process_time()
    def count(_kind: str, _payload: object) -> None:
        nonlocal got
        got += 1

    try:
        if way == "serve":
            await conn.serve(count)
        while True:
            if way == "old":
                value = await read_frame(reader, IDLE_TIMEOUT)
                if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)):
                    raise ConnectionFailed("frame is not [kind, payload]")
            else:
                await conn.receive()
            got += 1
    except ConnectionFailed:
        pass
    spent = time.process_time() - start
    conn.close()
    server.close()
    await server.wait_closed()
    assert got == frames // burst * burst, got
    return spent / got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20000)
    parser.add_argument("--burst", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--size", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    ways = ("old", "receive", "serve")
    for burst in args.burst:
        best = dict.fromkeys(ways, float("inf"))
        for _ in range(args.repeat):
            for way in ways:
                best[way] = min(best[way], asyncio.run(_run(args.frames, burst, args.size, way)))
        print(f"{args.size}-byte messages, {burst:>2} a write: µs of CPU a frame read as before (read_frame) "
              f"{best['old'] * 1e6:.1f}, by Connection.receive {best['receive'] * 1e6:.1f}, by Connection.serve "
              f"{best['serve'] * 1e6:.1f} (best of {args.repeat}); load average {os.getloadavg()[0]:.2f}", flush=True)

if __name__ == "__main__":
    main()
