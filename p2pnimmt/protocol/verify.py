"""`p2pnimmt verify`: replay a transcript through the same Session code, as a spectator, and judge it.

Checked: the frame and record structure, the record chain (nothing
missing, nothing reordered), every message's shape, signature and
sender chain, every commitment, seed and shuffle, every turn through the
engine, the signed round and game results, and the recorder's seal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .codec import DecodeError, decode
from .events import Fault
from .identity import KEY_SIZE, PEER_ID_SIZE, fingerprint, peer_id, verify
from .printable import text_repr, value_repr
from .session import Session
from .transcript import (
    FORMAT,
    MAGIC,
    MAX_DETAIL,
    MAX_FAULTS,
    MAX_FAULTS_PER_PEER,
    MAX_RECORD,
    SEAL_TAG,
    frames,
    link,
)

# protocol.md section 12. A non-fatal fault blamed on the peer that delivered bytes nobody accepted is the
# recorder's word (informative only); any other is blamed on a signer, and the replay must have found it.
DELIVERER_CODES = frozenset({"malformed", "wrong-game", "unknown-sender", "bad-signature", "replay"})
# `digest-mismatch` is retired (protocol.md 11 and its fault table: a reveal naming another commit set is no fault) but
# stays a known code on purpose: a record of it then reads as a fault the replay did not find, not as garbage.
FAULT_CODES = DELIVERER_CODES | {
    "digest-mismatch", "equivocation", "chain-broken", "unknown-kind", "bad-body", "unexpected", "duplicate",
    "start-mismatch", "seed-mismatch", "bad-reveal", "not-in-hand", "sealed-shuffle", "sealed-unlock", "sealed-key",
    "sealed-play", "absent", "sealed-false-alarm", "sealed-audit", "state-mismatch", "wrong-chooser", "bad-row",
    "out-of-turn", "bad-pick", "result-mismatch"}
NOT_A_TRANSCRIPT = "not a p2pnimmt transcript"  # the fault of a file that is something else
NO_HEADER = "it does not begin with a transcript header"  # ... and why (Verdict.alien)
FAULT_RECORD_KEYS = frozenset({"peer", "code", "detail", "fatal", "evidence"})


Found = tuple[int, str, bytes | None, str, bool]  # a fault the replay found: (record, code, peer, detail, fatal)


@dataclass
class Verdict:
    """The outcome: `ok`, a human summary, or the first fault with its record number and the peer at fault."""

    ok: bool
    summary: str = ""
    fault: str = ""
    record: int | None = None
    peer: bytes | None = None
    messages: int = 0
    faults_recorded: list[dict[str, Any]] = field(default_factory=list)
    before: int = 0  # the evening's rounds before its game (its START's carry, once the replay took it), else 0
    alien: str | None = None  # why the bytes are no transcript at all, not one that is damaged (verify's status 2)
    # Every fault the replay's session found, in order, as its `receive` returned it: (record, code, peer, detail,
    # fatal); and the scores it had reached (each seat's total, [] before a START): the whole of what the replay
    # saw, which both verifiers must agree on (tests/peer/difffuzz.py compares it, not only the verdict).
    found: list[Found] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)

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


class TranscriptError(ValueError):
    """Why the transcript fails: the reason, the record it fails at (None: the transcript as a whole),
    and, where one is to blame, the peer at fault.

    `messages` and `faults_recorded` are what the verdict reports along with the failure.
    """

    def __init__(self, reason: str, record: int | None = None, peer: bytes | None = None, messages: int = 0,
                 faults_recorded: list[dict[str, Any]] | None = None, alien: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.alien = alien  # why the bytes are no transcript at all (Verdict.alien), None for a damaged one
        self.record = record
        self.peer = peer
        self.messages = messages
        self.faults_recorded = faults_recorded if faults_recorded is not None else []
        self.before = 0  # replay() tells it: Verdict.before
        self.found: list[Found] = []  # replay() tells these too: Verdict.found, Verdict.scores
        self.scores: list[int] = []

    def verdict(self) -> Verdict:
        return Verdict(False, fault=self.reason, record=self.record, peer=self.peer, messages=self.messages,
                       faults_recorded=self.faults_recorded, before=self.before, alien=self.alien, found=self.found,
                       scores=self.scores)


def read_frames(data: bytes) -> list[tuple[int, bytes]]:
    """The transcript's frames (offset, record bytes), at least one."""
    if not _starts_like_a_transcript(data):
        raise TranscriptError(f"{NOT_A_TRANSCRIPT}: {NO_HEADER}", alien=NO_HEADER)
    try:
        records = list(frames(data))
    except DecodeError as exc:
        raise TranscriptError(f"malformed transcript: {exc}") from exc
    if not records:
        raise TranscriptError("empty transcript")
    return records


