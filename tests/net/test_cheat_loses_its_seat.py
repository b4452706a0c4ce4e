"""A proven cheat costs the cheat its seat, not the others their game (issue 21 item 7, protocol.md 12).

Real `p2pnimmt` processes on 127.0.0.1: ann hosts four seats, a spectator (tv) watches, bob and cat join,
and mal joins with a modified client (tests/net/cheat_node.py) that breaks one rule:
- it splits a commit: two different PLAY_COMMITs for turn 3, the real one to its relayer and the other to
  every other peer, then plays on (sealed deal: its drop voids the round, and the game goes on without it);
- it reveals another card than the one it committed to in turn 3 (open deal).
Every honest node and the spectator drop mal at the same position, with no vote, and finish the game with
the same scores; every transcript verifies under both verifiers (`p2pnimmt verify` and the TypeScript
`node peer.js verify`), which print the same summary, naming mal, the fault and where the stand-in took over.
A split commit has other outcomes protocol.md 12 allows, decided by the order of arrival alone: when every
honest seat took the same version, that version is the game's and mal keeps its seat; if it is the other one,
mal, on its own branch, stalls, is voted out and forfeits; if it is mal's own, mal plays on with the game. In
both, every seat's transcript holds the proof of its split (all three outcomes are checked).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from attacker import LOOPBACK
from procs import CheatProc, code_of, final_scores

from p2pnimmt.protocol.transcript import records

sys.path.insert(0, str(Path(__file__).parents[1] / "peer"))
from nodepeer import BUNDLE, tool  # noqa: E402

LO = ["--interface", LOOPBACK]
TIMERS = ["--bot-delay", "0.05", "--drop-after", "20"]
GAME = ["--rounds", "2", "--no-points", *TIMERS]


def one_summary(tmp_path: Path, names: Iterable[str]) -> str:
    """Each of `names`' transcripts (NAME.p2pt) verifies, and both verifiers (`p2pnimmt verify`, the TypeScript `node
    peer.js verify`) print the same of it; every one's summary is the same (but for its count of messages): that
    summary."""
    summaries = set()
    for name in names:
        path = tmp_path / f"{name}.p2pt"
        ours = subprocess.run([sys.executable, "-m", "p2pnimmt", "verify", str(path)], capture_output=True,
                              text=True, timeout=300)
        theirs = subprocess.run([tool("node"), str(BUNDLE), "verify", str(path)], capture_output=True, text=True,
                                timeout=300)
        assert ours.returncode == 0, (name, ours.stdout, ours.stderr)
        assert (theirs.returncode, theirs.stdout) == (ours.returncode, ours.stdout), (name, theirs.stderr)
        summaries.add(re.sub(r"(verified: )\d+( signed messages).*", r"\1\2", ours.stdout))
    assert len(summaries) == 1, summaries
    return summaries.pop()


@pytest.mark.parametrize("cheat, deal, line", [
    pytest.param("split", "sealed", "equivocation, the stand-in played it from round 1, step 8", id="split-commit"),
    pytest.param("reveal", "open", "bad-reveal, the stand-in played it from round 1, step 9", id="bad-reveal"),
])
def test_a_proven_cheat_loses_its_seat_and_the_table_plays_on(tmp_path: Path, procs, cheat: str, deal: str,
                                                               line: str) -> None:
    def files(name: str) -> list[str]:
        return ["--name", name, "--transcript", str(tmp_path / f"{name}.p2pt")]

    ann = procs(["host", "--headless", "--seats", "4", "--deal", deal, *GAME, *LO, *files("ann")],
                tmp_path / "ann.out")
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = code_of(tmp_path / "ann.out")
    peer = ["--peer", f"{LOOPBACK}:{port}"]
    tv = procs(["watch", code, "--headless", *peer, *LO, *files("tv")], tmp_path / "tv.out")
    tv.wait_for(r"joined \w{4} at .* as spectator")
    honest = {"ann": ann, "tv": tv}
    for name in ("bob", "cat"):
        honest[name] = procs(["join", code, "--headless", *peer, *LO, *TIMERS, *files(name)],
                             tmp_path / f"{name}.out")
        honest[name].wait_for(r"joined \w{4}")
    mal = CheatProc(cheat, ["join", code, "--headless", *peer, *LO, *TIMERS, *files("mal")], tmp_path / "mal.out", turn=2)
    try:
        mal.wait_for(r"cheat: ", 120)
        for name, proc in honest.items():
            assert proc.finish(180) == 0, (name, proc.text())
            assert "Traceback" not in proc.text(), proc.text()
        assert len({final_scores(proc.text()) for proc in honest.values()}) == 1
        summary = one_summary(tmp_path, honest)  # the same game everywhere: rounds, scores, winners, the drop
        if f"lost its seat for a proven rule break: mal ({line})" not in summary:
            # A split commit only: every honest seat took the same version, and protocol.md 12 makes it the game's
            # and mal keeps its seat. Either the other one (the relayer's copy of the real one came after a pull had
            # fetched the other): mal plays on its own branch, stalls and is voted out; its leaving voids the sealed
            # round, so it forfeits. Or the real one, mal's own (the relayer's copy reached the others before mal's
            # other version did): mal plays on with the game, and nobody loses a seat. Every seat's transcript
            # holds the proof of the split, naming mal.
            assert cheat == "split", summary
            assert ("forfeited (made a round void, so cannot win): mal" in summary
                    or "lost its seat" not in summary and "forfeited" not in summary and "void" not in summary
                    ), summary
            for name in ("ann", "bob", "cat"):
                proofs = [payload for kind, payload in records((tmp_path / f"{name}.p2pt").read_bytes())
                          if kind == "fault" and payload.get("code") == "equivocation"
                          and "seat 3 (mal)" in payload.get("detail", "")]
                assert proofs, name
    finally:
        mal.stop()
