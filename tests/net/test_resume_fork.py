"""A player's node restarted with `p2pnimmt resume` follows its host's new start as a `join` node does (app.resume,
app.join.join_evening; protocol.md 12, "An equivocation after the START": a node resumed from its transcript checks
the carry against the game its transcript replays).

Real `p2pnimmt` processes on 127.0.0.1, as tests/net/test_fork_mid_game.py: ann hosts a 3-round game, bob and cy
join, a TV watches, mal runs the `fork` cheat (tests/net/cheat_node.py: two PLAY_REVEALs with one seq at turn 4 of
round 2). bob's process is killed (SIGKILL) and resumed from its files:
- in round 1, resumed at once: it plays on; then mal's equivocation ends the game, and the resumed bob follows ann's
  new start that carries round 1's scores, plays the 2 rounds left and writes that game's transcript where `join`
  would (bob-2.p2pt), which verifies with the same game as ann's; the TV, killed and resumed with bob, watches the
  new game as a `watch` node does;
- after round 1, and resumed only once the new start was made while it was down (the others dropped it, played on,
  and mal forked): the new start did not hold its seat (nobody waits for a seat that is down), and its host's kept
  game tells the resumed bob the proof and the offer as it links again: bob learns that the new game went on without
  it, says so and exits 1.
Before session 32 a resumed node said "giving up: game ... is abandoned" and exited 1: its evening was over.
`resume` on the abandoned game's transcript afterwards says there is nothing to take up: its players went on.
"""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

from attacker import LOOPBACK
from deadlines import outer
from procs import code_of, game_of
from test_fork_mid_game import ROUNDS, WHY, round_end_scores
from test_gone_before_start import ENV, LO, CheatProc, files, names_of

from p2pnimmt.app.history import history_lines, read_game
from p2pnimmt.protocol.codec import DecodeError
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.transcript import records
from p2pnimmt.protocol.verify import verify_transcript