def _starts_like_a_transcript(data: bytes) -> bool:
    """False for a file that is plainly something else: its first frame's length is over the limit and the
    transcript's MAGIC is nowhere near the start (text, an image: not a damaged transcript)."""
    if len(data) < 4 or int.from_bytes(data[:4], "big") <= MAX_RECORD:
        return True
    return MAGIC.encode() in data[:64]


def read_header(raw: bytes) -> bytes | None:
    """Record 0: [MAGIC, FORMAT, recorder key or nil]; the recorder's key."""
    try:
        header = decode(raw, MAX_RECORD)
    except DecodeError as exc:
        raise TranscriptError(f"malformed header: {exc}", 0) from exc
    if not (isinstance(header, list) and len(header) == 3 and header[0] == MAGIC
            and type(header[1]) is int and header[1] == FORMAT  # the integer 1: not 1.0, not true
            and (header[2] is None or (isinstance(header[2], bytes) and len(header[2]) == KEY_SIZE))):
        raise TranscriptError(f"{NOT_A_TRANSCRIPT} (bad header)", 0)
    recorder: bytes | None = header[2]
    return recorder


def _later_indexes(records: list[tuple[int, bytes]]) -> set[int]:
    """The index of every later record that decodes (to tell a moved record from a missing one)."""
    found: set[int] = set()
    for _offset, raw in records:
        try:
            record = decode(raw, MAX_RECORD)
        except DecodeError:
            continue
        if isinstance(record, list) and record and type(record[0]) is int:
            found.add(record[0])
    return found


def read_record(records: list[tuple[int, bytes]], position: int, last: bytes) -> tuple[str, object]:
    """Record `position` of `records`, [index, link, type, payload], at its place and chained to `last`
    (the link of the record before it): its type and payload."""
    raw = records[position][1]
    try:
        record = decode(raw, MAX_RECORD)
    except DecodeError as exc:
        raise TranscriptError(f"malformed record: {exc}", position) from exc
    if not (isinstance(record, list) and len(record) == 4 and type(record[0]) is int
            and isinstance(record[1], bytes) and isinstance(record[2], str)):
        raise TranscriptError("record is not [index, link, type, payload]", position)
    index: int = record[0]
    prev: bytes = record[1]
    kind: str = record[2]
    moved = f"records out of order: #{index} stands where #{position} belongs"
    if index > position:
        if position in _later_indexes(records[position + 1 :]):
            raise TranscriptError(moved, position)
        raise TranscriptError(f"record #{position} is missing (the next record is #{index})", position)
    if index < position:
        raise TranscriptError(moved, position)
    if prev != last:
        raise TranscriptError(f"record #{position} does not chain to record #{position - 1} "
                              "(a record was altered, removed or moved)", position)
    return kind, record[3]


class Witness(Session):
    """The replay's spectator session, which notes every non-fatal fault it finds itself, in a rebuild too (a
    rebuild's outputs are not returned, but what it finds stands: protocol.md 11.1 and 13)."""

    def __init__(self) -> None:
        super().__init__(None, relay=False)
        self.found: dict[tuple[str, bytes | None], int] = {}  # (code, peer) -> how many times

    def _fault(self, peer: bytes | None, code: str, detail: str, evidence: tuple[bytes, ...] = ()) -> None:
        self.found[(code, peer)] = self.found.get((code, peer), 0) + 1
        super()._fault(peer, code, detail, evidence)


