"""protocol.md 14, "Held before START" (session 45), with real links: a joiner waiting for its START holds what its
links bring within 2 MiB in all; strangers fill it, and a seat's message arriving after them is kept.

A real host (ann, 4 seats) and three real joiners on 127.0.0.1; the attackers are raw sockets (tests/attacker.py)
that pass the real handshake. Ten spectators' links to bob, who waits in the lobby, hold 1.9 MB of messages before
the START, each under its own 256 KiB; carl, a player of the lobby (so one that can be a seat, as the host's lobby
frame says), then delivers its 13th message, which goes over 2 MiB while carl holds more than any of them. Bob cuts
the stranger holding the most (of equal ones, the lowest peer id), drops what it held, and keeps carl's message and
carl's link. Carl then gives up its seat (it joins again as a spectator), dora and eve join, and the game is played
to its end, every transcript verified.

On main (before session 45) bob cut carl, whose message went over: carl's link was closed, and no stranger's.
"""

from __future__ import annotations

import re
from pathlib import Path

from attacker import LOOPBACK, Attacker
from procs import code_of, final_scores, seat_key_of

from p2pnimmt.protocol.identity import fingerprint
from p2pnimmt.protocol.inbox import MAX_EARLY_BYTES, MAX_EARLY_TOTAL
from p2pnimmt.protocol.probe import PROBE_NONCE
from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", LOOPBACK]
SHORT = ["--rounds", "1", "--no-points"]
PAD = 15_800  # a message near 16 KB (at most 16,384 bytes are held)
HELD = 12  # messages each stranger, and carl, hold before carl's last
STRANGERS = 10


def settled(link: Attacker, nonce: int) -> None:
    """Wait until bob has taken every frame sent on `link` so far: a probe (frames of a link are taken in order)
    is answered only after them."""
    link.send("probe", bytes([nonce]) * PROBE_NONCE)
    link.until("probed", 30)


def test_a_seats_message_after_strangers_filled_2_mib_is_kept(tmp_path: Path, procs) -> None:
    ann = procs(["host", "--headless", "--seats", "4", *LO, "--name", "ann", *SHORT,
                 "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = code_of(tmp_path / "ann.out")

    def join(name: str):
        return procs(["join", code, "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, "--name", name,
                      "--transcript", str(tmp_path / f"{name}.p2pt")], tmp_path / f"{name}.out")

    bob = join("bob")
    ann.wait_for(r"lobby: 2/4 seats")
    seat_key = seat_key_of(code)
    carl_at_host = Attacker.dial(port)
    carl_at_host.join("player", name="carl", seat_key=seat_key)
    strangers_at_host = []
    for n in range(STRANGERS):
        a = Attacker.dial(port)
        a.join("spectator", name=f"flood{n}", seat_key=seat_key)
        strangers_at_host.append(a)
    lobby = strangers_at_host[-1].lobby()
    while len(lobby["members"]) < 3 + STRANGERS:  # until the host names every one of us (bob admits members only)
        lobby = strangers_at_host[-1].lobby()
    bob_port = next(m["port"] for m in lobby["members"] if m["name"] == "bob")

    carl = Attacker.dial(bob_port, identity=carl_at_host.identity)
    size = len(carl.padded(0, PAD))
    assert (HELD + 1) * size <= MAX_EARLY_BYTES  # carl's last is within its own cap: only the 2 MiB is reached
    for seq in range(HELD):
        carl.send("msg", carl.padded(seq, PAD))
    settled(carl, 1)
    strangers = [Attacker.dial(bob_port, identity=a.identity) for a in strangers_at_host]
    room = MAX_EARLY_TOTAL - STRANGERS * HELD * size  # left once nine strangers and carl hold 12 each
    last = room // size  # the tenth stranger holds this many (fewer than the others): 2 MiB is then nearly full
    assert 0 < last < HELD
    for n, s in enumerate(strangers):
        for seq in range(HELD if n < STRANGERS - 1 else last):
            s.send("msg", s.padded(seq, PAD))
        settled(s, 2)
    assert all(not s.closed_by_peer(0.2) for s in strangers), "a stranger was cut before carl's message"

    carl.send("msg", carl.padded(HELD, PAD))  # over 2 MiB: carl would hold the most, but can be a seat
    try:
        settled(carl, 3)  # carl's link is not cut: its probe is answered
    except EOFError:
        raise AssertionError(f"bob cut carl, a seat of the lobby, whose message went over:\n{bob.text()}") from None
    first = min(strangers[:-1], key=lambda s: s.identity.peer)  # holding the most (12), the lowest peer id
    assert first.closed_by_peer(), "the stranger holding the most was not cut"
    bob.wait_for(rf"cut off {fingerprint(first.identity.peer)}.*: it sent more than {MAX_EARLY_TOTAL} bytes held "
                 "before START in total")
    assert not re.search(rf"cut off {fingerprint(carl.identity.peer)}", bob.text()), bob.text()

    carl_at_host.join("spectator", name="carl", seat_key=seat_key)  # carl gives up its seat; two friends sit
    carl_at_host.lobby()
    for link in [carl, carl_at_host, *strangers, *strangers_at_host]:
        link.close()
    joiners = [bob, join("dora"), join("eve")]
    for proc in joiners:
        assert proc.finish(120) == 0, proc.text()
    assert ann.finish(120) == 0, ann.text()
    assert len({final_scores(p.text()) for p in [ann, *joiners]}) == 1
    assert "carl" not in final_scores(bob.text())
    for name in ("ann", "bob", "dora", "eve"):
        verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
        assert verdict.ok, (name, verdict.report())
