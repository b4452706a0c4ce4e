"""Two players' processes killed at the same moment (issue 21 item 2): the three others drop both together
and finish the game (protocol.md 11.1, "Several seats gone together")."""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import pytest
from deadlines import outer

from p2pnimmt.protocol.codec import DecodeError, decode
from p2pnimmt.protocol.envelope import Envelope, open_envelope
from p2pnimmt.protocol.identity import peer_id
from p2pnimmt.protocol.phase import Step
from p2pnimmt.protocol.transcript import MAX_RECORD, frames
from p2pnimmt.protocol.verify import replay, verify_transcript

LO = ["--interface", "127.0.0.1"]


def messages(path: Path) -> list[Envelope]:
    """The messages of a transcript written so far (a record cut short at the end, by a process stopped while it
    wrote it, is left out)."""
    data = path.read_bytes() if path.exists() else b""
    found = []
    try:
        for position, (_offset, record) in enumerate(frames(data)):
            fields = decode(record, MAX_RECORD)
            if position and isinstance(fields, list) and len(fields) == 4 and fields[2] == "msg":
                found.append(open_envelope(fields[3]))
    except DecodeError:
        pass
    return found


def shuffled(path: Path, seat: int, round_index: int) -> bool:
    """The transcript at `path` holds seat `seat`'s SEALED_SHUFFLE of round `round_index`."""
    envs = messages(path)
    if not envs or envs[0].kind != "START":
        return False
    peer = peer_id(envs[0].body["roster"][seat]["key"])
    return any(e.kind == "SEALED_SHUFFLE" and e.sender == peer and e.body["round"] == round_index for e in envs)


def wait_until(condition, what: str, timeout: float = 60.0, every: float = 0.01) -> None:
    deadline = time.monotonic() + outer(timeout)
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {outer(timeout)} s"
        time.sleep(every)


def kill_during_the_shuffles(tmp_path: Path, joiners: dict, rounds: int) -> int:
    """Seats 2 and 4 killed at once in a sealed round, after seat 2 shuffled and seat 3 shuffled on top of it,
    before seat 4 shuffled: the round they are killed in (0-based).

    At the start of a round (its first line "round r:" says the one before is over there) seat 4 is stopped
    (SIGSTOP: it stays linked, so nobody votes it out); its own transcript, written before anything it sends,
    then shows whether it shuffled in the round already. If it did (the others were quick), it goes on and the
    next round is tried; if not, it never will: once seat 3's shuffle of the round is in seat 3's transcript,
    seats 2 and 4 are killed."""
    gone2 = joiners["gone2"]
    for r in range(1, rounds):
        wait_until(lambda: re.search(rf"(?m)^round {r}:", gone2.text()), f"round {r}'s end at seat 4")
        os.kill(gone2.popen.pid, signal.SIGSTOP)
        if shuffled(tmp_path / "gone2.p2pt", 4, r):
            os.kill(gone2.popen.pid, signal.SIGCONT)  # too late for this round: the next one
            continue
        wait_until(lambda: shuffled(tmp_path / "stays.p2pt", 3, r), f"seat 3's shuffle of round {r + 1}")
        assert shuffled(tmp_path / "stays.p2pt", 2, r)  # seat 3 shuffled on top of seat 2's shuffle
        for name in ("gone1", "gone2"):
            os.kill(joiners[name].popen.pid, signal.SIGKILL)
        return r
    raise AssertionError(f"seat 4 shuffled before it could be stopped in every round of {rounds}")


@pytest.mark.parametrize("deal", ["open", "sealed"])
def test_two_players_killed_at_once_are_dropped_and_the_rest_finish(tmp_path: Path, procs, deal: str) -> None:
    """The reported run: host, a bot and three joiners; the joiners in seats 2 and 4 are killed at once
    mid-game. Before, the host gave up after 61 s "waiting for j2, j3"; now both are dropped and the host, the
    bot and the joiner in seat 3 finish with the same scores, every transcript verifying.

    In a sealed game they are killed during a round's shuffles, after seat 2 shuffled and seat 3 shuffled on
    top of it, and before seat 4 did (CI found that the table then waited for ever: seat 3 had gone on from
    seat 2's shuffle at (r, 0) and could never vote it out; protocol.md 11.1 now gives each shuffle its own
    place, so the three vote out both at (r, 0, 4)): the round is void and seat 2 forfeits (17.9)."""
    rounds = 4 if deal == "sealed" else 3
    host = procs(["host", "--headless", "--seats", "5", "--bots", "1", "--rounds", str(rounds), "--no-points",
                  "--deal", deal, *LO, "--drop-after", "1.5", "--bot-delay", "0.05", "--transcript",
                  str(tmp_path / "h.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    joiners = {}
    for taken, name in enumerate(("gone1", "stays", "gone2"), start=3):  # one after the other: seats 2, 3, 4
        joiners[name] = procs(["join", code, "--headless", *LO, "--name", name, "--drop-after", "1.5", "--bot-delay",
                               "0.05", "--transcript", str(tmp_path / f"{name}.p2pt")], tmp_path / f"{name}.out")
        host.wait_for(rf"lobby: {taken}/5 seats: .*\b{name}\b")
    if deal == "sealed":
        killed_in = kill_during_the_shuffles(tmp_path, joiners, rounds)
    else:
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
        data = (tmp_path / f"{name}.p2pt").read_bytes()
        verdict = verify_transcript(data)
        assert verdict.ok, (name, verdict.report())
        assert "scores: " + final in verdict.summary
        if deal == "sealed":
            session = replay(data).session
            at = Step(killed_in, 0, 4)  # together, at seat 4's shuffle
            assert dict(session.dropped) == {2: at, 4: at}, session.dropped
            assert killed_in in session.voided and set(session.table.forfeits) == {2}
            assert "forfeited (made a round void, so cannot win): gone1" in verdict.summary


def test_a_player_left_alone_says_so_within_the_drop_time_and_ends(tmp_path: Path, procs) -> None:
    """The host's process holds two of three seats (itself and a bot) and is killed: the joiner left alone
    cannot vote out two seats of three (a set goes only by more than half the table), so after the drop time
    it says why, and gives up with that reason at its give-up time (before: a frozen table, then "no progress
    for 301 s"). Its transcript stays whole: every record it wrote reads back, and `resume` could take it up."""
    from p2pnimmt.protocol.transcript import records

    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", "--rounds", "3", "--no-points", *LO,
                  "--drop-after", "1.5", "--bot-delay", "0.05", "--transcript", str(tmp_path / "h.p2pt")],
                 tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    alone = procs(["join", code, "--headless", *LO, "--name", "alone", "--drop-after", "1.5", "--bot-delay", "0.05",
                   "--give-up", "5", "--transcript", str(tmp_path / "alone.p2pt")], tmp_path / "alone.out")
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
