"""No stranger locks anyone out of a game with a flood of TCP connections (red team, session 29: connects opened and
dropped as fast as a core can, from one address, kept every joiner out). The node's door (net.door) counts each
connection by address as it accepts it and resets one past PER_ADDRESS waiting from there at once, saying so in a
line that names the address; a joiner dials again while the host's port does not answer; a game's links are
members' and never count. Real TCP on 127.0.0.1; the strangers come from other loopback addresses (127.0.0.x)."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from deadlines import OUTER
from procs import final_scores

from p2pnimmt.engine import Settings
from p2pnimmt.net.connection import HELLO
from p2pnimmt.net.door import PER_ADDRESS, SHUT_AFTER
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.codec import decode
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]
STRANGER = "127.0.0.7"
STRANGERS = [f"127.0.0.{n}" for n in range(20, 28)]


def churn(port: int, addresses: list[str], stop: threading.Event) -> None:
    """Non-blocking connects from `addresses` in turn, as fast as the thread can, each dropped a moment later."""
    held: list[socket.socket] = []
    turn = 0
    while not stop.is_set():
        try:
            sock = socket.socket()
            sock.setblocking(False)
            sock.bind((addresses[turn % len(addresses)], 0))
            turn += 1
            sock.connect_ex(("127.0.0.1", port))
            held.append(sock)
            if len(held) > 300:
                held.pop(0).close()
        except OSError:
            time.sleep(0.001)
    for sock in held:
        sock.close()


@contextmanager
def flooding(port: int, addresses: list[str], threads: int = 2) -> Iterator[None]:
    stop = threading.Event()
    running = [threading.Thread(target=churn, args=(port, addresses, stop), daemon=True) for _ in range(threads)]
    for thread in running:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        for thread in running:
            thread.join(OUTER)


def first_bytes(port: int, source: str) -> bytes | str:
    """What a connection from `source` is told first: the node's hello frame, or how it ended before one."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=OUTER, source_address=(source, 0))
    except ConnectionResetError:  # reset as it was accepted
        return "reset"
    try:
        header = sock.recv(4)
        if not header:
            return "closed"
        return header + sock.recv(int.from_bytes(header, "big"), socket.MSG_WAITALL)
    except ConnectionResetError:
        return "reset"
    finally:
        sock.close()


async def test_one_connection_past_the_bound_of_its_address_is_reset_at_once_and_the_address_named(caplog) -> None:
    """PER_ADDRESS connections from one address that say nothing are each greeted (a hello); the next from there is
    reset before a byte is sent, and the log names the address once; another address is greeted still, and one of
    the stranger's closed makes room for one more of its own."""
    caplog.set_level(logging.INFO, "p2pnimmt.net")
    node = Node(Identity.generate(), name="ann", interface="127.0.0.1", drop_after=0)
    await node.listen()
    await node.host(Settings(players=3, max_rounds=1, point_limit=None, deal="open"))
    held: list[socket.socket] = []
    try:
        def hello_of(sock: socket.socket) -> list:
            header = sock.recv(4)
            return decode(sock.recv(int.from_bytes(header, "big"), socket.MSG_WAITALL))

        for _ in range(PER_ADDRESS):
            sock = await asyncio.to_thread(socket.create_connection, ("127.0.0.1", node.port), OUTER, (STRANGER, 0))
            held.append(sock)
            assert (await asyncio.to_thread(hello_of, sock))[0] == HELLO
        assert await asyncio.to_thread(first_bytes, node.port, STRANGER) in ("reset", "closed")
        assert await asyncio.to_thread(first_bytes, node.port, STRANGER) in ("reset", "closed")
        assert decode((await asyncio.to_thread(first_bytes, node.port, "127.0.0.1"))[4:])[0] == HELLO
        assert node.server is not None and node.server.refused == 2
        lines = [r.getMessage() for r in caplog.records if "refused connections from" in r.getMessage()]
        assert len(lines) == 1 and STRANGER in lines[0], lines
        held.pop().close()
        for _ in range(200):  # the node sees the close: its place is free (outcome waited for, not a time)
            if node.server.waiting.get(STRANGER, 0) < PER_ADDRESS:
                break
            await asyncio.sleep(0.05)
        assert decode((await asyncio.to_thread(first_bytes, node.port, STRANGER))[4:])[0] == HELLO
    finally:
        for sock in held:
            sock.close()
        await node.close()


def dial_until_unanswered(port: int, source: str, most: int) -> int:
    """Dial from `source` (each dial dropped at once) until one is not answered within 2 s: the dials made."""
    for n in range(1, most + 1):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2, source_address=(source, 0)).close()
        except TimeoutError:
            return n
        except OSError:
            pass  # reset at the door
    return most + 1


async def test_an_address_that_floods_the_door_is_shut_out_and_others_are_not(caplog) -> None:
    """An address whose dials the door keeps resetting (SHUT_AFTER within SHUT_WINDOW s) is shut out: its dials go
    unanswered (the kernel drops them before the listen queue), in one log line naming it; another address is
    greeted as before."""
    caplog.set_level(logging.INFO, "p2pnimmt.net")
    node = Node(Identity.generate(), name="ann", interface="127.0.0.1", drop_after=0)
    await node.listen()
    await node.host(Settings(players=3, max_rounds=1, point_limit=None, deal="open"))
    held = []
    try:
        for _ in range(PER_ADDRESS):  # its bound taken: every further dial of it is reset at the door
            held.append(await asyncio.to_thread(socket.create_connection, ("127.0.0.1", node.port), OUTER,
                                                (STRANGER, 0)))
        dials = await asyncio.to_thread(dial_until_unanswered, node.port, STRANGER, 50 * SHUT_AFTER)
        assert dials <= 50 * SHUT_AFTER, "the flooding address was never shut out"
        assert node.server is not None and STRANGER in node.server.shut_out
        assert decode((await asyncio.to_thread(first_bytes, node.port, "127.0.0.1"))[4:])[0] == HELLO
        lines = [r.getMessage() for r in caplog.records if "shut out" in r.getMessage()]
        assert len(lines) == 1 and STRANGER in lines[0], lines
    finally:
        for sock in held:
            sock.close()
        await node.close()


