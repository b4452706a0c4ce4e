"""The transcript file format (protocol.md, "Transcript"): bytes in, bytes out; no file I/O here.

A transcript is a sequence of frames: 4-byte big-endian length, then a
msgpack record. Record 0 is the header ["p2pnimmt-transcript", 1,
recorder key or nil]. Every later record is [index, link of the previous
record, type, payload] with type "msg" (the exact wire bytes of an accepted
message), "fault" (a fault this peer saw) or "seal" (last: the recorder's
signature over SEAL_TAG || link of the record before it).
link(record) = SHA-256(LINK_TAG || the record's msgpack bytes).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Container, Iterator
from typing import Any

from .codec import MAX_FRAME, DecodeError, decode, encode
from .events import Fault
from .identity import Identity
from .journal import Journal

MAGIC = "p2pnimmt-transcript"
FORMAT = 1
LINK_TAG = b"p2pnimmt/transcript-link/v1"
SEAL_TAG = b"p2pnimmt/transcript-seal/v1"
MAX_RECORD = MAX_FRAME + 1024
# `verify` and `replay` read at most this much of a file (protocol.md 13, "Exit status"): a ten-seat sealed round is
# about 150 KB, so this holds some 1,700 of them; /dev/zero, or a disk image named by mistake, is not read for ever.
MAX_FILE = 256 * 1024 * 1024
# Fault records are capped so that nothing anyone sends can grow a transcript without bound or make a
# record too large to read (protocol.md section 13, "Fault records").
MAX_FAULTS_PER_PEER = 32  # non-fatal fault records blaming one peer (or no one)
MAX_FAULTS = 256  # non-fatal fault records in one transcript
MAX_DETAIL = 500  # characters of a fault record's detail
MAX_DETAIL_BYTES = 1024  # ... and bytes of its UTF-8: the most a str holds (protocol.md 7)
LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # not a Unicode scalar value: a detail writes U+FFFD for it


def link(record: bytes) -> bytes:
    return hashlib.sha256(LINK_TAG + record).digest()


class TooLarge(OSError):
    """A file over MAX_FILE bytes: not read (its strerror says so, as an OSError's says why a file cannot be read)."""

    def __init__(self) -> None:
        super().__init__(f"larger than {MAX_FILE >> 20} MiB, which no game's transcript is")
        self.strerror = str(self)


def read_file(path: str) -> bytes:
    """A transcript file's bytes; OSError if it cannot be read, TooLarge past MAX_FILE bytes (not read further)."""
    with open(path, "rb") as f:
        data = f.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise TooLarge()
    return data


def frame(record: bytes) -> bytes:
    return len(record).to_bytes(4, "big") + record


def cut_detail(detail: str) -> str:
    """A fault record's detail as written (protocol.md 13): its first MAX_DETAIL characters (code points), each
    lone surrogate as U+FFFD (no str a peer sent holds one: section 7; this node's own text might), then its longest
    prefix of whole ones within MAX_DETAIL_BYTES of UTF-8, so every reader can read the record."""
    text = LONE_SURROGATE.sub("\ufffd", detail[:MAX_DETAIL])
    return text.encode()[:MAX_DETAIL_BYTES].decode(errors="ignore")


def fault_payload(fault: Fault, recorded: Container[bytes] = ()) -> dict[str, Any]:
    """The payload of a fault record: the evidence that is not already a `msg` record of this transcript
    (a replay holds those already, so the rest leads it to the same verdict), the detail cut (`cut_detail`),
    and at most as much evidence as fits in MAX_RECORD (in order; the first that does not fit
    and all after it are left out)."""
    payload: dict[str, Any] = {"peer": fault.peer, "code": fault.code, "detail": cut_detail(fault.detail),
                               "fatal": fault.fatal, "evidence": []}
    room = MAX_RECORD - len(encode([2**63, bytes(32), "fault", payload]))
    for wire in fault.evidence:
        if wire in recorded:
            continue
        room -= len(encode(wire)) + 2  # + the array's header growing (at most 2 bytes for <= 65,535 items)
        if room < 0:
            break
        payload["evidence"].append(wire)
    return payload


class TranscriptJournal(Journal):
    """A Journal that also turns every record into transcript bytes handed to `sink` (append them to a file).

    Secrets go to `secret_sink` (a separate, private file), never into the transcript, each at once. Transcript
    records made between `hold` and `flush` (the session holds over each input: one message received and all it
    leads to) go to `sink` in one call: whole records, in order, so a crash still leaves whole records only (and
    what is not written yet was not sent either: the session's output is handed on after its flush).
    """

    def __init__(self, sink: Callable[[bytes], None], recorder: Identity | None = None,
                 secret_sink: Callable[[bytes], None] | None = None) -> None:
        super().__init__()
        self.data = bytearray()  # the transcript as it stands: what is written and what is held (what a front reads)
        self.sink = sink  # the file: records reach it in one call per hold (whole records only)
        self.recorder = recorder
        self.secret_sink = secret_sink
        header = encode([MAGIC, FORMAT, recorder.public_key if recorder else None])
        self.index = 0
        self.last = link(header)
        self.sealed = False
        self.recorded: set[bytes] = set()  # the wire bytes of every msg record
        self.fault_counts: dict[bytes | None, int] = {}  # non-fatal fault records by the peer they blame
        self.faults_left_out = 0  # non-fatal faults over the caps, not recorded
        self._held: list[bytes] = []  # frames made while held, not yet handed to the sink
        self._holds = 0
        self._out(frame(header))

    @classmethod
    def continuing(cls, data: bytes, sink: Callable[[bytes], None], recorder: Identity,
                   secret_sink: Callable[[bytes], None] | None = None) -> TranscriptJournal:
        """A journal that appends to an existing transcript (after a restart), keeping its index and links."""
        journal = cls.__new__(cls)
        Journal.__init__(journal)
        journal.data = bytearray(data)
        journal.sink, journal.recorder, journal.secret_sink = sink, recorder, secret_sink
        journal.index, journal.last, journal.sealed = 0, b"", False
        journal.recorded, journal.fault_counts, journal.faults_left_out = set(), {}, 0
        journal._held, journal._holds = [], 0
        for _offset, record in frames(data):
            journal.last = link(record)
            fields = decode(record, MAX_RECORD)
            if isinstance(fields, list) and len(fields) == 4:
                journal.index = fields[0]
                journal.sealed = fields[2] == "seal"
                if fields[2] == "msg" and isinstance(fields[3], bytes):
                    journal.recorded.add(fields[3])
                elif fields[2] == "fault" and isinstance(fields[3], dict) and not fields[3].get("fatal"):
                    peer = fields[3].get("peer")
                    key = peer if isinstance(peer, bytes) else None
                    journal.fault_counts[key] = journal.fault_counts.get(key, 0) + 1
        return journal

    def _write(self, kind: str, payload: Any) -> None:
        if self.sealed:
            return
        self.index += 1
        record = encode([self.index, self.last, kind, payload])
        self.last = link(record)
        self._out(frame(record))

    def _out(self, framed: bytes) -> None:
        """A record is part of the transcript (`data`, what anyone in this process reads) at once, and reaches the
        sink (the file) at once or, while held, with the others held when the hold ends (or a link sends)."""
        self.data.extend(framed)
        if self._holds:
            self._held.append(framed)
        else:
            self.sink(framed)

    def hold(self) -> None:
        self._holds += 1

    def flush(self) -> None:
        self._holds = max(0, self._holds - 1)
        if not self._holds:
            self.write_held()

    def write_held(self) -> None:
        """Hand the held records to the sink. They stay held until it takes them: when it fails (a full disk), every
        later call fails again, so a link that flushes after another link's failed write sends nothing either (a
        message never leaves without its record)."""
        if self._held:
            self.sink(b"".join(self._held))
            self._held = []

    def message(self, wire: bytes) -> None:
        super().message(wire)
        self.recorded.add(wire)
        self._write("msg", wire)

    def fault(self, fault: Fault) -> None:
        """Record a fault; a non-fatal one only while under MAX_FAULTS_PER_PEER and MAX_FAULTS, but for a split
        commit's proof: the replay needs every version it shows (a session records at most one per version, at
        most as many versions of one commit as seats, protocol.md 12), so those are always kept and not counted."""
        if not fault.fatal and fault.code != "equivocation":
            count = self.fault_counts.get(fault.peer, 0)
            if count >= MAX_FAULTS_PER_PEER or sum(self.fault_counts.values()) >= MAX_FAULTS:
                self.faults_left_out += 1
                return
            self.fault_counts[fault.peer] = count + 1
        super().fault(fault)
        self._write("fault", fault_payload(fault, self.recorded))

    def secret(self, record: dict[str, Any]) -> None:
        super().secret(record)
        if self.secret_sink is not None:
            self.secret_sink(frame(encode(record)))

    def seal(self) -> None:
        """Sign the transcript as it stands; nothing is written after the seal."""
        if self.recorder is None or self.sealed:
            return
        self._write("seal", self.recorder.sign(SEAL_TAG + self.last))
        self.sealed = True


def frames(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(offset, record bytes) for each frame; DecodeError at a frame that is cut short or too long."""
    offset = 0
    while offset < len(data):
        if offset + 4 > len(data):
            raise DecodeError(f"frame at byte {offset} is cut short")
        size = int.from_bytes(data[offset : offset + 4], "big")
        if size > MAX_RECORD:
            raise DecodeError(f"frame at byte {offset} claims {size} bytes, over the {MAX_RECORD}-byte limit")
        if offset + 4 + size > len(data):
            raise DecodeError(f"frame at byte {offset} is cut short ({size} bytes announced)")
        yield offset, data[offset + 4 : offset + 4 + size]
        offset += 4 + size



def records(data: bytes) -> Iterator[tuple[str, Any]]:
    """(type, payload) of every record after the header, for a peer reading back its own transcript."""
    for position, (_offset, record) in enumerate(frames(data)):
        fields = decode(record, MAX_RECORD)
        if position and isinstance(fields, list) and len(fields) == 4:
            yield fields[2], fields[3]


def replay_wires(data: bytes) -> list[bytes]:
    """What a restarted peer replays from its own transcript, in order: every message it had accepted, and at its
    place the evidence of every split commit's proof it recorded (a non-fatal `equivocation`: the versions of one
    commit it held besides the one accepted, which the turn's reveals decide on; protocol.md 12 and 13) and of every
    fatal fault it recorded. Without them a resumed node would lose the versions it held and wait for ever on
    reveals naming them, or come back in the game its proof had aborted (since session 31: chaos seed 267, a node
    restarted after it aborted played on, holding no proof)."""
    wires: list[bytes] = []
    for kind, payload in records(data):
        if kind == "msg" and isinstance(payload, bytes):
            wires.append(payload)
        elif kind == "fault" and isinstance(payload, dict) and isinstance(payload.get("evidence"), list):
            fatal = payload.get("fatal")
            if fatal is True or fatal is False and payload.get("code") == "equivocation":
                wires += [wire for wire in payload["evidence"] if isinstance(wire, bytes)]
    return wires


def secret_records(data: bytes) -> list[dict[str, Any]]:
    """The records of a secrets file."""
    return [decode(record, MAX_RECORD) for _offset, record in frames(data)]
