"""Slowloris on 127.0.0.1 for the tests and benchmarks/web_attack_bench.py: half-open connections from many
loopback addresses (127.0.0.2 and up: as many machines of a LAN would come from), and /proc's view of a process's
open files."""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path

from deadlines import OUTER


class Slowloris:
    """Half-open connections to the page's port from many loopback addresses, each kept open as long as the
    server lets it: half send nothing at all, half a request line and then one header byte a second. A
    connection the server closes is opened again, until `stop` (and at most `budget` connections in all)."""

    def __init__(self, port: int, sources: list[str], each: int, budget: int = 20000) -> None:
        self.port, self.sources, self.each, self.budget = port, sources, each, budget
        self.stop = asyncio.Event()
        self.opened = self.closed_by_server = self.failed = 0
        self.lifetimes: list[float] = []  # seconds from connect to the server's close, of each it closed
        self.tasks: list[asyncio.Task] = []

    def start(self) -> None:
        self.tasks = [asyncio.ensure_future(self.hold(ip, n % 2 == 0)) for ip in self.sources for n in range(self.each)]

    async def hold(self, ip: str, silent: bool) -> None:
        while not self.stop.is_set() and self.opened < self.budget:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(ip, 0))
            except OSError:
                self.failed += 1
                await asyncio.sleep(0.2)
                continue
            self.opened += 1
            began = asyncio.get_running_loop().time()
            try:
                if not silent:
                    writer.write(b"GET /?t=x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-")
                while not self.stop.is_set():
                    try:
                        data = await asyncio.wait_for(reader.read(100), 1.0)
                    except TimeoutError:
                        if not silent:
                            writer.write(b"a")
                        continue
                    if not data:
                        self.closed_by_server += 1
                        self.lifetimes.append(asyncio.get_running_loop().time() - began)
                        break
            except OSError:
                self.closed_by_server += 1
                self.lifetimes.append(asyncio.get_running_loop().time() - began)
            finally:
                writer.close()

    async def end(self) -> None:
        self.stop.set()
        await asyncio.gather(*self.tasks, return_exceptions=True)


class KeptAlive:
    """One connection from each of `sources` to the page's port, each asking for a static file (no token needed)
    every `every` seconds and reading its answer (keep-alive: never idle), opened again at once when the server
    closes it (benchmarks/attacks/web_spread.py: a stranger with as many addresses as the server has places)."""

    def __init__(self, port: int, sources: list[str], static: str = "table.css", every: float = 2.0) -> None:
        self.port, self.sources, self.static, self.every = port, sources, static, every
        self.stop = asyncio.Event()
        self.answers = self.opened = self.cut = 0
        self.tasks: list[asyncio.Task] = []

    def start(self) -> None:
        self.tasks = [asyncio.ensure_future(self.hold(ip)) for ip in self.sources]

    async def hold(self, ip: str) -> None:
        request = f"GET /static/{self.static} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n\r\n".encode()
        while not self.stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(ip, 0))
            except OSError:
                await asyncio.sleep(0.2)
                continue
            self.opened += 1
            try:
                while not self.stop.is_set():
                    writer.write(request)
                    head = await reader.readuntil(b"\r\n\r\n")
                    size = re.search(rb"Content-Length: (\d+)", head, re.I)
                    await reader.readexactly(int(size.group(1)) if size else 0)
                    self.answers += 1
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.stop.wait(), self.every)
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                self.cut += 1
            finally:
                writer.close()

    async def end(self) -> None:
        self.stop.set()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def fetch(url: str, source: str = "127.0.0.1") -> str:
    """GET `url` (http://127.0.0.1:PORT/...) from `source` on a fresh connection: the status line, or why not."""
    match = re.match(r"http://([\d.]+):(\d+)(/.*)", url)
    assert match is not None, url
    host, port, path = match.groups()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, int(port), local_addr=(source, 0)), 5)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
        data = await asyncio.wait_for(reader.read(), 5)
        writer.close()
    except (OSError, TimeoutError) as exc:
        return type(exc).__name__
    return data.split(b"\r\n", 1)[0].decode(errors="replace") or "closed without an answer"


async def closed_by_server(port: int, first: bytes, deadline: float = OUTER) -> bool:
    """Open one connection, send `first`, then a byte a second: True once the server closes it, False when the
    server holds it `deadline` s.

    A connection the server's kernel never took is no answer either way, and is opened again: under the attack the
    page's port's accept queue (web.guard.BURST) is full of the attack's own connections, and with the host slow
    to accept (a loaded machine) the kernel drops the connection's last handshake packet, then after its retries
    the connection itself, while this side holds it open: an idle one is never told (CI, session 37: 'assert
    False' after 90 s with the server's own end gone; benchmarks.md, 'Two flakes of test_front_attacks'). The
    deadline runs from the moment the server's end is established."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + 4 * deadline  # (a server whose kernel takes no connection at all keeps players out)
    while loop.time() < give_up:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.99", 0))
        me = writer.get_extra_info("sockname")
        writer.write(first)
        end: float | None = None  # set once the server's end is established
        try:
            while end is None or loop.time() < end:
                try:
                    if not await asyncio.wait_for(reader.read(100), 1.0):
                        return True
                except TimeoutError:
                    if first:
                        writer.write(b"a")
                state = server_end(port, me)
                if state is None and end is None:
                    break  # dropped by the server's kernel before the server had it: another one
                if state == ESTABLISHED and end is None:
                    end = loop.time() + deadline
            else:
                return False
        except OSError:
            return True
        finally:
            writer.close()
    return False


ESTABLISHED = "01"  # /proc/net/tcp's state of a connection's established end


def server_end(port: int, client: tuple[str, int]) -> str | None:
    """The state (/proc/net/tcp's: ESTABLISHED, '03' half-way through its handshake, ...) of the server's end of
    the connection from `client` (address, port) to 127.0.0.1:`port`, None where the server's kernel holds none."""
    def hexed(address: str, number: int) -> str:
        return "".join(f"{int(part):02X}" for part in reversed(address.split("."))) + f":{number:04X}"

    ours, theirs = hexed("127.0.0.1", port), hexed(*client)
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == ours and fields[2] == theirs:
            return fields[3]
    return None


def open_files(pid: int) -> tuple[int, int]:
    """(files open now, soft limit) of process `pid`, from /proc."""
    limit = re.search(r"Max open files\s+(\d+)", Path(f"/proc/{pid}/limits").read_text())
    assert limit is not None
    return len(list(Path(f"/proc/{pid}/fd").iterdir())), int(limit.group(1))
