"""One seat's lying START_ACK does not cost the others their game (protocol.md 12, "A refused START_ACK"; 14, "A new
start").

Real `p2pnimmt` processes on 127.0.0.1: ann hosts, bob joins, a TV watches, and mal joins with a modified client
(tests/net/cheat_node.py):
- `lie`: mal signs its START_ACK with a `start` that is not the START's hash. Every node refuses it (the fault is
  recorded, not fatal: nobody aborts), ann abandons the game at once (the proof is signed: no drop time) and starts a
  new one without mal; bob and the TV follow and play it to its end; mal is told it was left out. Before, every
  honest node aborted with `start-mismatch`, and an aborted game takes no rematch;
- `lie-to-some`: mal signs two START_ACKs with one seq, the right one to ann and a wrong one to the others (an
  equivocation): whichever version each node took first, and whether or not it had started on the right one, every
  honest node ends in ann's new game without mal.
"""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest
from attacker import LOOPBACK
from procs import code_of, game_of
from test_fork_mid_game import ended_well
from test_gone_before_start import (
    ENV,
    LO,
    SHORT,
    CheatProc,
    ann_and_joiners,
    files,
    names_of,
    secrets_of,
    tv_and_mal,
)

from p2pnimmt.app.history import history_lines, read_game
from p2pnimmt.protocol.verify import verify_transcript

WHY = "mal signed a START_ACK that the checks refuse"


def check_abandoned(path: Path, players: list[str]) -> None:
    """The abandoned game's transcript verifies record by record, ends starting (or, for a node that had started on
    mal's right START_ACK, at the equivocation that aborted it), names mal's fault; its secrets file says why."""
    verdict = verify_transcript(path.read_bytes())
    assert not verdict.ok and verdict.record is None, verdict.report()
    assert "refused START_ACK: mal" in verdict.fault or "equivocation" in verdict.fault, verdict.report()
    assert sorted(names_of(path)) == sorted(players), names_of(path)
    why = [r for r in secrets_of(path) if r.get("kind") == "abandoned"]
    assert why == [{"kind": "abandoned", "why": WHY, "gone": [names_of(path).index("mal")]}], why
    lines = history_lines([read_game(path)])
    assert re.match(rf"\S+ \S+  abandoned before it started \({WHY}\): its players went on to a new game$",
                    " ".join(line.strip() for line in lines[:-1])), lines  # broken to 80 columns, then players


@pytest.mark.parametrize("cheat, others", [("lie", ["bob"]), ("lie-to-some", ["bob", "cy"])])
def test_a_lying_start_ack_leaves_the_others_a_new_game(tmp_path: Path, procs, cheat: str, others: list[str]) -> None:
    timers = ["--drop-after", "600", "--give-up", "60"]  # the new start does not wait for a drop time
    ann, joined, peer, code = ann_and_joiners(procs, tmp_path, len(others) + 2, [*SHORT, *timers], timers, others)
    tv, mal = tv_and_mal(procs, tmp_path, code, peer, timers, cheat)
    try:
        mal.wait_for(r"cheat: signed a", 60)
        said = ended_well(ann, joined, tv, 90)
        assert f"game {game_of(code)} is abandoned: {WHY}; a new game starts at once with the others ({len(others) + 1} " \
               "players)" in said["ann"], said["ann"]
        for name in others:
            assert f"game {game_of(code)} is abandoned: {WHY}; ann starts a new game at once with the others" in said[name], \
                said[name]
            assert re.search(rf"joined (?!{game_of(code)})\w{{4}} at .* \(a new start of {game_of(code)} without mal\)", said[name]), \
                said[name]
        assert "ann starts a new game at once with the others" in said["tv"], said["tv"]  # the TV follows
        players = ["ann", *others, "mal"]
        for name in ("ann", *others):
            check_abandoned(tmp_path / f"{name}.p2pt", players)
        for name in ("ann", *others, "tv"):
            verdict = verify_transcript((tmp_path / f"{name}-2.p2pt").read_bytes())
            assert verdict.ok, verdict.report()
            assert sorted(names_of(tmp_path / f"{name}-2.p2pt")) == sorted(["ann", *others])
        # the liar's own node is told it was left out, and gives up
        assert mal.finish(60) == 1, mal.text()
        assert re.search(rf"giving up: ann abandoned game {game_of(code)} before it started and starts a new game without "
                         r"this seat \(it (refused this seat's START_ACK|had no link to it)\)", mal.text()), mal.text()
    finally:
        mal.stop()


