"""A seat whose signed `where` record names another party's port costs the others nothing (a reflection; red team,
session 42; protocol.md 14, "Where a member listens").

A record is its member's own signed word, so a member can sign any port: here mal (a joiner whose peer id is above
everyone's, so every other seat dials it) signs another party's port, at no address of its own (the host saw it at
127.0.0.1), and never dials the others against the usual order (tests/net/cheat_node.py `where-reflect`), so bob
dials mal there again and again. Real processes on 127.0.0.1, three seats, one round, open deal.
"""

from __future__ import annotations

import re
import socket
import threading
from pathlib import Path

from attacker import LOOPBACK
from procs import CheatProc, Proc, code_of, final_scores, verify_report

LO = ["--interface", LOOPBACK]
DROP = ["--drop-after", "4"]  # short, as a lobby might set it: bob was voted out with it


def play_with_mal(tmp_path: Path, procs, named: int | None = None) -> tuple[Proc, Proc, str]:
    """ann hosts, bob joins, mal joins signing the port `named` (None: ann's) as its own; the game played to its end,
    each honest transcript verified with nobody dropped. (ann, bob, ann's key.)"""

    def files(name: str) -> list[str]:
        return ["--name", name, "--transcript", str(tmp_path / f"{name}.p2pt")]

    host = procs(["host", "--headless", "--seats", "3", "--deal", "open", "--rounds", "1", "--no-points",
                  "--bot-delay", "0.4", *DROP, *LO, *files("ann")], tmp_path / "ann.out")
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = code_of(tmp_path / "ann.out")
    join = ["join", code, "--headless", "--peer", f"{LOOPBACK}:{port}", "--bot-delay", "0.4", *DROP, *LO]
    bob = procs([*join, *files("bob")], tmp_path / "bob.out")
    ann_key = bob.wait_for(r"joined \w{4} .* host key (\w{4}-\w{4})").group(1)
    mal = CheatProc("where-reflect", [*join, *files("mal")], tmp_path / "mal.out", turn=named or port)
    try:
        mal.wait_for(r"cheat: its where record names port", 60)
        for name, proc in (("ann", host), ("bob", bob)):
            assert proc.finish(180) == 0, (name, proc.text())
            assert "Traceback" not in proc.text(), proc.text()
        assert mal.finish(60) == 0, mal.text()
        assert len({final_scores(proc.text()) for proc in (host, bob, mal)}) == 1
        assert "dropped by the others' vote" not in bob.text(), bob.text()
        for name in ("ann", "bob"):
            report = verify_report(tmp_path / f"{name}.p2pt")
            assert "dropped" not in report, report
    finally:
        mal.stop()
    return host, bob, ann_key


def test_a_record_naming_the_hosts_port_cuts_no_honest_link(tmp_path: Path, procs, monkeypatch) -> None:
    """mal signs ann's port (ann hosts): bob's dials of mal reach ann. Before, each finished its handshake: ann took
    it as bob's new link and closed bob's live one, then bob closed the new one (not mal's key), so bob's only link
    went down at each dial; its redials of ann were spaced with its dials of mal at that one address, and ann and mal
    voted bob out (on main: bob's link to ann ended 4 times and bob was dropped). Now a dialler refuses a key it did
    not dial before it signs the handshake (net.mesh: Mesh.dial's `expect`): ann takes nothing for a link."""
    monkeypatch.setenv("P2PNIMMT_LOG", "INFO")  # the lines of links that end
    _host, bob, ann_key = play_with_mal(tmp_path, procs)
    played = bob.text().split("final scores")[0]
    assert "answers as" in played, played  # bob did dial mal where ann listens
    assert not re.search(rf"link to {ann_key} .* ended", played), played  # before: 4 times


def test_a_record_naming_a_service_sends_it_nothing(tmp_path: Path, procs) -> None:
    """mal signs the port of a service on the LAN that is no p2pnimmt peer and waits for its client to speak first
    (a printer's raw port prints what comes; a database, a web server). Before, bob's every dial of mal sent it
    bob's hello (the dialler spoke first), one each few seconds all game. Now a dialler at an address a member named
    says its hello only once the listener's came (Connection.open's `heard_first`): the service gets not one byte."""
    server = socket.create_server((LOOPBACK, 0))
    got: list[bytes] = []
    dials = [0]

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return  # closed: the test is over
            dials[0] += 1
            with conn:
                conn.settimeout(30)
                try:
                    while chunk := conn.recv(4096):
                        got.append(chunk)
                except OSError:
                    pass

    threading.Thread(target=serve, daemon=True).start()
    try:
        play_with_mal(tmp_path, procs, named=server.getsockname()[1])
    finally:
        server.close()
    assert dials[0] >= 1  # bob dialled mal there
    assert b"".join(got) == b"", got  # before: a p2pnimmt hello at each dial
