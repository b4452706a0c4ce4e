"""A stranger's stream of idle connections cuts only its own (red team, session 29). A node holds at most
MAX_PENDING connections that are not (yet) a member's; before, a newcomer past them cut the oldest of all, so a
stranger opening a few hundred connections a second from one address cut every joiner whose handshake took longer
than the time the stranger needed for MAX_PENDING connections: a phone's, through its relay and its own crypto, takes
a good part of a second. Now the oldest of the address holding the most gives way. Real processes on 127.0.0.1;
the stranger comes from 40 addresses 127.0.0.20 on (since session 30 one address holds at most PER_ADDRESS waiting:
net.door), the slow joiner from 127.0.0.1."""

from __future__ import annotations

import re
import secrets
import socket
import threading
import time
from pathlib import Path

import pytest
from attacker import LOOPBACK, RawLink
from deadlines import OUTER
from procs import code_of, seat_key_of

from p2pnimmt.net.connection import HELLO, frame, transcript_of
from p2pnimmt.net.mesh import MAX_PENDING
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.seatkey import join_proof, seat_secret

LO = ["--interface", "127.0.0.1"]
STRANGERS = [f"127.0.0.{n}" for n in range(20, 60)]


def stream_of_idle_connections(port: int, stop: threading.Event, opened: list[int],
                               strangers: list[str] = STRANGERS, hellos: bool = False) -> None:
    """Connections from `strangers` in turn that say nothing, a few hundred a second, each kept until the node cuts
    it. `hellos`: each says a hello at once (a fresh key and nonce, the game id left zero as a joiner by address says
    it: nothing a stranger needs to know or sign), then nothing more."""
    held: list[socket.socket] = []
    turn = 0
    while not stop.is_set():
        turn += 1
        try:
            sock = socket.create_connection((LOOPBACK, port), timeout=5,
                                            source_address=(strangers[turn % len(strangers)], 0))
            if hellos:
                sock.sendall(frame([HELLO, 1, bytes(16), secrets.token_bytes(32), secrets.token_bytes(16)]))
            held.append(sock)
            opened[0] += 1
        except OSError:
            pass
        if len(held) > 2 * MAX_PENDING:
            held.pop(0).close()
        time.sleep(0.002)
    for sock in held:
        sock.close()


def slow_join(port: int, pause: float, seat_key: str, hello_first: bool = False) -> list:
    """A joiner that takes `pause` seconds over its handshake (a phone through its relay: before its hello, or after
    it with `hello_first`), then asks to watch proving `seat_key` (protocol.md 14): the host's answer (its lobby
    frame), or what ended the link."""
    link = RawLink(socket.create_connection((LOOPBACK, port), timeout=OUTER))
    try:
        _, _, game_id, their_key, their_nonce = link.hello()
        me = Identity.generate()
        nonce = secrets.token_bytes(16)
        if not hello_first:
            time.sleep(pause)
        link.raw(frame([HELLO, 1, game_id, me.public_key, nonce]))
        if hello_first:
            time.sleep(pause)
        link.raw(frame(["auth", me.sign(transcript_of(game_id, nonce, their_nonce, me.public_key, their_key))]))
        assert link.read_frame()[0] == "auth"
        proof = join_proof(seat_secret(game_id, seat_key), game_id, nonce, their_nonce, me.public_key)
        link.raw(frame(["join", {"name": "phone", "role": "spectator", "bot": False, "port": 1, "proof": proof}]))
        while True:
            got = link.read_frame()
            if got[0] in ("lobby", "refuse"):
                return got
    except (EOFError, ConnectionError, OSError) as exc:
        return ["closed", repr(exc)]
    finally:
        link.close()


def joined_during_a_stream(host, port: int, seat_key: str, addresses: list[str] = STRANGERS,
                           hello_first: bool = False, hellos: bool = False):
    """A stream of idle connections from `addresses` past the host's bound,
    and meanwhile a joiner's handshake taking 1.5 s (slow_join): its answer, and how many connections the stream
    opened during it."""
    stop = threading.Event()
    opened = [0]
    stream = threading.Thread(target=stream_of_idle_connections, args=(port, stop, opened, addresses, hellos),
                              daemon=True)
    stream.start()
    try:
        host.wait_for(r"cut off: \d+ connections were waiting")  # the stream is past the bound
        before = opened[0]
        answer = slow_join(port, 1.5, seat_key, hello_first=hello_first)
        return answer, opened[0] - before
    finally:
        stop.set()
        stream.join(OUTER)


def test_a_stream_of_idle_connections_from_many_addresses_does_not_cut_a_slow_joiner(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "3", *LO, "--name", "ann", "--transcript",
                  str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    answer, during = joined_during_a_stream(host, port, seat_key_of(code_of(tmp_path / "host.out")))
    assert during > MAX_PENDING, f"the stream opened only {during} connections during the slow handshake"
    assert answer[0] == "lobby" and "phone" in [m["name"] for m in answer[1]["members"]], answer
    assert not re.search(r"refused a connection from \('127\.0\.0\.1'", host.text()), host.text()[-2000:]


@pytest.mark.parametrize("hellos", [False, True])
def test_silent_connections_from_many_addresses_do_not_cut_a_joiner_that_said_its_hello(tmp_path: Path, procs,
                                                                                        hellos: bool) -> None:
    """Idle connections from 200 addresses, one or two from each (as many as the joiner's own address holds): past
    MAX_PENDING, one that has said nothing goes before a joiner that said its hello and takes 1.5 s over the rest
    of its handshake (session 30: before, the oldest of those tied went, the joiner).

    `hellos`: each of the stranger's connections says a hello too (it costs nothing: no signature, no key to know),
    so it ties with the joiner that said its own (red team, session 42). The slow joiner is a phone page behind the
    host's own relay: its join comes from the host's machine (here 127.0.0.1, the address the host was dialled at),
    as a page behind a member's relay comes from that member's address. Before, the oldest of those tied went (the
    joiner, cut mid-way: 'closed', a broken pipe); now one from a stranger's address goes before one from this
    machine or a member's (net.mesh, Mesh.accepted)."""
    host = procs(["host", "--headless", "--seats", "3", *LO, "--name", "ann", "--transcript",
                  str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    answer, during = joined_during_a_stream(host, port, seat_key_of(code_of(tmp_path / "host.out")),
                                            [f"127.0.0.{n}" for n in range(20, 220)], hello_first=True, hellos=hellos)
    assert during > MAX_PENDING, f"the stream opened only {during} connections during the slow handshake"
    assert answer[0] == "lobby" and "phone" in [m["name"] for m in answer[1]["members"]], answer
