"""At game over the table checks its own transcript as `p2pnimmt verify` would; where that check fails (its
transcript altered while the game ran), the German table said "Prüfung des Spielprotokolls FEHLGESCHLAGEN: FAILED at
record N: ...", the verifier's English inside. Now it says "Prüfung des Spielprotokolls: FEHLGESCHLAGEN bei Eintrag
N: ...", as `verify` does. A real local game (the seat's moves, the bots'), one byte of its transcript altered in
the first round."""

from __future__ import annotations

import pytest

from p2pnimmt import i18n
from p2pnimmt.engine import Settings
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import TableModel


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_failed_own_check_is_said_in_the_tables_language(lang: str) -> None:
    i18n.use(lang)
    try:
        model = TableModel()
        table = LocalTable(Settings(players=3, max_rounds=1, point_limit=None), seed=bytes(32),
                           on_event=model.update)
        table.start()
        seat = LocalSeat(table)
        altered = False
        for _move in range(100):  # my seat's moves (the lowest card, the first row); the bots move by themselves
            if model.over is not None:
                break
            if model.turn == 5 and not altered:  # the transcript as it stands, one byte in its middle altered
                data = table.session.journal.data
                data[len(data) // 2] ^= 1
                altered = True
            if model.asked == "row":
                seat.choose_row(0)
            elif model.asked == "card":
                seat.play(min(model.hand))
        assert model.over is not None and altered
        verified = model.verified
    finally:
        i18n.use("en")
    if lang == "en":
        assert verified.startswith("Transcript check: FAILED at record "), verified
    else:
        assert verified.startswith("Prüfung des Spielprotokolls: FEHLGESCHLAGEN bei Eintrag "), verified
        assert "FAILED" not in verified, verified
