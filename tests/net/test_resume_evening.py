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


def test_a_resumed_hosts_rematch_seats_its_bots_again(tmp_path: Path, procs) -> None:
    """ann hosts with a bot of her own (bot1, in her process), bob joins; ann is killed once round 1 is over (bot1
    dies with her) and resumed: ann and bob vote the gone bot1 out (the stand-in plays it) and finish the game. ann's
    rematch seats bot1 again, under its key and name, as `host`'s does (session 34: its key kept in her secrets'
    `lobby` record; before, a resumed host's rematch had no bots of its lobby: bot1's seat was freed, "bot1 has gone",
    and the rematch started without it)."""
    timers = ["--drop-after", "3", "--give-up", "90", "--bot-delay", "0.5"]  # while ann is down, bob alone votes
    # nobody out (two of three seats gone: net.waiting.few_enough); with ann back, both vote bot1 out after 3 s
    game = ["--rounds", "2", "--no-points", "--deal", "open"]
    ann = procs(["host", "--headless", "--seats", "3", "--bots", "1", *LO, *game, *timers, "--rematch", "1",
                 "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out", env=ENV)
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = ann.wait_for(r"code: (\w{4}-\w{4})").group(1)
    bob = procs(["join", code, *LO, "--peer", f"127.0.0.1:{port}", "--headless", *timers, "--rematch", "1",
                 "--name", "bob", "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out", env=ENV)
    bob.wait_for(r"(?m)^round 1:", 90)  # round 1 is over: round 2 is played with bot1 gone
    kill(ann)
    resumed = procs(["resume", str(tmp_path / "ann.p2pt"), "--headless", *LO, *timers, "--rematch", "1"],
                    tmp_path / "resume.out", env=ENV)
    assert resumed.finish(150) == 0, resumed.text()
    assert bob.finish(60) == 0, bob.text()
    text = resumed.text()
    assert "bot1 was dropped by the others' vote" in bob.text(), bob.text()
    assert "bot1 has gone" not in text and "Traceback" not in text, text
    rematch_of(tmp_path, "ann")
    rematch_of(tmp_path, "bob")
    first, _verdict = start_of(tmp_path / "ann.p2pt")
    second, verdict = start_of(tmp_path / "ann-2.p2pt")
    assert [(s["key"], s["name"], s["bot"]) for s in second.body["roster"]] == \
        [(s["key"], s["name"], s["bot"]) for s in first.body["roster"]], verdict.summary
    # (bot1 and bob in either order: whichever's join reached ann first; bot1's proof waits for the seat key's scrypt)
    assert sorted(s["name"] for s in first.body["roster"]) == ["ann", "bob", "bot1"]


def test_a_hosts_bots_in_its_lobby_secret_are_checked_and_read_back() -> None:
    """The `lobby` secret's `bots` (app.host.remember_lobby): a damaged one is damage of the secrets file, as any
    record's wrong shape (app.ownfiles); a lobby secret of a version before session 34 has none; resume reads each
    back as the bot it was (its key, name and kind)."""
    from p2pnimmt.app.ownfiles import shape_problem
    from p2pnimmt.app.resume import lobby_bots
    from p2pnimmt.protocol.identity import Identity

    bot = Identity.generate()
    good = {"kind": "lobby", "seats": 3, "members": [], "bots": [{"secret": bot.secret, "name": "bot1",
                                                                   "kind": "heuristic"}]}
    assert shape_problem(good) is None
    assert shape_problem({key: value for key, value in good.items() if key != "bots"}) is None
    for wrong in ({"secret": bot.secret[:31]}, {"name": ""}, {"kind": "nobody"}, {"secret": None}):
        damaged = {**good, "bots": [{**good["bots"][0], **wrong}]}
        assert shape_problem(damaged) == "its 'lobby' record has missing or malformed fields", wrong
    assert shape_problem({**good, "bots": "bot1"}) == "its 'lobby' record has missing or malformed fields"
    [kept] = lobby_bots([{"kind": "node"}, {**good, "bots": []}, good])  # the last lobby secret
    assert (kept.identity.public_key, kept.name, kept.kind) == (bot.public_key, "bot1", "heuristic")
    assert lobby_bots([{"kind": "lobby", "members": []}]) == []
