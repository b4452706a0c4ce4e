"""A seat that commits and then withholds its reveal for good, while it stays linked (answering pings and `heads`,
relaying the others' messages), does not cost the others their game (red team, session 39). Nobody can reveal a card
for it (its nonce is its own), so the stand-in cannot end that turn; its clock runs out, it is voted out as a node
that did not move when its clock ran out (protocol.md 11.1, 11.2), the turn is resolved without it, and the others
play the round to its end. Real `p2pnimmt` processes on 127.0.0.1, one round, open deal: mal joins with
tests/net/cheat_node.py's `hold-reveal`, never released."""

from __future__ import annotations

from pathlib import Path

from attacker import LOOPBACK
from procs import CheatProc, code_of, final_scores, verify_report

LO = ["--interface", LOOPBACK]
TIMERS = ["--bot-delay", "0.05", "--drop-after", "2"]


def test_a_seat_that_never_reveals_is_voted_out_and_the_others_finish(tmp_path: Path, procs) -> None:
    def files(name: str) -> list[str]:
        return ["--name", name, "--transcript", str(tmp_path / f"{name}.p2pt")]

    ann = procs(["host", "--headless", "--seats", "3", "--deal", "open", "--rounds", "1", "--no-points", "--clock", "2",
                 *TIMERS, *LO, *files("ann")], tmp_path / "ann.out")
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    join = ["join", code_of(tmp_path / "ann.out"), "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, *TIMERS]
    honest = {"ann": ann}
    honest["bob"] = procs([*join, *files("bob")], tmp_path / "bob.out")
    honest["bob"].wait_for(r"joined \w{4}")
    mal = CheatProc("hold-reveal", [*join, *files("mal")], tmp_path / "mal.out", turn=2)  # turn 3's reveal
    try:
        mal.wait_for(r"cheat: holds its reveal of turn 3", 60)
        for name, proc in honest.items():
            assert proc.finish(60) == 0, (name, proc.text())
            text = proc.text()
            assert "Traceback" not in text, text
            assert "voted to drop seat 2 (mal): its node did not move when its clock ran out" in text, text
            assert "mal was dropped by the others' vote: a stand-in plays that hand" in text, text
        assert len({final_scores(proc.text()) for proc in honest.values()}) == 1
        assert mal.popen.poll() is None or "Traceback" not in mal.text(), mal.text()  # it stayed: linked, silent
        for name in honest:
            verify_report(tmp_path / f"{name}.p2pt")
    finally:
        mal.stop()
