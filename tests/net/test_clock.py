"""The turn clock with real processes (issue 13): a person who does not move is never dropped; its own node plays
the stand-in's move when the clock runs out, the seat shows as away after three, and the game ends normally."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.transcript import records
from p2pnimmt.protocol.verify import verify_transcript

LOOPBACK = "127.0.0.1"
LO = ["--interface", LOOPBACK]


def test_a_person_who_never_moves_is_played_by_the_stand_in_and_stays_seated(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", *LO, "--deal", "open", "--rounds", "1",
                  "--no-points", "--clock", "2", "--drop-after", "1", "--transcript", str(tmp_path / "host.p2pt"),
                  "--name", "ann"], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    # A person at a line terminal who never types a thing (stdin open, nothing on it); its drop timer is short:
    # only an absent peer may be dropped, and this one is linked the whole time.
    # A spectator at a line terminal: another screen's log, where the stand-in's cards are marked.
    tv = procs(["watch", code, "--lines", *LO, "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out")
    host.wait_for("spectator|watch", 20)
    slow = procs(["join", code, "--lines", *LO, "--name", "sam", "--transcript", str(tmp_path / "sam.p2pt")],
                 tmp_path / "sam.out", stdin=subprocess.PIPE)
    for proc in (host, slow):
        assert proc.finish(90) == 0, proc.text()
    text = slow.text()
    assert "time is up: the stand-in played for you" in text
    assert "sam is away: the stand-in plays for them" in text
    assert "voted to drop" not in host.text() + text
    # The others' logs mark the cards the stand-in played for sam (issue 23 item 9), and only those.
    assert tv.finish(60) == 0, tv.text()
    assert re.search(r"revealed: .*\bsam \d+ \(stand-in\)", tv.text()), tv.text()
    assert not re.search(r"\b(ann|bot1) \d+ \(stand-in\)", tv.text() + text)
    scores = {}
    for name in ("host", "sam"):
        data = (tmp_path / f"{name}.p2pt").read_bytes()
        verdict = verify_transcript(data)
        assert verdict.ok, verdict.report()
        scores[name] = re.search(r"scores: (.*)", verdict.summary).group(1)
        wires = [open_envelope(p) for kind, p in records(data) if kind == "msg"]
        assert not [e for e in wires if e.kind == "DROP"]
        start = next(e for e in wires if e.kind == "START")
        assert start.body["settings"]["clock"] == 2
        seat = [s["name"] for s in start.body["roster"]].index("sam")
        sam = start.body["roster"][seat]["key"]
        from p2pnimmt.protocol.identity import peer_id

        reveals = [e for e in wires if e.kind == "PLAY_REVEAL" and e.sender == peer_id(sam)]
        assert len(reveals) == 10 and all(e.body.get("auto") is True for e in reveals)
    assert scores["host"] == scores["sam"]
