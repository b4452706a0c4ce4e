"""A seat gone between the START and its START_ACK does not cost the others their game (app.anew).

Nobody can vote out a seat that never acknowledged the START (protocol.md 11.1: a node still starting is behind
every position and drops nobody), so that game cannot start: its host abandons it and at once hosts a new game
for the others, by the steps of a rematch (protocol.md 14, "A new start"). Real `p2pnimmt` processes on
127.0.0.1: ann hosts three seats, bob joins, and mal joins with a modified client (tests/net/cheat_node.py) that
is gone when the START comes, in place of signing its START_ACK:
- `vanish`: the process ends (no `bye`): after the drop time ann abandons the game and starts a new one with
  bob, who follows; they play it to its end (before: both said the game cannot start and gave up);
- `leave`: mal says `bye` (Ctrl-C): no cut to heal, so ann starts anew at once, whatever --drop-after says (a
  drop time of 600 s would time this out).
Where the host's own bots sit at the table, a new bot takes the seat left empty (the table keeps its size).

The host gone: after its START, the others start and finish the game with its stand-in (it is voted out as any
seat absent, protocol.md 11.1); gone before its new start, with a seat gone before its START_ACK, nobody can
start a new game, and the others say so, naming both, and give up.
"""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest
from attacker import LOOPBACK
from procs import CheatProc, code_of, game_of

from p2pnimmt.app.history import history_lines, read_game
from p2pnimmt.net.files import secrets_path
from p2pnimmt.protocol.codec import decode
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.transcript import frames, records
from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", LOOPBACK]
SHORT = ["--rounds", "1", "--no-points", "--deal", "open", "--bot-delay", "0.05"]
ENV = {"P2PNIMMT_PLACE_DELAY": "0"}
WHY = r"the game cannot start: mal left before acknowledging its START"


def files(tmp_path: Path, name: str) -> list[str]:
    return ["--name", name, "--transcript", str(tmp_path / f"{name}.p2pt")]


def ann_and_bob(procs, tmp_path: Path, host_options: list[str], timers: list[str]):
    """ann hosts a 3-seat game (`host_options`), bob joins it with `timers`: (ann, bob, bob's --peer option,
    the game's code)."""
    ann, joined, peer, code = ann_and_joiners(procs, tmp_path, 3, host_options, timers, ["bob"])
    return ann, joined["bob"], peer, code