def refused_text(session: Session) -> str:
    """The seats whose START_ACK the replay refused (protocol.md 12, "A refused START_ACK"), as verify names them after
    a transcript that ends starting; '' if none."""
    return "".join(f"; refused START_ACK: {session.names[seat]} ({code}): the game cannot start; its host may start "
                   "it again without that seat" for seat, code in sorted(session.table.refused.items()))


def fault_record_problem(payload: dict[Any, Any]) -> str:
    """Why a fault record's payload is not [the map of section 13], or ''."""
    if set(payload) != FAULT_RECORD_KEYS:
        return f"its keys are {value_repr(sorted(map(str, payload)))}, not {sorted(FAULT_RECORD_KEYS)}"
    peer, code, detail, evidence = payload["peer"], payload["code"], payload["detail"], payload["evidence"]
    if peer is not None and not (isinstance(peer, bytes) and len(peer) == PEER_ID_SIZE):
        return "its peer is neither a peer id nor nil"
    if not isinstance(code, str):  # a list or a map is no key of FAULT_CODES either (it is not hashable)
        return "its code is not a text"
    if code not in FAULT_CODES:
        return f"{text_repr(code):.40} is no fault code"
    if not isinstance(detail, str) or len(detail) > MAX_DETAIL:
        return f"its detail is not a text of at most {MAX_DETAIL} characters"
    if not isinstance(payload["fatal"], bool):
        return "its fatal is not a boolean"
    if not (isinstance(evidence, list) and all(isinstance(wire, bytes) for wire in evidence)):
        return "its evidence is not an array of messages"
    return ""


