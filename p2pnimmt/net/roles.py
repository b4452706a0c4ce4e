"""What `p2pnimmt host`, `join`, `watch`, `bot` and `games` do: wire nodes, discovery and files together."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..bots import make_bot
from ..engine import Settings
from ..protocol.events import Event, GameAborted, GameOver, GameStarted, RoundEnded, RoundVoided, SeatDropped
from ..protocol.identity import Identity
from .connection import ConnectionFailed
from .discovery import Advertiser, GameAd, browse, game_code, local_addresses, open_zeroconf
from .files import data_dir, transcript_journal
from .node import Node

FIND_SECONDS = 10.0


class RoleFailed(Exception):
    """The role cannot go on; the message says why, for the user."""


@dataclass
class Options:
    interface: str | None = None
    transcript: Path | None = None
    name: str = "player"
    bot: str | None = None
    peer: tuple[str, int] | None = None
    port: int = 0
    drop_after: float = 60.0
    bot_delay: float = 0.0
    lines: bool = False  # the line terminal even on a terminal


_stdin = None


def stdin_lines():
    """The one reader of standard input for this process."""
    global _stdin
    if _stdin is None:
        from ..ui.lines import StdinLines

        _stdin = StdinLines()
    return _stdin


def timing(options: Options) -> dict[str, float]:
    return {"drop_after": options.drop_after, "bot_delay": options.bot_delay}


def say(text: str) -> None:
    print(text, flush=True)


def reporter(lines=None) -> Callable[[Node, Event], None]:
    """Prints game progress; given `lines` (ui.lines.StdinLines), also the table and prompts for a person."""
    person = None
    if lines is not None:
        from ..ui.lines import LineSeat

        person = LineSeat(lines.read, lambda *text: [say(line) for line in text])

    def report(node: Node, event: Event) -> None:
        if person is not None:
            person.on_event(node, event)
        if isinstance(event, GameStarted):
            seat = f"seat {event.seat + 1}" if event.seat is not None else "spectator"
            say(f"game started: {', '.join(event.names)} (you: {seat})")
        elif isinstance(event, RoundEnded):
            n = node.session.names
            say(f"round {event.round + 1}: " + ", ".join(f"{n[i]} +{p}" for i, p in enumerate(event.penalties))
                + " | scores: " + ", ".join(f"{n[i]} {p}" for i, p in enumerate(event.scores)))
        elif isinstance(event, GameOver):
            n = node.session.names
            say("final scores: " + ", ".join(f"{n[i]} {p}" for i, p in enumerate(event.scores)))
            say(("winners: " if len(event.winners) > 1 else "winner: ") + ", ".join(n[i] for i in event.winners))
        elif isinstance(event, RoundVoided):
            say(f"round {event.round + 1} is void (nobody scores it): {event.reason}")
        elif isinstance(event, SeatDropped):
            say(f"{node.session.names[event.seat]} was dropped by the others' vote: a stand-in plays that hand")
        elif isinstance(event, GameAborted):
            say(f"game aborted: {event.fault.describe(dict(zip(node.session.roster, node.session.names)))}")

    return report


def default_transcript(game_id: bytes, identity: Identity) -> Path:
    return data_dir() / "transcripts" / f"{game_code(game_id)}-{game_id.hex()[:8]}-{identity.fingerprint}.p2pt"


def journal_opener(identity: Identity, options: Options, files: list):
    """A node's journal_for: opens the transcript (and secrets) file once the game id is known."""

    def open_journal(game_id: bytes):
        path = options.transcript or default_transcript(game_id, identity)
        try:
            journal, opened = transcript_journal(path, identity)
        except (OSError, FileExistsError) as exc:
            raise RoleFailed(f"cannot write the transcript: {exc}") from None
        files.extend(opened)
        say(f"transcript: {path}")
        return journal

    return open_journal


async def finish(node: Node, files) -> int:
    await node.done.wait()
    if node.refused:
        say(f"refused by the host: {node.refused}")
        return 1
    await node.linger()
    if node.session is not None:
        node.session.journal.seal()
    for f in files:
        f.close()
    session = node.session
    if session.phase == "over":
        return 0
    say(f"game did not finish: phase {session.phase}")
    return 1


