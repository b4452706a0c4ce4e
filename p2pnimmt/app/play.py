"""`p2pnimmt play`: one person against bots in this terminal, full screen or line by line, no network.

Both fronts sit at the same in-memory table of real Sessions (ui.local.LocalTable), built here from
the same seed, so `--seed` replays the same game in either. The seed is fresh unless given.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import TextIO

from ..engine import Settings
from ..ui.console import InputClosed, LinesTable
from ..ui.local import LocalTable


def local_table(settings: Settings, bot: str, name: str, seed: bytes, **fronts) -> LocalTable:
    """The table every local game is played at: the person in seat 0, `bot`s in the others."""
    return LocalTable(settings, bot=bot, name=name, seed=seed, **fronts)


async def run_full_screen(settings: Settings, *, bot: str = "heuristic", name: str = "you", seed: bytes | None = None,
                          model=None, input=None, output=None) -> int:
    """A game against bots in this terminal, full screen; the exit status. `model`: a TableModel to show."""
    from ..ui.app import TableApp
    from ..ui.local import LocalSeat
    from ..ui.model import TableModel

    model = model if model is not None else TableModel()
    table = local_table(settings, bot, name, seed if seed is not None else secrets.token_bytes(32),
                        on_event=model.update)
    ui = TableApp(model, LocalSeat(table), input=input, output=output, title="p2pnimmt (vs bots)")
    table.start()
    result = await ui.app.run_async()
    for line in farewell(model):
        print(line)
    return 0 if result in ("over", "left") or model.over is not None else 1


def farewell(model) -> list[str]:
    """What stays in the terminal's scrollback once the full screen is gone: the scores, and who won."""
    if not model.players:
        return []
    scores = ", ".join(f"{p.name} {p.score}" for p in model.players)
    if model.over is not None:
        winners = model.winners()
        return [f"Game over after {model.over.rounds} round{'s' if model.over.rounds != 1 else ''}: {scores}.",
                ("Winners: " if len(winners) > 1 else "Winner: ") + ", ".join(winners) + "."]
    return [f"You left in round {model.round + 1}, turn {min(model.turn, 9) + 1}. Scores so far: {scores}."]


def run_lines(settings: Settings, bot: str, seed: bytes | None, name: str, read: Callable[[str], str],
              out: TextIO) -> int:
    """A game against bots, line by line (the seed is printed first, to replay it); the exit status."""
    seed = seed if seed is not None else secrets.token_bytes(32)
    names = [name] + [f"bot{s} ({bot})" for s in range(1, settings.players)]
    front = LinesTable(names, read, out)
    table = local_table(settings, bot, name, seed, on_event=front.on_event)
    print(f"New game: you and {settings.players - 1} bots. Seed {seed.hex()}", file=out)
    try:
        front.play(table)
    except InputClosed:
        print("\nInput closed: game abandoned.", file=out)
        return 1
    except KeyboardInterrupt:
        print("\nGame abandoned.", file=out)
        return 130
    return 0 if table.session.phase == "over" else 1
