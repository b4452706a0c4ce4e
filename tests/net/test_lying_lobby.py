"""A host cannot keep the others from dialling an honest seat by giving wrong addresses or ports for it in its lobby
frames (red team, session 40; protocol.md 14, "Where a member listens"). Each member signs where it listens (its
`where` record, bound to the game id); a node dials a seat at the port of its latest signed record, never at a port
the host's word alone gives, and seats pass the records they hold to each other.

Real `p2pnimmt` processes on 127.0.0.1, one round, open deal: mal hosts with a modified client
(tests/net/cheat_node.py `lying-lobby`): every lobby frame to cat (the last to join) gives bob's port wrong, every
frame to bob gives cat's port wrong, and once the game started mal cuts its link to cat and takes none from it
again. Before, bob and cat could not dial each other, cat had no link left, and bob and mal voted it out after
their drop time: one player (the host) cost an honest one its game. Now the records carry the true ports past
the host's lie. A host that also withholds the records (`withholding-lobby`: it leaves out the records of bob and cat
from its lobby frames and sends no `where` frame) got cat voted out in session 40 (a strict xfail then); since session
41 each seat's START_ACK carries its record (protocol.md 14, "In the START and the START_ACKs"), which the host must
pass on for bob's game to start, so bob and cat reach each other all the same. `withholding-acks`: mal's victim is
the joiner of the lower peer id, and mal also never passes it the other joiner's START_ACK: the victim holds no
record of the other and never starts on its own; the other, of the higher peer id, holds the victim's record (its
START_ACK) and dials it, against the usual order, once it has had no link with it for a second (protocol.md 14).
`withholding-bare`: as `withholding-lobby`, and mal's START carries no record of its own: the seats' records still
come in their START_ACKs (a seat's does not hang on the host's: with the rule as the branch first had it, failed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from attacker import LOOPBACK
from procs import CheatProc, code_of, final_scores, verify_report

LO = ["--interface", LOOPBACK]
DROP = ["--drop-after", "4"]  # short: before, cat was voted out this long after mal cut it


@pytest.mark.parametrize("cheat", ["lying-lobby", "withholding-lobby", "withholding-acks", "withholding-bare"])
def test_a_host_that_lies_about_ports_and_cuts_a_seat_does_not_get_it_voted_out(tmp_path: Path, procs,
                                                                                  cheat: str) -> None:
    def files(name: str) -> list[str]:
        return ["--name", name, "--transcript", str(tmp_path / f"{name}.p2pt")]

    mal = CheatProc(cheat, ["host", "--headless", "--seats", "3", "--deal", "open", "--rounds", "1",
                                    "--no-points", "--bot-delay", "0.4", *DROP, *LO, *files("mal")],
                    tmp_path / "mal.out")
    try:
        port = int(mal.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
        code = code_of(tmp_path / "mal.out")
        join = ["join", code, "--headless", "--peer", f"{LOOPBACK}:{port}", "--bot-delay", "0.4", *DROP, *LO]
        bob = procs([*join, *files("bob")], tmp_path / "bob.out")
        bob.wait_for(r"joined \w{4}")
        cat = procs([*join, *files("cat")], tmp_path / "cat.out")
        mal.wait_for(r"cheat: lobby frames with wrong ports for the victim and to it", 60)
        if cheat == "withholding-acks":
            mal.wait_for(r"cheat: the other seats' START_ACKs withheld from the victim", 60)
        mal.wait_for(r"cheat: its game started: the victim's link cut", 60)
        for name, proc in (("bob", bob), ("cat", cat)):
            assert proc.finish(120) == 0, (name, proc.text())  # before: cat was voted out (exit 1)
            assert "Traceback" not in proc.text(), proc.text()
        assert mal.finish(60) == 0, mal.text()
        assert len({final_scores(proc.text()) for proc in (mal, bob, cat)}) == 1
        for name in ("bob", "cat"):
            report = verify_report(tmp_path / f"{name}.p2pt")
            assert "dropped" not in report, report
    finally:
        mal.stop()
