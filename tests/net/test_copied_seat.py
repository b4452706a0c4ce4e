"""One seat's files copied to a second folder and resumed twice at once (issue 21, item 8): two machines, so no
lock can help, and the two copies sign different messages under the same sequence numbers (equivocation).

Real processes on 127.0.0.1: a host (ann), a spectator (tv) and three joiners (bob, cat, dan). bob is killed
(SIGKILL) after round 1; its folder is copied; both copies are resumed at once, each with a HOME and a
runtime folder of its own (the identity lock is per machine). The others' --drop-after is long enough for
the copies to come back before bob is dropped: each copy owes bob's move for the turn in play and makes it
with a nonce of its own, so the table receives two different messages from bob with one sequence number.

What the table does (protocol.md 8, 12): the two messages are an `equivocation` naming bob, and what follows
depends on which two they are. Two PLAY_COMMITs of one turn (one `seq`, one `prev`: each copy committed
bob's card for the turn in play) are a *split commit*, which costs the signer its seat, not the others their
game: every honest node keeps both versions (the proof recorded as a non-fatal `equivocation` naming bob),
and the turn's reveals decide, the same everywhere: where the seats revealed on both versions, bob is
expelled and dropped at that turn's commit step (the stand-in plays it; `verify` prints that bob lost its
seat) and the game goes on; where every seat revealed on one version, that one is the game's and bob keeps
its seat (a node that accepted the other alone cannot follow: fatal there). Any other fork (two messages of
one `seq` that are not two commits of one turn, or a fork on any other kind: e.g. the copies' next reveals,
votes or deal messages) stays fatal: every honest node that holds both aborts the game with `equivocation`
naming bob, recorded in its transcript, and (since session 31, protocol.md 12, "An equivocation after the START")
ann starts a new game at once without bob that carries the scores, which the others follow and play to its end; a
node that never receives the second version plays on with the first. The test holds what must hold whichever way the race goes: every honest process ends, without a
traceback, with a whole transcript that either verifies (the game finished, bob expelled or not; then every
finished node has the same scores) or ends in the `equivocation` fault naming bob; no honest seat is named
in any fault record of an honest transcript; bob is named by at least one process; and each copy ends too (a
copy that sees the other's message stops in one line saying why; one that never does ends with the game or
gives up).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import time
from pathlib import Path

import pytest
from deadlines import outer
from procs import final_scores

from p2pnimmt.net.files import own_messages
from p2pnimmt.protocol.codec import DecodeError
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.transcript import records
from p2pnimmt.protocol.verify import replay, verify_transcript

LOOPBACK = "127.0.0.1"
LO = ["--interface", LOOPBACK]
TIMERS = ["--drop-after", "30", "--link-timeout", "4", "--bot-delay", "0.2"]


def machine(tmp_path: Path, name: str) -> dict[str, str]:
    """The environment of another machine: its own HOME, data and runtime folders (so its own seat locks)."""
    home = tmp_path / name
    (home / "run").mkdir(parents=True, mode=0o700)
    return {"HOME": str(home), "XDG_RUNTIME_DIR": str(home / "run"), "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config")}


def revealed(path: Path, round_index: int, turn: int) -> bool:
    """The transcript at `path` holds its recorder's PLAY_REVEAL of (round, turn) (0-based)."""
    me = Identity(path.with_name(path.name + ".key").read_bytes()).peer
    try:
        envs = [open_envelope(wire) for wire in own_messages(path.read_bytes())]
    except DecodeError:  # a record being written
        return False
    return any(e.sender == me and e.kind == "PLAY_REVEAL" and (e.body["round"], e.body["turn"]) == (round_index, turn)
               for e in envs)


