"""`p2pnimmt host`: open a lobby, advertise it on the LAN, add bots, let the host run the lobby, play the game."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from itertools import count

from ..bots import make_bot
from ..engine import Settings
from ..i18n import _, ngettext
from ..net.discovery import Advertiser, game_code, local_addresses, open_zeroconf
from ..net.files import WriteFailed
from ..net.node import BYE_READ, Node
from ..protocol.identity import Identity
from ..protocol.names import first_unlike
from .anew import NewStart, seats_anew
from .evening import Evening
from .front import lobby_link
from .fronts import evening_front
from .lobby import lobby_command, lobby_console
from .nodes import NodeFiles, finish, journal_opener, new_node
from .options import Options
from .output import say, stdin_lines
from .rematch import Carry, close_after_answers, declined, game_options, seat_keys


class LobbyLines:
    """The lobby prompt's reads of standard input: the one waiting when the game starts is withdrawn (it reads
    None), so the line typed next goes to the game (a card), not to the lobby. A command being carried out
    is not interrupted."""

    def __init__(self, lines) -> None:
        self.lines = lines
        self.waiting: asyncio.Task | None = None
        self.stopped = False

    async def read(self, prompt: str) -> str | None:
        if self.stopped:
            return None
        self.waiting = asyncio.ensure_future(self.lines.read(prompt))
        try:
            return await self.waiting
        except asyncio.CancelledError:
            if not self.stopped:
                raise
            return None
        finally:
            self.waiting = None

    def stop(self) -> None:
        self.stopped = True
        if self.waiting is not None:
            self.waiting.cancel()


@dataclass
class HostBot:
    """A bot in the host's process: kept (key, name and kind) from game to game of the evening."""

    identity: Identity
    name: str
    kind: str


async def run_host(settings: Settings, bots: int, bot_kind: str, options: Options, headless: bool,
                   rematches: int = 0) -> int:
    """Host a game, and the rematches the host offers after it (`rematches`: headless, offer this many)."""
    zc = open_zeroconf(options.interface)
    try:
        return await host_evening(Identity.generate(), settings, bots, bot_kind, options, headless, rematches, zc,
                                  Carry(), Evening())
    finally:
        await zc.async_close()


async def host_evening(identity: Identity, settings: Settings, bots: int, bot_kind: str, options: Options,
                       headless: bool, rematches: int, zc, carry: Carry, evening: Evening, old: Node | None = None,
                       game: int = 1, host_bots: list[HostBot] | None = None) -> int:
    """The evening of a host: its games one after the other, from the `game`-th (its transcript numbered so,
    app.rematch.numbered). `old`: the finished game whose players the first one's lobby holds the seats for (a
    resumed host's, app.resume: its files are `carry.files`' last), and `host_bots` its bots (from its secrets:
    they take their seats again). The nodes and files are closed at the end."""
    host_bots = host_bots if host_bots is not None else []
    try:
        while True:
            status, node, again = await host_game(identity, settings, bots, bot_kind, game_options(options, game),
                                                  headless, evening, host_bots, zc, old, carry,
                                                  rematches)
            if not again:
                await node.close()
                return status
            if carry.anew is None:  # a new start is no rematch of the count
                rematches = max(0, rematches - 1)
            assert node.settings is not None
            settings = node.settings
            old, game = node, game + 1
    finally:
        for task in carry.closing:
            task.cancel()
        await asyncio.gather(*carry.closing, return_exceptions=True)
        if old is not None:
            await old.close()
        for files in carry.files:
            files.close()


