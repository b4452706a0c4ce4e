"""Inbox.held_copy: the copies a link may skip without the session (net.frames) are exactly those the session
would find nothing in: a message it holds, delivered by a peer that is not its sender, or by its sender the first
time (a relay's copy came first)."""

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
            if via != sender:  # its sender: see the next test
                assert session.inbox.held_copy(wire, via)
                assert session.receive(wire, via=via) == []
    assert session.journal.messages == held  # nothing recorded for the copies
    stranger = bytes(64)
    assert not session.inbox.held_copy(stranger, net.peers[1])  # not held: the session decodes it
    sent_again = next(w for w in held if open_envelope(w).sender == net.peers[1])
    assert not session.inbox.held_copy(sent_again, net.peers[1])  # its sender again: a replay, for the session
    assert [f.code for f in session.receive(sent_again, via=net.peers[1])] == ["replay"]


def test_a_senders_first_copy_after_a_relays_is_noted_without_the_session() -> None:
    """The sender's own copy of a message a relay brought first: the session finds nothing in it but notes it (a
    second one is a replay); held_copy notes it alike, so the second is still the session's replay."""
    net = Net(3, seed=24, settings=Settings(players=3, max_rounds=1, deal="open"))
    net.start()
    net.run()
    session = net.sessions[net.peers[0]]
    inbox = session.inbox
    sender = net.peers[1]
    wire = next(w for w in session.journal.messages if open_envelope(w).sender == sender)
    env = open_envelope(wire)
    inbox._direct.discard((sender, env.seq))  # as if a relay's copy had come first
    assert session.receive(wire, via=sender) == []  # what the session does with the sender's first copy
    assert (sender, env.seq) in inbox._direct
    inbox._direct.discard((sender, env.seq))
    assert inbox.held_copy(wire, sender)  # taken without the session, noted alike
    assert (sender, env.seq) in inbox._direct
    assert not inbox.held_copy(wire, sender)  # the second time: a replay, for the session
    assert [f.code for f in session.receive(wire, via=sender)] == ["replay"]
    inbox._direct.discard((sender, env.seq))
    inbox.close()
    assert not inbox.held_copy(wire, sender)  # a closed inbox notes nothing (as ingest)


def test_what_a_peer_lacks_is_every_accepted_message_past_its_heads() -> None:
    """Session.missing_for (a peer's pull while it waits, net.waiting): the accepted messages from each sender past
    the count the asker holds, in the order accepted; nothing, without a pass over the game, when it lacks none."""
    net = Net(3, seed=25, settings=Settings(players=3, max_rounds=1, deal="open"))
    net.start()
    net.run()
    session = net.sessions[net.peers[0]]
    accepted = session.inbox.accepted
    counts = {sender: count for sender, count in session.heads()}
    assert sum(counts.values()) == len(accepted) > 30
    for have in ({}, counts, {s: c - 1 for s, c in counts.items()}, {s: c + 5 for s, c in counts.items()},
                 {net.peers[1]: 3}, {s: (c // 2 if i % 2 else c) for i, (s, c) in enumerate(counts.items())}):
        heads = [[s, c] for s, c in have.items()]
        assert session.missing_for(heads) == [e.wire for e in accepted if e.seq >= have.get(e.sender, 0)]
    assert session.missing_for([[s, c] for s, c in counts.items()]) == []
    assert len(session.missing_for([])) == len(accepted)
