"""A seated member misbehaving (issue 21, items 5 and 6): garbage and replays from a member's own link.

The memo of signatures is bounded in bytes (in process): the unbounded cache held 241 MB of a member's flood.
A copy of a message held costs a lookup: it is neither decoded nor its signature checked (in process).
"""

from __future__ import annotations

import os
import tracemalloc
from collections import Counter
from collections.abc import Callable

import pytest

import p2pnimmt.protocol.envelope as envelope
import p2pnimmt.protocol.inbox as inbox
from p2pnimmt.engine import Settings
from p2pnimmt.protocol.codec import encode
from p2pnimmt.protocol.envelope import NO_PREVIOUS, VERSION
from p2pnimmt.protocol.events import Fault, Outgoing
from p2pnimmt.protocol.identity import (
    MEMO_ENTRY,
    MEMO_SIZE,
    SALT_SIZE,
    Identity,
    clear_verify_memo,
    game_id_for,
    verify,
    verify_memo,
)
from p2pnimmt.protocol.session import Session
from p2pnimmt.protocol.transcript import TranscriptJournal


def test_the_signature_memo_holds_a_bounded_number_of_bytes() -> None:
    """The memo of good signatures keeps the key, the signature and a hash of each message, never the message:
    thousands of large distinct messages leave at most MEMO_SIZE entries of MEMO_ENTRY bytes each (the
    unbounded cache held 241 MB in the issue's flood), and bad signatures are not remembered at all."""
    me = Identity.generate()
    clear_verify_memo()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for k in range(MEMO_SIZE + 1000):
            data = k.to_bytes(4, "big") + bytes(15_000)  # each distinct, as large as the memo takes
            assert verify(me.public_key, me.sign(data), data)
        for k in range(200):
            data = k.to_bytes(4, "big") + bytes(60_000)  # over the memo's size: checked every time
            assert verify(me.public_key, me.sign(data), data)
        entries, size = verify_memo()
        assert entries == MEMO_SIZE and size <= MEMO_SIZE * MEMO_ENTRY, (entries, size)
        for k in range(1000):
            assert not verify(me.public_key, bytes(64), k.to_bytes(4, "big") + bytes(15_000))
        assert verify_memo() == (entries, size)
        held = tracemalloc.get_traced_memory()[0] - before
        assert held < 4 * 1024 * 1024, f"the memo holds {held} bytes after {MEMO_SIZE + 1200} messages of 15-60 KB"
    finally:
        tracemalloc.stop()
    data = b"the same message"
    signature = me.sign(data)
    assert verify(me.public_key, signature, data) and verify(me.public_key, signature, data)  # a hit
    assert not verify(me.public_key, signature, data + b"!")  # a hit is for these exact bytes only
    assert not verify(Identity.generate().public_key, signature, data)


def test_a_copy_of_a_message_held_is_dropped_before_it_is_decoded_or_its_signature_checked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 6 in process: 1,000 copies of a message the session holds, from its sender and relayed, are
    neither decoded nor signature-checked (both counted, the real functions doing the work), and leave
    exactly one fault (`replay`) and one fault record, however many come. Another message under a taken
    sequence number is still decoded and checked."""
    ann, eve = Identity.generate(), Identity.generate()
    salt = os.urandom(SALT_SIZE)
    game_id = game_id_for(ann.public_key, salt)
    host = Session(ann, game_id=game_id, journal=TranscriptJournal(bytearray().extend, ann))
    out = host.host(salt, Settings(players=2, deal="open", max_rounds=1, point_limit=None),
                    [(ann.public_key, "ann", True), (eve.public_key, "eve", True)])
    start = next(o.wire for o in out if isinstance(o, Outgoing))
    other = Session(eve, game_id=game_id)
    ack = next(o.wire for o in other.receive(start, via=ann.peer)
               if isinstance(o, Outgoing) and o.wire != start)
    host.receive(ack, via=eve.peer)
    assert host.inbox.holds(ack)
    counted: Counter[str] = Counter()

    def counting(name: str, real: Callable) -> Callable:
        def call(*args):
            counted[name] += 1
            return real(*args)
        return call

    monkeypatch.setattr(inbox, "open_envelope", counting("decoded", inbox.open_envelope))
    monkeypatch.setattr(envelope, "verify", counting("signature checked", envelope.verify))
    faults = []
    for k in range(1000):
        faults += [o for o in host.receive(ack, via=eve.peer if k % 2 else bytes(16)) if isinstance(o, Fault)]
    assert counted == {}, counted
    assert [f.code for f in faults] == ["replay"], faults
    assert [f.code for f in host.journal.faults] == ["replay"]
    signed = encode([VERSION, game_id, eve.peer, 0, NO_PREVIOUS, "START_ACK", {"other": 1}])
    faults = [o for o in host.receive(encode([signed, bytes(64)]), via=eve.peer) if isinstance(o, Fault)]
    assert counted == {"decoded": 1, "signature checked": 1}, counted
    assert [f.code for f in faults] == ["bad-signature"] and host.phase != "aborted", faults
