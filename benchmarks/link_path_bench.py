"""A served link's Python per frame, without sockets: CPU per relayed copy taken (the frames of a read handed to
net.frames.on_frame, each a message the node holds, from a peer that is not its sender: about half of a node's
frames) and per message queued and flushed to nine links. Prints; asserts nothing.

    python benchmarks/link_path_bench.py [--repeat 7]
    cd OLD && PYTHONPATH=OLD python /path/to/this/tree/benchmarks/link_path_bench.py   # another tree's code

The messages are those of a seeded in-memory 10-seat round (tests/protocol/harness.py), held by one session;
the frames come three a read (as a turn's do) through the link's _Link.data_received and the node's burst,
its transcript held and written as a node's is; the writes go to a transport that drops them (the kernel's
share is not here: peers_cpu_bench and strace have it). Best of --repeat, CPU time.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path.cwd() / "tests" / "protocol"))

from harness import Net  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402
from p2pnimmt.net import connection  # noqa: E402
from p2pnimmt.net.frames import on_frame  # noqa: E402
from p2pnimmt.net.node import Node  # noqa: E402
from p2pnimmt.protocol.identity import Identity  # noqa: E402


class _Dropping(asyncio.Transport):
    """Takes every write and drops it."""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return False

    def get_extra_info(self, name: str, default: object = None) -> object:
        return ("127.0.0.1", 1) if name == "peername" else default


async def _measure(repeat: int) -> tuple[float, float, int]:
    net = Net(10, settings=Settings(players=10, max_rounds=1, point_limit=None, deal="open"), bots="random", seed=0,
              spectators=0, shuffle_delivery=False)
    net.start()
    net.run()
    me, via = net.identities[3], net.identities[4]
    session = net.sessions[me.peer]
    wires = [env.wire for env in session.inbox.accepted if env.sender not in (me.peer, via.peer)]
    loop = asyncio.get_running_loop()
    node = Node(Identity.generate(), name="bench")
    node.session = session
    reader = asyncio.StreamReader()
    stream = asyncio.StreamReaderProtocol(reader)
    writer = asyncio.StreamWriter(_Dropping(), stream, reader, loop)
    tap = connection._Tap(stream)

    def link_to(key: bytes) -> connection.Connection:
        return connection.Connection(reader, writer, key, session.game_id, tap)

    conn = link_to(via.public_key)
    args = [conn, partial(on_frame, node, conn), node.burst, loop.create_future()]
    if "loop" in inspect.signature(connection._Link).parameters:  # (a tree before the loop was kept: without it)
        args.append(loop)
    link = connection._Link(*args)
    frames = [connection.msg_frame(wire) for wire in wires]
    reads = [b"".join(frames[i:i + 3]) for i in range(0, len(frames), 3)]
    relayed = sent = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(20):
            conn.sent.clear()
            conn.received.clear()
            for data in reads:
                link.data_received(data)
        relayed = min(relayed, (time.process_time() - start) / (20 * len(frames)))
    links = [link_to(i.public_key) for i in net.identities if i.peer != me.peer]
    for _ in range(repeat):
        start = time.process_time()
        for wire in wires:
            framed = connection.msg_frame(wire)
            for each in links:
                each.send_message(wire, framed)
            for each in links:
                each._flush()
        sent = min(sent, (time.process_time() - start) / len(wires))
        for each in links:
            each.sent.clear()
    return relayed, sent, len(frames)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    relayed, sent, count = asyncio.run(_measure(args.repeat))
    print(f"a relayed copy taken (frames three a read, {count} messages of a 10-seat round): {relayed * 1e6:.2f} µs CPU;"
          f" a message queued and flushed to 9 links: {sent * 1e6:.2f} µs CPU")


if __name__ == "__main__":
    main()