class Replay:
    """The transcript's records fed, one reader per record type, to a spectator Session."""

    def __init__(self, recorder: bytes | None) -> None:
        self.session = Witness()
        self.recorder = recorder
        self.accepted = 0  # messages the session took
        self.sealed = False
        self.faults_recorded: list[dict[str, Any]] = []
        self.noted: dict[bytes | None, int] = {}  # non-fatal fault records by the peer they blame
        self.equivocations: dict[bytes | None, int] = {}  # non-fatal `equivocation` records by the peer they blame
        self.found: list[Found] = []  # every fault the session's receive returned, in order: Verdict.found

    def receive(self, position: int, wire: bytes) -> list[Fault]:
        """`wire` fed to the session while record `position` is read: the faults it found (noted in `found`)."""
        faults = [e for e in self.session.receive(wire) if isinstance(e, Fault)]
        self.found += [(position, f.code, f.peer, f.detail, f.fatal) for f in faults]
        return faults

    def scores(self) -> list[int]:
        """Each seat's total as the replay has it ([] before a START)."""
        game = self.session.game
        return list(game.scores) if game is not None else []

    def before(self) -> int:
        """The rounds of the evening before the game (its START's `carry`, protocol.md 9): 0 for a game that carries
        nothing, or before the START is taken."""
        game = self.session.game
        return game.before if game is not None else 0

    def read(self, position: int, kind: str, payload: object, link_before: bytes) -> None:
        """Record `position`, of type `kind`; `link_before` is the link of the record before it."""
        if kind == "msg":
            self.read_msg(position, payload)
        elif kind == "fault":
            self.read_fault(position, payload)
        elif kind == "seal":
            self.read_seal(position, payload, link_before)
        else:
            raise TranscriptError(f"unknown record type {text_repr(kind)}", position)

    def read_msg(self, position: int, payload: object) -> None:
        """A message the recorder accepted: the session must take it as the next in its sender's chain."""
        session = self.session
        if not isinstance(payload, bytes):
            raise TranscriptError("msg record without message bytes", position)
        faults = self.receive(position, payload)
        taken = len(session.journal.messages) == self.accepted + 1
        # A non-fatal fault raised by an accepted message (an expulsion, a verdict) is part of the story; anything
        # fatal, or bytes that were not accepted, end the verification.
        blocking = [f for f in faults if f.fatal] or ([] if taken else faults)
        if blocking:
            f = blocking[0]
            raise TranscriptError(f"{f.code}: {f.detail}; peer at fault: {_name(session, f.peer)}", position,
                                  peer=f.peer, messages=self.accepted)
        if not taken:
            raise TranscriptError("message is not the next in its sender's chain "
                                  "(a message is missing or out of order)", position)
        self.accepted += 1

    def read_fault(self, position: int, payload: object) -> None:
        """A fault the recorder saw (protocol.md 13, "Fault records and `verify`"): a well-formed record within
        the caps; a fatal one must be what its evidence makes the replay find, a non-fatal one blamed on a
        signer a fault the replay has found itself; one blamed on a deliverer is the recorder's word."""
        session = self.session
        recorder = peer_id(self.recorder) if self.recorder else None
        if not isinstance(payload, dict):
            raise TranscriptError("fault record is not a map", position, peer=recorder)
        problem = fault_record_problem(payload)
        if problem:
            raise TranscriptError(f"malformed fault record: {problem}", position, peer=recorder)
        peer: bytes | None = payload["peer"]
        code: str = payload["code"]
        if not payload["fatal"]:
            # a split commit's proof (protocol.md 12): taken as the recorder took it and not counted (the replay needs
            # every version it shows), but each a fault the replay found (below); a refused START_ACK's broken chain:
            # its evidence is no message of the transcript
            if code in ("equivocation", "chain-broken"):
                for wire in payload["evidence"]:
                    self.receive(position, wire)
            if code != "equivocation":
                self.noted[peer] = self.noted.get(peer, 0) + 1
            if self.noted.get(peer, 0) > MAX_FAULTS_PER_PEER or sum(self.noted.values()) > MAX_FAULTS:
                raise TranscriptError(f"more than {MAX_FAULTS_PER_PEER} non-fatal fault records against "
                                      f"{_name(session, peer)}, or {MAX_FAULTS} in all", position, peer=recorder)
            if code not in DELIVERER_CODES and (code, peer) not in session.found:
                raise TranscriptError(f"the recorded fault {text_repr(code)} against {_name(session, peer)} is not one "
                                      "the replay found (nobody's word is taken)", position, peer=recorder)
            if code == "equivocation":  # not counted by the caps, so never more records than the replay finds
                self.equivocations[peer] = self.equivocations.get(peer, 0) + 1
                if self.equivocations[peer] > session.found[(code, peer)]:
                    raise TranscriptError(f"the recorded fault 'equivocation' against {_name(session, peer)} is "
                                          "recorded more often than the replay found it (a node records a split "
                                          "commit's proof once per version)", position, peer=recorder)
        self.faults_recorded.append(payload)
        if not payload["fatal"] or session.phase == "aborted":
            return
        # Take nobody's word for it: the evidence must make the replay reach the same verdict.
        evidence = payload.get("evidence")
        for wire in evidence if isinstance(evidence, list) else []:
            if isinstance(wire, bytes):
                self.receive(position, wire)
        if session.fault is None or (session.fault.code, session.fault.peer) != (
                payload.get("code"), payload.get("peer")):
            peer = payload.get("peer")
            raise TranscriptError(f"the recorded fault {value_repr(payload.get('code'))} against "
                                  f"{_name(session, peer if isinstance(peer, bytes) else None)} "
                                  "is not supported by its evidence", position,
                                  peer=peer_id(self.recorder) if self.recorder else None)

    def read_seal(self, position: int, payload: object, link_before: bytes) -> None:
        """The recorder's signature over SEAL_TAG || the link of the record before it."""
        if self.recorder is None:
            raise TranscriptError("seal without a recorder key in the header", position)
        if not (isinstance(payload, bytes) and verify(self.recorder, payload, SEAL_TAG + link_before)):
            raise TranscriptError("the seal's signature does not verify: the transcript was altered", position,
                                  peer=peer_id(self.recorder))
        self.sealed = True

    def finish(self) -> None:
        """After the last record: the game must be over, not aborted, and the transcript sealed."""
        session = self.session
        if session.fault is not None:
            f = session.fault
            raise TranscriptError(f"the game was aborted: {f.code}: {f.detail}; "
                                  f"peer at fault: {_name(session, f.peer)}", peer=f.peer, messages=self.accepted,
                                  faults_recorded=self.faults_recorded)
        if session.phase != "over":
            raise TranscriptError(f"the transcript ends before the game does (phase {session.phase}, "
                                  f"round {session.round + 1}, turn {session.turn + 1})" + refused_text(session),
                                  messages=self.accepted)
        if not self.sealed:
            raise TranscriptError("the transcript has no seal (cut short, or never closed)", messages=self.accepted)


