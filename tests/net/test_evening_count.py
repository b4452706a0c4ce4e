"""The evening's table counts finished games only (issue 23 item 8): during the rematch it is the first game's
table ("1 game"), not "2 games" with one game's points; at the rematch's end both games are counted."""

from __future__ import annotations

import re
from pathlib import Path

from test_rematch import LO, SHORT, evening_printed, scores_of, start_of

ENV = {"P2PNIMMT_PLACE_DELAY": "0"}


def test_the_rematchs_round_end_shows_the_first_games_table_and_its_end_both(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", *LO, *SHORT, "--rematch", "1",
                  "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out", env=ENV)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    bob = procs(["join", code, "--headless", *LO, "--rematch", "1", "--name", "bob",
                 "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out", env=ENV)
    for proc in (host, bob):
        assert proc.finish(120) == 0, proc.text()
    _, one = start_of(tmp_path / "ann.p2pt")
    _, two = start_of(tmp_path / "ann-2.p2pt")
    first, both = scores_of(one), {name: points + scores_of(two)[name] for name, points in scores_of(one).items()}
    for proc in (host, bob):
        text = proc.text()
        rematch = text[[m.start() for m in re.finditer(r"game started: ", text)][1]:]
        during = rematch[:rematch.index("final scores: ")]  # the rematch's round end, before its game over
        assert "The evening: 1 game\n" in during and "2 games" not in during, during
        assert {name: row[2] for name, row in evening_printed(during).items()} == first, during
        assert all(row[0] == 1 for row in evening_printed(during).values()), during
        assert "The evening: 2 games" in rematch[rematch.index("final scores: "):]
        assert {name: row[2] for name, row in evening_printed(text).items()} == both
        assert all(row[0] == 2 for row in evening_printed(text).values())
