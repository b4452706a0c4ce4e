"""The host's lobby commands: typed in the line terminal, or sent by the full-screen lobby's keys (one code)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from ..bots import BOTS
from ..engine.game import MAX_CLOCK
from ..net.node import Node
from .options import Options
from .output import say

LOBBY_HELP = """lobby commands: bot [random|heuristic|...]  remove NAME  kick NAME  start  help
  variant standard|tactical|draft  deal sealed|open  points P|none rounds R|none
  clock SECONDS|off  tv (a TV page)  guest (a seat for a phone's browser)"""

AddBot = Callable[[str], Awaitable[None]]


async def lobby_console(node: Node, helpers: list[Node], add_bot: AddBot, lines,
                        command: Callable[[list[str]], Awaitable[str]] | None = None) -> None:
    """The host's lobby controls, typed: add and remove bots, kick, variant and end condition, start.

    `command` carries out one (default: lobby_command)."""
    run = command or (lambda words: lobby_command(node, helpers, add_bot, words))
    say(LOBBY_HELP)
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
            say(f"not done: {exc}")


async def lobby_command(node: Node, helpers: list[Node], add_bot: AddBot, words: list[str],
                        options: Options | None = None) -> str:
    """Carry out one lobby command; what was done, in words. ValueError says why it was not done.

    `options`: the host's (the guest seats' nodes are made with them; the pages are served where they say)."""
    command, args = words[0].lower(), words[1:]
    players = node.players()
    if command == "help":
        return LOBBY_HELP
    if command == "bot":
        kind = args[0] if args else "heuristic"
        if kind not in BOTS:
            raise ValueError(f"unknown bot {kind!r}; known: {', '.join(sorted(BOTS))}")
        if len(players) >= node.seats:
            raise ValueError(f"all {node.seats} seats are taken")
        await add_bot(kind)
        return f"added a {kind} bot"
    if command in ("remove", "kick"):
        name = " ".join(args)
        match = [m for m in players + [m for m in node.members.values() if m.role != "player"]
                 if m.name == name and m.peer != node.identity.peer]
        if not match:
            raise ValueError(f"nobody called {name!r} in the lobby (you cannot remove yourself)")
        peer = match[0].peer
        node.kick(peer)
        for helper in [h for h in helpers if h.identity.peer == peer]:
            helpers.remove(helper)
            await helper.close()
        return f"removed {name}"
    if command == "clock":
        value = args[0] if args else ""
        settings = node.settings
        assert settings is not None  # the host's, from Node.host()
        if value == "off" or value == "0":
            clock = None
        elif value.isdigit() and 0 < int(value) <= MAX_CLOCK:
            clock = int(value)
        else:
            raise ValueError(f"clock takes seconds 1..{MAX_CLOCK} or 'off', got {value!r}")
        node.change_settings(replace(settings, clock=clock))
        return "no clock: the others can ask the stand-in for a stalled move" if clock is None else \
            f"clock: {clock} s a move, then the stand-in plays it"
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
                raise ValueError(f"{command} takes a positive number or 'none', got {value!r}")
            if command == "points":
                settings = replace(settings, point_limit=number)
            else:
                settings = replace(settings, max_rounds=number)
        node.change_settings(settings)  # Settings checks itself: a bad variant or no end at all raised ValueError
        return f"settings: variant {settings.variant}, {settings.deal} deal, the game ends at {settings.end_text}"
    if command == "tv":
        from .web import start_tv

        url = await start_tv(node, options.pages if options is not None else None)
        return f"TV page: {url}  (open it on the TV's browser; read-only, no hand)"
    if command == "guest":
        from .web import start_guest

        if options is None:
            raise ValueError("guest seats are offered by the host")
        url = await start_guest(node, options, helpers)
        return f"a guest seat is offered: open {url} on the guest's phone (the first browser to open it plays it)"
    if command == "start":
        if len(players) < 2:
            raise ValueError("a game needs at least 2 players")
        node.start_now()
        return f"starting with {len(players)} players"
    raise ValueError(f"unknown command {command!r}; type help")
