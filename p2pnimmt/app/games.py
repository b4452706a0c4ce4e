"""`p2pnimmt games`, and the start menu's list: the games advertised on the LAN now."""

from __future__ import annotations

from ..net.discovery import GameAd, browse, open_zeroconf
from .options import Options
from .output import say


async def find_games(interface: str | None, seconds: float) -> list[GameAd]:
    zc = open_zeroconf(interface)
    try:
        return await browse(zc, seconds)
    finally:
        await zc.async_close()


async def list_games(options: Options, seconds: float) -> int:
    ads = await find_games(options.interface, seconds)
    if not ads:
        say(f"no games found within {seconds:g} s")
        return 0
    for ad in ads:
        say(ad.line())
    return 0


async def menu_games(interface: str | None, seconds: float = 1.5) -> list[tuple[str, str]]:
    """The games for the start menu, as (code, description); none if the network cannot be asked."""
    try:
        return [(ad.code, ad.line()) for ad in await find_games(interface, seconds)]
    except OSError:
        return []