def table(procs, tmp_path: Path, timers: list[str], bob_timers: list[str], cheat: tuple[str, int] = ("fork", 3),
          cy_cheat: tuple[str, int] | None = None):
    """ann hosts, bob and cy join, the TV watches, mal (the `fork` cheat, or `cheat`: its name and TURN) joins: (ann,
    bob, cy, tv, mal, the --peer option, the code). `cy_cheat`: cy runs cheat_node.py too (a slow node's cheat)."""
    ann = procs(["host", "--headless", "--seats", "4", *ROUNDS, *timers, *LO, *files(tmp_path, "ann")],
                tmp_path / "ann.out", env=ENV)
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = code_of(tmp_path / "ann.out")
    peer = ["--peer", f"{LOOPBACK}:{port}"]
    bob = procs(["join", code, "--headless", *peer, *LO, *bob_timers, *files(tmp_path, "bob")],
                tmp_path / "bob.out", env=ENV)
    bob.wait_for(r"joined \w{4}")
    cy_args = ["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "cy")]
    cy = procs(cy_args, tmp_path / "cy.out", env=ENV) if cy_cheat is None else \
        CheatProc(cy_cheat[0], cy_args, tmp_path / "cy.out", turn=cy_cheat[1])
    cy.wait_for(r"joined \w{4}")
    tv = procs(["watch", code, "--headless", *peer, *LO, *timers, "--transcript", str(tmp_path / "tv.p2pt")],
               tmp_path / "tv.out", env=ENV)
    tv.wait_for(r"joined \w{4}")
    mal = CheatProc(cheat[0], ["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "mal")],
                    tmp_path / "mal.out", turn=cheat[1])
    return ann, bob, cy, tv, mal, code


def acked_everywhere(tmp_path: Path, names: list[str], timeout: float = 60.0, acks: bool = True) -> None:
    """Wait until the transcript of each of `names` holds a START_ACK of every seat but the START's signer: the game
    has begun at every node (a host killed before its seats' acks reached each other left them unable to start: "bob,
    cy left before acknowledging its START", CI of session 34). Not `acks`: a START (a spectator killed before its
    transcript held one has nothing to resume)."""
    deadline = time.monotonic() + outer(timeout)
    while True:
        short = []
        for name in names:
            try:
                msgs = [open_envelope(p) for kind, p in records((tmp_path / f"{name}.p2pt").read_bytes()) if kind == "msg"]
            except (DecodeError, ValueError):  # a record being written: read again
                msgs = []
            start = next((m for m in msgs if m.kind == "START"), None)
            acked = {m.sender for m in msgs if m.kind == "START_ACK"}
            if start is None or acks and len(acked) < len(start.body["roster"]) - 1:
                short.append(name)
        if not short:
            return
        assert time.monotonic() < deadline, f"no START_ACK of every seat at {short}"
        time.sleep(0.1)


def kill(proc) -> None:
    os.kill(proc.popen.pid, signal.SIGKILL)
    proc.popen.wait()


def same_new_game(tmp_path: Path, names: list[str], seats: tuple[str, ...] = ("ann", "bob", "cy")) -> None:
    """Each node's transcript of the new game verifies: mal left out (and the seats not in `seats`), round 1's totals
    carried, rounds 2 and 3 played, one game at every node."""
    first = round_end_scores(tmp_path / "ann.p2pt", 0)
    carry = ", ".join(f"{n} {first[n]}" for n in seats)
    summaries = set()
    for name in names:
        path = tmp_path / f"{name}-2.p2pt"
        verdict = verify_transcript(path.read_bytes())
        assert verdict.ok, (name, verdict.report())
        assert names_of(path) == list(seats)
        assert re.search(rf"carried from game [0-9a-f]{{32}} after round 1: {carry} ", verdict.summary), \
            verdict.summary
        assert "round 2: " in verdict.summary and "round 3: " in verdict.summary, verdict.summary
        last = round_end_scores(path, 1)
        assert f"scores: {', '.join(f'{n} {last[n]}' for n in seats)}" in verdict.summary
        summaries.add(verdict.summary.split("\nverified:")[0])
    assert len(summaries) == 1, summaries


def abandoned(code: str, then: str) -> str:
    """What a node says of the game `code` that mal's equivocation ended, and `then`, what comes next."""
    return f"game {game_of(code)} is abandoned: {WHY} (the new game carries the scores after round 1 and plays the rounds " \
           f"left); {then}"


def ended(resumed, others: tuple, status: int = 0, seconds: float = 150) -> str:
    """The resumed node ends with `status` within `seconds`, then each of `others` with 0: what the resumed one
    said."""
    assert resumed.finish(seconds) == status, resumed.text()
    for proc in others:
        assert proc.finish(150) == 0, proc.text()
    return resumed.text()


def resumed_then_new_start(text: str, code: str) -> None:
    """What the resumed bob says: its resume, the abandoned game and why, the new game joined, its end."""
    assert re.search(rf"resumed {game_of(code)} from .*bob\.p2pt: \d+ messages replayed", text), text
    assert abandoned(code, "ann starts a new game at once with the others") in text, text
    assert re.search(rf"joined \w{{4}} at 127\.0\.0\.1:\d+ as player bob \(a new start of {game_of(code)} without mal\)",
                     text), text
    assert "bob-2.p2pt" in text, text  # where `join` writes the evening's second game
    assert "Traceback" not in text and "giving up" not in text, text
    assert len(re.findall(r"final scores", text)) == 1, text


def test_a_resumed_player_follows_the_new_start_after_an_equivocation(tmp_path: Path, procs) -> None:
    timers = ["--drop-after", "600", "--give-up", "90"]  # nobody is dropped: the game waits for the resumed bob
    ann, bob, cy, tv, mal, code = table(procs, tmp_path, timers, timers)
    try:
        bob.wait_for("game started", 60)
        kill(bob)  # in round 1: the others wait on bob
        acked_everywhere(tmp_path, ["tv"], acks=False)  # (killed before it held the START, it had nothing to resume:
        # "had not started for this peer", seen once at load 9 in session 46)
        kill(tv)  # and the TV's machine too: a resumed spectator follows the new start as a `watch` node does
        assert "round 1:" not in bob.text() and "final scores" not in bob.text()
        resumed = procs(["resume", str(tmp_path / "bob.p2pt"), "--headless", *LO, *timers], tmp_path / "resume.out",
                        env=ENV)
        tv_again = procs(["resume", str(tmp_path / "tv.p2pt"), "--headless", *LO, *timers], tmp_path / "tv2.out",
                         env=ENV)
        mal.wait_for(r"cheat: two reveals", 120)  # round 2: bob's resumed node played round 1 with the others
        text = ended(resumed, (ann, cy, tv_again))
        watched = tv_again.text()
        assert f"game {game_of(code)} is abandoned: {WHY}" in watched and "ann starts a new game at once" in watched, watched
        assert re.search(rf"joined \w{{4}} at 127\.0\.0\.1:\d+ as spectator \(a new start of {game_of(code)} without mal\)",
                         watched), watched
        assert "tv-2.p2pt" in watched and "Traceback" not in watched, watched
        resumed_then_new_start(text, code)
        verdict = verify_transcript((tmp_path / "bob.p2pt").read_bytes())  # the game bob played, resumed, aborted
        assert not verdict.ok and "equivocation" in verdict.fault and "mal" in verdict.fault, verdict.report()
        same_new_game(tmp_path, ["ann", "bob", "cy", "tv"])
        # `p2pnimmt history` names the first game for what it is, and counts the new one's rounds as the evening's
        lines = history_lines([read_game(tmp_path / "bob.p2pt")])
        assert re.match(rf"\S+ \S+  abandoned after its start \({re.escape(WHY)}\): its players went on to a new game "
                        "that carries its scores$", " ".join(line.strip() for line in lines[:-1])), lines  # (broken to 80
        # columns since session 46, the players' line after it)
        assert read_game(tmp_path / "bob-2.p2pt").rounds == 3
        assert ", 3 rounds" in history_lines([read_game(tmp_path / "bob-2.p2pt")])[0]
        again = procs(["resume", str(tmp_path / "bob.p2pt"), "--headless", *LO], tmp_path / "again.out")
        assert again.finish(30) == 1, again.text()
        assert "was abandoned after its start (mal signed two different messages at one place (an equivocation); " \
               "the round in play is lost): its players went on to a new game that carries its scores" \
               in again.text(), again.text()
        assert mal.finish(90) != 0, mal.text()
    finally:
        mal.stop()


def test_a_player_down_as_the_new_start_opens_is_told_it_went_on_without_it(tmp_path: Path, procs) -> None:
    """bob is killed once round 1 is over; the others drop it (--drop-after 3), play on, and mal forks in round 2.
    ann's new start frees bob's seat at once (no link to bob: as for a rematch, the others do not wait for a seat that
    is down) and starts with cy. bob resumed then dials ann at the game's port, where ann's abandoned game still
    listens: told mal's equivocation and the offer as it links, it aborts that game on the proof and follows the offer,
    and is told that the new game started without it: it says so and exits 1 (before session 32: "giving up" with the
    abandoned game's words, and no word of the new game). cy holds its reveal of the new game's first turn
    (cheat_node.py's `hold-carried`, no rule broken: a slow seat, linked, which nobody drops without a clock) until
    the resumed bob has ended, so the resumed bob finds the new game started, not over (under the suite's load a new
    game of moves without delay was over before the resumed bob dialled it: 'cannot reach'; until session 46 every
    seat played a move a second for the whole evening, --bot-delay 1, to outlast it)."""
    timers = ["--drop-after", "3", "--give-up", "90"]
    ann, bob, cy, tv, mal, code = table(procs, tmp_path, timers, ["--drop-after", "600", "--give-up", "90"],
                                        cy_cheat=("hold-carried", 0))
    try:
        bob.wait_for(r"(?m)^round 1:", 90)
        kill(bob)
        ann.wait_for("bob was dropped by the others' vote", 60)
        ann.wait_for(rf"a new start of {game_of(code)} without mal: the seats are held", 90)
        ann.wait_for("bob has gone: the seat held for them is free", 30)
        resumed = procs(["resume", str(tmp_path / "bob.p2pt"), "--headless", *LO, *timers], tmp_path / "resume.out",
                        env=ENV)
        text = ended(resumed, (), status=1, seconds=60)
        cy.wait_for("cheat: holds its reveal of turn 1", 60)  # the new game went no further while bob was resumed
        cy.popen.send_signal(signal.SIGUSR1)
        ended(ann, (cy, tv))
        assert abandoned(code, "ann starts a new game at once with the others") in text, text
        assert "refused by the host: the game has started: ann started the new game without this seat (a new start " \
               "holds the seat of a player linked to its host as it opens, not of one that was down then); nothing " \
               "to take up" in text, text
        assert "Traceback" not in text and "resume" not in text.split("messages replayed", 1)[1], text
        verdict = verify_transcript((tmp_path / "bob.p2pt").read_bytes())  # aborted on the proof ann's game told it
        assert not verdict.ok and "equivocation" in verdict.fault and "mal" in verdict.fault, verdict.report()
        same_new_game(tmp_path, ["ann", "cy", "tv"], ("ann", "cy"))
        assert mal.finish(90) != 0, mal.text()
    finally:
        mal.stop()


def test_a_resumed_host_starts_the_new_game_after_an_equivocation(tmp_path: Path, procs) -> None:
    """ann, the host, is killed in round 1 and resumed at once; mal's equivocation in round 2 ends the game, and the
    resumed ann starts the new game without mal that carries round 1's scores, as `host` does (session 33: its evening
    goes on; before, it said "a resumed host starts no new game" and exited 1, and the others gave up). bob, cy and the
    TV follow it; every new transcript is the same game, ann's next to the resumed one (ann-2.p2pt). The TV, watching
    through bob while ann was down, hears the offer only once its link to the resumed ann is back, and under the
    suite's load a new game of moves without delay was over and ann gone before it dialled ('cannot reach': the CI
    of session 33's end): cy holds its reveal of the new game's first turn (cheat_node.py's `hold-carried`, a slow
    seat) until the TV has joined the new game (until session 46 every seat played a move a second for the whole
    evening, --bot-delay 1)."""
    # nobody is dropped: the game waits for the resumed host
    timers = ["--drop-after", "600", "--give-up", "90"]
    ann, bob, cy, tv, mal, code = table(procs, tmp_path, timers, timers, cy_cheat=("hold-carried", 0))
    try:
        ann.wait_for("game started", 60)
        acked_everywhere(tmp_path, ["ann", "bob", "cy", "mal"])
        kill(ann)  # in round 1: the others wait on their host
        resumed = procs(["resume", str(tmp_path / "ann.p2pt"), "--headless", *LO, *timers], tmp_path / "resume.out",
                        env=ENV)
        mal.wait_for(r"cheat: two reveals", 120)
        tv.wait_for(rf"joined \w{{4}} at 127\.0\.0\.1:\d+ as spectator \(a new start of {game_of(code)} without mal\)", 120)
        cy.wait_for("cheat: holds its reveal of turn 1", 60)
        cy.popen.send_signal(signal.SIGUSR1)
        text = ended(resumed, (bob, cy, tv))
        assert abandoned(code, "a new game starts at once with the others (3 players)") in text, text
        assert "ann-2.p2pt" in text and "Traceback" not in text and "giving up" not in text, text
        for name in ("bob", "cy"):
            assert f"game {game_of(code)} is abandoned: {WHY}" in (tmp_path / f"{name}.out").read_text(), name
        same_new_game(tmp_path, ["ann", "bob", "cy", "tv"])
        assert mal.finish(90) != 0, mal.text()
    finally:
        mal.stop()
