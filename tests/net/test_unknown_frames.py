"""Frames of a kind nobody knows from a member's link (protocol.md 14: counted as asks since session 45). Real
`p2pnimmt` processes on 127.0.0.1: ann hosts two seats, bob joins, and a spectator with the seat key (the raw-socket
attacker of tests/attacker.py) joins mid-game and sends ann thousands of tiny frames of the kind `zz` at once. Ann
closes that link past its asks' budget (64, then a slack of 1,280, then 21 bad messages) with one line naming the
peer and the kind, and the game of the others finishes, agreed, every transcript verifying. On main the frames were
ignored at any rate (one log line), the link stayed up until ann's game ended, and this test failed there."""

from __future__ import annotations

import re
from pathlib import Path

from attacker import LOOPBACK, Attacker
from procs import code_of, seat_key_of
from test_member_misbehaving import LO, SLOW, all_finish_agree_and_verify

from p2pnimmt.protocol.identity import fingerprint


def test_a_member_flooding_frames_of_an_unknown_kind_is_cut_and_the_game_goes_on(tmp_path: Path, procs) -> None:
    ann = procs(["host", "--headless", "--seats", "2", "--rounds", "8", "--no-points", *LO, *SLOW, "--name", "ann",
                 "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    bob = procs(["join", code_of(tmp_path / "ann.out"), "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, *SLOW,
                 "--name", "bob", "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out")
    bob.wait_for("game started")
    tv = Attacker.dial(port)
    try:
        tv.join("spectator", name="tv", seat_key=seat_key_of(code_of(tmp_path / "ann.out")))
        tv.lobby()
        try:
            tv.sock.sendall(b"".join(tv.frame_bytes("zz", n) for n in range(5000)))
        except OSError:
            pass  # (closed while it wrote: the cut)
        assert tv.closed_by_peer(60), "a link flooding frames of an unknown kind was not cut"
        # cut by ann, not closed as her game ended (on main: the link stayed up until her process exited)
        assert ann.popen.poll() is None and "final scores" not in ann.text(), ann.text()
    finally:
        tv.close()
    all_finish_agree_and_verify(tmp_path, {"ann": ann, "bob": bob})
    fp = re.escape(fingerprint(tv.identity.peer))
    cut = re.findall(rf"WARNING p2pnimmt\.net: closing the link to {fp}: (\d+) bad messages \(the first: more than 20 "
                     r"asks a second \(.*: this one of a kind this node does not know, 'zz'\)\)", ann.text())
    assert cut == ["21"], ann.text()[-3000:]
    assert "sent an unknown frame kind 'zz' (ignored; counted as an ask)" in ann.text()
