"""What `p2pnimmt host`, `join`, `watch`, `bot` and `games` do: wire nodes, discovery and files together."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..bots import make_bot
from ..engine import Settings
from ..protocol.events import Event, GameAborted, GameOver, GameStarted, RoundEnded, SeatDropped
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


def timing(options: Options) -> dict[str, float]:
    return {"drop_after": options.drop_after, "bot_delay": options.bot_delay}


def say(text: str) -> None:
    print(text, flush=True)


def reporter(interactive: bool = False) -> Callable[[Node, Event], None]:
    """Prints game progress; with `interactive`, also the table and prompts for a person (ui.lines)."""
    person = None
    if interactive:
        from ..ui.lines import LineSeat, read_stdin

        person = LineSeat(read_stdin, lambda *lines: [say(line) for line in lines])

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


async def run_host(settings: Settings, bots: int, bot_kind: str, options: Options, headless: bool) -> int:
    identity = Identity.generate()
    files: list = []
    node = Node(identity, name=options.name, bot=make_bot(bot_kind, identity.secret) if headless else None,
                interface=options.interface, on_event=reporter(interactive=not headless),
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
        say(f"lobby: {taken}/{n.seats} seats: " + ", ".join(m.name for m in n.members.values() if m.role == "player"))
        asyncio.ensure_future(advertiser.update(taken, n.seats, n.lobby_state))

    node.lobby_changed = lobby_changed
    helpers = []
    try:
        for k in range(bots):
            bot_identity = Identity.generate()
            helper = Node(bot_identity, name=f"bot{k + 1}", bot=make_bot(bot_kind, bot_identity.secret),
                          interface=options.interface, **timing(options))
            await helper.listen()
            helpers.append(helper)
            await helper.join(options.interface or "127.0.0.1", node.port, node.game_id)
        if bots:
            say(f"added {bots} {bot_kind} bot{'s' if bots > 1 else ''}")
        return await finish(node, files)
    finally:
        await advertiser.stop()
        await zc.async_close()
        for helper in helpers:
            await helper.close()
        await node.close()


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
    node = Node(identity, name=options.name, role=role, bot=bot, interface=options.interface,
                on_event=reporter(interactive=not headless), journal_for=journal_opener(identity, options, files),
                **timing(options))
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
    say(f"joined {game_code(node.game_id)} at {host}:{port} as {role}")
    try:
        return await finish(node, files)
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
                on_event=reporter(interactive=bot is None), **timing(options))
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
    logging.basicConfig(level=getattr(logging, __import__('os').environ.get('P2PNIMMT_LOG', 'WARNING')), format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        return asyncio.run(coro)
    except RoleFailed as exc:
        print(f"p2pnimmt: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("p2pnimmt: interrupted", file=sys.stderr)
        return 130
