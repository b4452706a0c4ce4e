"""A TV's game-over screen (`watch`, a TV view with no seat): its results come up by themselves, and the line under
them said a seat's "The game is over: press Enter to see the results, q to leave." (German: "Enter zeigt das
Ergebnis"), over results already shown, and nothing of what comes next. Now it says a rematch the host offers comes
up there by itself, and q leaves (in one line of 80 columns); a seat's line is as it was. A real local game played to its end (the seat by its
own moves, the bots), the TV's real app drawn at 80x24."""

from __future__ import annotations

import pytest
from screens import SizedOutput

from p2pnimmt import i18n
from p2pnimmt.engine import Settings
from p2pnimmt.ui.app import TableApp, screen_text
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import TableModel


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_tvs_game_over_line_says_what_comes_next_not_enter(lang: str) -> None:
    i18n.use(lang)
    try:
        model, tv = TableModel(), TableModel()
        table = LocalTable(Settings(players=3, max_rounds=1, point_limit=None), seed=bytes(32), spectators=1,
                           on_event=model.update, on_watch=tv.update)
        table.start()
        seat = LocalSeat(table)
        for _move in range(100):  # my seat's moves, the lowest card, the first row: the bots move by themselves
            if model.over is not None:
                break
            if model.asked == "row":
                seat.choose_row(0)
            elif model.asked == "card":
                seat.play(min(model.hand))
        assert model.over is not None and tv.over is not None
        shown = screen_text(TableApp(tv, None, output=SizedOutput(80, 24), input=None), 80, 24)
        mine = screen_text(TableApp(model, seat, output=SizedOutput(80, 24), input=None), 80, 24)
    finally:
        i18n.use("en")
    if lang == "en":
        assert "a rematch the host offers comes up here by itself; q leaves." in shown, shown
        assert "press Enter to see the results" not in shown and "press Enter to see the results" in mine, mine
    else:
        assert "Spielende: eine Revanche des Gastgebers kommt hier von selbst; q: gehen." in shown, shown
        assert "Enter zeigt das Ergebnis" not in shown and "Enter zeigt das Ergebnis" in mine, mine
