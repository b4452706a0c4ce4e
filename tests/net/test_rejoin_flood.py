"""A seat that signs messages without end, each valid and counting for nothing (red team, session 46; protocol.md 8,
"A chain's bound"). Real `p2pnimmt` processes on 127.0.0.1: ann hosts, bob joins, mal (tests/net/cheat_node.py
`rejoin-flood`) joins and, right after its first commit, signs FLOOD REJOINs (never a fault: protocol.md 11.3), each
for a round of its own, sent as any message of its own.

Before, every node accepted each one, recorded it in its transcript and relayed it: 20,000 made each honest
transcript 4.2 MB (from some 20 KB), and nothing bounded them (past 256 MiB no verifier reads a transcript). Now a
sender's chain holds at most MAX_CHAIN messages (and MAX_CHAIN_BYTES): mal's next is not accepted anywhere, mal is cut
off with a line naming it, its later messages never follow their chain, and the others vote it out and finish the
game with the stand-in in its seat, each transcript verified and holding at most MAX_CHAIN of mal's messages."""

from __future__ import annotations

import re
from pathlib import Path

from attacker import LOOPBACK
from procs import CheatProc, code_of, final_scores, verify_report

from p2pnimmt.protocol.inbox import MAX_CHAIN

LO = ["--interface", LOOPBACK]
TIMERS = ["--bot-delay", "0.05", "--drop-after", "3"]
FLOOD = MAX_CHAIN + 600  # REJOINs mal signs: past the bound


def test_a_seat_signing_rejoins_without_end_is_bounded_and_the_game_goes_on(tmp_path: Path, procs) -> None:
    def files(name: str) -> list[str]:
        return ["--name", name, "--transcript", str(tmp_path / f"{name}.p2pt")]

    ann = procs(["host", "--headless", "--seats", "3", "--deal", "open", "--rounds", "1", "--no-points", *TIMERS, *LO,
                 *files("ann")], tmp_path / "ann.out")
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    join = ["join", code_of(tmp_path / "ann.out"), "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, *TIMERS]
    bob = procs([*join, *files("bob")], tmp_path / "bob.out")
    bob.wait_for(r"joined \w{4}")
    mal = CheatProc("rejoin-flood", [*join, *files("mal")], tmp_path / "mal.out", turn=FLOOD)
    try:
        mal.wait_for(rf"cheat: signed {FLOOD} REJOINs", 120)
        for name, proc in (("ann", ann), ("bob", bob)):
            assert proc.finish(300) == 0, (name, proc.text())  # mal voted out, the stand-in in its seat
            text = proc.text()
            assert "Traceback" not in text, text
        # the one that had it from mal itself names it and the bound (on main: nothing; every REJOIN taken)
        said = [line for proc in (ann, bob) for line in proc.text().splitlines()
                if f"past the {MAX_CHAIN} messages" in line and "mal" in line]
        assert said, ann.text() + bob.text()
        assert final_scores(ann.text()) == final_scores(bob.text())
        for name in ("ann", "bob"):
            report = verify_report(tmp_path / f"{name}.p2pt", timeout=300)
            taken = int(re.search(r"verified: (\d+) signed messages", report).group(1))
            # mal's MAX_CHAIN, and the others' few dozen (on main: all FLOOD of mal's too)
            assert MAX_CHAIN < taken < MAX_CHAIN + 200, report
    finally:
        mal.stop()
