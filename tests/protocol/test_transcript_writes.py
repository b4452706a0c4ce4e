"""What one input leads to is written to the transcript in one piece, of whole records, before its output is sent.

A received message can lead to several records (it, our own reveal it completes the commits for, the next
turn's...): they reach the transcript's sink in one call (one write to the file), not one call per record.
"""

from __future__ import annotations

from harness import Net
from support import short

from p2pnimmt.protocol.codec import decode
from p2pnimmt.protocol.transcript import MAX_RECORD, TranscriptJournal, frames, records


def test_one_write_per_input_and_whole_records() -> None:
    net = Net(4, settings=short(4, rounds=1), seed=5, spectators=0, shuffle_delivery=False)
    peer = net.peers[1]
    session = net.sessions[peer]
    journal = session.journal
    writes: list[bytes] = []
    sink = journal.sink

    def counted(data: bytes) -> None:
        writes.append(data)
        sink(data)

    journal.sink = counted
    per_input: list[tuple[int, int]] = []  # (sink calls, records written) per receive
    receive = session.receive

    def receiving(wire: bytes, via: bytes | None = None) -> list:
        calls, index = len(writes), journal.index
        out = receive(wire, via)
        per_input.append((len(writes) - calls, journal.index - index))
        return out

    session.receive = receiving
    net.start()
    net.run()
    assert session.phase == "over"
    assert per_input and all(calls <= 1 for calls, _ in per_input), "an input wrote the transcript more than once"
    assert any(count >= 2 for _, count in per_input), "no input led to several records: nothing was batched"
    assert all((calls == 1) == (count > 0) for calls, count in per_input)
    for data in writes:  # every write is whole frames of whole records
        for _offset, record in frames(data):
            fields = decode(record, MAX_RECORD)
            assert isinstance(fields, list) and len(fields) == 4
    data = bytes(net.transcripts[peer])
    assert [payload for kind, payload in records(data) if kind == "msg"] == journal.messages
    assert list(records(data))[-1][0] == "seal"


def test_what_is_held_is_in_the_data_a_front_reads() -> None:
    """A front reads `journal.data` (ui.model checks it at GameOver): records held over a burst are in it at once,
    while the file gets them only when the hold ends, in one write of whole records."""
    written: list[bytes] = []
    journal = TranscriptJournal(written.append)
    header = bytes(journal.data)
    assert written == [header]
    journal.hold()  # a burst (Node.burst)
    journal.hold()  # one input of it (Session)
    journal.message(b"m1")
    journal.flush()
    journal.message(b"m2")
    assert written == [header], "held records reached the file before the burst ended"
    assert [payload for _kind, payload in records(bytes(journal.data))] == [b"m1", b"m2"]
    journal.flush()
    assert b"".join(written) == bytes(journal.data) and len(written) == 2