def replay(data: bytes, *, recorder_key: bytes | None = None, complete: bool = True) -> Replay:
    """Read the whole transcript into a Replay; TranscriptError at the first thing wrong.

    recorder_key: the key that must have recorded it (resume checks its own files); complete=False: the
    game need not be over (a transcript to resume).
    """
    records = read_frames(data)
    recorder = read_header(records[0][1])
    if recorder_key is not None and recorder != recorder_key:
        raise TranscriptError("the transcript was recorded by another key than the one in its .key file", 0)
    state = Replay(recorder)
    last = link(records[0][1])
    try:
        for position in range(1, len(records)):
            if state.sealed:
                raise TranscriptError("records after the seal", position)
            kind, payload = read_record(records, position, last)
            last_before, last = last, link(records[position][1])
            state.read(position, kind, payload, last_before)
        if complete:
            state.finish()
    except TranscriptError as exc:
        exc.before = state.before()  # what the replay read of the game: the verdict's `before`
        exc.found, exc.scores = state.found, state.scores()
        raise
    return state


def verify_transcript(data: bytes) -> Verdict:
    """Judge transcript bytes; never raises on bad input."""
    try:
        state = replay(data)
    except TranscriptError as exc:
        return exc.verdict()
    return Verdict(True, summary=summary(state.session, state.recorder, state.accepted), messages=state.accepted,
                   faults_recorded=state.faults_recorded, before=state.before(), found=state.found,
                   scores=state.scores())


def summary(session: Session, recorder: bytes | None, messages: int) -> str:
    game = session.game
    assert game is not None  # the replay reached phase "over": there is a game
    s = game.settings
    names = [f"{name} ({fingerprint(p)}{', bot' if bot else ''})"
             for name, p, bot in zip(session.names, session.roster, session.bots)]
    lines = [
        f"game {session.game_id.hex()}: {s.players} players, variant {s.variant}, {s.deal} deal, ends at {s.end_text}",
        "players: " + ", ".join(names),
    ]
    previous = session.start.body.get("previous") if session.start is not None else None
    if isinstance(previous, bytes):  # START names the game this one is a rematch of
        lines.insert(1, f"rematch of game {previous.hex()}")
    carry = session.start.body.get("carry") if session.start is not None else None
    if carry is not None:  # START continues a game an equivocation ended (protocol.md 9): its rounds are numbered on
        lines.insert(2, f"carried from game {carry['game'].hex()} after round {carry['rounds']}: "
                     + ", ".join(f"{session.names[i]} {p}" for i, p in enumerate(carry["scores"]))
                     + " (signed by every seat's START_ACK; that game itself is not checked here)")
    for r, taken in enumerate(game.history):
        if r in session.voided:
            lines.append(f"round {game.round_no(r)}: void, nobody scores it: {session.voided[r]}")
            continue
        lines.append(f"round {game.round_no(r)}: "
                     + ", ".join(f"{session.names[i]} {p}" for i, p in enumerate(taken)))
    lines.append("scores: " + ", ".join(f"{session.names[i]} {p}" for i, p in enumerate(game.scores)))
    for seat, code in sorted(session.table.expelled_for.items()):
        at = session.dropped.get(seat)
        where = f", the stand-in played it from round {at.round + 1}, step {at.number}" if at is not None else ""
        lines.append(f"lost its seat for a proven rule break: {session.names[seat]} ({code}{where})")
    if session.table.forfeits:
        lines.append("forfeited (made a round void, so cannot win): "
                     + ", ".join(session.names[i] for i in sorted(session.table.forfeits)))
    winners = [session.names[i] for i in session.result.winners]
    lines.append(("winners: " if len(winners) > 1 else "winner: ") + ", ".join(winners))
    who = _name(session, peer_id(recorder)) if recorder else "nobody"
    deal = "the sealed deal audited" if s.deal == "sealed" else "seeds, shuffles"
    lines.append(f"verified: {messages} signed messages (signatures, chains, commitments, "
                 f"{deal}, every turn, the signed results); sealed by {who}")
    return "\n".join(lines)
