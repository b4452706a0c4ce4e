"""A proof the table holds reaches every node that can still be reached (protocol.md 12, "A proof reaches every
node"; 13: a restart replays the proofs it recorded; 14 `heads`).

The proof here is the one of chaos seed 267 (tests/peer/test_chaos_agrees.py): seat 4 signs one START_ACK that is
right for the host and seat 1 and another, wrong one for the others (test_refused_ack.py's equivocation). The nodes
still starting when they hold both refuse seat 4; the host, which had started on the right version, aborts on the
proof. Seat 1 had started on the right version too; the wrong one, and the proof, were on their way to it when it
went down (or its links were lost): what was on its way is gone. Before session 31 a proof passed once: the heads
exchange of its next links brought chain messages only, and the wrong version is in no chain that seat 1 lacks
(its heads already count seat 4's START_ACK), so seat 1 waited in the deal for a game nobody else played, holding
no proof. And a node restarted after it had aborted came back in the game, its fatal proof not replayed. Each test
here failed on the code before.
"""

from __future__ import annotations

from adversary import Adversary, AttackNet
from harness import Net, catch_up, restart
from test_refused_ack import acked_two_ways

from p2pnimmt.engine import Settings
from p2pnimmt.net.waiting import refused_acks
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.verify import verify_transcript

LIAR, MISSED = 4, 1


def table(miss: bool = True) -> tuple[Net, Adversary, bytes]:
    """Five seats, unshuffled (seed 4: the host and seat 1 start first, on the right version); `miss`: every copy of
    the wrong START_ACK on its way to seat 1 (a relay, a proof's evidence) is held, as for a node that is down. The
    net run until quiet, and the wrong version's bytes."""
    wrong: list[bytes] = []
    net = AttackNet(5, seed=4, shuffle_delivery=False, settings=Settings(players=5, max_rounds=1, deal="open"))
    adv = Adversary(net, LIAR, acked_two_ways(wrong))
    missed = net.identities[MISSED].peer
    if miss:
        net.withhold = lambda to, frm, wire: to == missed and wire in wrong
    net.start()
    net.run()
    assert adv.fired and len(wrong) == 1
    return net, adv, wrong[0]


def lose_what_was_on_its_way(net: Net, peer: bytes) -> None:
    """`peer` was down (or its links were lost): what was on its way to it is gone."""
    net.withhold = None
    net.held = [item for item in net.held if item[0] != peer]
    net.queue.extend(net.held)
    net.held = []


def assert_where_the_others_are(net: Net, adv: Adversary, peer: bytes) -> None:
    """`peer` holds the proof and ends as a node that started on the right version does (the host): aborted on seat
    4's equivocation, so it takes the host's new start like the others (refused_acks); its transcript says why."""
    host = net.sessions[net.identities[0].peer]
    session = net.sessions[peer]
    assert str(host.phase) == "aborted" and host.fault is not None and host.fault.code == "equivocation"
    assert str(session.phase) == "aborted", (str(session.phase), net.faults(peer))
    assert session.fault is not None and session.fault.code == "equivocation" and session.fault.peer == adv.peer
    for p in net.peers:
        if p != adv.peer:
            assert refused_acks(net.sessions[p]) == [LIAR], (p.hex()[:8], str(net.sessions[p].phase))
    verdict = verify_transcript(bytes(net.transcripts[peer]))
    assert not verdict.ok and "equivocation" in verdict.fault, verdict.report()


def test_the_setting_a_node_that_missed_the_proof_plays_on_alone():
    """(What the others hold and seat 1 does not: without a new link it cannot learn it.)"""
    net, adv, wrong = table()
    missed = net.sessions[net.identities[MISSED].peer]
    assert str(missed.phase) == "deal" and refused_acks(missed) == [] and missed.fault is None
    assert any(to == net.identities[MISSED].peer and wire == wrong for to, _frm, wire in net.held)
    assert sorted(str(net.sessions[p].phase) for p in net.peers if p != adv.peer) == \
        ["aborted", "deal", "starting", "starting", "starting"]


def test_a_node_restarted_after_the_proof_passed_gets_it_on_its_next_link():
    net, adv, wrong = table()
    peer = net.identities[MISSED].peer
    lose_what_was_on_its_way(net, peer)
    net.handle(peer, restart(net, peer))
    catch_up(net, peer)  # its new links: the heads exchange
    net.run()
    assert_where_the_others_are(net, adv, peer)


def test_a_node_relinked_after_a_cut_gets_the_proof():
    net, adv, wrong = table()
    peer = net.identities[MISSED].peer
    lose_what_was_on_its_way(net, peer)
    catch_up(net, peer)
    net.run()
    assert_where_the_others_are(net, adv, peer)


def test_the_heads_answer_carries_the_proof_once_and_not_the_signers_own():
    """Session.missing_for: after the messages a peer lacks, every proof's messages that we did not sign (in the
    order sent on), each once; a node with no proof answers the messages lacked alone."""
    net, adv, wrong = table()
    missed = net.sessions[net.identities[MISSED].peer]
    host = net.sessions[net.identities[0].peer]
    answer = host.missing_for(missed.heads())
    assert answer.count(wrong) == 1 and answer[-1] == wrong
    right = [w for w in answer if open_envelope(w).sender == adv.peer and w != wrong]
    assert len(right) == 1 and answer.index(right[0]) == len(answer) - 2  # the proof's other version, after
    assert missed.missing_for(host.heads()) == []  # seat 1 holds no proof, and lacks nothing the host lacks
    assert host.missing_for(host.heads()) == [right[0], wrong]
    liar = net.sessions[adv.peer]
    assert all(open_envelope(w).sender != adv.peer for w in liar.missing_for(host.heads()))


def test_a_node_restarted_after_it_aborted_stays_aborted():
    """The host aborted on the proof; restarted from its transcript (no link yet), it replays the fatal record's
    evidence and is aborted again, holding the proof for its next links (before: back in the deal, no proof)."""
    net, adv, wrong = table(miss=False)
    peer = net.identities[0].peer
    assert str(net.sessions[peer].phase) == "aborted"
    before = bytes(net.transcripts[peer])
    net.queue.clear()
    restart(net, peer)
    session = net.sessions[peer]
    assert str(session.phase) == "aborted", str(session.phase)
    assert session.fault is not None and session.fault.code == "equivocation" and session.fault.peer == adv.peer
    assert bytes(net.transcripts[peer]) == before  # nothing recorded again
    assert wrong in session.missing_for(net.sessions[net.identities[MISSED].peer].heads())