async def host_game(identity: Identity, settings: Settings, bots: int, bot_kind: str, options: Options,
                    headless: bool, evening: Evening, host_bots: list[HostBot], zc, old: Node | None,
                    carry: Carry, rematches: int) -> tuple[int, Node, bool]:
    """One game of the evening: its lobby (a rematch of `old`: its seats held, its bots back), the game, and
    the host's choice at its end. (status, the node, whether the host offers a rematch); the node is left open
    for the offer (the caller closes it)."""
    files = NodeFiles()
    if old is not None and carry.files:
        carry.files[-1].pass_lock(files)
    front = evening_front(carry, options, headless, evening, rematches)
    node = new_node(identity, options, bot=make_bot(bot_kind, identity.secret) if headless else None,
                    on_event=front.on_event, journal_for=journal_opener(identity, options, files))
    front.follow(node)
    if old is not None and old.server is not None and options.port:
        old.server.close()  # the rematch listens on --port from now on (else the finished game's port stays open while
        # its links are kept: a seat whose link comes back there is told the offer, net.rematch.RematchLinks.linked)
    await node.listen(options.port)
    node.seat_key = old.seat_key if old is not None else None  # the evening keeps its seat key (none: one is drawn)
    node.link_secret = old.link_secret if old is not None else None  # and its links' secret
    if old is not None:  # and its count of wrong keys (net.seatdoor): a new game is no new burst of guesses
        node.lobby.door.count_on(old.lobby.door)
    await node.host(settings)
    assert node.game_id is not None and node.session is not None  # a node that hosts has both
    anew, carry.anew = carry.anew, None
    if old is not None:
        assert old.game_id is not None
        seats = seat_keys(old) if anew is None else seats_anew(old, anew, new_bots(old, anew, host_bots))
        node.hold_seats(old.game_id if anew is None else anew.previous, seats, options.hold_seats,
                        anew.table if anew is not None else None)  # a new start's START carries (protocol.md 9)
        guests = {helper.identity.peer for helper in getattr(front, "helpers", [])}  # --web's guest seats
        stop = declined(old, node, {kept.identity.peer for kept in host_bots}, front.say, guests)
        fault = old.session.fault if old.session is not None and anew is not None and anew.forked else None
        old.rematch.offer_to_all(node.game_id, node.port, seats, options.hold_seats, fault.evidence if fault else ())
        carry.closing.append(asyncio.ensure_future(close_after_answers(old, node, stop, anew is not None)))
    code = game_code(node.game_id)
    node.session.journal.secret({"kind": "node", "role": "player", "name": options.name,
                                 "bot": bot_kind if headless else None, "listen": node.port,
                                 "host": options.interface or "", "host_port": node.port, "is_host": True,
                                 "seat_key": node.seat_key,
                                 "link_secret": node.link_secret.hex() if node.link_secret else None})
    say(_("code: {code}").format(code=f"{code}-{node.seat_key}"))  # a new game: a new code, a new link
    carry.say_changed("seat key", _("seat key: {key} (the 4 characters after the hyphen; nobody sits or watches "
                                    "without them, and no network carries them)").format(key=node.seat_key), say)
    carry.say_changed("host key", _("host key: {key} (if two games answer this code, joiners tell them apart by "
                                    "it)").format(key=identity.fingerprint), say)
    carry.say_changed("address", _("listening on {address}").format(
        address=f"{options.interface or '0.0.0.0'}:{node.port}"), say)
    say(_("invite link: {link}  (join or watch it where mDNS does not reach)").format(
        link=lobby_link(node, code)))
    if anew is not None:
        say(_("a new start of {code} without {names}: the seats are held for the others for {seconds} s").format(
            code=game_code(anew.game_id), names=anew.names, seconds=options.hold_seats))
    elif old is not None:
        say(_("rematch of {code}: the seats are held for its players for {seconds} s").format(
            code=game_code(old.game_id or bytes(16)), seconds=options.hold_seats))
    advertiser = Advertiser(zc, node.game_id, identity.fingerprint, node.port, local_addresses(options.interface),
                            host_name=options.name, salt=node.salt)
    await advertiser.start(1, settings.players, "lobby", settings.variant, settings.deal)

    def advertise(n: Node) -> None:
        kind = n.settings or settings
        n.spawn(advertiser.update(len(n.players()), n.seats, n.lobby_state, kind.variant, kind.deal))

    async def command(words: list[str]) -> str:
        reply = await lobby_command(node, helpers, add_bot, words, options)
        advertise(node)  # the variant or the deal may have changed
        return reply

    console = LobbyLines(stdin_lines())  # the line terminal's lobby prompt, while the lobby lasts

    said: list[str] = []  # the last lobby line: said again only when it changes (a spectator coming and
    # going, or a stranger's refused join, changes nothing a player reads)

    def lobby_changed(n: Node) -> None:
        players = n.players()
        if n.lobby_state == "playing":
            remember_lobby(n, host_bots)
            console.stop()  # its pending read must not take the first card typed
        line = _("lobby: {taken}/{seats} seats: {names}").format(taken=len(players), seats=n.seats,
                                                                  names=", ".join(m.name for m in players))
        if said != [line]:
            said[:] = [line]
            front.say(line)
        advertise(n)

    unwatch = node.watch_lobby(lobby_changed)
    if len(node.players()) > 1:  # joined while the advertisement started (zeroconf's import and probes): say it now
        lobby_changed(node)
    helpers: list[Node] = []

    async def add_bot(kind: str, kept: HostBot | None = None) -> None:
        if kept is None:
            bot_identity = Identity.generate()
            kept = HostBot(bot_identity, bot_name(node, len(host_bots) + 1), kind)
            host_bots.append(kept)
        helper = new_node(kept.identity, options, name=kept.name, bot=make_bot(kept.kind, kept.identity.secret))
        helper.seat_key = node.seat_key  # the host's own bots prove its key as any joiner, never turned away unchecked
        node.lobby.door.trusted.add(kept.identity.peer)
        await helper.listen()
        helpers.append(helper)
        await helper.join(options.interface or "127.0.0.1", node.port, node.game_id)

    again = False
    try:
        if old is None:
            for _bot in range(bots):
                await add_bot(bot_kind)
            if bots:
                front.say(ngettext("added {n} {kind} bot", "added {n} {kind} bots", bots).format(
                    n=bots, kind=bot_kind))
        else:  # the bots stay: the same keys and names, in the seats they had (and a new start's new bots)
            for kept in host_bots:
                if kept.identity.public_key in seats:
                    await add_bot(kept.kind, kept)
        if front.full_screen:
            front.show_lobby(node, command)
        elif not headless:
            node.spawn(lobby_console(node, helpers, add_bot, console, command))
        try:
            status = await finish(node, files, options.give_up)
        except NewStart as new:  # a seat left before acknowledging the START: a new game at once, without it
            # the host's bots fill the seats left out; not in a game that carries scores (a new bot has none)
            new.bots = any(kept.identity.peer in node.session.roster for kept in host_bots) and not new.rounds
            front.restarted(new.told(True, node.session.players - (0 if new.bots else len(new.gone))))
            carry.anew, again = new, True
            unwatch()
            carry.files.append(files)
            return 0, node, True
        if status == 0:
            again = await front.after_game(node)
        if not again:
            await front.results()
        else:
            front.say_result()
            unwatch()  # the rematch's lobby is told from now on
            carry.files.append(files)
        return status, node, again
    finally:
        if not again:  # leaving (the game's end, Ctrl-C): every seat of this process stops at once, before any
            for leaving in (node, *helpers):  # says bye (Node.leave): no move, no vote of its own timer
                leaving.leave()
        await advertiser.stop()
        await close_together(helpers if again else [*helpers, node])
        if not again:
            files.close()


