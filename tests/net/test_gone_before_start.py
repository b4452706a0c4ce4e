"""A seat gone between the START and its START_ACK: the others say the game cannot start, and why.

Nobody can vote out a seat that never acknowledged the START (protocol.md 11.1: a node still starting is behind
every position and drops nobody), so the game can start only if it comes back. Real `p2pnimmt` processes on
127.0.0.1: ann hosts three seats, bob joins, and mal joins with a modified client (tests/net/cheat_node.py) that
is gone when the START comes, in place of signing its START_ACK:
- `vanish`: the process ends (no `bye`): ann and bob say, after the drop time, that the game cannot start
  without mal and that they wait for it to come back, then give up after --give-up, naming mal (the later of
  the two may give up as too few remain, once the other left: it names mal there too) (before: they
  gave up after --give-up with 'no progress', and a default node waited five minutes in silence);
- `leave`: mal says `bye` (Ctrl-C): no cut to heal, so a node that has the `bye` (the host: mal joined
  through it) gives up at once, whatever --give-up says; a `bye` goes over a link, so bob, if it had no link to
  mal yet, waits as for `vanish` (it names mal after the drop time).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from attacker import LOOPBACK
from procs import Proc, code_of, default_signals

CHEAT = Path(__file__).with_name("cheat_node.py")
LO = ["--interface", LOOPBACK]
WHY = r"the game cannot start: mal left before acknowledging its START"


class CheatProc(Proc):
    """mal: p2pnimmt run by cheat_node.py."""

    def __init__(self, cheat: str, args: list[str], out: Path) -> None:
        self.out = out
        self.file = open(out, "wb")
        self.popen = subprocess.Popen([sys.executable, str(CHEAT), cheat, "0", *args], stdout=self.file,
                                      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=default_signals)


@pytest.mark.parametrize("cheat, give_up", [("vanish", "6"), ("leave", "600")])
def test_a_seat_gone_before_its_start_ack_is_named_and_the_others_give_up(tmp_path: Path, procs, cheat: str,
                                                                          give_up: str) -> None:
    timers = ["--drop-after", "1", "--give-up", give_up]

    def files(name: str) -> list[str]:
        return ["--name", name, "--transcript", str(tmp_path / f"{name}.p2pt")]

    ann = procs(["host", "--headless", "--seats", "3", *timers, *LO, *files("ann")], tmp_path / "ann.out")
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = code_of(tmp_path / "ann.out")
    peer = ["--peer", f"{LOOPBACK}:{port}"]
    bob = procs(["join", code, "--headless", *peer, *LO, *timers, *files("bob")], tmp_path / "bob.out")
    bob.wait_for(r"joined \w{4}")
    mal = CheatProc(cheat, ["join", code, "--headless", *peer, *LO, *timers, *files("mal")], tmp_path / "mal.out")
    try:
        mal.wait_for(r"cheat: gone before its START_ACK", 60)
        # `vanish`: both after the drop time and --give-up; `leave`: the host, linked to mal (mal joined through
        # it), has its `bye`, and gives up at once (a give-up of 600 s would time this out)
        # (once one of ann and bob gave up and left, the other may give up for that: too few remain, mal and the
        # one who left gone; both name mal)
        gave_up = {name: rf"giving up: ({WHY}|too few players remain to play on: {other}, mal left \(1 of 3 remain)"
                   for name, other in (("ann", "bob"), ("bob", "ann"))}
        for proc, why in ((ann, gave_up["ann"]), (bob, gave_up["bob"])) if cheat == "vanish" else ((ann, rf"giving up: {WHY}"),):
            assert proc.finish(60) == 1, proc.text()
            text = proc.text()
            assert "Traceback" not in text, text
            assert re.search(why, text), text
            if cheat == "vanish":  # said once the drop time is over, while the node still waits for mal
                assert f"{WHY} (a game starts once every seat has acknowledged it; nobody can be voted out " \
                       "before that); waiting for them to come back" in text, text
            assert "final scores" not in text, text
        if cheat == "leave":  # bob had mal's `bye` only if it was linked to mal yet: either way it names mal
            bob.wait_for(rf"{WHY}|too few players remain to play on: ann, mal left", 30)
    finally:
        mal.stop()
