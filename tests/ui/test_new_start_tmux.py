"""A new start on real terminals (tmux): a full-screen player and a full-screen TV whose game a seat left before
its START_ACK go on, with no key pressed, to the game its host starts anew without that seat, and play it to its
end (app.anew; tests/net/test_gone_before_start.py has the lines)."""

from __future__ import annotations

from pathlib import Path

from fullscreen import LO, roster, tv_and_bob
from procs import CheatProc, game_of, wait_verified
from tmuxpane import needs_tmux

pytestmark = needs_tmux


def test_a_full_screen_player_and_tv_go_on_to_the_new_start(tmp_path: Path, procs, panes) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0", "XDG_DATA_HOME": str(tmp_path / "data")}
    # The person at the keys plays nothing: a 1 s clock has the stand-in play each of their cards.
    host = procs(["host", "--headless", "--seats", "3", *LO, "--rounds", "1", "--no-points", "--deal", "open",
                  "--clock", "1", "--drop-after", "1", "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")],
                 tmp_path / "ann.out", env=env)
    code, port, tv, bob = tv_and_bob(panes, host, tmp_path, env, "--drop-after", "1")
    host.wait_for(r"lobby: 2/3 seats: ann, bob")
    mal = CheatProc("vanish", ["join", code, "--headless", *LO, "--peer", f"127.0.0.1:{port}", "--name", "mal",
                                  "--transcript", str(tmp_path / "mal.p2pt")], tmp_path / "mal.out")
    try:
        assert mal.popen.wait(60) == 0  # gone when the START came (cheat_node's `vanish`)
        second = wait_verified(tmp_path / "bob-2.p2pt", 90)  # bob's screen went on to the new game by itself
        assert roster(tmp_path / "bob-2.p2pt") == ["ann", "bob"], second.summary
        bob.wait("The game is over", 30)
        assert roster(tmp_path / "tv-2.p2pt") == ["ann", "bob"]  # and so did the TV
        assert roster(tmp_path / "bob.p2pt") == ["ann", "bob", "mal"]
        assert host.finish(60) == 0, host.text()
        assert f"game {game_of(code)} is abandoned: mal left before acknowledging its START" in host.text(), host.text()
    finally:
        mal.stop()
