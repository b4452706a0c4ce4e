"""`p2pnimmt resume`: take a game up again after this peer's process died, from its transcript, secrets and key."""

from __future__ import annotations

from pathlib import Path

from ..bots import make_bot
from ..net.connection import ConnectionFailed
from ..net.discovery import game_code
from ..net.files import continue_journal
from ..protocol.session import Session
from .nodes import finish, new_node
from .options import Options, RoleFailed
from .output import reporter, say, stdin_lines


async def run_resume(path: Path, options: Options, headless: bool) -> int:
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
    node = new_node(identity, options, name=info["name"], role=info["role"], bot=bot,
                    on_event=reporter(stdin_lines() if bot is None else None))
    try:
        await node.listen(info["listen"])
    except OSError:
        await node.listen(0)
    session = Session(identity, journal=journal)
    node.resume(session, wires, secrets, as_host=bool(info.get("is_host")))
    say(f"resumed {game_code(session.game_id)} from {path}: {len(wires)} messages replayed, "
        f"phase {session.phase}, round {session.round + 1}")
    try:
        if not info.get("is_host"):
            host, port = options.peer or (info["host"], info["host_port"])
            try:
                await node.join(host, port, session.game_id)
            except ConnectionFailed as exc:
                raise RoleFailed(f"cannot reach the host at {host}:{port}: {exc}") from None
        return await finish(node, files)
    finally:
        await node.close()
