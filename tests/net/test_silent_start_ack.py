"""A seat linked to its host but silent after the START does not cost the others their game (protocol.md 14, "A new
start": the host's grace for the START_ACKs, net.waiting.start_grace), and an honest slow seat is never left out.

Real `p2pnimmt` processes on 127.0.0.1: ann hosts three seats (--drop-after 1: the grace is its floor, 20 s), bob
joins, a TV watches, and mal joins with a modified client (tests/net/cheat_node.py):
- `mute`: mal signs no START_ACK and stays linked to everyone (it answers pings and `heads`, relays the others'
  messages). Nobody can vote it out (a node still starting drops nobody) and it is not gone, so before, every node
  waited for it until --give-up and gave the game up. Now, the grace after her START over, ann abandons the game and
  starts a new one without mal; bob and the TV follow (they cannot see a silence: it is the host's word) and play it
  to its end; mal, still there, is told it was left out, and why;
- `slow-ack`: mal is an honest node on a slow machine: its START_ACK comes 8 s after the START, well past ann's drop
  time (1 s) but inside the grace. It is taken: the game starts and the three play it to its end, no new start.
  (This one passes on the code before the grace too, which left nobody linked out; it fails where the grace is
  the drop time, START_GRACE = 0.)
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from attacker import LOOPBACK
from procs import code_of, game_of
from test_gone_before_start import ENV, LO, SHORT, CheatProc, files, names_of, secrets_of

from p2pnimmt.app.history import history_lines, read_game
from p2pnimmt.net.waiting import START_GRACE
from p2pnimmt.protocol.verify import verify_transcript

TIMERS = ["--drop-after", "1", "--give-up", "90"]  # the grace: max(1 s, START_GRACE); giving up comes far later
SLOW = 8  # seconds mal's honest START_ACK takes: past the drop time, inside the grace
WHY = "mal did not acknowledge its START in time"


def ann_bob_tv_and_mal(procs, tmp_path: Path, cheat: str, bob_lang: tuple[str, ...] = (), turn: int = 0):
    ann = procs(["host", "--headless", "--seats", "3", *SHORT, *TIMERS, *LO, *files(tmp_path, "ann")],
                tmp_path / "ann.out", env=ENV)
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = code_of(tmp_path / "ann.out")
    peer = ["--peer", f"{LOOPBACK}:{port}"]
    bob = procs(["join", code, "--headless", *peer, *LO, *TIMERS, *files(tmp_path, "bob"), *bob_lang],
                tmp_path / "bob.out", env={**ENV, "XDG_CONFIG_HOME": str(tmp_path / "config")})
    bob.wait_for(r"joined \w{4}|\w{4} bei \S+ beigetreten")
    tv = procs(["watch", code, "--headless", *peer, *LO, *TIMERS, "--transcript", str(tmp_path / "tv.p2pt")],
               tmp_path / "tv.out", env=ENV)
    tv.wait_for(r"joined \w{4}")
    mal = CheatProc(cheat, ["join", code, "--headless", *peer, *LO, *TIMERS, *files(tmp_path, "mal")],
                    tmp_path / "mal.out", turn)
    return ann, bob, tv, mal, code


def test_a_seat_linked_but_silent_after_the_start_leaves_the_others_a_new_game(tmp_path: Path, procs) -> None:
    ann, bob, tv, mal, code = ann_bob_tv_and_mal(procs, tmp_path, "mute", ("--lang", "de"))
    try:
        mal.wait_for(r"cheat: linked, and silent after the START", 60)
        silent_since = time.monotonic()
        ann.wait_for(rf"a new start of {game_of(code)} without mal: the seats are held", 60)
        waited = time.monotonic() - silent_since
        assert waited >= START_GRACE - 2, waited  # not before the grace (counted from ann's START: a moment earlier)
        for proc in (ann, bob, tv):
            assert proc.finish(90) == 0, proc.text()
        said = {name: proc.text() for name, proc in (("ann", ann), ("bob", bob), ("tv", tv))}
        for text in said.values():
            assert "Traceback" not in text and "giving up:" not in text and "Aufgeben:" not in text, text
            assert len(re.findall(r"final scores|Endstand", text)) == 1, text
        assert f"game {game_of(code)} is abandoned: {WHY}; a new game starts at once with the others (2 players)" \
               in said["ann"], said["ann"]
        # bob speaks German: the host's reason, as his node says it (mal is linked to him: the host's grace ran out)
        assert f"Spiel {game_of(code)} ist abgebrochen: mal hat den START nicht rechtzeitig bestätigt; ann startet sofort ein " \
               "neues Spiel mit den anderen" in said["bob"], said["bob"]
        assert f"game {game_of(code)} is abandoned: {WHY}; ann starts a new game at once with the others" in said["tv"], \
            said["tv"]
        # mal, still there and linked all along, is told it was left out and why; nothing to take up
        assert mal.finish(30) == 1, mal.text()
        assert f"giving up: ann abandoned game {game_of(code)} before it started and starts a new game without this seat (it " \
               "did not have this seat's START_ACK in time)" in mal.text(), mal.text()
        assert "resume" not in mal.text(), mal.text()
        for name in ("ann", "bob"):  # the abandoned game: kept, verifies up to its end (starting), says why
            path = tmp_path / f"{name}.p2pt"
            verdict = verify_transcript(path.read_bytes())
            assert not verdict.ok and verdict.record is None, verdict.report()
            assert "ends before the game does (phase starting" in verdict.fault, verdict.report()
            why = [r for r in secrets_of(path) if r.get("kind") == "abandoned"]
            assert why == [{"kind": "abandoned", "why": WHY, "gone": [names_of(path).index("mal")]}], why
            lines = history_lines([read_game(path)])
            assert re.match(rf"\S+ \S+  abandoned before it started \({WHY}\): its players went on to a new game$",
                            " ".join(line.strip() for line in lines[:-1])), lines  # broken to 80 columns, then players
        for name in ("ann", "bob", "tv"):
            verdict = verify_transcript((tmp_path / f"{name}-2.p2pt").read_bytes())
            assert verdict.ok, verdict.report()
            assert names_of(tmp_path / f"{name}-2.p2pt") == ["ann", "bob"]
    finally:
        mal.stop()


def test_an_honest_slow_start_ack_inside_the_grace_is_taken(tmp_path: Path, procs) -> None:
    ann, bob, tv, mal, code = ann_bob_tv_and_mal(procs, tmp_path, "slow-ack", turn=SLOW)
    try:
        mal.wait_for(rf"cheat: a slow node, its START_ACK comes in {SLOW} s", 60)
        mal.wait_for(r"cheat: signs its START_ACK now", 30)
        for proc in (ann, bob, tv, mal):
            assert proc.finish(90) == 0, proc.text()
            text = proc.text()
            assert "abandoned" not in text and "new start" not in text and "giving up" not in text, text
            assert len(re.findall(r"final scores", text)) == 1, text
        for name in ("ann", "bob", "mal", "tv"):
            verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
            assert verdict.ok, verdict.report()
            assert sorted(names_of(tmp_path / f"{name}.p2pt")) == ["ann", "bob", "mal"]
    finally:
        mal.stop()
