"""Golden games: whole games from fixed identities, fixed entropy and a fixed delivery order, pinned byte for byte.

Written before the issue-11 refactor of the session (state machine, deal
components, inbox): whatever the inside looks like, the same inputs must
give the same wire bytes, the same relaying and the same transcripts.
Each game's pin is a SHA-256 over, per peer in order, its transcript
bytes, its secrets records and every Outgoing it produced (wire, to,
skip, watchers_only). Regenerate (only for an intended change of the
protocol, with protocol.md) with `P2PNIMMT_GOLDEN=write pytest tests/protocol/test_golden.py`.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import msgpack
import pytest
from harness import Net, catch_up, restart
from test_drop import silence_after, vote_out

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.events import Outgoing

GOLDEN = Path(__file__).with_name("golden.json")


class RecordingNet(Net):
    """A Net that keeps every Outgoing each peer produced, in order."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.sent: dict[bytes, list[Outgoing]] = {p: [] for p in self.sessions}

    def send(self, peer: bytes, out: Outgoing) -> None:
        self.sent[peer].append(out)
        super().send(peer, out)


def settings(players: int, deal: str, variant: str = "standard", rounds: int = 2) -> Settings:
    return Settings(players=players, variant=variant, max_rounds=rounds, point_limit=None, deal=deal)


def plain(players: int, deal: str, variant: str = "standard", rounds: int = 2, bots: str = "heuristic") -> Net:
    net = RecordingNet(players, settings=settings(players, deal, variant, rounds), bots=bots, seed=players * 7 + 1)
    net.start()
    net.run()
    return net


def with_drop(deal: str) -> Net:
    net = RecordingNet(4, settings=settings(4, deal), bots="heuristic", seed=31)
    silence_after(net, 3, 14)
    net.start()
    net.run()
    vote_out(net, 3)
    return net


def resumed(deal: str) -> Net:
    net = RecordingNet(4, settings=settings(4, deal), bots="heuristic", seed=7, shuffle_delivery=False)
    victim = net.identities[2].peer
    net.start()
    net.run(limit=150)
    net.queue = type(net.queue)(item for item in net.queue if item[0] != victim)
    net.handle(victim, restart(net, victim))
    catch_up(net, victim)
    net.run()
    return net


GAMES = {
    "open-2": lambda: plain(2, "open"),
    "open-5": lambda: plain(5, "open", bots="random"),
    "sealed-2": lambda: plain(2, "sealed"),
    "sealed-5": lambda: plain(5, "sealed", rounds=1),
    "draft-2": lambda: plain(2, "open", "draft"),
    "draft-5": lambda: plain(5, "open", "draft", rounds=1),
    "tactical-3": lambda: plain(3, "open", "tactical"),
    "open-drop-4": lambda: with_drop("open"),
    "sealed-drop-4": lambda: with_drop("sealed"),
    "open-resumed-4": lambda: resumed("open"),
    "sealed-resumed-4": lambda: resumed("sealed"),
}


def pin(net: RecordingNet) -> dict[str, object]:
    digest = hashlib.sha256()
    for peer in net.peers:
        session = net.sessions[peer]
        digest.update(peer)
        digest.update(bytes(net.transcripts[peer]))
        digest.update(msgpack.packb(list(session.journal.secrets), use_bin_type=True))
        for out in net.sent[peer]:
            digest.update(msgpack.packb([out.wire, out.to, list(out.skip), out.watchers_only], use_bin_type=True))
    phases = sorted({str(net.sessions[p].phase) for p in net.peers})
    scores = [list(net.sessions[p].game.scores) for p in net.peers[:1]]
    dropped = sorted(net.sessions[net.peers[0]].dropped)
    return {"sha256": digest.hexdigest(), "phases": phases, "scores": scores, "dropped": dropped}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_game_is_byte_for_byte_the_same(name: str) -> None:
    got = pin(GAMES[name]())
    if os.environ.get("P2PNIMMT_GOLDEN") == "write":
        table = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
        table[name] = got
        GOLDEN.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    table = json.loads(GOLDEN.read_text())
    assert got == table[name]
    assert "over" in got["phases"]  # played to its end (a silenced seat of a drop game stays where it stopped)
