"""`p2pnimmt games`, and the start menu's list: the games advertised on the LAN now."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n import N_, _, ngettext
from ..net.discovery import LIST_CHECKED, MAX_GAMES, GameAd, Scan, listed_codes, open_zeroconf, scan, service_type
from ..net.invite import looks_like_link
from ..neutral import shown
from ..ui.words import clip, columns
from .options import Options
from .output import say

if TYPE_CHECKING:  # the start menu (prompt_toolkit) loads with the menu, not with `join`
    from ..ui.menu import Listed

STATES = (N_("lobby"), N_("playing"), N_("over"))  # an advertisement's state, shown translated
WIDTH = 80  # the columns a line of `games` fits (tests/app/test_games_width.py)
HOST = 1  # the host's column: the one cut to fit
SHOW_NOT_GAMES = 5  # advertisements that are not games, named one by one; the rest are counted


async def look(interface: str | None, seconds: float, code: str | None = None) -> Scan:
    zc = open_zeroconf(interface)
    try:
        return await scan(zc, seconds, code)
    finally:
        await zc.async_close()


async def find_games(interface: str | None, seconds: float) -> list[GameAd]:
    return (await look(interface, seconds)).ads


def table(ads: list[GameAd]) -> list[str]:
    """The games as aligned columns under a header: code, host, variant, deal, seats, state, address."""
    rows = [[_("code"), _("host"), _("variant"), _("deal"), _("seats"), _("state"), _("address")]]
    rows += [[code, ad.who, _(ad.variant) if ad.variant else "?", _(ad.deal) if ad.deal else "?", ad.seats,
              _(ad.state) if ad.state in STATES else ad.state, ad.address]
             for code, ad in zip(listed_codes(ads), ads, strict=True)]
    widths = [max(columns(row[i]) for row in rows) for i in range(len(rows[0]))]
    # a long host's name is cut (…) where the line would run past WIDTH columns (a name may have 40 characters)
    room = max(columns(rows[0][HOST]), WIDTH - sum(widths) + widths[HOST] - 2 * (len(widths) - 1))
    if widths[HOST] > room:
        for row in rows[1:]:
            row[HOST] = clip(row[HOST], room)
        widths[HOST] = room
    lines = []
    for i, row in enumerate(rows):
        lines.append("  ".join(cell + " " * (width - columns(cell)) for cell, width in zip(row, widths, strict=True))
                     .rstrip())
        if i and ads[i - 1].notes:
            lines.append("      (" + "; ".join(ads[i - 1].notes) + ")")
    return lines


def scan_lines(found: Scan, seconds: float) -> list[str]:
    """What `p2pnimmt games` prints for one look at the LAN."""
    lines = table(found.ads) if found.ads else [_("no games found within {seconds} s").format(seconds=f"{seconds:g}")]
    if len(found.ads) > LIST_CHECKED:
        lines.append(_("codes marked ? are as advertised, not checked (one look checks {n}: each costs a "
                       "scrypt); join checks the code it is given").format(n=LIST_CHECKED))
    if found.not_games:
        lines.append(ngettext("not games (left out): {n} advertisement", "not games (left out): {n} advertisements",
                              len(found.not_games)).format(n=len(found.not_games)))
        for name, why in sorted(found.not_games.items())[:SHOW_NOT_GAMES]:
            lines.append(f"  {shown(name.removesuffix('.' + service_type()), 40)}: {why}")
        if len(found.not_games) > SHOW_NOT_GAMES:
            lines.append("  " + _("and {n} more").format(n=len(found.not_games) - SHOW_NOT_GAMES))
    if found.unresolved:
        lines.append(_("{n} more advertisements not looked at (one look takes at most {most})").format(
            n=found.unresolved, most=MAX_GAMES))
    return lines


async def list_games(options: Options, seconds: float) -> int:
    for line in scan_lines(await look(options.interface, seconds), seconds):
        say(line)
    return 0


def closed(ad: GameAd) -> str | None:
    """Why no seat of this game can be taken now, as far as its advertisement says; None: one can (or it is not
    said: `join` finds out)."""
    if ad.state == "playing":
        return _("the game has started")
    if ad.state == "lobby" and ad.seats_taken is not None and ad.seats_max is not None \
            and ad.seats_taken >= ad.seats_max:
        return _("every seat is taken")
    return None


async def menu_games(interface: str | None, seconds: float = 1.5) -> list[Listed]:
    """The games for the start menu: what to join (the code, or `CODE/HOST-KEY` when several games answer one code:
    each then names its host's key, which the host's screen shows), its line, and why it cannot be joined now;
    none if the network cannot be asked."""
    from ..ui.menu import Listed

    try:
        ads = await find_games(interface, seconds)
    except OSError:
        return []
    codes = [code.rstrip("?") for code in listed_codes(ads)]
    games: dict[str, set[bytes]] = {}
    for code, ad in zip(codes, ads, strict=True):
        games.setdefault(code, set()).add(ad.game_id)
    return [Listed(code, f"{code}  {ad.summary()}", closed(ad)) if len(games[code]) == 1 else
            Listed(f"{code}/{ad.host}", f"{code}  {ad.summary()}  " + _(
                "host key {key}  (one code, {n} games: check the key on the host's screen)").format(
                key=ad.host, n=len(games[code])), closed(ad))
            for code, ad in zip(codes, ads, strict=True)]


MENU_LOOK = 5.0  # seconds the menu looks for a typed code (a game answers within one; `join` looks up to 10)


async def code_problem(interface: str | None, code: str, verb: str, seconds: float = MENU_LOOK) -> str | None:
    """Why the start menu cannot join (or watch) the game with this typed code: no game answers it on this network
    (the person may have mistyped it), or, to join, every game that does has started or is full; None if it can.
    An invite link is not looked for (`join` dials it)."""
    if looks_like_link(code):
        return None
    code = code.partition("-")[0]  # the game's code: its seat key is on no network (protocol.md 14)
    try:
        found = await look(interface, seconds, code=code)
    except OSError as exc:
        return _("cannot look on this network: {why}").format(why=exc.strerror or exc)
    match = [ad for ad in found.ads if ad.answers(code)]
    if not match:
        return _("No game with code {code} answers on this network ({seconds} s): check the code on the host's "
                 "screen.").format(code=code, seconds=f"{seconds:g}")
    reasons = {closed(ad) for ad in match}
    if verb == "join" and None not in reasons:
        return _("Game {code} cannot be joined now ({why}): Esc, then Watch it.").format(
            code=code, why=" / ".join(sorted(r for r in reasons if r)))
    return None
