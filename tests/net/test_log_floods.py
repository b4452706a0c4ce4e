"""Log floods (issue 22, item 8): what strangers can repeat at will (connections refused, frames ignored, links cut
for bad messages, bad HTTP to the page) is one line per source and kind, then a count — a real host process,
attacked from four loopback addresses, as four machines of the LAN would."""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

from attacker import Attacker
from deadlines import OUTER
from procs import seat_key_of

from p2pnimmt.protocol.envelope import NO_PREVIOUS, seal

LO = ["--interface", "127.0.0.1"]
EVERY = 2  # seconds between two lines of one source and kind, for the test (30 by default)


def drain(sock: socket.socket) -> None:
    """Read until the other side hangs up."""
    sock.settimeout(OUTER)
    try:
        while sock.recv(4096):
            pass
    except ConnectionResetError:
        pass


def told(text: str, source: str, kind: str, first: str) -> tuple[int, int, int]:
    """(full lines, count lines, events they account for) of `source` and `kind` in the host's output."""
    full = len(re.findall(rf"^WARNING [\w.]+: {first}.*{re.escape(source)}", text, re.M))
    counts = [int(n) for n in re.findall(rf"^WARNING [\w.]+: {re.escape(kind)}: (\d+) more from {re.escape(source)} ",
                                         text, re.M)]
    return full, len(counts), full + sum(counts)


def wait_for_total(host, source: str, kind: str, first: str, total: int) -> tuple[int, int, int]:
    """Poll the host's output until its lines account for `total` events of `source` and `kind`."""
    deadline = time.monotonic() + OUTER
    while True:
        seen = told(host.text(), source, kind, first)
        if seen[2] >= total or time.monotonic() > deadline:
            return seen
        time.sleep(0.1)


def test_a_flood_of_refused_messages_is_a_line_per_source_and_kind_then_a_count(tmp_path: Path, procs) -> None:
    host = procs(["host", "--web", "--no-open", "--seats", "3", *LO, "--name", "ann"], tmp_path / "host.out",
                 env={"P2PNIMMT_LOG_EVERY": str(EVERY)})
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    web_port = int(host.wait_for(r"web: http://127\.0\.0\.1:(\d+)/").group(1))
    # the spectators below have the seat key (members with a modified client; protocol.md 14)
    seat_key = seat_key_of(host.wait_for(r"code: (\w{4}-\w{4})").group(1))
    # 1. Two addresses, 300 connections each that are no p2pnimmt peer.
    for source in ("127.0.0.2", "127.0.0.3"):
        for _ in range(300):
            with socket.create_connection(("127.0.0.1", port), source_address=(source, 0)) as sock:
                sock.sendall(b"\x00\x00\x00\x05hello")
                drain(sock)  # the host's hello, then it hangs up: refused
    # 2. A spectator that sends 60 frames of a kind nobody knows (each an ask since session 45, protocol.md 14: within
    # the asks' burst of 64 each is ignored with a log event; past it, not even that).
    spectator = Attacker.dial(port, source="127.0.0.4")
    spectator.join("spectator", seat_key=seat_key)
    spectator.lobby(OUTER)
    for n in range(60):
        spectator.send("zzz", n)
    # 3. Thirty fresh keys from one address, each a spectator sending messages of another game until cut.
    for _ in range(30):
        link = Attacker.dial(port, source="127.0.0.5")
        link.join("spectator", seat_key=seat_key)
        link.lobby(OUTER)
        try:
            for seq in range(25):
                link.send("msg", seal(link.identity, bytes(16), seq, NO_PREVIOUS, "PLAY_COMMIT", {"x": 1}).wire)
        except OSError:
            pass
        assert link.closed_by_peer(OUTER)
        link.close()
    # 4. 200 bad HTTP requests to the page's port.
    for _ in range(200):
        with socket.create_connection(("127.0.0.1", web_port), source_address=("127.0.0.6", 0)) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n")
            drain(sock)  # 400, and closed
    floods = [("127.0.0.2", "refused a connection", "refused a connection from", 300),
              ("127.0.0.3", "refused a connection", "refused a connection from", 300),
              ("127.0.0.4", "unknown frame kind", r"\S+ sent an unknown frame kind", 60),
              ("127.0.0.5", "link cut for bad messages", "closing the link to", 30),
              ("127.0.0.6", "bad HTTP request", "refused a bad HTTP request from", 200)]
    for source, kind, first, total in floods:
        full, counted, events = wait_for_total(host, source, kind, first, total)
        assert full == 1, (source, kind, full, host.text()[-3000:])
        assert events == total, (source, kind, events, total)  # every one is told, in the count
        assert 1 <= counted <= 1 + 60 // EVERY, (source, kind, counted)
    warnings = [line for line in host.text().splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert len(warnings) < 40, "\n".join(warnings)  # for 890 refused connections, frames, cuts and requests
    assert "Traceback" not in host.text()
