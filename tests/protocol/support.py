"""Helpers for the protocol tests on top of harness.Net: short games, honest-game checks, transcript surgery.

Owned by the game/verify/fuzz tests; harness.py stays the shared, minimal network.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from harness import Net

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.codec import DecodeError, decode
from p2pnimmt.protocol.envelope import Envelope, open_envelope
from p2pnimmt.protocol.events import Fault, GameAborted, GameOver
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.session import Session
from p2pnimmt.protocol.transcript import MAX_RECORD, TranscriptJournal, frame, frames
from p2pnimmt.protocol.verify import Verdict, verify_transcript

VARIANTS = ("standard", "tactical", "draft")
BOT_KINDS = ("random", "heuristic")


# ----------------------------------------------------------------- games


def short(players: int, variant: str = "standard", rounds: int = 1, deal: str = "open") -> Settings:
    """A game of exactly `rounds` rounds (no point limit)."""
    return Settings(players=players, variant=variant, max_rounds=rounds, point_limit=None, deal=deal)


def mixed_bots(seed: object, players: int) -> list[str]:
    """A seeded mix of random and heuristic bots."""
    rng = random.Random(f"bots/{seed}")
    return [rng.choice(BOT_KINDS) for _ in range(players)]


def play(settings: Settings, seed: int, *, bots: str | list[str] | None = None, delivery: int | None = None,
         shuffle: bool = True, spectators: int = 1, net_class: type[Net] = Net, **extra) -> Net:
    """Build a Net, start it and run it to quiet. `delivery` reseeds only the delivery order."""
    n = settings.players
    net = net_class(n, settings=settings, bots=bots if bots is not None else mixed_bots(seed, n), seed=seed,
                    spectators=spectators, shuffle_delivery=shuffle, **extra)
    if delivery is not None:
        net.rng = random.Random(delivery)
    net.start()
    net.run()
    return net


def run_ordered(net: Net, choose: Callable[[int], int], limit: int = 1_000_000) -> None:
    """Deliver until quiet, taking queue[choose(len(queue)) % len(queue)] each time (a scripted delivery order)."""
    queue = net.queue
    while queue and limit:
        limit -= 1
        i = choose(len(queue)) % len(queue)
        to, frm, wire = queue[i]
        del queue[i]
        net.delivered += 1
        net.handle(to, net.sessions[to].receive(wire, via=frm))


def all_faults(net: Net) -> dict[bytes, list]:
    """Every Fault / GameAborted event and every journal fault, by peer (empty lists for a clean game)."""
    found = {}
    for peer, session in net.sessions.items():
        bad = [e for e in net.events[peer] if isinstance(e, (Fault, GameAborted))] + list(session.journal.faults)
        found[peer] = bad
    return found


def role(net: Net, peer: bytes) -> str:
    seat = net.sessions[peer].seat
    return f"seat {seat}" if seat is not None else f"spectator {peer.hex()[:8]}"


def describe(item) -> str:
    fault = item.fault if isinstance(item, GameAborted) else item
    return f"{'fatal ' if fault.fatal else ''}{fault.code}: {fault.detail}"


def outcome(session: Session) -> tuple:
    """What must be identical at every honest peer at the end of a game."""
    game = session.game
    return (session.phase, session.result, tuple(game.history) if game else None,
            tuple(game.scores) if game else None)


def winner_line(session: Session) -> str:
    winners = [session.names[i] for i in session.result.winners]
    return ("winners: " if len(winners) > 1 else "winner: ") + ", ".join(winners)


def check_honest(net: Net, *, verify: bool = True) -> GameOver:
    """Assert a finished honest game: all 'over', one result and history, no faults, every transcript verifies."""
    faults = {role(net, p): [describe(e) for e in f] for p, f in all_faults(net).items() if f}
    assert not faults, f"faults in an honest game: {faults}"
    sessions = list(net.sessions.values())
    first = sessions[0]
    assert first.phase == "over", f"phase {first.phase}, round {first.round}, turn {first.turn}"
    result = first.result
    assert isinstance(result, GameOver)
    for session in sessions:
        assert outcome(session) == outcome(first)
    game = first.game
    assert result.rounds == game.rounds_played == len(game.history)
    assert list(result.scores) == [sum(col) for col in zip(*game.history)]
    assert result.winners == tuple(s for s, x in enumerate(result.scores) if x == min(result.scores))
    # each peer's GameOver event is the session's result, reported once
    for peer, session in net.sessions.items():
        overs = [e for e in net.events[peer] if isinstance(e, GameOver)]
        assert overs == [session.result]
    if verify:
        line = winner_line(first)
        for peer in net.peers:
            verdict = verify_transcript(bytes(net.transcripts[peer]))
            assert verdict.ok, verdict.report()
            assert line in verdict.summary.splitlines(), verdict.summary
            assert verdict.messages == len(net.sessions[peer].journal.messages)
    return result


# ----------------------------------------------------------------- transcripts


@dataclass
class Record:
    position: int  # 0 for the header
    offset: int  # where its frame starts in the file
    raw: bytes  # the record's msgpack bytes (without the 4-byte length)
    value: list  # decoded

    @property
    def type(self) -> str:
        return "header" if self.position == 0 else self.value[2]

    @property
    def payload(self):
        return self.value[3]

    @property
    def envelope(self) -> Envelope | None:
        return open_envelope(self.payload) if self.type == "msg" else None

    @property
    def kind(self) -> str:
        """The message kind for a msg record, else the record type."""
        return self.envelope.kind if self.type == "msg" else self.type

    @property
    def start(self) -> int:
        """Offset of the record bytes (after the length)."""
        return self.offset + 4

    @property
    def end(self) -> int:
        return self.start + len(self.raw)

    # offsets of the parts of a record, in the file
    @property
    def link_at(self) -> int:
        return self.start + self.raw.index(self.value[1])

    @property
    def payload_at(self) -> int:
        """Start of the payload's *contents* (a bin's bytes sit at the very end of the record)."""
        return self.end - len(self.payload)

    @property
    def signature_at(self) -> int:
        """Start of the 64 signature bytes of a msg record's wire (they end the wire)."""
        return self.end - 64

    @property
    def signed_at(self) -> int:
        env = self.envelope
        return self.payload_at + self.payload.index(env.signed)

    @property
    def signed_end(self) -> int:
        return self.signed_at + len(self.envelope.signed)


