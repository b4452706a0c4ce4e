"""No two seats look alike, and every command plays under the remembered name (issue 22 item 7, issue 23 item 1).

Real processes on 127.0.0.1: a host refuses a join whose name looks like a seated player's (the same name, a
case or a Cyrillic look-alike) with a clear line, and the game goes on with the others to a verified end;
`join CODE` uses the name the menu remembered (config.json), asks once on a terminal when there is none (and
remembers it), and two nameless processes never collide.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from attacker import Attacker
from procs import code_of, final_scores, seat_key_of
from tmuxpane import needs_tmux

from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]
SHORT = ["--rounds", "1", "--no-points", "--deal", "open"]


def host(procs, tmp_path: Path, seats: int = 2, name: str = "ann"):
    proc = procs(["host", "--headless", "--seats", str(seats), *LO, *SHORT, "--name", name,
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    port = int(proc.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    return proc, code_of(tmp_path / "host.out"), port


def test_a_name_that_looks_like_a_seated_players_is_refused_and_the_game_goes_on(procs, tmp_path: Path):
    ann, code, port = host(procs, tmp_path)
    peer = ["--peer", f"127.0.0.1:{port}"]
    for i, twin in enumerate(["ann", "ANN", "\u0430nn"]):  # the same, another case, a Cyrillic а
        impostor = procs(["join", code, "--headless", *LO, *peer, "--name", twin, "--transcript",
                          str(tmp_path / f"twin{i}.p2pt")], tmp_path / f"twin{i}.out")
        assert impostor.finish() == 1
        text = impostor.text()
        assert f"refused by the host: the name {twin} looks like ann's, who has a seat here: choose another name" \
            in text, text
    bob = procs(["join", code, "--headless", *LO, *peer, "--name", "bob", "--transcript", str(tmp_path / "bob.p2pt")],
                tmp_path / "bob.out")
    assert bob.finish() == 0 and ann.finish() == 0
    assert final_scores(bob.text()) == final_scores(ann.text())
    verdict = verify_transcript((tmp_path / "bob.p2pt").read_bytes())
    assert verdict.ok and "ann" in verdict.summary and "bob" in verdict.summary, verdict.report()


def test_a_name_that_is_not_a_name_is_refused_at_the_command_line(procs, tmp_path: Path):
    for bad, why in (("x" + "\u0301" * 30, "combining marks"), ("\u202eann", "U+202E"),
                     # code points that show nothing: "ann" and one of them looked like "ann" (issue 22 item 7;
                     # a typed name is made plain first: NFKC makes U+3164 U+1160)
                     ("ann\u2800", "U+2800"), ("ann\u034f", "U+034F"), ("\u3164ann", "U+1160"), ("ann\ufe0f", "U+FE0F")):
        for command in ("join", "bot"):
            proc = procs([command, "ABCD", "--headless", *LO, "--name", bad], tmp_path / "bad.out")
            assert proc.finish() == 2
            assert why in proc.text(), proc.text()
    # fullwidth is written plainly: ＣＡＲＯＬ plays as CAROL
    ann, code, port = host(procs, tmp_path)
    carol = procs(["join", code, "--headless", *LO, "--peer", f"127.0.0.1:{port}", "--name", "\uff23\uff21\uff32",
                   "--transcript", str(tmp_path / "c.p2pt")], tmp_path / "c.out")
    assert carol.finish() == 0 and ann.finish() == 0
    assert re.search(r"game started: ann, CAR\b", carol.text()), carol.text()


def test_join_plays_under_the_remembered_name(procs, tmp_path: Path):
    config = tmp_path / "cfg"
    (config / "p2pnimmt").mkdir(parents=True)
    (config / "p2pnimmt" / "config.json").write_text(json.dumps({"name": "carol"}))
    ann, code, port = host(procs, tmp_path, seats=4)
    peer = ["--peer", f"127.0.0.1:{port}"]
    carol = procs(["join", code, "--headless", *LO, *peer, "--transcript", str(tmp_path / "carol.p2pt")],
                  tmp_path / "carol.out", env={"XDG_CONFIG_HOME": str(config)})
    nameless = [procs(["join", code, "--headless", *LO, *peer, "--transcript", str(tmp_path / f"n{i}.p2pt")],
                      tmp_path / f"n{i}.out") for i in range(2)]  # no name anywhere: two distinct ones
    assert all(p.finish() == 0 for p in (carol, *nameless, ann)), ann.text()
    started = re.search(r"game started: (.*) \(you", carol.text()).group(1).split(", ")
    assert started[0] == "ann" and "carol" in started, started
    assert re.search(r"joined \w{4} at 127\.0\.0\.1:\d+ as player carol;", carol.text()), carol.text()  # not "player"
    others = [n for n in started if n not in ("ann", "carol")]
    assert len(others) == 2 and all(re.fullmatch(r"bot-[0-9A-Z]{4}", n) for n in others), started


@needs_tmux
def test_join_on_a_terminal_asks_for_a_name_once_and_remembers_it(procs, panes, tmp_path: Path):
    ann, code, port = host(procs, tmp_path)
    config = tmp_path / "cfg"
    env = {"XDG_CONFIG_HOME": str(config), "XDG_DATA_HOME": str(tmp_path / "data")}
    pane = panes(f"{sys.executable} -m p2pnimmt join {code} --lines --interface 127.0.0.1 --peer 127.0.0.1:{port}"
                 f" --transcript {tmp_path / 'dora.p2pt'}; sleep 600", env=env)
    pane.wait("Your name at the table (remembered for next time):")
    pane.keys("\u0430nn", "Enter")  # a Cyrillic а: a name, but the host refuses it as ann's look-alike
    pane.wait("looks like ann's")
    assert json.loads((config / "p2pnimmt" / "config.json").read_text()) == {"name": "\u0430nn"}
    (config / "p2pnimmt" / "config.json").write_text(json.dumps({"name": "dora"}))
    again = panes(f"{sys.executable} -m p2pnimmt join {code} --lines --interface 127.0.0.1 --peer 127.0.0.1:{port}"
                  f" --transcript {tmp_path / 'dora2.p2pt'}; sleep 600", env=env)
    again.wait("game started: ann, dora")  # remembered: not asked again
    assert "Your name" not in again.screen()


def test_a_join_under_a_name_that_shows_nothing_more_is_refused_by_the_host(procs, tmp_path: Path):
    """A modified client that skips the command line's check: the host refuses a seat to 'ann' followed by
    U+2800 (or any code point that shows nothing, protocol.md 9), which looked like the host's 'ann' in the
    lobby (issue 22 item 7), and the game goes on."""
    ann, code, port = host(procs, tmp_path)
    for twin in ("ann\u2800", "ann\u034f", "\u3164ann"):
        a = Attacker.dial(port)
        try:
            a.join("player", name=twin, seat_key=seat_key_of(code))  # a friend's modified client: it has the key
            reason = str(a.until("refuse"))
        finally:
            a.close()
        assert "name" in reason, reason
    assert "lobby: 2/2" not in ann.text(), ann.text()
    bob = procs(["join", code, "--headless", *LO, "--peer", f"127.0.0.1:{port}", "--name", "bob", "--transcript",
                 str(tmp_path / "bob.p2pt")], tmp_path / "bob.out")
    assert bob.finish() == 0 and ann.finish() == 0
    assert re.search(r"game started: ann, bob\b", bob.text()), bob.text()
