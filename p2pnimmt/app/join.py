"""`p2pnimmt join`, `watch` and `bot`: find the game by its code (or --peer), take a seat or watch, play it."""

from __future__ import annotations

from ..bots import make_bot
from ..net.connection import ConnectionFailed
from ..net.discovery import GameAd, browse, game_code, open_zeroconf
from ..protocol.identity import Identity
from .front import Front
from .nodes import NodeFiles, finish, journal_opener, new_node
from .options import Options, RoleFailed
from .web import WebFront

FIND_SECONDS = 10.0


async def locate(code: str, options: Options) -> tuple[str, int, bytes | None]:
    """The address of the game with this code: --peer if given, else found by mDNS."""
    if options.peer is not None:
        return options.peer[0], options.peer[1], None
    zc = open_zeroconf(options.interface)
    try:
        ads = await browse(zc, FIND_SECONDS, code=code)
    finally:
        await zc.async_close()
    match = [ad for ad in ads if ad.code == code.upper()]
    if not match:
        where = f" on interface {options.interface}" if options.interface else ""
        raise RoleFailed(f"no game with code {code.upper()} found on the LAN{where} within {FIND_SECONDS:.0f} s")
    ad: GameAd = match[0]
    return ad.addresses[0], ad.port, ad.game_id


async def run_join(code: str, role: str, options: Options, headless: bool = True) -> int:
    identity = Identity.generate()
    bot = make_bot(options.bot, identity.secret) if options.bot else None
    files = NodeFiles()
    front = Front(options, headless) if options.web is None else WebFront(options, options.web)
    node = new_node(identity, options, role=role, bot=bot, on_event=front.on_event,
                    journal_for=journal_opener(identity, options, files))
    await node.listen(options.port)
    host, port, game_id = await locate(code, options)
    try:
        await node.join(host, port, game_id, code=code)
    except ConnectionFailed as exc:
        await node.close()
        raise RoleFailed(f"cannot join {code.upper()} at {host}:{port}: {exc}") from None
    assert node.game_id is not None and node.session is not None  # a node that joined has both
    if game_code(node.game_id) != code.upper():  # with --peer too: the code says which game you meant
        await node.close()
        raise RoleFailed(f"the game at {host}:{port} has code {game_code(node.game_id)}, not {code.upper()}")
    node.session.journal.secret({"kind": "node", "role": role, "name": options.name, "bot": options.bot,
                                 "listen": node.port, "host": host, "host_port": port, "is_host": False})
    front.say(f"joined {game_code(node.game_id)} at {host}:{port} as {role}")
    front.show_lobby(node)
    try:
        status = await finish(node, files, options.give_up)
        await front.results()
        return status
    finally:
        await node.close()
        files.close()
