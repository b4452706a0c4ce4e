"""A split commit's forger that signs on above its split does not split the honest nodes (protocol.md 8, check 4;
12, "A split commit", *Above a split commit*), on real nodes: the in-memory reproduction is
tests/protocol/test_split_fork.py.

Real `p2pnimmt` processes on 127.0.0.1: ann hosts four seats of an open game, bob and cy join, a TV watches, and mal
joins with tests/net/cheat_node.py `split-on`: at turn 3 of round 1 it signs two PLAY_COMMITs (version A, the real
one, to its relayer ann; B, the same card under another nonce, to bob, cy and the TV), reveals on each version (on A
to ann, on B to the others), and at once signs its next message on its reveal on A alone, sent to every node; then
nothing more. To ann the message above is mal's next; to a node that took B it is a fork above mal's commit (its
held message is mal's reveal on B). The seats named both versions, so mal is expelled from its split commit at every
node and the stand-in plays it from that turn's commit step; the fork above is dropped, as the spec says, at every
node. Every honest node ends alike: the game over with the same scores, every transcript verifies with the same
summary under both verifiers. Before session 32 (952b8e3) the nodes on B aborted on the fork while ann played on.
"""

from __future__ import annotations

from pathlib import Path

from procs import final_scores
from test_cheat_loses_its_seat import one_summary
from test_gone_before_start import ENV, LO, CheatProc, ann_and_joiners, files

# mal loses its seat for the split commit (an equivocation) from that turn's commit step, where the seats named both
# versions. Under load (CI of session 34, 1 run in 4) ann relayed version A to bob and cy before mal's B reached them,
# so every seat took A and revealed on it: protocol.md 12, "A split commit", *Decided*, second case: A is the game's,
# mal keeps its seat, and its message above is on the game's branch, where its commit of turn 4 was signed on a
# state no honest node computes (a state mismatch at step 11). Which versions the seats take is the network's race;
# what every node decides from their reveals is not (every honest node the same verdict, each run). Either is taken
# here; the game must be one.
LOST_EITHER = ("lost its seat for a proven rule break: mal (equivocation, the stand-in played it from round 1, step 8)",
               "lost its seat for a proven rule break: mal (state-mismatch, the stand-in played it from round 1, "
               "step 11)")


def test_a_forger_signing_on_above_its_split_commit_leaves_every_honest_node_the_same_game(tmp_path: Path,
                                                                                           procs) -> None:
    # no vote is needed: mal is expelled by the proof, not voted out (a 600 s drop time would time the test out if
    # it were)
    timers = ["--bot-delay", "0.05", "--drop-after", "600", "--give-up", "90"]
    game = ["--rounds", "1", "--no-points", "--deal", "open", *timers]
    ann, joined, peer, code = ann_and_joiners(procs, tmp_path, 4, game, timers, ["bob", "cy"])
    honest = {"ann": ann, **joined}
    honest["tv"] = procs(["watch", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "tv")],
                         tmp_path / "tv.out", env=ENV)
    honest["tv"].wait_for(r"joined \w{4}")
    mal = CheatProc("split-on", ["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "mal")],
                    tmp_path / "mal.out", turn=2)
    try:
        mal.wait_for(r"cheat: a reveal on each version", 120)
        for name, proc in honest.items():
            assert proc.finish(150) == 0, (name, proc.text())  # none aborted (an aborted game ends 1)
            assert "Traceback" not in proc.text() and "aborted" not in proc.text(), (name, proc.text())
        assert len({final_scores(proc.text()) for proc in honest.values()}) == 1
        summary = one_summary(tmp_path, honest)  # one game everywhere: the same rounds, scores and drop
        assert any(lost in summary for lost in LOST_EITHER), summary
    finally:
        mal.stop()
