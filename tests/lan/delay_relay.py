"""A UDP relay that holds every datagram 150 ± 50 ms (or as told) before passing it on: the slow, jittery path
between two homes, for WireGuard's datagrams (tests/lan/test_latency.py). Run inside a test's namespace:

    python tests/lan/delay_relay.py --address IP --delay 0.15 --jitter 0.05 --seed N ROUTE...

A ROUTE is `IN:OUT:HOST:PORT`: what arrives at IP:IN is sent from IP:OUT to HOST:PORT after the delay. For a
pair of peers i, j the test gives two routes, `Rij:Rji:j:51820` and `Rji:Rij:i:51820`, and i's WireGuard sends
to j at IP:Rij: each side then sees the other at the one port it was told, so WireGuard's roaming keeps it.
The delay of each datagram is drawn (seeded) in delay ± jitter, and never makes it overtake the one before it
on its route (jitter without reordering, as a queue on a path behaves). Bounded: at most MAX_QUEUED datagrams
held per route, more are dropped (as a full queue does). Prints `relaying N routes` once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import random

MAX_QUEUED = 4096


class Route(asyncio.DatagramProtocol):
    def __init__(self, out: int, to: tuple[str, int], relay: Relay) -> None:
        self.out, self.to, self.relay = out, to, relay
        self.last = 0.0  # when the latest datagram held on this route goes out
        self.queued = 0

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:  # type: ignore[override]
        if self.queued >= MAX_QUEUED:
            return
        loop = asyncio.get_running_loop()
        at = max(self.last, loop.time() + self.relay.draw())
        self.last = at
        self.queued += 1
        loop.call_at(at, self.deliver, data)

    def deliver(self, data: bytes) -> None:
        self.queued -= 1
        self.relay.transports[self.out].sendto(data, self.to)


class Relay:
    def __init__(self, delay: float, jitter: float, seed: int) -> None:
        self.delay, self.jitter = delay, jitter
        self.random = random.Random(seed)
        self.transports: dict[int, asyncio.DatagramTransport] = {}

    def draw(self) -> float:
        return self.random.uniform(self.delay - self.jitter, self.delay + self.jitter)


async def main(args: argparse.Namespace) -> None:
    loop = asyncio.get_running_loop()
    relay = Relay(args.delay, args.jitter, args.seed)
    for route in args.routes:
        listen, out, host, port = route.split(":")
        transport, _ = await loop.create_datagram_endpoint(
            lambda out=int(out), to=(host, int(port)): Route(out, to, relay), local_addr=(args.address, int(listen)))
        relay.transports[int(listen)] = transport
    print(f"relaying {len(args.routes)} routes", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--delay", type=float, default=0.15)
    parser.add_argument("--jitter", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("routes", nargs="+")
    asyncio.run(main(parser.parse_args()))
