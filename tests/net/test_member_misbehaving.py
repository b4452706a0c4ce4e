"""A seated member misbehaving (issue 21, items 5 and 6): garbage and replays from a member's own link.

The memo of signatures is bounded in bytes (in process): the unbounded cache held 241 MB of a member's flood.
"""

from __future__ import annotations

import tracemalloc

from p2pnimmt.protocol.identity import MEMO_ENTRY, MEMO_SIZE, Identity, clear_verify_memo, verify, verify_memo


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