@pytest.mark.parametrize("kill", ["at round 1's end", "after its reveal in round 2, turn 3"])
def test_a_seat_resumed_twice_from_copied_files_is_named_and_the_honest_end_whole(tmp_path: Path, procs,
                                                                                   kill: str) -> None:
    """bob is killed at round 1's end (the copies come back in round 2's deal: each makes its shuffle) or just
    after its reveal in round 2, turn 3 (each copy owes its next card: each commits with a nonce of its own,
    before or after it sees the other's). Which copy's messages the table takes first, and whether any peer
    ever holds both, is a race: the test holds what must hold either way (the module's docstring)."""
    host = procs(["host", "--headless", "--seats", "4", "--rounds", "8", "--no-points", *LO, *TIMERS, "--name", "ann",
                  "--give-up", "60", "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    peer = ["--peer", f"{LOOPBACK}:{port}"]
    tv = procs(["watch", code, "--headless", *peer, *LO, *TIMERS, "--give-up", "60", "--name", "tv",
                "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out")
    tv.wait_for(r"joined \w{4} at .* as spectator")
    first = tmp_path / "first"
    first.mkdir()
    bob = procs(["join", code, "--headless", *peer, *LO, *TIMERS, "--name", "bob",
                 "--transcript", str(first / "bob.p2pt")], tmp_path / "bob.out")
    honest = {"ann": host, "tv": tv}
    for name in ("cat", "dan"):
        honest[name] = procs(["join", code, "--headless", *peer, *LO, *TIMERS, "--give-up", "60", "--name", name,
                              "--transcript", str(tmp_path / f"{name}.p2pt")], tmp_path / f"{name}.out")
    tv.wait_for(r"(?m)^round 1:", 120)
    if kill != "at round 1's end":
        deadline = time.monotonic() + outer(60)
        while not revealed(first / "bob.p2pt", 1, 2):
            assert time.monotonic() < deadline and bob.popen.poll() is None, bob.text()
            time.sleep(0.02)
    os.kill(bob.popen.pid, signal.SIGKILL)
    bob.popen.wait()
    second = tmp_path / "second"
    shutil.copytree(first, second)
    copies = {where: procs(["resume", str(folder / "bob.p2pt"), "--headless", *LO, *TIMERS, "--give-up", "20"],
                           tmp_path / f"bob-{where}.out", env=machine(tmp_path, f"machine-{where}"))
              for where, folder in (("first", first), ("second", second))}

    bob_peer = Identity((first / "bob.p2pt.key").read_bytes()).peer
    statuses = {name: proc.finish(240) for name, proc in honest.items()}
    outcomes = {}
    for name, proc in honest.items():
        text = proc.text()
        assert statuses[name] in (0, 1), (name, text)
        assert "Traceback" not in text, (name, text)
        data = (tmp_path / f"{name}.p2pt").read_bytes()
        replay(data, complete=False)  # whole: every record reads and replays, whatever the ending
        verdict = verify_transcript(data)
        if verdict.ok:
            assert statuses[name] == 0, (name, text)
            outcomes[name] = "finished: " + final_scores(text)
        else:
            assert verdict.peer == bob_peer and "equivocation: seat " in verdict.fault and "(bob)" in verdict.fault, \
                (name, verdict.report())
            assert re.search(r"game aborted: equivocation: .*\(peer at fault: bob\)", text), (name, text)
            outcomes[name] = "aborted: bob equivocated"
            # since session 31 (protocol.md 12, "An equivocation after the START"): ann starts a new game without bob
            # at once, which carries the scores; each honest node follows it (or gives up, status 1, where it did not
            # get there), and what it played verifies
            if statuses[name] == 0:
                assert "is abandoned: bob signed two different messages at one place (an equivocation)" in text, \
                    (name, text)
                again = verify_transcript((tmp_path / f"{name}-2.p2pt").read_bytes())
                assert again.ok and "bob" not in again.summary.splitlines()[1], (name, again.report())
                outcomes[name] += ", then finished the new game: " + final_scores(text)
        for kind, payload in records(data):
            if kind == "fault":
                assert payload["peer"] in (bob_peer, None), (name, payload)
    finished = {outcome for outcome in outcomes.values() if outcome.startswith("finished")}
    assert len(finished) <= 1, outcomes  # whoever finished agrees on the scores
    anew = {outcome.split("new game: ", 1)[1] for outcome in outcomes.values() if "new game: " in outcome}
    assert len(anew) <= 1, outcomes  # and so does whoever played the new game

    for where, proc in copies.items():
        status = proc.finish(120)
        text = proc.text()
        assert "Traceback" not in text, (where, text)
        assert status in (0, 1), (where, text)
        assert re.search(r"stopped: the table holds a message signed with this seat's key that this process did "
                         r"not sign|stopped: this seat's key signed two different messages|giving up: (no progress|too few players)|"
                         r"giving up: ann left game \w+ for a new game without this seat|giving up: game \w+ is abandoned|"
                         r"final scores: ", text), (where, text)
    # bob is named: by the honest nodes that hold both versions, or by the copy that saw the other's message
    # first and stopped before signing one of its own (then the table never saw two versions: nothing to name)
    named = [name for name, outcome in outcomes.items() if outcome.startswith("aborted")]
    stopped = [where for where, proc in copies.items() if "p2pnimmt: stopped: " in proc.text()]
    assert named or stopped, (outcomes, {where: proc.text() for where, proc in copies.items()})
    print(outcomes, {where: proc.popen.returncode for where, proc in copies.items()}, stopped)
