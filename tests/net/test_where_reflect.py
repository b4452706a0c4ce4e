"""A seat whose signed `where` record names another party's port cuts no honest link (a reflection; red team,
session 42; protocol.md 14, "Where a member listens").

A record is its member's own signed word, so a member can sign any port: here mal (a joiner whose peer id is above
everyone's, so every other seat dials it) signs the host's listening port, at no address of its own (the host saw it
at 127.0.0.1), and never dials the others against the usual order (tests/net/cheat_node.py `where-reflect`). bob
dials mal there, again and again, and reaches ann, the host. Before, each such dial finished its handshake: ann took
it as bob's new link and closed bob's live one, then bob closed the new one (not mal's key), so bob's only link went
down at each dial; its redials were spaced with the dials to mal at that one address, and ann and mal voted bob out
(on main: bob's link to ann ended 4 times, and bob was dropped by the others' vote). Now a dialler refuses a key it
did not dial before it signs the handshake (net.mesh: Mesh.dial's `expect`), so ann never takes such a dial.
"""

from __future__ import annotations

import re
from pathlib import Path

from attacker import LOOPBACK
from procs import CheatProc, code_of, final_scores, verify_report

LO = ["--interface", LOOPBACK]
DROP = ["--drop-after", "4"]  # short, as a lobby might set it: bob was voted out with it


def test_a_record_naming_the_hosts_port_cuts_no_honest_link(tmp_path: Path, procs, monkeypatch) -> None:
    monkeypatch.setenv("P2PNIMMT_LOG", "INFO")  # the lines of links that end

    def files(name: str) -> list[str]:
        return ["--name", name, "--transcript", str(tmp_path / f"{name}.p2pt")]

    host = procs(["host", "--headless", "--seats", "3", "--deal", "open", "--rounds", "1", "--no-points",
                  "--bot-delay", "0.4", *DROP, *LO, *files("ann")], tmp_path / "ann.out")
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = code_of(tmp_path / "ann.out")
    join = ["join", code, "--headless", "--peer", f"{LOOPBACK}:{port}", "--bot-delay", "0.4", *DROP, *LO]
    bob = procs([*join, *files("bob")], tmp_path / "bob.out")
    ann_key = bob.wait_for(r"joined \w{4} .* host key (\w{4}-\w{4})").group(1)
    mal = CheatProc("where-reflect", [*join, *files("mal")], tmp_path / "mal.out", turn=port)
    try:
        mal.wait_for(r"cheat: its where record names port", 60)
        for name, proc in (("ann", host), ("bob", bob)):
            assert proc.finish(180) == 0, (name, proc.text())
            assert "Traceback" not in proc.text(), proc.text()
        assert mal.finish(60) == 0, mal.text()
        assert len({final_scores(proc.text()) for proc in (host, bob, mal)}) == 1
        played = bob.text().split("final scores")[0]
        assert "answers as" in played, played  # bob did dial mal where ann listens
        assert not re.search(rf"link to {ann_key} .* ended", played), played  # before: 4 times
        assert "dropped by the others' vote" not in played, played
        for name in ("ann", "bob"):
            report = verify_report(tmp_path / f"{name}.p2pt")
            assert "dropped" not in report, report
    finally:
        mal.stop()
