"""A host that opens a game whose START carries invented scores (protocol.md 12, "An equivocation after the START":
only a new start after an equivocation carries, and each seat checks the carry against its own record of the game
it played). Found by the session-31 review: a seat that followed no new start took whatever a first START carried,
signed its START_ACK and played, so the host could open a game with itself at 0 and everyone else at 50 and
`verify` called the carry "signed by every seat's START_ACK".

Real processes on 127.0.0.1: ann hosts two seats with tests/net/cheat_node.py's `carry-host`; bob joins as any
player does. bob refuses the START (non-fatal `malformed` naming its deliverer, with why), signs no START_ACK, says
why in one line and leaves; nothing of that game counts.
"""

from __future__ import annotations

from pathlib import Path

from attacker import LOOPBACK
from procs import code_of
from test_gone_before_start import ENV, LO, CheatProc, files

from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.transcript import records

GAME = ["--rounds", "3", "--no-points", "--deal", "open", "--bot-delay", "0.05"]
TIMERS = ["--drop-after", "5", "--give-up", "30"]


def test_a_first_start_that_carries_scores_is_refused_by_the_seat_that_joins(tmp_path: Path, procs) -> None:
    ann = CheatProc("carry-host", ["host", "--headless", "--seats", "2", *GAME, *TIMERS, *LO, *files(tmp_path, "ann")],
                    tmp_path / "ann.out")
    try:
        port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
        code = code_of(tmp_path / "ann.out")
        bob = procs(["join", code, "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, *TIMERS, *files(tmp_path, "bob")],
                    tmp_path / "bob.out", env=ENV)
        ann.wait_for(r"cheat: a START that carries invented scores", 60)
        assert bob.finish(60) == 1, bob.text()
        text = bob.text()
        assert "refused the new game: it carries the scores of game " in text, text
        assert "and this node continues no game it played" in text, text
        assert "Traceback" not in text, text
        me = Identity((tmp_path / "bob.p2pt.key").read_bytes()).peer
        signed = [open_envelope(payload) for kind, payload in records((tmp_path / "bob.p2pt").read_bytes())
                  if kind == "msg"]
        assert not [env for env in signed if env.sender == me], signed  # bob signed nothing: no START_ACK
        faults = [payload for kind, payload in records((tmp_path / "bob.p2pt").read_bytes()) if kind == "fault"]
        assert any(f["code"] == "malformed" and "carries the scores of game" in f["detail"] for f in faults), faults
    finally:
        ann.stop()
