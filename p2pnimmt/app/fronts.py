"""Which front a game of the evening gets: the terminal's (app.front), or the browser's (app.web) with --web.

Apart from both so that a headless or terminal node never loads the browser front (its pages, the QR code,
webbrowser): app.web is imported when --web starts it (issue 24)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .evening import Evening
from .front import Front
from .options import Options
from .rematch import Carry

if TYPE_CHECKING:
    from .web import WebFront


def evening_front(carry: Carry, options: Options, headless: bool, evening: Evening,
                  rematches: int) -> Front | WebFront:
    """The front of one game of the evening: a new terminal front each game; with --web the same browser front
    for all of them (its pages and their addresses stay)."""
    if options.web is None:
        return Front(options, headless, evening, rematches)
    from .web import WebFront

    carry.web = carry.web or WebFront(options, options.web, evening)
    return carry.web
