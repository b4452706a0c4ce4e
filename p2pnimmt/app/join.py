"""`p2pnimmt join`, `watch` and `bot`: find the game by its code (or --peer), take a seat or watch, play it."""

from __future__ import annotations

from ..bots import make_bot
from ..net.connection import ConnectionFailed
from ..net.discovery import GameAd, closest_codes, game_code, parse_code
from ..net.node import Node
from ..protocol.identity import Identity
from .evening import Evening
from .games import look
from .nodes import NodeFiles, finish, journal_opener, new_node
from .options import Options, RoleFailed
from .output import say
from .rematch import Carry, game_options
from .web import evening_front

FIND_SECONDS = 10.0
LIST_OTHERS = 5  # live games named when none is close to the code looked for


def not_found(code: str, ads: list[GameAd], where: str, verb: str) -> str:
    """Why `join CODE` gave up, and the live game(s) most likely meant."""
    lines = [f"no game with code {code} found on the LAN{where} ({FIND_SECONDS:.0f} s)"]
    near = closest_codes(code, ads)
    if near:
        lines.append(f"the closest live code{'s' if len(near) > 1 else ''}: "
                     + ", ".join(f"{ad.code} ({ad.summary()})" for ad in near))
        lines.append(f"to {verb} it:  p2pnimmt {verb} {near[0].code}")
    elif ads:
        more = f" and {len(ads) - LIST_OTHERS} more" if len(ads) > LIST_OTHERS else ""
        lines.append("live games: " + ", ".join(f"{ad.code} ({ad.who})" for ad in ads[:LIST_OTHERS]) + more)
        lines.append("see them all:  p2pnimmt games")
    else:
        lines.append("no game is advertised now; where multicast does not reach, dial the host:")
        lines.append(f"  p2pnimmt {verb} {code} --peer HOST:PORT")
    return "\n".join(lines)


async def locate(code: str, options: Options, verb: str = "join") -> tuple[str, int, bytes | None]:
    """The address of the game with this code: --peer if given, else found by mDNS (saying so while it looks)."""
    if options.peer is not None:
        return options.peer[0], options.peer[1], None
    where = f" on interface {options.interface}" if options.interface else ""
    say(f"looking for game {code} on the LAN{where} (up to {FIND_SECONDS:.0f} s) ...")
    found = await look(options.interface, FIND_SECONDS, code=code)
    match = [ad for ad in found.ads if ad.code == code]
    if not match:
        raise RoleFailed(not_found(code, found.ads, where, verb))
    ad: GameAd = match[0]
    return ad.addresses[0], ad.port, ad.game_id


async def run_join(code: str, role: str, options: Options, headless: bool = True, rematches: int = 0) -> int:
    """Join (or watch) a game, and follow the rematches its host offers (`rematches`: headless, this many)."""
    try:
        code = parse_code(code)
    except ValueError as exc:
        raise RoleFailed(str(exc)) from None
    identity = Identity.generate()
    evening = Evening()
    old: Node | None = None
    carry = Carry()
    game = 1
    try:
        while True:
            status, node, again = await join_game(code, role, identity, game_options(options, game), headless,
                                                  evening, rematches, old, carry)
            old = node
            if not again:
                return status
            rematches = max(0, rematches - 1)
            game += 1
    finally:
        if old is not None:
            await old.close()
        for files in carry.files:
            files.close()


async def join_game(code: str, role: str, identity: Identity, options: Options, headless: bool, evening: Evening,
                    rematches: int, old: Node | None, carry: Carry) -> tuple[int, Node, bool]:
    """One game of the evening: joined by its code (or, a rematch, at the finished game's host as its offer
    says), played, and the person's choice at its end. (status, the node, whether it follows a rematch); the
    node is left open (the caller closes it once the next game is joined)."""
    bot = make_bot(options.bot, identity.secret) if options.bot else None
    files = NodeFiles()
    if carry.files:
        carry.files[-1].pass_lock(files)
    carry.files.append(files)
    front = evening_front(carry, options, headless, evening, rematches)
    node = new_node(identity, options, role=role, bot=bot, on_event=front.on_event,
                    journal_for=journal_opener(identity, options, files))
    front.follow(node)
    if old is not None and old.server is not None:
        old.server.close()  # the rematch's node listens (on --port, if given) from now on
    await node.listen(options.port)
    offer = old.rematch.offer if old is not None else None
    game_id: bytes | None
    try:
        if offer is not None:
            host, port, game_id = offer.host, offer.port, offer.game_id
        else:
            host, port, game_id = await locate(code, options, "watch" if role == "spectator" else "join")
    except BaseException:
        await node.close()
        raise
    try:
        await node.join(host, port, game_id, code=None if offer is not None else code,
                        expect=old.host_peer if old is not None else None)
    except ConnectionFailed as exc:
        await node.close()
        what = "the rematch" if offer is not None else code
        raise RoleFailed(f"cannot join {what} at {host}:{port}: {exc}") from None
    assert node.game_id is not None and node.session is not None  # a node that joined has both
    if old is not None:
        await old.close()  # the finished game's links are not needed any more
    if offer is None and game_code(node.game_id) != code:  # with --peer too: the code says which game you meant
        await node.close()
        raise RoleFailed(f"the game at {host}:{port} has code {game_code(node.game_id)}, not {code}")
    node.session.journal.secret({"kind": "node", "role": role, "name": options.name, "bot": options.bot,
                                 "listen": node.port, "host": host, "host_port": port, "is_host": False})
    front.say(f"joined {game_code(node.game_id)} at {host}:{port} as {role}"
              + (f" (a rematch of {game_code(offer.previous)})" if offer is not None else ""))
    front.show_lobby(node)
    status = await finish(node, files, options.give_up)
    again = status == 0 and await front.after_game(node)
    if not again:
        await front.results()
    return status, node, again
