"""The host's lobby commands: typed in the line terminal, or sent by the full-screen lobby's keys (one code)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from ..bots import BOTS
from ..engine.game import MAX_CLOCK, ends_in_time
from ..i18n import N_, _
from ..net.node import Node
from ..ui.words import end_text, too_long, variant_name
from .options import Options
from .output import say

LOBBY_HELP = N_("""lobby commands: bot [random|heuristic|...]  remove NAME  kick NAME  start  help
  variant standard|tactical|draft  deal sealed|open  points P|none rounds R|none
  clock SECONDS|off  tv (a TV page)
  phone (a link: a phone plays a seat of its own)  guest (a seat this laptop plays for a phone)""")

AddBot = Callable[[str], Awaitable[None]]


async def lobby_console(node: Node, helpers: list[Node], add_bot: AddBot, lines,
                        command: Callable[[list[str]], Awaitable[str]] | None = None) -> None:
    """The host's lobby controls, typed: add and remove bots, kick, variant and end condition, start.

    `command` carries out one (default: lobby_command)."""
    run = command or (lambda words: lobby_command(node, helpers, add_bot, words))
    say(_(LOBBY_HELP))
    while node.lobby_state == "lobby" and not node.done.is_set():
        text = await lines.read("lobby> ")
        if text is None or node.lobby_state != "lobby":
            return
        words = text.split()
        if not words:
            continue
        try:
            say(await run(words))
        except ValueError as exc:
            say(_("not done: {why}").format(why=exc))


async def lobby_command(node: Node, helpers: list[Node], add_bot: AddBot, words: list[str],
                        options: Options | None = None) -> str:
    """Carry out one lobby command; what was done, in words. ValueError says why it was not done.

    `options`: the host's (the guest seats' nodes are made with them; the pages are served where they say)."""
    command, args = words[0].lower(), words[1:]
    players = node.players()
    if command == "help":
        return _(LOBBY_HELP)
    if command == "bot":
        kind = args[0] if args else "heuristic"
        if kind not in BOTS:
            raise ValueError(_("unknown bot {kind}; known: {kinds}").format(kind=repr(kind),
                                                                             kinds=", ".join(sorted(BOTS))))
        if len(players) >= node.seats:
            raise ValueError(_("all {seats} seats are taken").format(seats=node.seats))
        await add_bot(kind)
        return _("added a {kind} bot").format(kind=kind)
    if command in ("remove", "kick"):
        name = " ".join(args)
        match = [m for m in players + [m for m in node.members.values() if m.role != "player"]
                 if m.name == name and m.peer != node.identity.peer]
        if not match:
            raise ValueError(_("nobody called {name} in the lobby (you cannot remove yourself)").format(
                name=repr(name)))
        peer = match[0].peer
        node.kick(peer)
        for helper in [h for h in helpers if h.identity.peer == peer]:
            helpers.remove(helper)
            await helper.close()
        return _("removed {name}").format(name=name)
    if command == "clock":
        value = args[0] if args else ""
        settings = node.settings
        assert settings is not None  # the host's, from Node.host()
        if value == "off" or value == "0":
            clock = None
        elif value.isdigit() and 0 < int(value) <= MAX_CLOCK:
            clock = int(value)
        else:
            raise ValueError(_("clock takes seconds 1..{most} or 'off', got {value}").format(
                most=MAX_CLOCK, value=repr(value)))
        node.change_settings(replace(settings, clock=clock))
        return _("no clock: the others can ask the stand-in for a stalled move") if clock is None else \
            _("clock: {seconds} s a move, then the stand-in plays it").format(seconds=clock)
    if command in ("variant", "deal", "points", "rounds"):
        value = args[0] if args else ""
        settings = node.settings
        assert settings is not None  # the host's, from Node.host()
        if command == "variant":
            settings = replace(settings, variant=value)
        elif command == "deal":
            settings = replace(settings, deal=value)
        else:
            number = None if value == "none" else int(value) if value.isdigit() and int(value) > 0 else -1
            if number == -1:
                raise ValueError(_("{command} takes a positive number or 'none', got {value}").format(
                    command=command, value=repr(value)))
            if command == "points":
                settings = replace(settings, point_limit=number)
            else:
                settings = replace(settings, max_rounds=number)
            if not ends_in_time(settings.point_limit, settings.max_rounds):
                raise ValueError(too_long())
        node.change_settings(settings)  # Settings checks itself: a bad variant or no end at all raised ValueError
        return _("settings: variant {variant}, {deal} deal, the game ends at {end}").format(
            variant=variant_name(settings.variant), deal=_(settings.deal), end=end_text(settings))
    if command == "tv":
        from .web import start_tv

        url = await start_tv(node, options.pages if options is not None else None)
        return _("TV page: {url}  (open it on the TV's browser; read-only, no hand)").format(url=url)
    if command == "phone":
        from .web import start_phone

        if not node.is_host:
            raise ValueError(_("guest seats are offered by the host"))
        url = await start_phone(node, options.pages if options is not None else None)
        return _("phone: {url}").format(url=url)
    if command == "guest":
        from .web import start_guest

        if options is None:
            raise ValueError(_("guest seats are offered by the host"))
        url = await start_guest(node, options, helpers)
        return _("a guest seat is offered: open {url} on the guest's phone (the first browser to open it plays "
                 "it)").format(url=url)
    if command == "start":
        if len(players) < 2:
            raise ValueError(_("a game needs at least 2 players"))
        node.start_now()
        return _("starting with {n} players").format(n=len(players))
    raise ValueError(_("unknown command {command}; type help").format(command=repr(command)))
