"""`p2pnimmt join`, `watch` and `bot`: find the game by its code (or --peer), take a seat or watch, play it."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from functools import partial

from ..bots import make_bot
from ..i18n import _, ngettext, said
from ..net.connection import ConnectionFailed, Unanswered
from ..net.discovery import GameAd, Scan, closest_codes, game_code, named_for, parse_code
from ..net.invite import Invite
from ..net.node import Node
from ..protocol.identity import Identity, fingerprint
from .anew import NewStart, carries_nothing, checks_carry
from .evening import Evening
from .fronts import evening_front
from .games import look
from .nodes import NodeFiles, finish, journal_opener, new_node
from .options import Options, RoleFailed
from .output import say, stdin_lines
from .rematch import Carry, game_options

FIND_SECONDS = 10.0
LIST_OTHERS = 5  # live games named when none is close to the code looked for


def not_found(code: str, ads: list[GameAd], where: str, verb: str, seat_key: str | None = None) -> str:
    """Why `join CODE` gave up, and the live game(s) most likely meant: named with their hosts and keys, never
    handed over as a command to run (a code one typo away is another game: the person checks the host's screen).
    The command that dials the host names the code as it was typed, with its seat key (`seat_key`): without it the
    host refuses the join."""
    lines = [_("no game with code {code} found on the LAN{where} ({seconds} s)").format(
        code=code, where=where, seconds=f"{FIND_SECONDS:.0f}")]
    near = closest_codes(code, ads)
    if near:
        lines.append(ngettext("the closest live code: {codes}", "the closest live codes: {codes}", len(near)).format(
            codes="; ".join(f"{ad.code} ({ad.told_apart()})" for ad in near)))
        open_to = [ad for ad in near if verb == "watch" or (ad.state == "lobby" and ad.seats_taken is not None
                                                            and ad.seats_max is not None
                                                            and ad.seats_taken < ad.seats_max)]
        if open_to:
            lines.append(_("if the host's screen shows that code and host key, type it again; else check the code "
                           "on the host's screen"))
        else:
            lines.append(ngettext("it cannot be joined now (playing or full): check the code on the host's screen",
                                  "they cannot be joined now (playing or full): check the code on the host's screen",
                                  len(near)))
    elif ads:
        more = _(" and {n} more").format(n=len(ads) - LIST_OTHERS) if len(ads) > LIST_OTHERS else ""
        lines.append(_("live games: {games}").format(
            games=", ".join(f"{ad.code} ({ad.who})" for ad in ads[:LIST_OTHERS]) + more))
        lines.append(_("see them all:  p2pnimmt games"))
    else:
        lines.append(_("no game is advertised now; where multicast does not reach, give the host's invite link "
                       "(`host` prints it) or dial the host:"))
        typed = f"{code}-{seat_key}" if seat_key else f"{code}-KEY"  # the code with its seat key, as the host shows it
        lines.append(f"  p2pnimmt {verb} 'p2pnimmt://ADDRESS:PORT/{typed}?s=SECRET#HOSTKEY'")  # an invite link's form
        lines.append(f"  p2pnimmt {verb} {typed} --peer HOST:PORT")
    return "\n".join(lines)


def interference(code: str, found: Scan) -> str:
    """What a look for `code` that found no game saw of a stranger's mDNS (red team, session 29): advertisements
    named for the code (`CODE-HOSTKEY`) that do not hold it, or more than a look takes. Anyone on the LAN can
    answer for a host (its instance name) or flood the LAN, and mDNS cannot tell who is right: the invite link,
    whose host key the handshake proves, does not go through it. Empty when the look saw neither."""
    named = sum(named_for(ad.name, code) and not ad.answers(code) for ad in found.ads)
    named += sum(named_for(name, code) for name in found.not_games)
    if not named and not found.unresolved:
        return ""
    seen = []
    if named:
        seen.append(ngettext("{n} advertisement named for game {code} does not hold it",
                             "{n} advertisements named for game {code} do not hold it", named).format(
            n=named, code=code))
    if found.unresolved:
        seen.append(ngettext("{n} more advertisement was not looked at", "{n} more advertisements were not looked at",
                             found.unresolved).format(n=found.unresolved))
    return "\n" + _("{seen}: someone on this network may be answering in its host's place or flooding it; ask the "
                    "host for its invite link (`host` prints it) and join with it").format(seen="; ".join(seen))


def several(code: str, games: list[list[GameAd]], verb: str, seat_key: str | None = None) -> str:
    """Two or more games answer one code: which they are, and how to name the one meant (with the seat key typed,
    which is on no network: protocol.md 14)."""
    lines = [_("{n} games answer to code {code} (one may be an impostor): tell them apart by the host key "
               "the host's screen shows next to the code").format(n=len(games), code=code)]
    lines += [f"  {i}. {ads[0].told_apart()}" for i, ads in enumerate(games, 1)]
    lines.append(_("then:  {command}").format(
        command=f"p2pnimmt {verb} {code}-{seat_key or 'KEY'} --host-key XXXX-XXXX"))
    return "\n".join(lines)


async def pick(code: str, games: list[list[GameAd]], verb: str, ask: bool, seat_key: str | None = None) \
        -> list[GameAd]:
    """The game the person means among several of one code: asked at a line terminal, else RoleFailed."""
    text = several(code, games, verb, seat_key)
    if not ask:
        raise RoleFailed(text)
    say(text.rsplit("\n", 1)[0])
    while True:
        answer = await stdin_lines().read(_("which one (1-{n}, Enter: none)> ").format(n=len(games)))
        if answer is None or not answer.strip():
            raise RoleFailed(_("no game chosen among the {n} that answer to code {code}").format(n=len(games),
                                                                                               code=code))
        if answer.strip().isdigit() and 1 <= int(answer) <= len(games):
            return games[int(answer) - 1]
        say(_("{answer} is not 1..{n}").format(answer=repr(answer.strip()), n=len(games)))


async def locate(code: str, options: Options, verb: str = "join", ask: bool = False) -> list[GameAd]:
    """The advertisements of the game with this code (one game: all of them share its game id), found by mDNS
    (saying so while it looks); `options.host_key` keeps only that host's. Several games answering the code:
    the person picks one (`ask`) or is told how to name it."""
    where = _(" on interface {interface}").format(interface=options.interface) if options.interface else ""
    say(_("looking for game {code} on the LAN{where} (up to {seconds} s) ...").format(
        code=code, where=where, seconds=f"{FIND_SECONDS:.0f}"))
    found = await look(options.interface, FIND_SECONDS, code=code)
    match = answering(code, found, options, where, verb)
    games: dict[bytes, list[GameAd]] = {}
    for ad in match:
        games.setdefault(ad.game_id, []).append(ad)
    if len(games) == 1:
        return match
    return await pick(code, list(games.values()), verb, ask, options.seat_key)


def answering(code: str, found: Scan, options: Options, where: str, verb: str) -> list[GameAd]:
    """The advertisements of one look that answer `code` (and `options.host_key`, if given); RoleFailed saying why
    there are none: a game seen and then withdrawn (it ended as we looked), or none with that code (and key)."""
    match = [ad for ad in found.ads if ad.answers(code)]
    others = [ad for ad in match if ad.host != options.host_key]
    if options.host_key is not None:
        match = [ad for ad in match if ad.host == options.host_key]
    gone = [ad for ad in found.withdrawn if ad.answers(code)
            and (options.host_key is None or ad.host == options.host_key)]
    if not match and gone:  # seen, then withdrawn while we looked: not a code typed wrong, a game that just ended
        raise RoleFailed(_("game {code} (host key {key}) stopped advertising while we looked for it: its game is "
                           "over, or its host left").format(code=code, key=gone[0].host))
    if not match and options.host_key is not None:
        seen = "; ".join(ad.told_apart() for ad in others)
        raise RoleFailed(_("no game with code {code} and host key {key} found on the LAN{where}").format(
            code=code, key=options.host_key, where=where)
            + (_(" (with that code: {seen})").format(seen=seen) if seen else "") + interference(code, found))
    if not match:
        raise RoleFailed(not_found(code, found.ads, where, verb, options.seat_key) + interference(code, found))
    return match


Dial = tuple[str, int, Callable[[], Awaitable[None]]]  # an address, its port, and the join's dial of it


async def answered(dials: list[Dial], give_up: float, tell: Callable[[str], None] | None = None
                   ) -> tuple[tuple[str, int] | None, list[str]]:
    """Each dial in turn until one joins: its address, else None and why each failed. A dial nobody answered
    (Unanswered: the host's port does not answer, a flood of connections on it or a host gone; red team, session 29)
    is made again, round after round, for up to `give_up` seconds (0: until the person stops it), and said once;
    any other failure is final. `tell(why)`: a failure of the first round, before the next address is dialled."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + give_up if give_up > 0 else None
    failures: dict[int, str] = {}
    left = list(range(len(dials)))
    told = False
    while left:
        again = []
        for i in left:
            host, port, dial = dials[i]
            try:
                await dial()
                return (host, port), []
            except ConnectionFailed as exc:
                failures[i] = said(str(exc))
                if isinstance(exc, Unanswered):
                    again.append(i)
            if tell is not None and not told and i != left[-1]:
                tell(failures[i])
        left = again
        if not left or (deadline is not None and loop.time() >= deadline):
            break
        if not told:
            told = True
            where = ", ".join(f"{dials[i][0]}:{dials[i][1]}" for i in left)
            say(_("the host's port does not answer ({address}): a flood of connections on it, or the host is gone; "
                  "dialling again for up to {seconds} s").format(address=where, seconds=f"{give_up:.0f}")
                if deadline is not None else
                _("the host's port does not answer ({address}): a flood of connections on it, or the host is gone; "
                  "dialling again until it answers (Ctrl-C: stop)").format(address=where))
    return None, [failures[i] for i in sorted(failures)]


def once_admitted(node: Node, say: Callable[[str], None], line: str) -> None:
    """Say `line` (joined ...) when the host's lobby frame first names us: at once as it comes, before what follows it
    (the START of a table our seat filled); never for a join the host refused (the seat key, a full table: finish
    says why)."""
    def admitted(_node: Node) -> None:
        if node.identity.peer in node.members and node.refused is None:
            stop()
            say(line)

    stop = node.watch_lobby(admitted)
    admitted(node)


async def reach(node: Node, code: str, ads: list[GameAd], options: Options) -> tuple[str, int]:
    """Join the game these advertisements (of one game id) point at: each address in turn until one is the game
    advertised (the handshake proves the key its id is bound to); the address joined."""
    unsalted = []
    dials: list[Dial] = []
    for ad in ads:
        if ad.salt is None:  # nothing binds its game id to the key it would prove (protocol.md 14)
            unsalted.append(_("{address} advertises no salt, so its game cannot be checked (an older p2pnimmt? "
                              "dial it with --peer HOST:PORT)").format(address=ad.address))
            continue
        for address in ad.addresses:
            dials.append((address, ad.port, partial(node.join, address, ad.port, ad.game_id, code=code, salt=ad.salt,
                                                    host_key=options.host_key)))
    joined, failures = await answered(dials, options.give_up)
    if joined is not None:
        return joined
    raise RoleFailed(_("cannot join {code}: {why}").format(code=code, why="; ".join(unsalted + failures)))


async def reach_invite(node: Node, invite: Invite, give_up: float) -> tuple[str, int]:
    """Join the game of an invite link: its addresses in order, no mDNS, until one answers with the link's host
    key (checked before anything is sent, our name included) and its code; the address joined."""
    dials: list[Dial] = [(host, port, partial(node.join, host, port, code=invite.code, host_key=invite.host_key))
                         for host, port in invite.addresses]
    joined, failures = await answered(
        dials, give_up, lambda why: say(_("{why}; trying the link's next address").format(why=why)))
    if joined is not None:
        return joined
    raise RoleFailed(_("cannot join {code} by its link: {why}").format(code=invite.code, why="; ".join(failures)))


async def run_join(code: str, role: str, options: Options, headless: bool = True, rematches: int = 0,
                   invite: Invite | None = None) -> int:
    """Join (or watch) a game, and follow the rematches its host offers (`rematches`: headless, this many).
    `invite`: the game's invite link (its code is `code`): dialled at its addresses, no mDNS."""
    try:
        code = parse_code(code)
    except ValueError as exc:
        raise RoleFailed(str(exc)) from None
    return await join_evening(code, role, Identity.generate(), options, headless, rematches, Carry(), invite=invite)


async def join_evening(code: str, role: str, identity: Identity, options: Options, headless: bool, rematches: int,
                       carry: Carry, old: Node | None = None, game: int = 1, invite: Invite | None = None,
                       evening: Evening | None = None) -> int:
    """The evening of a joiner: its games one after the other, from the `game`-th (its transcript numbered so,
    app.rematch.numbered). `old`: the node of the game before, whose host's offer (a rematch, or `carry.anew`, a new
    start) the first one follows: a resumed node's (app.resume) goes on so; its files are `carry.files`' last, its
    finished game in `evening`. The nodes and files are closed at the end."""
    evening = evening or Evening()
    try:
        while True:
            status, node, again = await join_game(code, role, identity, game_options(options, game), headless,
                                                  evening, rematches, old, carry, invite)
            old = node
            if not again:
                return status
            if carry.anew is None:  # a new start is no rematch of the count
                rematches = max(0, rematches - 1)
            game += 1
    finally:
        if old is not None:
            await old.close()
        for files in carry.files:
            files.close()


async def join_game(code: str, role: str, identity: Identity, options: Options, headless: bool, evening: Evening,
                    rematches: int, old: Node | None, carry: Carry,
                    invite: Invite | None = None) -> tuple[int, Node, bool]:
    """One game of the evening: joined by its code (or its invite link; or, a rematch, at the finished game's
    host as its offer says), played, and the person's choice at its end. (status, the node, whether it follows
    a rematch); the node is left open (the caller closes it once the next game is joined)."""
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
    anew, carry.anew = carry.anew, None
    if role == "player":  # a START's carry is checked before our START_ACK: against our record of the game a new
        # start continues; a first game or a rematch carries nothing (protocol.md 12, 14)
        node.start_check = checks_carry(anew) if anew is not None else carries_nothing
    try:
        direct = (offer.host, offer.port) if offer is not None else options.peer  # not looked for: dialled
        if direct is not None:
            host, port = direct
            joined, failures = await answered([(host, port, lambda: node.join(
                host, port, offer.game_id if offer is not None else None, code=None if offer is not None else code,
                expect=old.host_peer if old is not None else None,
                host_key=None if offer is not None else options.host_key))], options.give_up)
            if joined is None:
                what = _("the rematch") if offer is not None else code
                raise RoleFailed(_("cannot join {what} at {address}: {why}").format(
                    what=what, address=f"{host}:{port}", why="; ".join(failures)))
        elif invite is not None and offer is None:
            host, port = await reach_invite(node, invite, options.give_up)
        else:
            verb = "watch" if role == "spectator" else "join"
            ads = await locate(code, options, verb, ask=not headless and not front.full_screen and sys.stdin.isatty())
            host, port = await reach(node, code, ads, options)
    except BaseException:
        await node.close()
        raise
    assert node.game_id is not None and node.session is not None  # a node that joined has both
    if old is not None:
        await old.close()  # the finished game's links are not needed any more
    if offer is None and game_code(node.game_id) != code:  # with --peer too: the code says which game you meant
        await node.close()
        raise RoleFailed(_("the game at {address} has code {found}, not {code}").format(
            address=f"{host}:{port}", found=game_code(node.game_id), code=code))
    node.session.journal.secret({"kind": "node", "role": role, "name": options.name, "bot": options.bot,
                                 "listen": node.port, "host": host, "host_port": port, "is_host": False,
                                 "seat_key": node.seat_key,
                                 "link_secret": node.link_secret.hex() if node.link_secret else None})
    who = _(role) + (f" {options.name}" if role == "player" else "")  # "player carol": the name the seat has
    line = _("joined {code} at {address} as {role}").format(code=game_code(node.game_id), address=f"{host}:{port}",
                                                            role=who)
    if offer is not None:
        line += (_(" (a new start of {code} without {names})").format(code=game_code(offer.previous),
                                                                     names=anew.names) if anew is not None else
                 _(" (a rematch of {code})").format(code=game_code(offer.previous)))
    if node.host_peer:
        line += _("; host key {key} (the host's screen shows it)").format(key=fingerprint(node.host_peer))
    once_admitted(node, front.say, line)
    front.show_lobby(node)
    try:
        status = await finish(node, files, options.give_up)
        again = status == 0 and await front.after_game(node)
        if not again:
            await front.results()
        else:
            front.say_result()
    except NewStart as new:  # the host abandoned a game a seat left before its START_ACK: on to its new start
        front.restarted(new.told(False, 0))
        carry.anew = new
        return 0, node, True
    except RoleFailed as failed:
        await node.close()
        # a new start that freed our seat at once (no link to its host as it opened: app.rematch.declined) has started
        if anew is not None and node.refused == "the game has started" and node.session.start is None:
            raise RoleFailed(_("{why}: {host} started the new game without this seat (a new start holds the seat of a "
                               "player linked to its host as it opens, not of one that was down then); nothing to "
                               "take up").format(why=failed, host=anew.host)) from None
        raise
    except BaseException:  # Ctrl-C, a give-up: the node leaves now, saying bye (the others need not wait)
        await node.close()
        raise
    return status, node, again
