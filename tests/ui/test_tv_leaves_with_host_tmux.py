"""A full-screen TV (`watch` at a real terminal, tmux) whose host leaves at game over: its screen closes and the
game's result stays in the terminal (`Game over after 1 round: ...`, the winner), as a player's does. It printed the
result under the full screen, which took it along when it closed: the terminal kept only the transcript's line,
and whoever looked at the TV's terminal could not tell how the game had ended."""

from __future__ import annotations

import re
from pathlib import Path

from fullscreen import LO, tv_and_bob
from procs import wait_verified
from tmuxpane import needs_tmux

pytestmark = needs_tmux


def test_a_tv_left_by_its_host_keeps_the_result_in_its_terminal(tmp_path: Path, procs, panes) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0", "XDG_DATA_HOME": str(tmp_path / "data")}
    # bob at the keys plays nothing: a 1 s clock has the stand-in play each of his cards
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", *LO, "--rounds", "1", "--no-points",
                  "--deal", "open", "--clock", "1", "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")],
                 tmp_path / "ann.out", env=env)
    _code, _port, tv, _bob = tv_and_bob(panes, host, tmp_path, env)
    verdict = wait_verified(tmp_path / "tv.p2pt", 90)
    assert host.finish(60) == 0, host.text()  # the host leaves at game over: the TV leaves with it
    shown = tv.wait("Game over after 1 round: ", 30)
    scores = re.search(r"^scores: (.*)$", verdict.summary, re.M).group(1)
    assert f"Game over after 1 round: {scores}." in shown, shown  # 160 columns: on one line
    assert re.search(r"^Winners?: ", shown, re.M), shown
