"""`p2pnimmt host`: open a lobby, advertise it on the LAN, add bots, let the host run the lobby, play the game."""

from __future__ import annotations

from ..bots import make_bot
from ..engine import Settings
from ..net.discovery import Advertiser, game_code, local_addresses, open_zeroconf
from ..net.files import WriteFailed
from ..net.node import Node
from ..protocol.identity import Identity
from .front import Front
from .lobby import lobby_command, lobby_console
from .nodes import NodeFiles, finish, journal_opener, new_node
from .options import Options
from .output import say, stdin_lines
from .web import WebFront


async def run_host(settings: Settings, bots: int, bot_kind: str, options: Options, headless: bool) -> int:
    identity = Identity.generate()
    files = NodeFiles()
    front = Front(options, headless) if options.web is None else WebFront(options, options.web)
    node = new_node(identity, options, bot=make_bot(bot_kind, identity.secret) if headless else None,
                    on_event=front.on_event, journal_for=journal_opener(identity, options, files))
    await node.listen(options.port)
    await node.host(settings)
    assert node.game_id is not None and node.session is not None  # a node that hosts has both
    code = game_code(node.game_id)
    node.session.journal.secret({"kind": "node", "role": "player", "name": options.name,
                                 "bot": bot_kind if headless else None, "listen": node.port,
                                 "host": options.interface or "", "host_port": node.port, "is_host": True})
    say(f"code: {code}")
    say(f"listening on {options.interface or '0.0.0.0'}:{node.port}")
    zc = open_zeroconf(options.interface)
    advertiser = Advertiser(zc, node.game_id, identity.fingerprint, node.port, local_addresses(options.interface),
                            host_name=options.name)
    await advertiser.start(1, settings.players, "lobby", settings.variant, settings.deal)

    def advertise(n: Node) -> None:
        kind = n.settings or settings
        n.spawn(advertiser.update(len(n.players()), n.seats, n.lobby_state, kind.variant, kind.deal))

    async def command(words: list[str]) -> str:
        reply = await lobby_command(node, helpers, add_bot, words, options)
        advertise(node)  # the variant or the deal may have changed
        return reply

    def lobby_changed(n: Node) -> None:
        players = n.players()
        if n.lobby_state == "playing":
            remember_lobby(n)
        front.say(f"lobby: {len(players)}/{n.seats} seats: " + ", ".join(m.name for m in players))
        advertise(n)

    node.watch_lobby(lobby_changed)
    helpers: list[Node] = []

    async def add_bot(kind: str) -> None:
        bot_identity = Identity.generate()
        helper = new_node(bot_identity, options, name=f"bot{len(helpers) + 1}",
                          bot=make_bot(kind, bot_identity.secret))
        await helper.listen()
        helpers.append(helper)
        await helper.join(options.interface or "127.0.0.1", node.port, node.game_id)

    try:
        for _ in range(bots):
            await add_bot(bot_kind)
        if bots:
            front.say(f"added {bots} {bot_kind} bot{'s' if bots > 1 else ''}")
        if front.full_screen:
            front.show_lobby(node, command)
        elif not headless:
            node.spawn(lobby_console(node, helpers, add_bot, stdin_lines(), command))
        status = await finish(node, files, options.give_up)
        await front.results()
        return status
    finally:
        await advertiser.stop()
        await zc.async_close()
        for helper in helpers:
            await helper.close()
        await node.close()
        files.close()


def remember_lobby(node: Node) -> None:
    """Once the game is on, the host keeps its members in its secrets: resumed, it knows them again
    (who may rejoin, where each player listens, the spectators)."""
    assert node.session is not None  # a host has its session from host()
    try:
        node.session.journal.secret({"kind": "lobby", "seats": node.seats,
                                     "members": [m.as_dict() for m in node.members.values()]})
    except WriteFailed:
        pass  # told once, by finish()