async def close_together(nodes: list[Node]) -> None:
    """The seats of this process leave together: each says `bye` on its links in the same moment (Node.close), and
    they wait for the peers' ends together. One by one, each waited up to BYE_READ s for a busy peer to end its side
    before the next said bye: that peer saw one seat leave seconds before the others, voted it out at once, and with
    its vote open the game waited on no seat, so it never saw that too few were left and waited for good (the flake
    of tests/net/test_leaving.py). A dial still on its way first gets up to BYE_READ s (a bot linking the last joiner
    as the game started: its bye reaches it)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BYE_READ
    while loop.time() < deadline and any(n.mesh.dialing or n.mesh.joining() for n in nodes):
        await asyncio.sleep(0.02)
    await asyncio.gather(*(n.close() for n in nodes))




def new_bots(old: Node, anew: NewStart, host_bots: list[HostBot]) -> list[bytes]:
    """A new start where the host's bots sit at the table: a new bot of their kind for each seat left out (kept
    with the host's bots from now on), its key; none at a table of people only (it plays with fewer seats)."""
    if not anew.bots:
        return []
    kind = host_bots[0].kind
    names = list(old.session.names) if old.session is not None else []
    keys = []
    for _seat in anew.gone:
        name = first_unlike((f"bot{n}" for n in count(len(host_bots) + 1)), names + [b.name for b in host_bots])
        kept = HostBot(Identity.generate(), name, kind)
        host_bots.append(kept)
        keys.append(kept.identity.public_key)
    return keys


def bot_name(node: Node, number: int) -> str:
    """`bot3`: the first number from `number` on whose name looks like no player's in the lobby (protocol.md 9)."""
    return first_unlike((f"bot{n}" for n in count(number)), [m.name for m in node.players()])


def remember_lobby(node: Node, host_bots: list[HostBot]) -> None:
    """Once the game is on, the host keeps its members in its secrets: resumed, it knows them again
    (who may rejoin, where each player listens, the spectators); and its own bots at the table, their keys too:
    resumed, its rematch seats them again (app.resume.lobby_bots)."""
    assert node.session is not None  # a host has its session from host()
    bots = [{"secret": kept.identity.secret, "name": kept.name, "kind": kept.kind} for kept in host_bots
            if kept.identity.peer in node.members]
    try:
        node.session.journal.secret({"kind": "lobby", "seats": node.seats,
                                     "members": [m.as_dict() for m in node.members.values()], "bots": bots})
    except WriteFailed:
        pass  # told once, by finish()
