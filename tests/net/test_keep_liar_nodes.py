"""A liar's KEEP no longer keeps a seat that is gone from ever being voted out (protocol.md 11.1, the node's policy;
tests/protocol/test_keep_liar.py for the rule). Real `p2pnimmt` processes on 127.0.0.1, one round, open deal, a
drop time of a few seconds: ann hosts, bob (and cat) join, and two modified clients (tests/net/cheat_node.py) join:
dan's process ends in place of signing its commit of turn 3 (a node gone mid-game), and mal, right after its own
commit of turn 3, signs KEEP there naming every other seat: it says it went on from dan's commit, which nobody ever
gets from it. Before, the vote on dan was void at every node and the table waited on dan for good.

- Five seats: the honest nodes vote out dan and, a drop time after they saw mal's KEEP with dan's commit still
  missing, mal with it (net/waiting.py: never_passed_on); the quorum rule drops the two together, and ann, bob and
  cat finish the game, their transcripts verified.
- Four seats: no set can be voted out (m = 1); the table waits on dan, and ann says why, naming mal.
- Five seats, cat with `--drop-after 0`: this vote is one a node's timer starts, so cat never casts it (it never
  starts a vote, docs/lan-and-browser.md), the set cannot complete without cat's names, and cat says why it waits
  after net.waiting.TELL_AFTER."""

from __future__ import annotations

from pathlib import Path

from attacker import LOOPBACK
from procs import CheatProc, Proc, code_of, final_scores, verify_report

LO = ["--interface", LOOPBACK]
TIMERS = ["--bot-delay", "0.05", "--drop-after", "3"]
TURN = 2  # dan is gone at, and mal lies about, the commits of turn 3


def table(tmp_path: Path, procs, seats: int, cat: list[str] = ()) -> tuple[dict[str, Proc], list[CheatProc]]:
    """ann hosts `seats` seats; the honest joiners (cat with the arguments `cat` too), then mal (keep) and dan
    (stop), join; the game starts."""
    def files(name: str) -> list[str]:
        return ["--name", name, "--transcript", str(tmp_path / f"{name}.p2pt")]

    ann = procs(["host", "--headless", "--seats", str(seats), "--deal", "open", "--rounds", "1", "--no-points",
                 *TIMERS, *LO, *files("ann")], tmp_path / "ann.out")
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = code_of(tmp_path / "ann.out")
    join = ["join", code, "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, *TIMERS]
    honest = {"ann": ann}
    for name in ("bob", "cat")[:seats - 3]:
        honest[name] = procs([*join, *files(name), *(cat if name == "cat" else ())], tmp_path / f"{name}.out")
        honest[name].wait_for(r"joined \w{4}")
    cheats = [CheatProc("keep", [*join, *files("mal")], tmp_path / "mal.out", turn=TURN)]
    cheats[0].wait_for(r"joined \w{4}")
    cheats.append(CheatProc("stop", [*join, *files("dan")], tmp_path / "dan.out", turn=TURN))
    return honest, cheats


def test_five_seats_vote_out_the_gone_seat_with_the_seat_that_never_passed_its_commit_on(tmp_path: Path,
                                                                                        procs) -> None:
    honest, cheats = table(tmp_path, procs, 5)
    try:
        cheats[0].wait_for(r"cheat: KEEP for every other seat's commit of turn 3", 120)
        for name, proc in honest.items():
            assert proc.finish(120) == 0, (name, proc.text())  # before: waiting on dan for good
            text = proc.text()
            assert "Traceback" not in text, text
            assert "voted to drop seat 3 (mal): it went on from dan's move and never passed it on" in text, text
        assert len({final_scores(proc.text()) for proc in honest.values()}) == 1
        for name in honest:
            verify_report(tmp_path / f"{name}.p2pt", timeout=300)
    finally:
        for proc in cheats:
            proc.stop()


def test_four_seats_wait_on_the_gone_seat_and_say_why(tmp_path: Path, procs) -> None:
    honest, cheats = table(tmp_path, procs, 4)
    try:
        cheats[0].wait_for(r"cheat: KEEP for every other seat's commit of turn 3", 120)
        for proc in honest.values():  # after the drop time (3 s) in place of a vote that could complete
            proc.wait_for(r"waiting for dan: mal says it has dan's move but never passed it on \(start a new game "
                          r"without mal if it stays so\)", 60)
            assert proc.popen.poll() is None  # still waiting, as it must: no quorum decides two faults of four
    finally:
        for proc in cheats:
            proc.stop()


def test_a_node_that_starts_no_vote_never_votes_out_the_seat_that_never_passed_on(tmp_path: Path, procs) -> None:
    honest, cheats = table(tmp_path, procs, 5, cat=["--drop-after", "0"])
    try:
        cheats[0].wait_for(r"cheat: KEEP for every other seat's commit of turn 3", 120)
        said = (r"waiting for dan: mal says it has dan's move but never passed it on \(start a new game without mal "
                r"if it stays so\)")
        honest["cat"].wait_for(said, 60)  # after TELL_AFTER (10 s): cat's drop time is 0
        for name in ("ann", "bob"):  # they voted out dan and mal; without cat's names the set waits
            honest[name].wait_for("voted to drop seat 3 \\(mal\\)", 30)
        # cat joined the vote on dan, gone from its view (a join, not a start); mal it never named
        assert "voted to drop seat 3 (mal)" not in honest["cat"].text(), honest["cat"].text()
        assert all(proc.popen.poll() is None for proc in honest.values())
    finally:
        for proc in cheats:
            proc.stop()
