"""A TV's rows at 80x24 (`watch`, the view with no seat) end with each row's bull heads: the words were right-aligned,
so "1 bull head" (German "1 Hornochse") stood a column right of "5 bull heads", the numbers not under each other.
Now every row's number ends at the same column, in English and German. A real local table's TV app drawn."""

from __future__ import annotations

import re

import pytest
from screens import SizedOutput

from p2pnimmt import i18n
from p2pnimmt.engine import Settings
from p2pnimmt.ui.app import TableApp, screen_text
from p2pnimmt.ui.local import LocalTable
from p2pnimmt.ui.model import TableModel


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_tvs_row_totals_stand_under_each_other(lang: str) -> None:
    i18n.use(lang)
    try:
        model, tv = TableModel(), TableModel()
        table = LocalTable(Settings(players=4), seed=bytes([1]) * 32, spectators=1, on_event=model.update,
                           on_watch=tv.update)  # its rows: 1, 1, 5 and 1 bull heads
        table.start()
        shown = screen_text(TableApp(tv, None, output=SizedOutput(80, 24), input=None), 80, 24)
    finally:
        i18n.use("en")
    word = "Hornochse" if lang == "de" else "bull head"
    totals = [m for line in shown.splitlines() if (m := re.search(rf"(\d+) {word}", line))]
    assert len(totals) == 4 and {m.group(1) for m in totals} == {"1", "5"}, shown
    assert len({m.end(1) for m in totals}) == 1, shown  # every number ends at one column
