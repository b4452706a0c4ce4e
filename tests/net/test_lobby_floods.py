"""Log floods at the lobby's door (issue 22, item 8): one address with many keys is one line per kind, then a count.

A real host on 127.0.0.1 and real players; the attacker (tests/attacker.py) dials from 127.0.0.7, as another
machine of the LAN would, with 40 fresh keys: 36 ask to watch while bob waits in the lobby (32 are let in, 4
refused: too many spectators), the 32 then go over the caps of messages held before START and are cut off; once
the game is playing, 4 more watch and send garbage until their links are cut. The old host logged a line for
each (40); now each kind is one line for the address, then a count that accounts for every one. The honest game
is played to its end through it and every transcript verifies.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from attacker import Attacker
from procs import code_of, final_scores, seat_key_of

from p2pnimmt.net.node import MAX_LINK_FAULTS, MAX_SPECTATORS
from p2pnimmt.protocol.names import look_alike
from p2pnimmt.protocol.verify import verify_transcript

LOOPBACK = "127.0.0.1"
SOURCE = "127.0.0.7"  # the attacker's address
LO = ["--interface", LOOPBACK]
SHORT = ["--rounds", "1", "--no-points", "--bot-delay", "0.3"]  # the game lasts while the second wave attacks
EVERY = 120  # seconds between a kind's count lines (P2PNIMMT_LOG_EVERY): counts told at exit in a short test
FIRST_WAVE = MAX_SPECTATORS + 4
SECOND_WAVE = 4
KEYS = FIRST_WAVE + SECOND_WAVE  # 40
S = re.escape(SOURCE)
FULL = {  # the full line of each kind (QuietLog adds the address where the line does not name it)
    "refused": rf"^WARNING [\w.]+: refused [\w-]+ as a spectator: .*\(from {S}\)$",
    "cut": rf"^WARNING [\w.]+: cut off [\w-]+ \(a spectator, removed\): it sent .*\(from {S}\)$",
    "bad": rf"^WARNING [\w.]+: closing the link to [\w-]+: \d+ bad messages .*\(from {S}\)$",
}
COUNT = {  # its count lines
    "refused": rf"^WARNING [\w.]+: refused a spectator \(too many\): (\d+) more from {S} ",
    "cut": rf"^WARNING [\w.]+: cut off: .*: (\d+) more from {S} ",
    "bad": rf"^WARNING [\w.]+: link cut for bad messages: (\d+) more from {S} ",
}


def player(procs, tmp_path: Path, port: int, name: str):
    return procs(["join", code_of(tmp_path / "ann.out"), "--headless", "--peer", f"{LOOPBACK}:{port}", *LO,
                  "--name", name, *SHORT[-2:], "--transcript", str(tmp_path / f"{name}.p2pt")], tmp_path / f"{name}.out")


def admitted(a: Attacker) -> dict | None:
    """The first lobby frame the host sends `a` after its join, or None if it refused it."""
    while True:
        kind, payload = a.read_frame()
        if kind == "lobby":
            return payload
        if kind == "refuse":
            assert payload == f"too many spectators ({MAX_SPECTATORS})", payload
            return None


def go_over_a_cap(a: Attacker, n: int) -> None:
    """Messages before START over a cap: one too large to hold (even n), or more than a peer may have held (odd
    n; once the total is full, its first); the host cuts the link."""
    sizes = [20_000] if n % 2 == 0 else [15_000] * 20
    try:
        for seq, size in enumerate(sizes):
            a.send("msg", a.padded(seq, size))
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert a.closed_by_peer(60), f"key {n} was not cut off"
    a.close()


def test_forty_keys_from_one_address_are_a_line_per_kind_then_a_count(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "3", *LO, "--name", "ann", *SHORT,
                  "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out",
                 env={"P2PNIMMT_LOG_EVERY": str(EVERY)})
    began = time.monotonic()
    # the attacker has the seat key (a friend's modified client, protocol.md 14): its keys are admitted to watch
    seat_key = seat_key_of(host.wait_for(r"code: (\w{4}-\w{4})").group(1))
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    bob = player(procs, tmp_path, port, "bob")
    host.wait_for(r"lobby: 2/3 seats: ann, bob")
    # First wave: 36 keys ask to watch, every one as "ann" (each let in is shown under a name of its own).
    links, refused, lobby = [], 0, None
    for _ in range(FIRST_WAVE):
        a = Attacker.dial(port, source=SOURCE, timeout=60)
        a.join("spectator", name="ann", seat_key=seat_key)
        got = admitted(a)
        if got is None:
            refused += 1
            a.close()
        else:
            links.append(a)
            lobby = got
    assert (len(links), refused) == (MAX_SPECTATORS, FIRST_WAVE - MAX_SPECTATORS)
    assert lobby is not None and lobby["state"] == "lobby"
    names = [m["name"] for m in lobby["members"]]
    assert "bob" in names
    for i, a in enumerate(names):  # issue 22 item 7: 32 spectators called ann, and no two names look alike
        assert not any(look_alike(a, b) for b in names[i + 1:]), (a, names)
    for n, a in enumerate(links):
        go_over_a_cap(a, n)
    # The game starts; the second wave watches it being played and sends garbage.
    carl = player(procs, tmp_path, port, "carl")
    host.wait_for(r"lobby: 3/3 seats")  # and START
    for _ in range(SECOND_WAVE):
        a = Attacker.dial(port, source=SOURCE, timeout=60)
        a.join("spectator", name="bob", seat_key=seat_key)
        got = admitted(a)
        assert got is not None and got["state"] == "playing", got
        assert any(m["name"] == "bob (watching)" for m in got["members"]), got["members"]
        try:
            a.raw(b"".join(a.frame_bytes("msg", b"\xc1" + bytes([k])) for k in range(3 * MAX_LINK_FAULTS)))
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert a.closed_by_peer(60)
        a.close()
    assert host.popen.poll() is None, "the game ended before the second wave: the attack did not run during it"
    for name, proc in {"ann": host, "bob": bob, "carl": carl}.items():
        assert proc.finish(120) == 0, (name, proc.text())
    elapsed = time.monotonic() - began
    assert len({final_scores(p.text()) for p in (host, bob, carl)}) == 1
    for name in ("ann", "bob", "carl"):
        verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
        assert verdict.ok, (name, verdict.report())
    # What the host said about the attacker (counts are told by the time it exits).
    text = host.text()
    full = {kind: len(re.findall(pattern, text, re.M)) for kind, pattern in FULL.items()}
    counted = {kind: sum(int(n) for n in re.findall(pattern, text, re.M)) for kind, pattern in COUNT.items()}
    told = {kind: full[kind] + counted[kind] for kind in FULL}
    assert told == {"refused": FIRST_WAVE - MAX_SPECTATORS, "cut": MAX_SPECTATORS, "bad": SECOND_WAVE}, (full, counted)
    assert full["refused"] == 1 and full["bad"] == 1, full
    assert 1 <= full["cut"] <= 3, full  # one for each cap reached: too large, too many for one, too much in all
    lines = [line for line in text.splitlines() if SOURCE in line]
    kinds = 5  # refused, three caps, garbage
    assert len(lines) <= kinds * (2 + int(elapsed // EVERY)), "\n".join(lines)  # the old host: 40 lines
    assert "Traceback" not in text
