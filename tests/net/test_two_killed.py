"""Two players' processes killed at the same moment (issue 21 item 2): the three others drop both together
and finish the game (protocol.md 11.1, "Several seats gone together")."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]


@pytest.mark.parametrize("deal", ["open", "sealed"])
def test_two_players_killed_at_once_are_dropped_and_the_rest_finish(tmp_path: Path, procs, deal: str) -> None:
    """The reported run: host, a bot and three joiners; two joiners are killed at once mid-game. Before, the
    host gave up after 61 s "waiting for j2, j3"; now both are dropped and the host, the bot and the third
    joiner finish with the same scores, every transcript verifying."""
    host = procs(["host", "--headless", "--seats", "5", "--bots", "1", "--rounds", "3", "--no-points", "--deal",
                  deal, *LO, "--drop-after", "1.5", "--bot-delay", "0.05", "--transcript", str(tmp_path / "h.p2pt")],
                 tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4})").group(1)
    # One after the other, so the two killed hold the last two seats (3 and 4). In seat order a sealed round's
    # shuffles go 0..4: the one killed in seat 3 may have shuffled, but nobody left goes on from it. (Killed in
    # seats 2 and 4 with seat 2's shuffle taken by seat 3, no drop can complete: the table waits on seat 4,
    # whose drop needs seat 2's vote, and seat 3 went on from seat 2's shuffle so it cannot vote seat 2 out.
    # That is an open gap of protocol.md 11.1, noted on issue 21, not what this test pins.)
    joiners = {}
    for taken, name in enumerate(("stays", "gone1", "gone2"), start=3):
        joiners[name] = procs(["join", code, "--headless", *LO, "--name", name, "--drop-after", "1.5", "--bot-delay",
                               "0.05", "--transcript", str(tmp_path / f"{name}.p2pt")], tmp_path / f"{name}.out")
        host.wait_for(rf"lobby: {taken}/5 seats: .*\b{name}\b")
    joiners["gone2"].wait_for(r"(?m)^round 1:", 90)  # a round is over: killed as the next one begins
    for name in ("gone1", "gone2"):
        os.kill(joiners[name].popen.pid, signal.SIGKILL)
    for name in ("gone1", "gone2"):
        joiners[name].popen.wait()
    assert host.finish(120) == 0, host.text()
    assert joiners["stays"].finish(60) == 0, joiners["stays"].text()
    for out in (host.text(), joiners["stays"].text()):
        assert "gone1 was dropped by the others' vote" in out and "gone2 was dropped by the others' vote" in out
    final = re.search(r"final scores: (.*)", host.text()).group(1)
    assert re.search(r"final scores: (.*)", joiners["stays"].text()).group(1) == final
    for name in ("h", "stays"):
        verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
        assert verdict.ok, (name, verdict.report())
        assert "scores: " + final in verdict.summary


def test_a_player_left_alone_says_so_within_the_drop_time_and_ends(tmp_path: Path, procs) -> None:
    """The host's process holds two of three seats (itself and a bot) and is killed: the joiner left alone
    cannot vote out two seats of three (a set goes only by more than half the table), so after the drop time
    it says why, and gives up with that reason at its give-up time (before: a frozen table, then "no progress
    for 301 s"). Its transcript stays whole: every record it wrote reads back, and `resume` could take it up."""
    from p2pnimmt.protocol.transcript import records

    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", "--rounds", "3", "--no-points", *LO,
                  "--drop-after", "1.5", "--bot-delay", "0.05", "--transcript", str(tmp_path / "h.p2pt")],
                 tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4})").group(1)
    alone = procs(["join", code, "--headless", *LO, "--name", "alone", "--drop-after", "1.5", "--bot-delay", "0.05",
                   "--give-up", "8", "--transcript", str(tmp_path / "alone.p2pt")], tmp_path / "alone.out")
    alone.wait_for(r"(?m)^round 1:", 90)
    os.kill(host.popen.pid, signal.SIGKILL)
    host.popen.wait()
    told = alone.wait_for(r"too few players remain to play on: .* \(1 of 3 remain.*; waiting for them to come back",
                          20)  # said after the drop time; a cut network may still heal, so it waits --give-up
    assert alone.finish(30) == 1, alone.text()
    out = alone.text()
    assert "giving up: too few players remain to play on:" in out and told.start() < out.index("giving up"), out
    assert "no progress for" not in out
    data = (tmp_path / "alone.p2pt").read_bytes()
    assert sum(1 for kind, _ in records(data) if kind == "msg") > 20  # every record whole, the game so far kept
