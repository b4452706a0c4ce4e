"""`p2pnimmt verify`: replay a transcript through the same Session code, as a spectator, and judge it.

Checked: the frame and record structure, the record chain (nothing
missing, nothing reordered), every message's shape, signature and
sender chain, every commitment, seed and shuffle, every turn through the
engine, the signed round and game results, and the recorder's seal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .codec import DecodeError, decode
from .events import Fault
from .identity import KEY_SIZE, fingerprint, peer_id, verify
from .session import Session
from .transcript import FORMAT, MAGIC, MAX_RECORD, SEAL_TAG, frames, link


@dataclass
class Verdict:
    """The outcome: `ok`, a human summary, or the first fault with its record number and the peer at fault."""

    ok: bool
    summary: str = ""
    fault: str = ""
    record: int | None = None
    peer: bytes | None = None
    messages: int = 0
    faults_recorded: list[dict] = field(default_factory=list)

    def report(self) -> str:
        if self.ok:
            return self.summary
        where = f"record {self.record}: " if self.record is not None else ""
        return f"FAILED at {where}{self.fault}"


def _name(session: Session, peer: bytes | None) -> str:
    if peer is None:
        return "no single peer (the transcript itself)"
    if peer in session.keys:
        seat = session.roster.index(peer)
        return f"seat {seat} {session.names[seat]} ({fingerprint(peer)})"
    return fingerprint(peer)


def _later_indexes(records: list[tuple[int, bytes]]) -> set[int]:
    """The index of every later record that decodes (to tell a moved record from a missing one)."""
    found = set()
    for _offset, raw in records:
        try:
            record = decode(raw, MAX_RECORD)
        except DecodeError:
            continue
        if isinstance(record, list) and record and type(record[0]) is int:
            found.add(record[0])
    return found


def verify_transcript(data: bytes) -> Verdict:
    """Judge transcript bytes; never raises on bad input."""
    session = Session(None, relay=False)
    try:
        records = list(frames(data))
    except DecodeError as exc:
        return Verdict(False, fault=f"malformed transcript: {exc}")
    if not records:
        return Verdict(False, fault="empty transcript")
    try:
        header = decode(records[0][1], MAX_RECORD)
    except DecodeError as exc:
        return Verdict(False, fault=f"malformed header: {exc}", record=0)
    if not (isinstance(header, list) and len(header) == 3 and header[0] == MAGIC and header[1] == FORMAT
            and (header[2] is None or (isinstance(header[2], bytes) and len(header[2]) == KEY_SIZE))):
        return Verdict(False, fault="not a p2pnimmt transcript (bad header)", record=0)
    recorder = header[2]
    last = link(records[0][1])
    accepted = 0
    sealed = False
    recorded_faults: list[dict] = []
    for position, (_offset, raw) in enumerate(records[1:], start=1):
        if sealed:
            return Verdict(False, fault="records after the seal", record=position)
        try:
            record = decode(raw, MAX_RECORD)
        except DecodeError as exc:
            return Verdict(False, fault=f"malformed record: {exc}", record=position)
        if not (isinstance(record, list) and len(record) == 4 and type(record[0]) is int
                and isinstance(record[1], bytes) and isinstance(record[2], str)):
            return Verdict(False, fault="record is not [index, link, type, payload]", record=position)
        index, prev, kind, payload = record
        if index > position:
            if position in _later_indexes(records[position + 1 :]):
                return Verdict(False, fault=f"records out of order: #{index} stands where #{position} belongs",
                               record=position)
            return Verdict(False, fault=f"record #{position} is missing (the next record is #{index})", record=position)
        if index < position:
            return Verdict(False, fault=f"records out of order: #{index} stands where #{position} belongs",
                           record=position)
        if prev != last:
            return Verdict(False, fault=f"record #{position} does not chain to record #{position - 1} "
                                        "(a record was altered, removed or moved)", record=position)
        last_before, last = last, link(raw)
        if kind == "msg":
            if not isinstance(payload, bytes):
                return Verdict(False, fault="msg record without message bytes", record=position)
            outputs = session.receive(payload)
            faults = [e for e in outputs if isinstance(e, Fault)]
            taken = len(session.journal.messages) == accepted + 1
            # A suspicion raised by an accepted message (digest-mismatch) is part of the story; anything
            # fatal, or bytes that were not accepted, end the verification.
            blocking = [f for f in faults if f.fatal] or ([] if taken else faults)
            if blocking:
                f = blocking[0]
                return Verdict(False, fault=f"{f.code}: {f.detail}; peer at fault: {_name(session, f.peer)}",
                               record=position, peer=f.peer, messages=accepted)
            if not taken:
                return Verdict(False, fault="message is not the next in its sender's chain "
                                            "(a message is missing or out of order)", record=position)
            accepted += 1
        elif kind == "fault":
            if not isinstance(payload, dict):
                return Verdict(False, fault="fault record is not a map", record=position)
            recorded_faults.append(payload)
            if payload.get("fatal") and session.phase != "aborted":
                # Take nobody's word for it: the evidence must make the replay reach the same verdict.
                evidence = payload.get("evidence")
                for wire in evidence if isinstance(evidence, list) else []:
                    if isinstance(wire, bytes):
                        session.receive(wire)
                if session.fault is None or (session.fault.code, session.fault.peer) != (
                        payload.get("code"), payload.get("peer")):
                    return Verdict(False, fault=f"the recorded fault {payload.get('code')!r} against "
                                                f"{_name(session, payload.get('peer') if isinstance(payload.get('peer'), bytes) else None)} "
                                                "is not supported by its evidence", record=position,
                                   peer=peer_id(recorder) if recorder else None)
        elif kind == "seal":
            if recorder is None:
                return Verdict(False, fault="seal without a recorder key in the header", record=position)
            if not (isinstance(payload, bytes) and verify(recorder, payload, SEAL_TAG + last_before)):
                return Verdict(False, fault="the seal's signature does not verify: the transcript was altered",
                               record=position, peer=peer_id(recorder))
            sealed = True
        else:
            return Verdict(False, fault=f"unknown record type {kind!r}", record=position)
    if session.fault is not None:
        f = session.fault
        return Verdict(False, fault=f"the game was aborted: {f.code}: {f.detail}; "
                                    f"peer at fault: {_name(session, f.peer)}", peer=f.peer, messages=accepted,
                       faults_recorded=recorded_faults)
    if session.phase != "over":
        return Verdict(False, fault=f"the transcript ends before the game does (phase {session.phase}, "
                                    f"round {session.round + 1}, turn {session.turn + 1})", messages=accepted)
    if not sealed:
        return Verdict(False, fault="the transcript has no seal (cut short, or never closed)", messages=accepted)
    return Verdict(True, summary=summary(session, recorder, accepted), messages=accepted,
                   faults_recorded=recorded_faults)


def summary(session: Session, recorder: bytes | None, messages: int) -> str:
    game = session.game
    s = game.settings
    names = [f"{name} ({fingerprint(p)}{', bot' if bot else ''})"
             for name, p, bot in zip(session.names, session.roster, session.bots)]
    lines = [
        f"game {session.game_id.hex()}: {s.players} players, variant {s.variant}, {s.deal} deal, ends at {s.end_text}",
        "players: " + ", ".join(names),
    ]
    for r, taken in enumerate(game.history):
        if r in session.voided:
            lines.append(f"round {r + 1}: void, nobody scores it: {session.voided[r]}")
            continue
        lines.append(f"round {r + 1}: " + ", ".join(f"{session.names[i]} {p}" for i, p in enumerate(taken)))
    lines.append("scores: " + ", ".join(f"{session.names[i]} {p}" for i, p in enumerate(game.scores)))
    winners = [session.names[i] for i in game.winners]
    lines.append(("winners: " if len(winners) > 1 else "winner: ") + ", ".join(winners))
    who = _name(session, peer_id(recorder)) if recorder else "nobody"
    lines.append(f"verified: {messages} signed messages (signatures, chains, commitments, "
                 f"{'the sealed deal audited' if s.deal == 'sealed' else 'seeds, shuffles'}, every turn, the signed results); sealed by {who}")
    return "\n".join(lines)
