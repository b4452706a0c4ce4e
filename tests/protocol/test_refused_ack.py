"""A seat's START_ACK that the checks refuse costs that seat its place, not the others their game (protocol.md 12,
"A refused START_ACK"; 14, "A new start").

Before session 30 every fault a START_ACK proved was fatal: one seat that signed a wrong START_ACK aborted the game at
every honest node before its first card (benchmarks/attacks/start_ack_lie.py). Now each honest node records the fault
as non-fatal, naming the liar, stays starting (the game waits for the host's new start without the liar, app.anew),
and its transcript verifies up to there and names the refused seat. The host's own START_ACK is still fatal, and a
START_ACK after the seat's first one taken expels the seat from it (the game goes on). Every case here failed on the
code before (the honest nodes aborted)."""

from __future__ import annotations

import hashlib

import pytest
from adversary import Adversary, AttackNet, Rule
from harness import Net

from p2pnimmt.engine import Settings
from p2pnimmt.net.waiting import refused_acks
from p2pnimmt.protocol.envelope import NO_PREVIOUS
from p2pnimmt.protocol.events import GameAborted
from p2pnimmt.protocol.verify import verify_transcript

DEALS = [pytest.param("open", "standard", id="open"), pytest.param("sealed", "standard", id="sealed"),
         pytest.param("open", "draft", id="draft")]


def game(players: int, seat: int, rule, deal: str = "open", variant: str = "standard", seed: int = 1,
         spectators: int = 1) -> tuple[Net, Adversary]:
    net = AttackNet(players, seed=seed, spectators=spectators,
                    settings=Settings(players=players, max_rounds=1, deal=deal, variant=variant))
    adv = Adversary(net, seat, rule)
    net.start()
    net.run()
    return net, adv


def wrong_hash(adv: Adversary, env, body):
    if env.kind == "START_ACK":
        body["start"] = hashlib.sha256(b"another start").digest()
        adv.fired = True
    return None


def extra_field(adv: Adversary, env, body):
    if env.kind == "START_ACK":
        body["note"] = 1
        adv.fired = True
    return None


def assert_refused(net: Net, adv: Adversary, code: str, liars: tuple[int, ...] | None = None) -> None:
    """Every honest node (the spectator too) is still starting, not aborted; it recorded `code` (not fatal) naming
    each liar, refused each liar's seat and nobody else's; its transcript verifies up to the end of what it holds and
    names each liar refused."""
    assert adv.fired, "the attack was never made"
    ids = [i.peer for i in net.identities]
    liars = (adv.seat,) if liars is None else liars
    for p in net.peers:
        if p in (ids[s] for s in liars):
            continue
        s = net.sessions[p]
        who = f"seat {ids.index(p)}" if p in ids else "spectator"
        assert s.phase == "starting", f"{who} is in phase {s.phase}, faults {net.faults(p)}"
        assert s.fault is None and not any(isinstance(e, GameAborted) for e in net.events[p]), who
        faults = net.faults(p)
        assert not any(f.fatal for f in faults), (who, faults)
        assert {f.peer for f in faults} == {ids[x] for x in liars}, (who, faults)
        assert all(f.code == code for f in faults), (who, faults)
        assert sorted(s.table.refused) == sorted(liars), who
        assert all("its START_ACK is refused" in f.detail for f in faults), (who, faults)
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert not verdict.ok and "ends before the game does (phase starting" in verdict.fault, verdict.report()
        for x in liars:
            assert f"refused START_ACK: {s.names[x]} ({code})" in verdict.fault, verdict.report()


@pytest.mark.parametrize("deal, variant", DEALS)
@pytest.mark.parametrize("players, seat", [(4, 2), (10, 7), (3, 1)])
def test_wrong_start_hash_is_refused(players, seat, deal, variant):
    """A START_ACK of another START: `start-mismatch`, recorded, and the honest nodes wait for a new start."""
    net, adv = game(players, seat, wrong_hash, deal, variant)
    assert_refused(net, adv, "start-mismatch")


@pytest.mark.parametrize("deal, variant", DEALS)
def test_bad_body_is_refused(deal, variant):
    """A START_ACK with a field it does not have: `bad-body`, refused alike."""
    net, adv = game(4, 1, extra_field, deal, variant)
    assert_refused(net, adv, "bad-body")


def test_a_broken_chain_start_ack_is_refused():
    """A START_ACK, the seat's first message, that names a previous message: `chain-broken`, refused alike (its
    evidence is no message of the transcript: verify replays the proof)."""

    def broken(adv: Adversary, env, body):
        if env.kind == "START_ACK":
            adv.fired = True
            return adv.to(adv.advance(adv.seal_at(0, bytes([1]) * 32, "START_ACK", body)).wire)
        return None

    net, adv = game(4, 3, broken)
    assert_refused(net, adv, "chain-broken")


