"""Consensus on a drop across a real partition (issue 12, finding 4): the host's port on the switch goes down
mid-game long enough for the other three to drop it, then comes back while they are still playing. The host
reconnects, receives the DROP votes for a step it had already gone past, drops itself at that step as they
did, follows the rest of the game and finishes with exactly their scores (it used to stay at its turn forever).
"""

from __future__ import annotations

import re
from pathlib import Path

from p2pnimmt.protocol.verify import verify_transcript

BOUND = 150  # seconds each process may take to end: a bound, not a measurement
# The others see the host gone (no link to it, the drop's condition) once its link has been silent for the link
# timeout: 5 s, not the default 20 (pings every 1.25 s; until session 46 they waited the 20 s).
LINK = ["--link-timeout", "5"]


def test_a_host_cut_off_and_back_drops_itself_where_the_others_did_and_finishes(make_lan) -> None:
    lan = make_lan(4)
    out: Path = lan.tmp_path
    host = lan.start(1, ["host", "--headless", "--seats", "4", "--name", "ann", "--rounds", "4", "--no-points",
                         "--deal", "open", "--drop-after", "2", "--bot-delay", "0.15",
                         "--transcript", str(out / "host.p2pt")], "host")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    host.wait_for(rf"listening on {re.escape(lan.addr(1))}:\d+")
    players = {f"j{i}": lan.start(i, ["join", code, "--headless", "--name", f"j{i}", "--drop-after", "2",
                                      "--bot-delay", "0.15", *LINK, "--transcript", str(out / f"j{i}.p2pt")], f"j{i}")
               for i in (2, 3, 4)}
    host.wait_for(r"(?m)^round 1:", 120)
    lan.cut(1)
    for proc in players.values():  # the others vote the host out and go on without it
        proc.wait_for(r"ann was dropped by the others' vote", 60)
    ends = len(re.findall(r"(?m)^round \d+:", players["j2"].text()))
    players["j2"].wait_for("(?s)" + r"(?:^|\n)round \d+:.*" * (ends + 1), 60)  # a round later: the game moved on
    lan.heal(1)
    for name, proc in [*players.items(), ("host", host)]:
        assert proc.finish(BOUND) == 0, f"{name}:\n{proc.text()}"
    scores = {re.search(r"final scores: (.*)", proc.text()).group(1) for proc in [*players.values(), host]}
    assert len(scores) == 1, scores  # the host agrees with the others: it dropped itself where they did
    dropped = set()
    for name in ("host", "j2", "j3", "j4"):
        verdict = verify_transcript((out / f"{name}.p2pt").read_bytes())
        assert verdict.ok, (name, verdict.report())
        dropped.add(re.search(r"scores: (.*)", verdict.summary).group(1))
    assert len(dropped) == 1
