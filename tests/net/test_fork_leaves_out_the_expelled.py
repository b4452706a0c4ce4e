"""A new start after an equivocation leaves out the seat expelled before it too (protocol.md 12, "Who G' leaves out";
14, "A new start").

Real `p2pnimmt` processes on 127.0.0.1: ann hosts a 3-round open game, bob and cy join, a TV watches, eve joins with
tests/net/cheat_node.py `reveal` (at turn 3 of round 1 it reveals another card than the one it committed to: a
`bad-reveal`, it loses its seat and the stand-in plays it) and mal with `fork` (at turn 4 of round 2 two PLAY_REVEALs
with one seq: every node aborts). ann starts a new game at once without mal AND eve that carries round 1's scores;
bob, cy and the TV follow and play the 2 rounds left, and every new transcript seats ann, bob and cy only. Each says
why eve is left out too; eve's node is told that it is left out and plays no new game. Before session 32 the new game
seated eve with full rights.
"""

from __future__ import annotations

import re
from pathlib import Path

from procs import game_of
from test_fork_mid_game import WHY, ended_well, honest_table
from test_gone_before_start import LO, CheatProc, files, names_of

from p2pnimmt.protocol.verify import verify_transcript

OUT = " (eve left out too: out of it for a proven rule break or a forfeit)"
CARRIED = " (the new game carries the scores after round 1 and plays the rounds left)"


def test_a_forked_new_start_leaves_out_the_seat_expelled_before_it(tmp_path: Path, procs) -> None:
    timers = ["--drop-after", "600", "--give-up", "90"]  # nobody is voted out for silence: eve is expelled, no vote
    ann, joined, tv, peer, code = honest_table(procs, tmp_path, 5, timers)
    eve = CheatProc("reveal", ["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "eve")],
                    tmp_path / "eve.out", turn=2)
    eve.wait_for(r"joined \w{4}", 60)
    mal = CheatProc("fork", ["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "mal")],
                    tmp_path / "mal.out", turn=3)
    try:
        eve.wait_for(r"cheat: revealed", 120)
        mal.wait_for(r"cheat: two reveals", 120)
        said = ended_well(ann, joined, tv)
        assert f"game {game_of(code)} is abandoned: {WHY}{OUT}{CARRIED}; a new game starts at once with the others (3 " \
               "players)" in said["ann"], said["ann"]
        for name in ("bob", "cy"):
            assert f"game {game_of(code)} is abandoned: {WHY}{OUT}{CARRIED}; ann starts a new game at once" in said[name], \
                said[name]
        # the first game: eve lost its seat in round 1, then mal's equivocation ended it, at every honest node
        for name in ("ann", "bob", "cy"):
            verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
            assert not verdict.ok and "equivocation" in verdict.fault and "mal" in verdict.fault, verdict.report()
            assert any(f["code"] == "bad-reveal" and not f["fatal"] for f in verdict.faults_recorded), \
                verdict.faults_recorded
        # the new game seats neither mal nor eve; every seat's and the TV's transcript verifies, the same game
        summaries = set()
        for name in ("ann", "bob", "cy", "tv"):
            path = tmp_path / f"{name}-2.p2pt"
            verdict = verify_transcript(path.read_bytes())
            assert verdict.ok, verdict.report()
            assert names_of(path) == ["ann", "bob", "cy"]
            assert re.search(r"carried from game [0-9a-f]{32} after round 1: ann \d+, bob \d+, cy \d+ ",
                             verdict.summary), verdict.summary
            summaries.add(verdict.summary.split("\nverified:")[0])
        assert len(summaries) == 1, summaries
        # eve's node is told it is left out, and plays no new game
        eve.finish(90)
        assert f"ann left game {game_of(code)} for a new game without this seat (this seat lost its seat in it for a proven " \
               "rule break)" in eve.text(), eve.text()
        assert not (tmp_path / "eve-2.p2pt").exists()
        assert mal.finish(90) != 0, mal.text()
    finally:
        eve.stop()
        mal.stop()
