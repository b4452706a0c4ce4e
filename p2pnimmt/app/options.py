"""What a network command was asked to do, and the one error a use case stops with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..neutral import shown
from ..protocol.names import name_problem as problem_of


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a name at the table, or None: one check for every command (and the menu)."""
    problem = problem_of(name)
    return None if problem is None else f"{problem}: {shown(name, 44)}"


class RoleFailed(Exception):
    """The role cannot go on; the message says why, for the user."""


class UsageError(RoleFailed):
    """The command was given something it cannot use (a file that is not a transcript): exit status 2."""


@dataclass(frozen=True)
class WebOptions:
    """Where a browser front or a lobby's pages are served (app.web serves them; defined here so that a terminal
    lobby's options do not load the browser front)."""

    interface: str = "127.0.0.1"  # where the page is served; a LAN address only when asked (a TV, phones)
    port: int = 0  # 0: any free port
    open: bool = True  # open the page in this machine's browser (only when on a terminal)


HOLD_SECONDS = 60  # a rematch or a new start holds the finished game's seats this long for its players (--hold-seats)


@dataclass
class Options:
    interface: str | None = None
    transcript: Path | None = None
    name: str = "player"
    bot: str | None = None
    peer: tuple[str, int] | None = None
    port: int = 0
    drop_after: float = 60.0
    link_timeout: float = 20.0  # a link silent this long has ended (net.connection.IDLE_TIMEOUT)
    bot_delay: float = 0.0
    give_up: float = 300.0  # a node whose game has not moved this long says why and exits 1 (0: never)
    hold_seats: int = HOLD_SECONDS  # host: how long a rematch or a new start holds the seats (1..net.rematch.MAX_WAIT)
    lines: bool = False  # the line terminal even on a terminal
    web: Any = None  # app.web.WebOptions: the browser front (--web), else None
    host_key: str | None = None  # join: only the game whose host has this key fingerprint (XXXX-XXXX)
    seat_key: str | None = None  # join: the seat key typed with the code (CODE-KEY) or its link's (protocol.md 14)
    link_secret: bytes | None = None  # join: its invite link's secret (protocol.md 14, "The link secret"), if any
    pages: Any = None  # app.web.WebOptions: where the lobby's TV page and guest seats are served (--web-interface)
