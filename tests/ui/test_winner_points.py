"""The evening's score is in points, a row's or a card's cost in bull heads: the line terminal's game over said
"Winner: ann with 1 bull head." (German "mit 1 Hornochse") where the results screen, the seat page and the phone page
say points. Now "Winner: ann with 1 point." / "Gewinner: ann (1 Punkt)." (fails on main)."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from p2pnimmt import i18n
from p2pnimmt.protocol.events import GameOver
from p2pnimmt.ui.console import LinesTable


@pytest.mark.parametrize(("lang", "one", "many"), [
    ("en", "Winner: ann with 1 point.", "Winners: ann, bob with 15 points."),
    ("de", "Gewinner: ann (1 Punkt).", "Gewinner: ann, bob (15 Punkte)."),
])
def test_the_line_terminals_winner_has_points(lang: str, one: str, many: str) -> None:
    i18n.use(lang)
    try:
        for scores, winners, said in (((1, 15), (0,), one), ((15, 15), (0, 1), many)):
            out = io.StringIO()
            LinesTable(["ann", "bob"], input, out).on_event(SimpleNamespace(game=None),
                                                             GameOver(scores, winners, 1))
            assert said in out.getvalue() and "bull" not in out.getvalue() and "Hornochse" not in out.getvalue(), \
                out.getvalue()
    finally:
        i18n.use("en")
