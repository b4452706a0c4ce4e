"""`p2pnimmt games`, and the start menu's list: the games advertised on the LAN now."""

from __future__ import annotations

from ..net.discovery import LIST_CHECKED, MAX_GAMES, GameAd, Scan, listed_codes, open_zeroconf, scan, service_type
from ..neutral import shown
from .options import Options
from .output import say

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
    rows = [["code", "host", "variant", "deal", "seats", "state", "address"]]
    rows += [[code, ad.who, ad.variant or "?", ad.deal or "?", ad.seats, ad.state, ad.address]
             for code, ad in zip(listed_codes(ads), ads, strict=True)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for i, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
        if i and ads[i - 1].notes:
            lines.append("      (" + "; ".join(ads[i - 1].notes) + ")")
    return lines


def scan_lines(found: Scan, seconds: float) -> list[str]:
    """What `p2pnimmt games` prints for one look at the LAN."""
    lines = table(found.ads) if found.ads else [f"no games found within {seconds:g} s"]
    if len(found.ads) > LIST_CHECKED:
        lines.append(f"codes marked ? are as advertised, not checked (one look checks {LIST_CHECKED}: each costs a "
                     "scrypt); join checks the code it is given")
    if found.not_games:
        lines.append(f"not games (left out): {len(found.not_games)} advertisement"
                     f"{'s' if len(found.not_games) > 1 else ''}")
        for name, why in sorted(found.not_games.items())[:SHOW_NOT_GAMES]:
            lines.append(f"  {shown(name.removesuffix('.' + service_type()), 40)}: {why}")
        if len(found.not_games) > SHOW_NOT_GAMES:
            lines.append(f"  and {len(found.not_games) - SHOW_NOT_GAMES} more")
    if found.unresolved:
        lines.append(f"{found.unresolved} more advertisements not looked at (one look takes at most {MAX_GAMES})")
    return lines


async def list_games(options: Options, seconds: float) -> int:
    for line in scan_lines(await look(options.interface, seconds), seconds):
        say(line)
    return 0


async def menu_games(interface: str | None, seconds: float = 1.5) -> list[tuple[str, str]]:
    """The games for the start menu, as (what to join, description): the code, or `CODE/HOST-KEY` when several
    games answer one code (each then names its host's key, which the host's screen shows); none if the network
    cannot be asked."""
    try:
        ads = await find_games(interface, seconds)
    except OSError:
        return []
    codes = [code.rstrip("?") for code in listed_codes(ads)]
    games: dict[str, set[bytes]] = {}
    for code, ad in zip(codes, ads, strict=True):
        games.setdefault(code, set()).add(ad.game_id)
    return [(code, f"{code}  {ad.summary()}") if len(games[code]) == 1 else
            (f"{code}/{ad.host}", f"{code}  {ad.summary()}  host key {ad.host}  (one code, "
                                  f"{len(games[code])} games: check the key on the host's screen)")
            for code, ad in zip(codes, ads, strict=True)]
