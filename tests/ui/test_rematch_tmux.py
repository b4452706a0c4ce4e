"""A rematch on real terminals (tmux): a full-screen player presses `r` at game over and plays the rematch, and the
full-screen TV view (160x48, the big cards) follows it by itself, showing the evening's table (issue 13 item 2)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from fullscreen import LO, roster, tv_and_bob
from procs import wait_verified
from tmuxpane import needs_tmux

from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.transcript import records

pytestmark = needs_tmux


def test_a_full_screen_player_presses_r_and_the_tv_follows_the_rematch(tmp_path: Path, procs, panes) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0", "XDG_DATA_HOME": str(tmp_path / "data")}
    # The person at the keys plays nothing: a 1 s clock has the stand-in play each of their cards.
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", *LO, "--rounds", "1", "--no-points",
                  "--deal", "open", "--clock", "1", "--rematch", "1", "--name", "ann",
                  "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out", env=env)
    _code, _port, tv, bob = tv_and_bob(panes, host, tmp_path, env)
    first = wait_verified(tmp_path / "bob.p2pt", 90)
    bob.wait("The game is over")  # the table says so (a key pressed before it would be a move, not this)
    bob.keys("Enter")  # the game-over screen, with the host's offer
    shown = bob.wait("offers a rematch", 30)
    assert "GAME OVER" in shown and "r: play again" in shown
    # The offer in one line of the 80-column box, in the words of this screen (issue 23 item 9: "(60 s)" wrapped
    # onto a line of its own, and it named the line terminal's `again`).
    offer = next(line for line in shown.splitlines() if "offers a rematch" in line)
    assert re.search(r"ann offers a rematch \(\d+ s\): press r to play, q to leave", offer), shown
    assert "`again`" not in shown, shown
    # The TV's evening table is up from the rematch's end until the TV leaves with the host: watched from now on.
    tv_evening = tv.watch("The evening: 2 games")
    bob.keys("r")
    second = wait_verified(tmp_path / "bob-2.p2pt", 90)
    assert "rematch of game" in second.summary
    # The TV went on to the rematch by itself and shows the evening's table of both games.
    screen = tv_evening(30)
    scores = {}
    for verdict in (first, second):
        for item in re.search(r"^scores: (.*)$", verdict.summary, re.M).group(1).split(", "):
            name, points = item.rsplit(" ", 1)
            scores[name] = scores.get(name, 0) + int(points)
    for name, points in scores.items():
        assert re.search(rf"\b{name}\s+2\s+\d+\s+{points}\b", screen), (name, points, screen)
    bob.wait("The game is over")
    bob.keys("Enter")
    bob.wait("The evening: 2 games", 10)
    assert roster(tmp_path / "tv-2.p2pt") == ["ann", "bot1", "bob"]
    assert host.finish(60) == 0, host.text()


def test_the_full_screen_host_presses_r_and_its_bot_and_player_follow(tmp_path: Path, procs, panes) -> None:
    """The host at a real terminal: `r` on its game-over screen offers the rematch; its new lobby fills with the
    bot and the player (a headless node that follows one rematch), and the rematch is played to its end."""
    env = {"P2PNIMMT_PLACE_DELAY": "0", "XDG_DATA_HOME": str(tmp_path / "data")}
    ann = panes(f"{sys.executable} -m p2pnimmt host --seats 3 --bots 1 {' '.join(LO)} --rounds 1 --no-points "
                f"--deal open --clock 1 --name ann --port 0 --transcript {tmp_path / 'ann.p2pt'}; sleep 300",
                80, 24, env=env)
    shown = ann.wait("Seats 2/3", 20)
    # the code with its seat key in large letters: |   A   B   C   D   -   W   X   Y   Z   |
    letters = re.search(r"\|\s+((?:\w\s+){4}-(?:\s+\w){4})\s+\|", shown)
    assert letters is not None, shown
    first_code = re.sub(r"\s", "", letters.group(1))
    bob = procs(["join", first_code, "--headless", *LO, "--rematch", "1", "--name", "bob",
                 "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out", env=env)
    first = wait_verified(tmp_path / "ann.p2pt", 90)
    ann.wait("The game is over")
    ann.keys("Enter")  # the game-over screen
    ann.wait("r: play again", 15)
    ann.keys("r")  # offer the rematch: the new lobby, then the table (the stand-in plays ann's cards again)
    second = wait_verified(tmp_path / "ann-2.p2pt", 90)
    assert "rematch of game" in second.summary
    starts = []
    for name in ("ann.p2pt", "ann-2.p2pt"):
        data = (tmp_path / name).read_bytes()
        starts.append(next(e for e in (open_envelope(p) for kind, p in records(data) if kind == "msg")
                           if e.kind == "START"))
    assert [s["key"] for s in starts[1].body["roster"]] == [s["key"] for s in starts[0].body["roster"]], \
        "the same seats, the same keys: the bot stayed, the player followed"
    assert starts[1].body["previous"] == starts[0].game_id
    assert first.ok
    ann.wait("The game is over")
    ann.keys("Enter")
    shown = ann.wait("The evening: 2 games", 15)
    assert bob.finish(60) == 0, bob.text()
    # q leaves the results: the terminal keeps each game's result, the first printed as the rematch's screen came up
    # (none was printed: the screens took them along)
    ann.keys("q")
    shown = ann.wait("Game over after 1 round: ", 30)
    assert shown.count("Game over after 1 round: ") == 2, shown


def test_a_players_results_stay_up_after_the_host_has_left(tmp_path: Path, procs, panes) -> None:
    """The host offers no rematch and leaves at once; a full-screen player who has not looked at the results yet
    still sees them, with the news that the host left, until they close them (their process ended with the
    host's leaving before: test_a_full_screen_player_presses_r... lost bob's second results under load)."""
    env = {"P2PNIMMT_PLACE_DELAY": "0", "XDG_DATA_HOME": str(tmp_path / "data")}
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", *LO, "--rounds", "1", "--no-points",
                  "--deal", "open", "--clock", "1", "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")],
                 tmp_path / "ann.out", env=env)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    bob = panes(f"{sys.executable} -m p2pnimmt join {code} {' '.join(LO)} --peer 127.0.0.1:{port} --name bob "
                f"--transcript {tmp_path / 'bob.p2pt'}; echo exited-$?; sleep 300", 80, 24, env=env)
    assert host.finish(120) == 0, host.text()  # the game is over and the host has gone
    assert wait_verified(tmp_path / "bob.p2pt", 30).ok
    bob.wait("The game is over")
    bob.keys("Enter")
    shown = bob.wait("has left: no rematch", 30)  # bob's node knows the host is gone: the results are still up
    assert "GAME OVER" in shown and "exited-" not in shown, shown
    bob.keys("q")
    assert "exited-0" in bob.wait("exited-", 30)


def test_r_after_the_host_has_left_says_there_is_no_rematch_to_wait_for(tmp_path: Path, procs, panes) -> None:
    """A full-screen player whose host left at game over (no rematch offered) presses `r` on its results screen: it is
    told the host has left and there is nothing to wait for (session 33's walk: it said "waiting for the host to offer
    the rematch", for a host that had gone). In German too."""
    env = {"P2PNIMMT_PLACE_DELAY": "0", "XDG_DATA_HOME": str(tmp_path / "data")}
    for lang, over, gone, nothing, waiting in (
            ("en", "The game is over", "ann has left: no rematch",
             "ann has left: there is no rematch to wait for (q to leave)", "waiting for the host"),
            ("de", "Das Spiel ist aus", "ann ist gegangen: keine Revanche",
             "ann ist gegangen: keine Revanche mehr zu erwarten (q zum Gehen)", "warten, bis der Gastgeber")):
        out = tmp_path / lang
        out.mkdir()
        host = procs(["host", "--headless", "--seats", "2", *LO, "--rounds", "1", "--no-points", "--deal", "open",
                      "--clock", "1", "--name", "ann", "--lang", lang, "--transcript", str(out / "ann.p2pt")],
                     out / "ann.out", env=env)
        port = host.wait_for(r"(?:listening on|lausche auf) 127\.0\.0\.1:(\d+)").group(1)
        code = host.wait_for(r"(?:code|Code): (\w{4}-\w{4})").group(1)
        bob = panes(f"{sys.executable} -m p2pnimmt join {code} {' '.join(LO)} --peer 127.0.0.1:{port} --name bob "
                    f"--lang {lang} --transcript {out / 'bob.p2pt'}; sleep 300", 80, 24, env=env)
        bob.wait(over, 90)  # the person played nothing: the 1 s clock's stand-in played each card
        assert host.finish(60) == 0, host.text()  # the host left, offering nothing
        bob.keys("Enter")
        bob.wait(gone, 30)
        bob.keys("r")
        shown = bob.wait(nothing, 10)
        assert waiting not in shown, shown
