"""A seat restarted with `p2pnimmt resume` mid-evening keeps the evening it had (session 33): `--rematch N` (headless)
offers or follows the rematch after the resumed game as `host` and `join` do, its transcript next to the resumed one
(PATH-2), the evening's table counting both games; `--web` serves the table of the resumed game in the browser, the
game so far on it (tests/web/test_web_resume.py). Before, `resume` took both options and ignored them: the resumed node left at game over, and a
`--web` resume played in the terminal. Options that cannot apply to a resumed seat are refused, saying why.

Real `p2pnimmt` processes on 127.0.0.1: ann hosts a 2-seat game, bob joins; one of them is killed (SIGKILL) in round 1
and resumed from its files."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from deadlines import OUTER
from test_rematch import evening_printed, start_of

LO = ["--interface", "127.0.0.1"]
GAME = ["--rounds", "1", "--no-points", "--deal", "open"]
WAIT = ["--drop-after", "600", "--give-up", "90"]  # nobody is dropped: the game waits for the resumed seat
ENV = {"P2PNIMMT_PLACE_DELAY": "0"}


def kill(proc) -> None:
    os.kill(proc.popen.pid, signal.SIGKILL)
    proc.popen.wait()


def table(procs, tmp_path: Path, bob: list[str], rematch: int = 1, lang: str = "en"):
    """ann hosts (headless, `rematch` rematches offered, a move every half second), bob joins with `bob`, both in
    `lang`: (ann, bob, peer)."""
    ann = procs(["host", "--headless", "--seats", "2", *LO, *GAME, *WAIT, "--bot-delay", "0.5", "--rematch", str(rematch),
                 "--lang", lang,
                 "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out", env=ENV)
    port = int(ann.wait_for(r"(?:listening on|lausche auf) 127\.0\.0\.1:(\d+)").group(1))
    code = ann.wait_for(r"(?:code|Code): (\w{4}-\w{4})").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    joined = procs(["join", code, *LO, *peer, *WAIT, *bob, "--name", "bob", "--lang", lang,
                    "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out", env=ENV)
    joined.wait_for(r"(?:joined|beigetreten) ")
    return ann, joined, peer


def rematch_of(tmp_path: Path, name: str) -> None:
    """`name`'s second transcript verifies and is the rematch of its first: its START names the first game."""
    first, _verdict = start_of(tmp_path / f"{name}.p2pt")
    second, verdict = start_of(tmp_path / f"{name}-2.p2pt")
    assert second.body["previous"] == first.game_id, "the rematch's START names the resumed game"
    assert f"rematch of game {first.game_id.hex()}" in verdict.summary


def test_a_resumed_player_follows_the_rematch_after_its_game(tmp_path: Path, procs) -> None:
    ann, bob, _peer = table(procs, tmp_path, ["--headless", "--rematch", "1"])
    bob.wait_for("game started", 60)
    kill(bob)  # in round 1: ann waits on bob
    resumed = procs(["resume", str(tmp_path / "bob.p2pt"), "--headless", *LO, *WAIT, "--rematch", "1"],
                    tmp_path / "resume.out", env=ENV)
    assert resumed.finish(150) == 0, resumed.text()
    assert ann.finish(60) == 0, ann.text()
    text = resumed.text()
    assert "joined" in text and "(a rematch of" in text and "bob-2.p2pt" in text, text
    assert "Traceback" not in text, text
    rematch_of(tmp_path, "bob")
    rematch_of(tmp_path, "ann")
    assert evening_printed(text) == evening_printed(ann.text())  # the resumed game is on the evening's table
    assert {games for games, _won, _points in evening_printed(text).values()} == {2}, text


def test_a_resumed_evening_in_german_says_no_english_word(tmp_path: Path, procs) -> None:
    """The same evening with --lang de: what the resumed node says, its replay's line ("Phase Zug", where it said
    "Phase turn"), the rematch and the evening's table, has none of the UI's English words (tests/german.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ui"))
    from test_german_lines import german

    ann, bob, _peer = table(procs, tmp_path, ["--headless", "--rematch", "1"], lang="de")
    bob.wait_for("Spiel beginnt", 60)
    kill(bob)
    resumed = procs(["resume", str(tmp_path / "bob.p2pt"), "--headless", *LO, *WAIT, "--rematch", "1", "--lang", "de"],
                    tmp_path / "resume.out", env=ENV)
    assert resumed.finish(150) == 0, resumed.text()
    assert ann.finish(60) == 0, ann.text()
    text = resumed.text()
    assert re.search(r"Nachrichten nachgespielt, Phase (Zug|Austeilen), Runde 1", text) and "bob-2.p2pt" in text, text
    german(text)
    rematch_of(tmp_path, "bob")


def test_a_resumed_host_offers_the_rematch_after_its_game(tmp_path: Path, procs) -> None:
    ann, bob, _peer = table(procs, tmp_path, ["--headless", "--rematch", "1", "--bot-delay", "0.5"])
    ann.wait_for("game started", 60)
    kill(ann)  # bob waits on its host
    resumed = procs(["resume", str(tmp_path / "ann.p2pt"), "--headless", *LO, *WAIT, "--bot-delay", "0.5",
                     "--rematch", "1"], tmp_path / "resume.out", env=ENV)
    assert resumed.finish(150) == 0, resumed.text()
    assert bob.finish(60) == 0, bob.text()
    text = resumed.text()
    assert "rematch of" in text and "ann-2.p2pt" in text and "Traceback" not in text, text
    assert "(a rematch of" in bob.text(), bob.text()
    rematch_of(tmp_path, "ann")
    rematch_of(tmp_path, "bob")
    assert {games for games, _won, _points in evening_printed(text).values()} == {2}, text


def test_options_a_resumed_seat_cannot_take_are_refused_saying_why(tmp_path: Path) -> None:
    path = tmp_path / "bob.p2pt"
    path.write_bytes(b"")
    for option, why in ((["--name", "carl"], "plays on under the name it has in the game"),
                        (["--transcript", str(tmp_path / "x.p2pt")], "writes on in TRANSCRIPT")):
        result = subprocess.run([sys.executable, "-m", "p2pnimmt", "resume", str(path), *option, *LO],
                                capture_output=True, text=True, timeout=OUTER)
        assert result.returncode == 2, result
        assert why in result.stderr, result.stderr
    result = subprocess.run([sys.executable, "-m", "p2pnimmt", "resume", str(path), "--name", "carl", "--lang", "de",
                             *LO], capture_output=True, text=True, timeout=OUTER)
    assert result.returncode == 2 and "ein fortgesetzter Platz spielt unter dem Namen weiter" in result.stderr, result