def test_a_start_ack_shown_to_the_host_alone_reaches_every_node_and_the_game_is_played(tmp_path: Path, procs) -> None:
    """A START_ACK shown only to some peers (session 31's startgrace left it untested): mal (tests/net/cheat_node.py
    `ack-to-host`) signs one right START_ACK and shows it to ann alone, on no other link and in no answer to a
    `heads`; mal joins first, so its relayer is bob, not ann (ann relays it to the TV alone). The others get it in
    ann's answers to their `heads` (protocol.md 14): every node starts, nobody is left out or given up on, and the
    game is played to its end with mal, one game everywhere."""
    timers = ["--drop-after", "600", "--give-up", "60"]  # nobody is voted out; a new start would show in the lines
    ann = procs(["host", "--headless", "--seats", "4", *SHORT, *timers, *LO, *files(tmp_path, "ann")],
                tmp_path / "ann.out", env=ENV)
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = code_of(tmp_path / "ann.out")
    peer = ["--peer", f"{LOOPBACK}:{port}"]
    mal = CheatProc("ack-to-host", ["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "mal")],
                    tmp_path / "mal.out")
    try:
        mal.wait_for(r"joined \w{4}", 60)
        honest = {"ann": ann}
        for name in ("bob", "tv", "cy"):  # the TV before the last seat: a TV started after it found the game of one
            # round over under load ('Connection refused')
            role = ["watch", code, "--transcript", str(tmp_path / "tv.p2pt")] if name == "tv" else \
                ["join", code, *files(tmp_path, name)]
            honest[name] = procs([*role, "--headless", *peer, *LO, *timers], tmp_path / f"{name}.out", env=ENV)
            honest[name].wait_for(r"joined \w{4}")
        mal.wait_for(r"cheat: shows its START_ACK to the host alone", 60)
        assert names_of(tmp_path / "ann.p2pt")[1] == "mal"  # seat 1: its relayer is bob's seat 2
        for name, proc in honest.items():
            assert proc.finish(90) == 0, (name, proc.text())
            text = proc.text()
            assert "abandoned" not in text and "Traceback" not in text and "giving up" not in text, (name, text)
        assert mal.finish(60) == 0, mal.text()
        summaries = set()
        for name in (*honest, "mal"):
            verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
            assert verdict.ok, (name, verdict.report())
            assert "lost its seat" not in verdict.summary and "dropped" not in verdict.summary, verdict.summary
            summaries.add(verdict.summary.split("\nverified:")[0])
        assert len(summaries) == 1, summaries
    finally:
        mal.stop()


def test_a_spectator_cut_off_while_the_proof_passed_gets_it_on_its_link_back(tmp_path: Path, procs) -> None:
    """A proof sent again on a link that comes back (protocol.md 12, "A proof reaches every node"; session 31's
    proofagain had it in memory only): the TV's network goes away as the START comes (tests/net/cheat_node.py `cut`),
    and mal (`lie-to-some`) signs two START_ACKs with one seq, the right one to ann, a wrong one to the others. The
    wrong one is in no node's chain (every node refuses it): it travels as the proof alone. ann abandons the game and
    starts a new one without mal; then the TV's network is back: it links to ann again, gets the proof in ann's answer
    to its `heads` (and the offer: its link to ann came back while ann keeps the game's links), holds the ground the
    others hold, and watches the new game, the same game as ann's."""
    timers = ["--drop-after", "600", "--give-up", "60"]
    ann, joined, peer, code = ann_and_joiners(procs, tmp_path, 4, [*SHORT, *timers], timers, ["bob", "cy"])
    tv = CheatProc("cut", ["watch", code, "--headless", *peer, *LO, *timers, "--transcript",
                           str(tmp_path / "tv.p2pt")], tmp_path / "tv.out")
    tv.wait_for(r"joined \w{4}", 60)
    mal = CheatProc("lie-to-some", ["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "mal")],
                    tmp_path / "mal.out")
    try:
        tv.wait_for(r"cheat: cut off as the START came", 60)
        ann.wait_for(r"a new game starts at once with the others", 60)
        os.kill(tv.popen.pid, signal.SIGUSR1)
        for proc in (ann, *joined.values(), tv):
            assert proc.finish(90) == 0, proc.text()
        watched = tv.text()
        assert f"game {game_of(code)} is abandoned: {WHY}; ann starts a new game at once with the others" in watched, watched
        assert "Traceback" not in watched and len(re.findall(r"final scores", watched)) == 1, watched
        # the TV's record of the abandoned game holds the proof it got on its link back
        verdict = verify_transcript((tmp_path / "tv.p2pt").read_bytes())
        assert not verdict.ok and ("refused START_ACK: mal" in verdict.fault or "equivocation" in verdict.fault), \
            verdict.report()
        summaries = set()
        for name in ("ann", "bob", "cy", "tv"):
            verdict = verify_transcript((tmp_path / f"{name}-2.p2pt").read_bytes())
            assert verdict.ok, (name, verdict.report())
            summaries.add(verdict.summary.split("\nverified:")[0])
        assert len(summaries) == 1, summaries
    finally:
        mal.stop()
        tv.stop()