def ann_and_joiners(procs, tmp_path: Path, seats: int, host_options: list[str], timers: list[str],
                    names: list[str]):
    """ann hosts a game of `seats` seats (`host_options`), and each of `names` joins it in turn with `timers`:
    (ann, {name: its process}, the --peer option, the game's code)."""
    ann = procs(["host", "--headless", "--seats", str(seats), *host_options, *LO, *files(tmp_path, "ann")],
                tmp_path / "ann.out", env=ENV)
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = code_of(tmp_path / "ann.out")
    peer = ["--peer", f"{LOOPBACK}:{port}"]
    joined = {}
    for name in names:
        joined[name] = procs(["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, name)],
                             tmp_path / f"{name}.out", env=ENV)
        joined[name].wait_for(r"joined \w{4}")
    return ann, joined, peer, code


def tv_and_mal(procs, tmp_path: Path, code: str, peer: list[str], timers: list[str], cheat: str):
    """A headless spectator (tv) joins the game `code` with `timers`, then mal with cheat_node.py's `cheat`."""
    tv = procs(["watch", code, "--headless", *peer, *LO, *timers, "--transcript", str(tmp_path / "tv.p2pt")],
               tmp_path / "tv.out", env=ENV)
    tv.wait_for(r"joined \w{4}")
    mal = CheatProc(cheat, ["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "mal")],
                    tmp_path / "mal.out")
    return tv, mal


def names_of(path: Path) -> list[str]:
    """The roster of the game a transcript records, from its START."""
    start = next(open_envelope(p) for kind, p in records(path.read_bytes()) if kind == "msg")
    assert start.kind == "START"
    return [seat["name"] for seat in start.body["roster"]]


def secrets_of(path: Path) -> list[dict]:
    return [decode(record) for _offset, record in frames(secrets_path(path).read_bytes())]


def check_abandoned(path: Path) -> None:  # a seat's (a spectator keeps no secrets file)
    """The abandoned game's transcript is kept: every record in it verifies, and it ends in a game that never
    started (a START and the acks of the seats that were there); its secrets file says why it was abandoned."""
    verdict = verify_transcript(path.read_bytes())
    assert not verdict.ok and verdict.record is None, verdict.report()
    assert "ends before the game does (phase starting" in verdict.fault, verdict.report()
    # (the seat order is the order of joining: mal may come before the host's bot)
    assert sorted(names_of(path)) in (["ann", "bob", "mal"], ["ann", "bot1", "mal"]), names_of(path)
    why = [r for r in secrets_of(path) if r.get("kind") == "abandoned"]
    assert why == [{"kind": "abandoned", "why": "mal left before acknowledging its START",
                    "gone": [names_of(path).index("mal")]}], why
    lines = history_lines([read_game(path)])  # `p2pnimmt history` names it for what it is
    head = " ".join(line.strip() for line in lines[:-1])  # broken between words to 80 columns
    assert re.match(r"\S+ \S+  abandoned before it started \(mal left before acknowledging its START\): its "
                    "players went on to a new game$", head) and all(len(line) <= 80 for line in lines), lines


def check_finished(path: Path, players: list[str]) -> None:
    verdict = verify_transcript(path.read_bytes())
    assert verdict.ok, verdict.report()
    assert names_of(path) == players
    assert "rematch of" not in verdict.summary  # the first game of the evening: the new start follows nothing


@pytest.mark.parametrize("cheat, drop_after", [("vanish", "1"), ("leave", "600")])
def test_a_seat_gone_before_its_start_ack_leaves_the_others_a_new_game(tmp_path: Path, procs, cheat: str,
                                                                       drop_after: str) -> None:
    timers = ["--drop-after", drop_after, "--give-up", "60"]
    ann, bob, peer, code = ann_and_bob(procs, tmp_path, [*SHORT, *timers], timers)
    tv, mal = tv_and_mal(procs, tmp_path, code, peer, timers, cheat)
    try:
        mal.wait_for(r"cheat: gone before its START_ACK", 60)
        for proc in (ann, bob, tv):
            assert proc.finish(90) == 0, proc.text()
        said = {name: proc.text() for name, proc in (("ann", ann), ("bob", bob), ("tv", tv))}
        for text in said.values():
            assert "Traceback" not in text and "giving up:" not in text, text
            assert len(re.findall(r"final scores", text)) == 1, text
        assert f"game {game_of(code)} is abandoned: mal left before acknowledging its START; a new game starts at once " \
               "with the others (2 players)" in said["ann"], said["ann"]
        new = re.search(rf"a new start of {game_of(code)} without mal: the seats are held", said["ann"])
        assert new, said["ann"]
        assert f"game {game_of(code)} is abandoned: mal left before acknowledging its START; ann starts a new game at once " \
               "with the others" in said["bob"], said["bob"]
        assert re.search(rf"joined (?!{game_of(code)})\w{{4}} at .* \(a new start of {game_of(code)} without mal\)", said["bob"]), \
            said["bob"]
        if cheat == "vanish":  # bob said why it waited, while ann's drop time ran
            assert re.search(rf"{WHY} \(.*\); waiting for ann to start a new game without them, or for them to "
                             "come back", said["bob"]) or "waiting" not in said["bob"], said["bob"]
        assert "ann starts a new game at once with the others" in said["tv"], said["tv"]  # the TV follows
        for name in ("ann", "bob"):
            check_abandoned(tmp_path / f"{name}.p2pt")
        for name in ("ann", "bob", "tv"):
            check_finished(tmp_path / f"{name}-2.p2pt", ["ann", "bob"])
        # nothing to take up: its players went on
        resume = procs(["resume", str(tmp_path / "bob.p2pt"), "--headless", *LO], tmp_path / "resume.out")
        assert resume.finish(30) == 1, resume.text()
        assert f"the game in {tmp_path / 'bob.p2pt'} was abandoned before it started (mal left before " \
               "acknowledging its START): its players went on to a new game" in resume.text(), resume.text()
    finally:
        mal.stop()


def test_a_new_bot_takes_the_seat_left_where_the_hosts_bots_play(tmp_path: Path, procs) -> None:
    """ann hosts three seats with a bot of her own: mal's seat, left before its START_ACK, goes to a new bot, in
    mal's place at the table. ann speaks German (--lang de): the new lines are in the catalog."""
    timers = ["--drop-after", "1", "--give-up", "60"]
    ann = procs(["host", "--headless", "--seats", "3", "--bots", "1", *SHORT, *timers, *LO, *files(tmp_path, "ann"),
                 "--lang", "de"], tmp_path / "ann.out", env={**ENV, "XDG_CONFIG_HOME": str(tmp_path / "config")})
    port = int(ann.wait_for(r"lausche auf 127\.0\.0\.1:(\d+)").group(1))
    code = ann.wait_for(r"Code: (\w{4}-\w{4})").group(1)
    mal = CheatProc("vanish", ["join", code, "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, *timers,
                                  *files(tmp_path, "mal")], tmp_path / "mal.out")
    try:
        mal.wait_for(r"cheat: gone before its START_ACK", 60)
        assert ann.finish(90) == 0, ann.text()
        text = ann.text()
        assert f"Spiel {game_of(code)} ist abgebrochen: mal ist gegangen, bevor der START bestätigt war; ein neues Spiel " \
               "beginnt sofort mit den anderen, ein neuer Bot auf jedem frei gewordenen Platz" in text, text
        assert re.search(rf"Neustart von {game_of(code)} ohne mal: die Plätze bleiben 60 s für die anderen frei", text), text
        check_abandoned(tmp_path / "ann.p2pt")
        # the new bot in mal's seat, the others where they sat (mal may have joined before bot1)
        check_finished(tmp_path / "ann-2.p2pt", [{"mal": "bot2"}.get(n, n) for n in names_of(tmp_path / "ann.p2pt")])
    finally:
        mal.stop()


def test_a_host_gone_after_its_start_leaves_the_others_their_game(tmp_path: Path, procs) -> None:
    """ann's process ends a moment after her START: bob and mal acknowledge it, start, vote ann out after the drop
    time and play the game to its end against her stand-in."""
    timers = ["--drop-after", "1", "--give-up", "60"]
    ann = CheatProc("host-vanish", ["host", "--headless", "--seats", "3", *SHORT, *timers, *LO,
                                       *files(tmp_path, "ann")], tmp_path / "ann.out")
    try:
        port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
        code = code_of(tmp_path / "ann.out")
        peer = ["--peer", f"{LOOPBACK}:{port}"]
        bob = procs(["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "bob")],
                    tmp_path / "bob.out", env=ENV)
        bob.wait_for(r"joined \w{4}")
        mal = procs(["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "mal")],
                    tmp_path / "mal.out", env=ENV)
        ann.wait_for(r"cheat: the host is gone after its START")
        for name, proc in (("bob", bob), ("mal", mal)):
            assert proc.finish(90) == 0, proc.text()
            text = proc.text()
            assert "Traceback" not in text and "final scores" in text, text
            verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
            assert verdict.ok, verdict.report()
            assert names_of(tmp_path / f"{name}.p2pt") == ["ann", "bob", "mal"]
    finally:
        ann.stop()


def test_a_host_gone_too_leaves_nobody_to_start_anew_and_the_others_are_told(tmp_path: Path, procs) -> None:
    """mal is gone before its START_ACK, and ann, the host, is gone (killed) before her drop time ran out: nobody
    can start a new game; bob says so, naming both, and gives up."""
    timers = ["--drop-after", "1", "--give-up", "15"]  # time to kill ann before bob gives up
    ann, bob, peer, code = ann_and_bob(procs, tmp_path, [*SHORT, "--drop-after", "600"], timers)
    mal = CheatProc("vanish", ["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "mal")],
                    tmp_path / "mal.out")
    try:
        bob.wait_for(rf"{WHY} \(.*\); waiting for ann to start a new game without them, or for them to come back",
                     30)
        ann.popen.send_signal(signal.SIGKILL)
        assert bob.finish(60) == 1, bob.text()
        text = bob.text()
        gone = rf"{WHY} \(.*\), and the host ann has left too: nobody can start a new game without them"
        assert re.search(gone + "; waiting for them to come back", text), text
        assert re.search("giving up: " + gone, text), text
        assert "Traceback" not in text and "final scores" not in text, text
    finally:
        mal.stop()


def test_the_seat_left_out_comes_back_and_is_told_plainly_that_its_game_was_abandoned_without_it(
        tmp_path: Path, procs) -> None:
    """mal's network goes away as it signs its START_ACK (tests/net/cheat_node.py `cut`) and is back once ann started
    anew without it. Its link to ann's abandoned game (kept open for the rest of the evening) is told
    ann's offer, and mal says plainly that its game was abandoned and a new one started without it, at once. Before,
    nothing listened there any more: it said that the game could not start as bob had left before acknowledging its
    START and the host had left too, and gave up only after --give-up."""
    timers = ["--drop-after", "1", "--give-up", "60"]
    longer = [*SHORT, "--rounds", "3"]  # the new game (and ann's process) lasts past mal's return
    ann, bob, peer, code = ann_and_bob(procs, tmp_path, [*longer, *timers], timers)
    mal = CheatProc("cut", ["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "mal")],
                    tmp_path / "mal.out")
    try:
        mal.wait_for(r"cheat: cut off as it signed its START_ACK", 60)
        ann.wait_for(rf"a new start of {game_of(code)} without mal", 30)
        bob.wait_for(rf"joined \w{{4}} at .* \(a new start of {game_of(code)} without mal\)", 30)  # (not a moment before: a
        # START_ACK of mal's that came to bob before the offer would start there the game his host left, by design)
        mal.popen.send_signal(signal.SIGUSR1)  # its network is back
        assert mal.finish(30) == 1, mal.text()
        assert f"giving up: ann abandoned game {game_of(code)} before it started and starts a new game without this seat" \
               in mal.text(), mal.text()
        assert "resume" not in mal.text(), mal.text()  # nothing to take up: its host and players went on
        for proc in (ann, bob):
            assert proc.finish(90) == 0, proc.text()
        check_finished(tmp_path / "ann-2.p2pt", ["ann", "bob"])
    finally:
        mal.stop()
