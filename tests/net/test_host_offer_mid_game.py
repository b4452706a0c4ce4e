"""A host cannot push an honest seat out of a game under way by offering a new start without it (red team, session
39). A new start that leaves out a seat whose game started at its node is taken only where the host may truly have
lacked that seat's START_ACK (protocol.md 14, "A new start"): a host that signed any message of the game after its
START had every START_ACK (its game started), so such an offer is a lie, ignored with one line naming the host.

Real `p2pnimmt` processes on 127.0.0.1, one round, open deal: mal hosts with a modified client
(tests/net/cheat_node.py `offer-mid-game`): right after its own commit of turn 2 it offers every member a new start
of a game nobody hosts, leaving out cat (the last seat), and plays on. Before, cat took it as the new start its host
left it out of ("mal left game ABCD for a new game without this seat"), stopped taking the game's messages and
gave up its game; bob and mal went on without it (a seat silent, stood in for, voted out)."""

from __future__ import annotations

from pathlib import Path

from attacker import LOOPBACK
from procs import CheatProc, code_of, final_scores, verify_report

LO = ["--interface", LOOPBACK]
TURN = 1  # the offer comes with the host's commit of turn 2


def test_a_seat_ignores_its_hosts_new_start_without_it_once_the_host_has_played_and_plays_on(tmp_path: Path,
                                                                                              procs) -> None:
    def files(name: str) -> list[str]:
        return ["--name", name, "--transcript", str(tmp_path / f"{name}.p2pt")]

    mal = CheatProc("offer-mid-game", ["host", "--headless", "--seats", "3", "--deal", "open", "--rounds",
                                             "1", "--no-points", "--bot-delay", "0.4", *LO, *files("mal")],
                    tmp_path / "mal.out", turn=TURN)
    try:
        port = int(mal.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
        code = code_of(tmp_path / "mal.out")
        join = ["join", code, "--headless", "--peer", f"{LOOPBACK}:{port}", "--bot-delay", "0.4", *LO]
        bob = procs([*join, *files("bob")], tmp_path / "bob.out")
        bob.wait_for(r"joined \w{4}")
        cat = procs([*join, *files("cat")], tmp_path / "cat.out")
        mal.wait_for(r"cheat: offered a new start without the last seat at its commit of turn 2", 60)
        for name, proc in (("bob", bob), ("cat", cat)):
            assert proc.finish(60) == 0, (name, proc.text())  # before: cat gave up its game (exit 1)
            text = proc.text()
            assert "Traceback" not in text and "left game" not in text and "abandoned" not in text, text
        said = cat.text()
        assert "ignored a rematch frame from " in said, said
        assert ("mal offered a new start of game " in said and " without this seat after it signed messages of the "
                "game after its START: its game started, so it had this seat's START_ACK" in said), said
        assert mal.finish(60) == 0, mal.text()
        assert len({final_scores(proc.text()) for proc in (mal, bob, cat)}) == 1
        for name in ("bob", "cat"):
            report = verify_report(tmp_path / f"{name}.p2pt")
            assert "seat 2 (cat)" not in report or "dropped" not in report, report
    finally:
        mal.stop()