def test_a_join_gets_in_during_a_flood_of_connections_from_one_address(tmp_path: Path, procs) -> None:
    """Connects opened and dropped as fast as two threads can, from one address, from before the join until it is
    done: the joiner takes its seat and the game is played out (before: "cannot reach ...: no answer within 5 s")."""
    host = procs(["host", "--headless", "--seats", "2", *LO, "--rounds", "1", "--no-points", "--deal", "open",
                  "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    with flooding(port, [STRANGER]):
        host.wait_for(f"refused connections from {re.escape(STRANGER)}")  # the flood is over the bound
        joiner = procs(["join", code, "--headless", *LO, "--peer", f"127.0.0.1:{port}", "--name", "bob",
                        "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out")
        assert joiner.finish(120) == 0, joiner.text()
    assert host.finish(60) == 0, host.text()
    assert final_scores(joiner.text()) == final_scores(host.text())


def test_a_game_in_play_loses_no_seat_to_a_flood_of_new_connections(tmp_path: Path, procs) -> None:
    """A game of three under way; a flood of connections from eight addresses from then until its end: every seat
    plays to the end (none is dropped), and every transcript verifies with the same scores."""
    host = procs(["host", "--headless", "--seats", "3", *LO, "--rounds", "2", "--no-points", "--deal", "sealed",
                  "--bot-delay", "0.1", "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")],
                 tmp_path / "ann.out")
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    joiners = [procs(["join", code, "--headless", *LO, "--peer", f"127.0.0.1:{port}", "--name", name,
                      "--bot-delay", "0.1", "--transcript", str(tmp_path / f"{name}.p2pt")], tmp_path / f"{name}.out")
               for name in ("bob", "cid")]
    host.wait_for(r"game started")
    with flooding(port, STRANGERS):
        host.wait_for(r"refused connections from 127\.0\.0\.2\d")  # the flood is on
        for joiner in joiners:
            assert joiner.finish(240) == 0, joiner.text()
        assert host.finish(120) == 0, host.text()
    scores = final_scores(host.text())
    for proc, name in ((host, "ann"), *zip(joiners, ("bob", "cid"), strict=True)):
        assert final_scores(proc.text()) == scores
        assert "dropped" not in proc.text(), proc.text()
        verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
        assert verdict.ok, verdict.report()


@contextmanager
def port_that_does_not_answer() -> Iterator[tuple[socket.socket, int]]:
    """A listening socket that accepts nothing, its queue full: a dial of it is not answered (its SYN dropped)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    fillers = []
    for _ in range(4):
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex(listener.getsockname())
        fillers.append(sock)
    try:
        yield listener, listener.getsockname()[1]
    finally:
        for sock in fillers:
            sock.close()
        listener.close()


def relay(listener: socket.socket, port: int, stop: threading.Event) -> None:
    """From now on, the listener's connections carried to 127.0.0.1:port and back (those queued first are dropped)."""
    listener.settimeout(0.2)

    def pump(a: socket.socket, b: socket.socket) -> None:
        with suppress(OSError):
            while data := a.recv(65536):
                b.sendall(data)
        with suppress(OSError):
            b.shutdown(socket.SHUT_WR)

    while not stop.is_set():
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        except OSError:
            return
        try:
            upstream = socket.create_connection(("127.0.0.1", port), timeout=OUTER)
        except OSError:
            conn.close()
            continue
        conn.settimeout(None)
        upstream.settimeout(None)
        for a, b in ((conn, upstream), (upstream, conn)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()


@pytest.mark.parametrize("how", ["--peer", "link"])
def test_a_joiner_dials_again_while_the_hosts_port_does_not_answer(tmp_path: Path, procs, how: str) -> None:
    """The host's port does not answer (its queue full: a flood, or a host gone) at the first dial: the joiner says
    so and dials again; once the port answers it joins and plays (before: it gave up after 5 s)."""
    host = procs(["host", "--headless", "--seats", "2", *LO, "--rounds", "1", "--no-points", "--deal", "open",
                  "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    key = host.wait_for(r"p2pnimmt://\S+#(\S+)").group(1)
    stop = threading.Event()
    with port_that_does_not_answer() as (listener, busy):
        target = ([code, "--peer", f"127.0.0.1:{busy}"] if how == "--peer" else
                  [f"p2pnimmt://127.0.0.1:{busy}/{code}#{key}"])
        joiner = procs(["join", *target, "--headless", *LO, "--name", "bob", "--transcript",
                        str(tmp_path / "bob.p2pt")], tmp_path / "bob.out")
        joiner.wait_for(rf"the host's port does not answer \(127\.0\.0\.1:{busy}\)")
        carrying = threading.Thread(target=relay, args=(listener, port, stop), daemon=True)
        carrying.start()
        try:
            assert joiner.finish(120) == 0, joiner.text()
            assert host.finish(60) == 0, host.text()
        finally:
            stop.set()
            carrying.join(OUTER)
    assert final_scores(joiner.text()) == final_scores(host.text())