class Front:
    """How a person sees a network game: the full-screen lobby and table on a terminal, else lines of text."""

    def __init__(self, options: Options, headless: bool) -> None:
        self.full_screen = not headless and not options.lines and sys.stdin.isatty() and sys.stdout.isatty()
        self.lobby_closed: asyncio.Future | None = None
        if self.full_screen:
            from ..ui.app import FullScreenFront

            logging.getLogger("p2pnimmt").setLevel(logging.ERROR)  # warnings would be drawn over the screen
            self.lobby_closed = asyncio.get_running_loop().create_future()
            self.on_event = FullScreenFront(after=self.lobby_closed).on_event
        else:
            self.on_event = reporter(None if headless else stdin_lines())

    def say(self, text: str) -> None:
        if not self.full_screen:
            say(text)

    def show_lobby(self, node: Node, command=None) -> None:
        """Full screen: the lobby until the game starts (the table follows); leaving it leaves the game."""
        if not self.full_screen:
            return
        from ..ui.lobby import LobbyScreen

        async def lobby() -> None:
            stayed = await LobbyScreen(node, game_code(node.game_id), command).run()
            self.lobby_closed.set_result(stayed)
            if not stayed:
                node.done.set()

        node._spawn(lobby())

    async def results(self) -> None:
        """Full screen: the results stay up until the person closes them."""
        if self.full_screen:
            from ..ui.app import wait_closed

            await wait_closed()


async def run_host(settings: Settings, bots: int, bot_kind: str, options: Options, headless: bool) -> int:
    identity = Identity.generate()
    files: list = []
    front = Front(options, headless)
    node = Node(identity, name=options.name, bot=make_bot(bot_kind, identity.secret) if headless else None,
                interface=options.interface, on_event=front.on_event,
                journal_for=journal_opener(identity, options, files), **timing(options))
    await node.listen(options.port)
    await node.host(settings)
    code = game_code(node.game_id)
    node.session.journal.secret({"kind": "node", "role": "player", "name": options.name, "bot": bot_kind if headless else None,
                                 "listen": node.port, "host": options.interface or "", "host_port": node.port,
                                 "is_host": True})
    say(f"code: {code}")
    say(f"listening on {options.interface or '0.0.0.0'}:{node.port}")
    zc = open_zeroconf(options.interface)
    advertiser = Advertiser(zc, node.game_id, identity.fingerprint, node.port, local_addresses(options.interface))
    await advertiser.start(1, settings.players, "lobby")

    def lobby_changed(n: Node) -> None:
        taken = sum(1 for m in n.members.values() if m.role == "player")
        front.say(f"lobby: {taken}/{n.seats} seats: "
                  + ", ".join(m.name for m in n.members.values() if m.role == "player"))
        asyncio.ensure_future(advertiser.update(taken, n.seats, n.lobby_state))

    node.lobby_changed = lobby_changed
    helpers: list[Node] = []

    async def add_bot(kind: str) -> None:
        bot_identity = Identity.generate()
        helper = Node(bot_identity, name=f"bot{len(helpers) + 1}", bot=make_bot(kind, bot_identity.secret),
                      interface=options.interface, **timing(options))
        await helper.listen()
        helpers.append(helper)
        await helper.join(options.interface or "127.0.0.1", node.port, node.game_id)

    try:
        for _ in range(bots):
            await add_bot(bot_kind)
        if bots:
            front.say(f"added {bots} {bot_kind} bot{'s' if bots > 1 else ''}")
        if front.full_screen:
            front.show_lobby(node, lambda words: lobby_command(node, helpers, add_bot, words))
        elif not headless:
            node._spawn(lobby_console(node, helpers, add_bot, stdin_lines()))
        status = await finish(node, files)
        await front.results()
        return status
    finally:
        await advertiser.stop()
        await zc.async_close()
        for helper in helpers:
            await helper.close()
        await node.close()


LOBBY_HELP = """lobby commands: bot [random|heuristic|...]  remove NAME  kick NAME  variant standard|tactical|draft
                deal sealed|open  points P|none  rounds R|none  start (with the players here now)  help"""


async def lobby_console(node: Node, helpers: list[Node], add_bot, lines) -> None:
    """The host's lobby controls, typed: add and remove bots, kick, variant and end condition, start."""
    say(LOBBY_HELP)
    while node.lobby_state == "lobby" and not node.done.is_set():
        text = await lines.read("lobby> ")
        if text is None or node.lobby_state != "lobby":
            return
        words = text.split()
        if not words:
            continue
        try:
            say(await lobby_command(node, helpers, add_bot, words))
        except ValueError as exc:
            say(f"not done: {exc}")


