"""A node restarted while it holds a proof unjudged ends like the others (protocol.md 12, *Above a split commit*: a
held proof is not recorded, so a node restarted from its transcript holds none; a fatal one reaches it again from
the nodes that judged it, sent on every new link, 12 "A proof reaches every node").

Real `p2pnimmt` processes on 127.0.0.1, the table of tests/net/test_resume_fork.py: ann hosts, bob joins, cy joins
with tests/net/cheat_node.py `hold-reveal` (no rule broken: it signs its reveal of turn 3 only when the test says),
a TV watches, and mal runs `pair-above`: with its reveal of turn 3 it signs two different messages on top of it,
sent to every node. The pair lies above mal's commit of a turn no node has decided (cy's reveal is missing), so
every node holds it unjudged. bob is killed then (its transcript holds mal's reveal, not the pair) and resumed from
its files; once it has linked again (to cy, so to ann first: it learns cy's address from its host), cy reveals. Every node decides the turn, judges the pair (fatal, mal
equivocated) and ann starts a new game without mal; the resumed bob gets the proof again, aborts its game as the
others did and follows the new start, and the new game is one game at every node.
"""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

from procs import game_of
from test_fork_mid_game import WHY
from test_gone_before_start import ENV, LO, names_of
from test_resume_fork import kill, table

from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.transcript import records
from p2pnimmt.protocol.verify import verify_transcript


def holds(path: Path, kind: str, turn: int) -> bool:
    """`path`'s transcript records a `kind` of turn `turn` (0-based) of round 1."""
    try:
        found = list(records(path.read_bytes()))
    except ValueError:  # a frame still being written
        return False
    return any(m.kind == kind and m.body["round"] == 0 and m.body["turn"] == turn
               for m in (open_envelope(payload) for what, payload in found if what == "msg"))


def test_a_node_restarted_holding_a_proof_unjudged_ends_like_the_others(tmp_path: Path, procs) -> None:
    timers = ["--drop-after", "600", "--give-up", "90"]  # nobody is voted out: the game waits for the resumed bob
    ann, bob, cy, tv, mal, code = table(procs, tmp_path, timers, timers, ("pair-above", 2), ("hold-reveal", 2))
    try:
        mal.wait_for(r"cheat: two messages", 120)
        cy.wait_for(r"cheat: holds its reveal of turn 3", 60)
        deadline = time.monotonic() + 30
        # one of the pair (only mal signs a commit of turn 4 before turn 3 is decided), the other right after it
        while not holds(tmp_path / "bob.p2pt", "PLAY_COMMIT", 3):
            assert time.monotonic() < deadline, bob.text()
            time.sleep(0.05)
        kill(bob)
        assert "abandoned" not in ann.text() + bob.text()  # the turn is not decided: nobody judged the pair
        resumed = procs(["resume", str(tmp_path / "bob.p2pt"), "--headless", *LO, *timers], tmp_path / "resume.out",
                        env=ENV)
        resumed.wait_for(r"resumed \w{4} from .*: \d+ messages replayed", 60)
        os.kill(cy.popen.pid, signal.SIGUSR1)  # cy reveals once linked to bob again: every node decides the turn
        cy.wait_for(r"cheat: signs its reveal now", 60)
        for name, proc in (("ann", ann), ("bob", resumed), ("cy", cy), ("tv", tv)):
            assert proc.finish(150) == 0, (name, proc.text())
            text = proc.text()
            assert f"game {game_of(code)} is abandoned: {WHY}" in text, (name, text)
            assert "Traceback" not in text and "giving up" not in text, (name, text)
            assert len(re.findall(r"final scores", text)) == 1, (name, text)
        # the first game: every honest transcript ends in mal's equivocation, the resumed bob's too
        for name in ("ann", "bob", "cy", "tv"):
            verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
            assert not verdict.ok and "equivocation" in verdict.fault and "mal" in verdict.fault, \
                (name, verdict.report())
        summaries = set()
        for name in ("ann", "bob", "cy", "tv"):  # the new game: mal left out, no round carried, one game everywhere
            path = tmp_path / f"{name}-2.p2pt"
            verdict = verify_transcript(path.read_bytes())
            assert verdict.ok, (name, verdict.report())
            assert names_of(path) == ["ann", "bob", "cy"]
            summaries.add(verdict.summary.split("\nverified:")[0])
        assert len(summaries) == 1, summaries
        assert mal.finish(90) != 0, mal.text()
    finally:
        mal.stop()
        cy.stop()

