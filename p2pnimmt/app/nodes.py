"""What every network use case does with a node: make it, open its transcript, and see its game to the end."""

from __future__ import annotations

import os
from pathlib import Path

from ..bots import Bot
from ..net.discovery import game_code
from ..net.files import data_dir, transcript_journal
from ..net.node import EventListener, Node
from ..protocol.identity import Identity
from .options import Options, RoleFailed
from .output import say, stamp


def new_node(identity: Identity, options: Options, *, name: str | None = None, role: str = "player",
             bot: Bot | None = None, on_event: EventListener | None = None, journal_for=None) -> Node:
    """A node on the options' interface, with their timers; with $P2PNIMMT_TIMING it prints benchmark stamps."""
    node = Node(identity, name=options.name if name is None else name, role=role, bot=bot,
                interface=options.interface, journal_for=journal_for, drop_after=options.drop_after,
                bot_delay=options.bot_delay)
    if os.environ.get("P2PNIMMT_TIMING"):
        node.watch_events(stamp)
    if on_event is not None:
        node.watch_events(on_event)
    return node


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
    """Wait for the game to end, seal the transcript and close its files; the exit status."""
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
    assert session is not None  # a node that hosted, joined or resumed has one
    if session.phase == "over":
        return 0
    say(f"game did not finish: phase {session.phase}")
    return 1
