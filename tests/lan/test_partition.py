"""The partitioned host of four (issue 12, finding 7): the host's port on the switch goes down for good after
round 1; the three other players drop it and finish the game, agreeing, their transcripts verified; the host
and the spectator (which hangs off the host) can make no progress: each says why and exits within its
--give-up time; no process is left running. See conftest.py for the LAN (namespaces, always removed) and the
skip rule.
"""

from __future__ import annotations

import re
from pathlib import Path

from procs import game_of

from p2pnimmt.net.files import torn_tail
from p2pnimmt.protocol.verify import verify_transcript

BOUND = 120  # seconds each process may take to end: a bound, not a measurement
# The host and the spectator cut off wait this out whole after the cut (15 s before session 42): long enough that a
# turn of 0.05 s moves never looks stuck before it, however loaded the machine.
GIVE_UP = ["--give-up", "8"]
# The players see the host gone (no link to it, the drop's condition) once its link has been silent for the link
# timeout: 5 s, not the default 20 (pings every 1.25 s; until session 46 the players waited the 20 s).
LINK = ["--link-timeout", "5"]


def test_the_partitioned_host_of_four_gives_up_and_the_others_finish(make_lan) -> None:
    lan = make_lan(5)
    out: Path = lan.tmp_path
    host = lan.start(1, ["host", "--headless", "--seats", "4", "--name", "ann", "--rounds", "3", "--no-points",
                         "--drop-after", "2", *GIVE_UP, "--bot-delay", "0.05",
                         "--transcript", str(out / "host.p2pt")], "host")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    host.wait_for(rf"listening on {re.escape(lan.addr(1))}:\d+")
    watch = lan.start(5, ["watch", code, "--headless", *GIVE_UP, "--transcript", str(out / "watch.p2pt")],
                      "watch")
    watch.wait_for(rf"joined {game_of(code)} at {re.escape(lan.addr(1))}:\d+ as spectator", timeout=30)
    players = {f"j{i}": lan.start(i, ["join", code, "--headless", "--name", f"j{i}", "--drop-after", "2",
                                      "--give-up", "60", "--bot-delay", "0.05", *LINK,
                                      "--transcript", str(out / f"j{i}.p2pt")], f"j{i}") for i in (2, 3, 4)}
    host.wait_for(r"(?m)^round 1:", 90)
    lan.cut(1)
    for name, proc in players.items():
        assert proc.finish(BOUND) == 0, f"{name}:\n{proc.text()}"
    scores = {re.search(r"final scores: (.*)", proc.text()).group(1) for proc in players.values()}
    assert len(scores) == 1, scores
    result = scores.pop()
    for name in players:
        verdict = verify_transcript((out / f"{name}.p2pt").read_bytes())
        assert verdict.ok, (name, verdict.report())
        assert "scores: " + result in verdict.summary
        assert "ann was dropped by the others' vote" in players[name].text(), players[name].text()
    lan.heal(1)  # the network is back, but the game is over and its players gone: the host must still leave
    for name, proc in {"host": host, "watch": watch}.items():
        status = proc.finish(BOUND)
        text = proc.text()
        assert "Traceback" not in text, text
        if status == 0:  # it heard the rest after all (relayed, or on reconnecting): then it agrees
            assert re.search(r"final scores: (.*)", text).group(1) == result, text
            assert verify_transcript((out / f"{name}.p2pt").read_bytes()).ok
            continue
        assert status == 1, text
        assert re.search(r"giving up: no progress for \d+ s \(round \d+, turn \d+", text), text
        data = (out / f"{name}.p2pt").read_bytes()
        assert torn_tail(data) is None
        assert "ends before the game does" in verify_transcript(data).fault
