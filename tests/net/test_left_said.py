"""A player who leaves on purpose (Ctrl-C or `q`: its node says `bye`, protocol.md 14) is said to have left the
game, not to be at fault: the joiner of a two-seat game whose host leaves mid-round (the sealed deal's round it
shuffled is void) reads "ann left the game" where it read "seat 0 (ann) stopped before sending its card after it
shuffled" (issue: a host quitting with q then y was logged as a fault). The protocol is unchanged: the same drop,
the same void round, the same transcript; a host that vanishes without a bye (killed) is still said as before.
Real processes on 127.0.0.1; Ctrl-C is SIGINT sent by pid."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

LO = ["--interface", "127.0.0.1"]


def two_seats(tmp_path: Path, procs):
    """A headless host (ann) and a joiner (bob) whose bot is slow, the first round dealt: it waits on bob when ann
    goes (P2PNIMMT_TIMING: bob prints when a round is dealt)."""
    host = procs(["host", "--headless", "--seats", "2", *LO, "--drop-after", "1", "--bot-delay", "0.1",
                  "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    bob = procs(["join", code, "--headless", "--peer", f"127.0.0.1:{port}", *LO, "--drop-after", "1",
                 "--bot-delay", "30", "--name", "bob", "--transcript", str(tmp_path / "bob.p2pt")],
                tmp_path / "bob.out", env={"P2PNIMMT_TIMING": "1"})
    bob.wait_for(r"timing dealt 0 0 ", 30)  # the first round dealt: ann has shuffled and unlocked
    return host, bob


def test_a_host_that_leaves_mid_round_is_said_to_have_left_the_game(tmp_path: Path, procs) -> None:
    host, bob = two_seats(tmp_path, procs)
    os.kill(host.popen.pid, signal.SIGINT)
    bob.wait_for(r"round 1 is void", 30)
    text = bob.text()
    assert "ann left the game: a stand-in plays that hand" in text, text
    assert "round 1 is void (nobody scores it): ann left the game after shuffling the round's cards" in text, text
    assert re.search(r"seat 0 \(ann\) left the game \(it said bye\) after it shuffled: its round is void", text), text
    assert "stopped before sending" not in text and "was dropped by the others' vote" not in text, text
    assert "at fault" not in text and "fault:" not in text, text


def test_a_host_that_vanishes_mid_round_is_still_said_as_before(tmp_path: Path, procs) -> None:
    host, bob = two_seats(tmp_path, procs)
    os.kill(host.popen.pid, signal.SIGKILL)  # no bye
    bob.wait_for(r"round 1 is void", 60)
    text = bob.text()
    assert "ann was dropped by the others' vote: a stand-in plays that hand" in text, text
    assert re.search(r"round 1 is void \(nobody scores it\): seat 0 \(ann\) stopped before sending its (card|keys) "
                     r"after it shuffled", text), text
    assert "left the game" not in text, text
