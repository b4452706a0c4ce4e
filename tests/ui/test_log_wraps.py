"""The seated table's log at 80x24 breaks a long entry between words, its further lines indented, as a spectator's
does: it cut every entry at the frame's 78 columns, so a German take lost its last letters ("... nimmt 5 Karten,
11 Hornochse"), a void round its reason, and a table of 10 its last players and the seat you sit in."""

from __future__ import annotations

import pytest
from screens import SizedOutput

from p2pnimmt import i18n
from p2pnimmt.engine import Settings
from p2pnimmt.ui.app import TableApp, screen_text
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import TableModel


def log_of(screen: str) -> list[str]:
    """The lines inside the log's frame, its borders taken off."""
    lines = screen.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("┌"))
    return [line[1:].split("│")[0].rstrip() for line in lines[top + 1:] if line.startswith("│")]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_long_entry_of_the_seated_log_is_broken_between_words_not_cut(lang: str) -> None:
    i18n.use(lang)
    try:
        model = TableModel()
        table = LocalTable(Settings(players=10), seed=bytes(32), on_event=model.update)
        table.start()
        long = i18n._("Game started: {names} ({who})").format(  # as ui.model says it: 98 columns, 102 in German
            names=", ".join(f"player{n}" for n in range(1, 11)), who=i18n._("you: seat {seat}").format(seat=10))
        model.say(long)
        ui = TableApp(model, LocalSeat(table), output=SizedOutput(80, 24), input=None)
        shown = log_of(screen_text(ui, 80, 24))
        entry = next(i for i, line in enumerate(shown) if line.startswith(long.split(":")[0]))
        words = long.split()
        together = " ".join(" ".join(shown[entry:entry + 3]).split())
        assert together.startswith(" ".join(words)), shown  # every word, none cut
        assert len(shown[entry]) <= 78 and shown[entry + 1].startswith("  ") and shown[entry + 1][2] != " ", shown
    finally:
        i18n.use("en")


@pytest.mark.parametrize("tv", [False, True])
def test_no_blank_line_follows_an_entry_that_fits(tv: bool) -> None:
    """A TV's log (a spectator's, beside the players) put a blank line after every entry that fitted its width (the
    empty rest of the entry, wrapped): half its lines were blank, and the log showed half as much. The seated log
    breaks its entries the same way now, so it is checked too."""
    model, watching = TableModel(), TableModel()
    table = LocalTable(Settings(players=4), seed=bytes(32), spectators=1, on_event=model.update,
                       on_watch=watching.update)
    table.start()
    entries = ["the first entry", "the second entry, a little longer", "the third"]
    for said in entries:
        (watching if tv else model).say(said)
    ui = TableApp(watching, None, output=SizedOutput(80, 24), input=None) if tv else \
        TableApp(model, LocalSeat(table), output=SizedOutput(80, 24), input=None)
    shown = log_of(screen_text(ui, 80, 24))
    at = shown.index(entries[0])
    assert shown[at:at + 3] == entries, shown