async def lobby_command(node: Node, helpers: list[Node], add_bot, words: list[str]) -> str:
    from dataclasses import replace

    from ..bots import BOTS

    command, args = words[0].lower(), words[1:]
    players = [m for m in node.members.values() if m.role == "player"]
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
    if command in ("variant", "deal", "points", "rounds"):
        value = args[0] if args else ""
        settings = node.settings
        if command in ("variant", "deal"):
            settings = replace(settings, **{command: value})
        else:
            number = None if value == "none" else int(value) if value.isdigit() and int(value) > 0 else -1
            if number == -1:
                raise ValueError(f"{command} takes a positive number or 'none', got {value!r}")
            settings = replace(settings, **{"point_limit" if command == "points" else "max_rounds": number})
        node.settings = settings  # Settings checks itself: a bad variant or no end at all raises ValueError
        return (f"settings: variant {settings.variant}, {settings.deal} deal, points {settings.point_limit}, "
                f"rounds {settings.max_rounds}")
    if command == "start":
        if len(players) < 2:
            raise ValueError("a game needs at least 2 players")
        node.start_now()
        return f"starting with {len(players)} players"
    raise ValueError(f"unknown command {command!r}; type help")


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
    files: list = []
    front = Front(options, headless)
    node = Node(identity, name=options.name, role=role, bot=bot, interface=options.interface,
                on_event=front.on_event, journal_for=journal_opener(identity, options, files), **timing(options))
    await node.listen(options.port)
    host, port, game_id = await locate(code, options)
    try:
        await node.join(host, port, game_id)
    except ConnectionFailed as exc:
        await node.close()
        raise RoleFailed(f"cannot join {code.upper()} at {host}:{port}: {exc}") from None
    if options.peer is None and game_code(node.game_id) != code.upper():
        await node.close()
        raise RoleFailed(f"the game at {host}:{port} has code {game_code(node.game_id)}, not {code.upper()}")
    node.session.journal.secret({"kind": "node", "role": role, "name": options.name, "bot": options.bot,
                                 "listen": node.port, "host": host, "host_port": port, "is_host": False})
    front.say(f"joined {game_code(node.game_id)} at {host}:{port} as {role}")
    front.show_lobby(node)
    try:
        status = await finish(node, files)
        await front.results()
        return status
    finally:
        await node.close()


async def run_resume(path: Path, options: Options, headless: bool) -> int:
    """Take a game up again after this peer's process died, from its transcript, secrets and key files."""
    from ..protocol.session import Session
    from .files import continue_journal

    try:
        identity, journal, wires, secrets, files = continue_journal(path)
    except (OSError, ValueError) as exc:
        raise RoleFailed(f"cannot resume from {path}: {exc}") from None
    if journal.sealed:
        raise RoleFailed(f"the game in {path} is over (its transcript is sealed)")
    info = next((r for r in reversed(secrets) if r.get("kind") == "node"), None)
    if info is None:
        raise RoleFailed(f"{path} has no record of where this peer was (no 'node' secret)")
    bot_kind = options.bot or info.get("bot") or ("heuristic" if headless else None)
    bot = make_bot(bot_kind, identity.secret) if bot_kind and info["role"] == "player" else None
    node = Node(identity, name=info["name"], role=info["role"], bot=bot, interface=options.interface,
                on_event=reporter(stdin_lines() if bot is None else None), **timing(options))
    try:
        await node.listen(info["listen"])
    except OSError:
        await node.listen(0)
    session = Session(identity, journal=journal)
    node.resume(session, wires, secrets)
    say(f"resumed {game_code(session.game_id)} from {path}: {len(wires)} messages replayed, "
        f"phase {session.phase}, round {session.round + 1}")
    try:
        if not info.get("is_host"):
            host, port = options.peer or (info["host"], info["host_port"])
            try:
                await node.join(host, port, session.game_id)
            except ConnectionFailed as exc:
                raise RoleFailed(f"cannot reach the host at {host}:{port}: {exc}") from None
        else:
            node.is_host = True
            node.lobby_state = "playing"
        return await finish(node, files)
    finally:
        await node.close()


async def list_games(options: Options, seconds: float) -> int:
    zc = open_zeroconf(options.interface)
    try:
        ads = await browse(zc, seconds)
    finally:
        await zc.async_close()
    if not ads:
        say(f"no games found within {seconds:g} s")
        return 0
    for ad in ads:
        say(ad.line())
    return 0


def run(coro) -> int:
    level = getattr(logging, os.environ.get("P2PNIMMT_LOG", "WARNING").upper(), logging.WARNING)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        return asyncio.run(coro)
    except RoleFailed as exc:
        print(f"p2pnimmt: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("p2pnimmt: interrupted", file=sys.stderr)
        return 130
