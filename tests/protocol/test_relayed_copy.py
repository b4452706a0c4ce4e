"""Inbox.relayed_copy: the copies a link may skip without the session (net.frames) are exactly those the session
would find nothing in: a message it holds, delivered by a peer that is not its sender."""

from __future__ import annotations

from harness import Net

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.envelope import open_envelope


def test_relayed_copies_are_what_the_session_finds_nothing_in() -> None:
    net = Net(3, seed=24, settings=Settings(players=3, max_rounds=1, deal="open"))
    net.start()
    net.run()
    me = net.peers[0]
    session = net.sessions[me]
    held = list(session.journal.messages)
    assert len(held) > 30
    for wire in held:
        sender = open_envelope(wire).sender
        for via in net.peers:
            relayed = session.inbox.relayed_copy(wire, via)
            assert relayed == (via != sender)
            if relayed:
                assert session.receive(wire, via=via) == []
    assert session.journal.messages == held  # nothing recorded for the copies
    stranger = bytes(64)
    assert not session.inbox.relayed_copy(stranger, net.peers[1])  # not held: the session decodes it
    sent_again = next(w for w in held if open_envelope(w).sender == net.peers[1])
    assert not session.inbox.relayed_copy(sent_again, net.peers[1])  # its sender again: a replay, for the session
    assert [f.code for f in session.receive(sent_again, via=net.peers[1])] == ["replay"]