def test_two_liars_are_both_refused():
    """Two seats lie: both are refused at every honest node (the host leaves both out of its new start)."""
    net = AttackNet(5, seed=2, settings=Settings(players=5, max_rounds=1, deal="open"))
    first = Adversary(net, 1, wrong_hash)
    Adversary(net, 3, extra_field)
    net.start()
    net.run()
    assert first.fired
    ids = [i.peer for i in net.identities]
    for p in (ids[0], ids[2], ids[4]):
        s = net.sessions[p]
        assert s.phase == "starting" and s.fault is None, net.faults(p)
        assert sorted(s.table.refused.items()) == [(1, "start-mismatch"), (3, "bad-body")]


def test_later_valid_start_ack_does_not_count():
    """A liar that signs a right START_ACK after its refused one: nothing it signs from the refused one on counts, so
    the game still does not start (the host's new start decides)."""

    def again(adv: Adversary, env, body):
        if env.kind == "START_ACK":
            adv.fired = True
            right = dict(body)
            body["start"] = bytes(32)
            return adv.send("START_ACK", body) + adv.send("START_ACK", right)
        return None

    net, adv = game(4, 2, again)
    for p in net.peers:
        if p != adv.peer:
            s = net.sessions[p]
            assert s.phase == "starting" and s.fault is None and list(s.table.refused) == [2], net.faults(p)
            assert [f.code for f in net.faults(p)] == ["start-mismatch"], net.faults(p)


def test_second_start_ack_expels_and_the_game_goes_on():
    """A START_ACK after the seat's first one was taken (a `duplicate`) does not stop the start: the seat is expelled
    from it, as for any rule break, and the others finish the game with the same result."""

    def twice(adv: Adversary, env, body):
        if env.kind == "START_ACK":
            adv.fired = True
            return adv.send("START_ACK", body, env) + adv.send("START_ACK", {"start": bytes(32)})
        return None

    net, adv = game(4, 2, twice)
    results = set()
    for p in net.peers:
        if p != adv.peer:
            s = net.sessions[p]
            assert s.phase == "over" and s.fault is None, net.faults(p)
            assert 2 in s.table.expelled and not s.table.refused
            assert [(f.code, f.fatal) for f in net.faults(p)] == [("start-mismatch", False)], net.faults(p)
            assert verify_transcript(bytes(net.transcripts[p])).ok
            results.add(s.result)
    assert len(results) == 1


def test_host_start_ack_is_still_fatal():
    """The host's own START_ACK: `unexpected`, fatal at every node (nobody but the host can start the game again)."""

    def host_acks(adv: Adversary, env, body):
        if env.kind == "START" and not adv.fired:
            adv.fired = True
            return adv.default(env, body) + adv.send("START_ACK", {"start": env.hash})
        return None

    net, adv = game(4, 0, host_acks)
    assert adv.fired
    for p in net.peers:
        if p != adv.peer:
            s = net.sessions[p]
            assert s.phase == "aborted" and s.fault is not None and s.fault.code == "unexpected", net.faults(p)


def acked_two_ways(wrong: list[bytes] | None = None) -> Rule:
    """The seat's START_ACK: the right one to the host and seat 1, one on another start to every other peer (its
    bytes appended to `wrong`)."""

    def equivocate(adv: Adversary, env, body):
        if env.kind == "START_ACK":
            adv.fired = True
            ids = [i.peer for i in adv.net.identities]
            right = adv.seal_at(0, NO_PREVIOUS, "START_ACK", body)
            other = adv.seal_at(0, NO_PREVIOUS, "START_ACK", {"start": bytes(32)})
            if wrong is not None:
                wrong.append(other.wire)
            adv.advance(right, env)
            return [(p, right.wire) for p in ids[:2]] + [(p, other.wire) for p in adv.others if p not in ids[:2]]
        return None

    return equivocate


@pytest.mark.parametrize("shuffle, seed", [(False, 4), (True, 1), (True, 4), (True, 5)])
def test_equivocating_start_ack_leaves_every_node_waiting_for_the_new_start(shuffle, seed):
    """One START_ACK right to two seats (the host among them), another wrong to the others: a node that holds both
    while still starting refuses the seat (the right version it took counts for nothing); one that had started on
    the right version (it took every START_ACK first) aborts on the equivocation; either way every honest node holds
    the same ground, waiting.refused_acks, so each takes the host's new start without the seat (protocol.md 14).
    Unshuffled (seed 4) the host and seat 1 started first; shuffled, some seeds have every node still starting."""

    net = AttackNet(5, seed=seed, shuffle_delivery=shuffle, settings=Settings(players=5, max_rounds=1, deal="open"))
    adv = Adversary(net, 4, acked_two_ways())
    net.start()
    net.run()
    assert adv.fired
    phases = set()
    for p in net.peers:
        if p != adv.peer:
            s = net.sessions[p]
            assert refused_acks(s) == [4], (str(s.phase), net.faults(p))
            phases.add(str(s.phase))
            assert all(f.peer == adv.peer for f in net.faults(p))
            verdict = verify_transcript(bytes(net.transcripts[p]))
            assert "refused START_ACK: p4" in verdict.fault or s.phase == "aborted" and "equivocation" in \
                verdict.fault, verdict.report()
    if not shuffle:
        assert phases == {"starting", "aborted"}  # both ways are taken here
