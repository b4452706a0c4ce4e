"""`p2pnimmt play`: one person against bots in this terminal, full screen or line by line, no network.

Both fronts sit at the same in-memory table of real Sessions (ui.local.LocalTable), built here from
the same seed, so `--seed` replays the same game in either. The seed is fresh unless given.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from ..engine import Settings
from ..i18n import _, ngettext
from ..net.files import AppendFile
from ..protocol.identity import Identity
from ..ui.console import InputClosed, LinesTable
from ..ui.local import LocalTable
from .nodes import default_transcript
from .output import farewell, say_closing


class Kept:
    """Where a game against bots keeps the person's transcript: a file beside the networked games' (`history`
    lists it, `verify` checks it). A replay of the same seed gets a file of its own; a write that fails stops
    the writing, not the game, and is told at the end."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.file: AppendFile | None = None
        self.failure: str | None = None

    def open(self, game_id: bytes, identity: Identity) -> Callable[[bytes], None]:
        first = default_transcript(game_id, identity)
        path, n = first, 1
        while path.exists():  # the same seed, played again
            n += 1
            path = first.with_name(f"{first.stem}-{n}{first.suffix}")
        try:
            self.file = AppendFile(path)
        except OSError as exc:
            self.failure = f"{exc.strerror or exc} ({path})"
            return lambda data: None
        self.path = path
        return self.write

    def write(self, data: bytes) -> None:
        if self.file is None:
            return
        try:
            self.file.write(data)
        except OSError as exc:
            self.failure = f"{exc.strerror or exc} ({self.path}): it ends at its last whole record"
            self.close()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None

    def lines(self) -> list[str]:
        """What to say of it once the game is over or left."""
        if self.failure is not None:
            return [_("The transcript could not be written: {why}.").format(why=self.failure)]
        return [_("Transcript: {path} (`p2pnimmt history` lists it, `p2pnimmt verify` checks it).").format(
            path=self.path)] \
            if self.path is not None else []


def local_table(settings: Settings, bot: str, name: str, seed: bytes, kept: Kept | None = None,
                **fronts) -> LocalTable:
    """The table every local game is played at: the person in seat 0, `bot`s in the others; its transcript
    kept in `kept`, if given."""
    return LocalTable(settings, bot=bot, name=name, seed=seed, keep=kept.open if kept is not None else None,
                      **fronts)


class Sitting:
    """One person's games against bots in one process, each played again (`r`, "Play again") with the same
    settings, bots, names and keys: a fresh seed, its START naming the game before (`previous`); the evening's
    table adds them up. `said`: the lines for the terminal once the screens are gone."""

    def __init__(self, settings: Settings, bot: str, name: str, seed: bytes | None) -> None:
        from .evening import Evening

        self.settings, self.bot, self.name = settings, bot, name
        self.seed = seed if seed is not None else secrets.token_bytes(32)
        self.keys, self.previous = self.seed, None
        self.evening = Evening()
        self.said: list[str] = []
        self.last: list[str] = []  # the last game's lines of `said`
        self.kept = Kept()
        self.table: LocalTable | None = None

    def deal(self, *models, **fronts) -> LocalTable:
        """The next game's table (not started), its transcript kept; each of `models` shows the evening's table."""
        self.kept = Kept()
        table = self.table = local_table(self.settings, self.bot, self.name, self.seed, self.kept, keys=self.keys,
                                         previous=self.previous, **fronts)
        for model in models:
            model.evening = lambda: self.evening.table(table.session)
        return table

    def over(self, model) -> None:
        """The game is over or left: its transcript closed, what to say of it kept for the end."""
        self.kept.close()
        self.last = farewell(model) + self.kept.lines()
        self.said += self.last

    def again(self) -> None:
        """Played again: the finished game joins the evening; the next is dealt from a fresh seed."""
        assert self.table is not None
        self.evening.add(self.table.session)
        self.seed, self.previous = secrets.token_bytes(32), self.table.session.game_id


async def run_full_screen(settings: Settings, *, bot: str = "heuristic", name: str = "you", seed: bytes | None = None,
                          model=None, input=None, output=None) -> int:
    """Games against bots in this terminal, full screen; the exit status. `model`: a TableModel to show (the
    first game's). At game over `r` plays again (a Sitting)."""
    from ..ui.app import TableApp
    from ..ui.local import LocalSeat
    from ..ui.model import TableModel

    sitting = Sitting(settings, bot, name, seed)
    while True:
        model = model if model is not None else TableModel()
        table = sitting.deal(model, on_event=model.update)
        ui = TableApp(model, LocalSeat(table), input=input, output=output, title=_("p2pnimmt (vs bots)"),
                      again=lambda: None)
        try:
            table.start()
            result = await ui.app.run_async()
        finally:
            sitting.over(model)
        if result != "again":
            break
        sitting.again()
        model = None
    say_closing(sitting.said, sitting.last)
    return 0 if result in ("over", "left") or model.over is not None else 1


def run_lines(settings: Settings, bot: str, seed: bytes | None, name: str, read: Callable[[str], str],
              out: TextIO) -> int:
    """Games against bots, line by line (the seed is printed first, to replay it); at game over `again` plays
    again with the same settings, bots, names and keys (a Sitting, as the full screen's `r`); the exit status."""
    sitting = Sitting(settings, bot, name, seed)
    print(ngettext("New game: you and {n} bot. Seed {seed}", "New game: you and {n} bots. Seed {seed}",
                   settings.players - 1).format(n=settings.players - 1, seed=sitting.seed.hex()), file=out)
    while True:
        front = LinesTable([], read, out)
        table = sitting.deal(on_event=front.on_event)
        front.names = [name] + [f"{n} ({bot})" for n in table.names[1:]]
        try:
            front.play(table)
        except InputClosed:
            print("\n" + _("Input closed: game abandoned."), file=out)
            return 1
        except KeyboardInterrupt:
            print("\n" + _("Game abandoned."), file=out)
            return 130
        finally:
            sitting.kept.close()
            for line in sitting.kept.lines():
                print(line, file=out)
        if table.session.phase != "over":
            return 1
        for line in sitting.evening.lines(table.session):  # from the evening's second game on
            print(line, file=out)
        if not again_asked(read, out):
            return 0
        sitting.again()
        print(_("New game: the same bots, a fresh deal."), file=out)


def again_asked(read: Callable[[str], str], out: TextIO) -> bool:
    """The line terminal's game-over question against bots: `again` (or r, y) plays again; Enter, anything else
    or the input's end leaves."""
    from .front import AGAIN_WORDS

    print(_("type again to play again with the same bots (Enter leaves)"), file=out)
    try:
        return read(_("again> ")).strip().lower() in AGAIN_WORDS
    except EOFError:
        return False