def records(data: bytes) -> list[Record]:
    out = []
    for position, (offset, raw) in enumerate(frames(data)):
        out.append(Record(position, offset, raw, decode(raw, MAX_RECORD)))
    return out


def build(raws: Iterable[bytes]) -> bytes:
    return b"".join(frame(r) for r in raws)


def flip(data: bytes, offset: int, mask: int = 0x01) -> bytes:
    b = bytearray(data)
    b[offset] ^= mask
    return bytes(b)


def messages(data: bytes) -> list[bytes]:
    """The wire bytes of the msg records, in order."""
    return [r.payload for r in records(data) if r.type == "msg"]


def rewrite(wires: Iterable[bytes], recorder: Identity | None) -> bytes:
    """A well-formed, freshly linked (and, with a recorder, sealed) transcript of these messages."""
    out = bytearray()
    journal = TranscriptJournal(out.extend, recorder)
    for wire in wires:
        journal.message(wire)
    journal.seal()
    return bytes(out)


def replay(wires: Iterable[bytes], identity: Identity | None = None, relay: bool = False) -> tuple[Session, list]:
    """A late spectator: a fresh session fed these wires; returns it and everything it emitted."""
    session = Session(identity, relay=relay)
    out: list = []
    for wire in wires:
        out += session.receive(wire)
    return session, out


def verdict(data: bytes) -> Verdict:
    return verify_transcript(data)


__all__ = [
    "BOT_KINDS", "VARIANTS", "DecodeError", "Record", "all_faults", "build", "check_honest", "flip", "messages",
    "mixed_bots", "outcome", "play", "records", "replay", "rewrite", "run_ordered", "short", "verdict",
    "winner_line",
]
