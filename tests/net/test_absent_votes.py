"""The drop vote's count of the absent (protocol.md 11.1; net/waiting.py: few_enough): every seat with no link
counts as gone, whatever its silence. Two seats of four that went together reach the drop time at different
moments (each one's silence runs from its own last message, and one's last may come late, relayed); a vote cast
against the first in between would count only once the other came back and voted, and would then drop it for
coming back (issue 26: a phone and its relay node; before, only tests/web/test_web_phone_failover.py saw it).

Deterministic: seat 0's real watch_waiting runs on a clock the test moves (each of its half-second pauses is
half a second of the test's clock), over a table of four in-memory sessions (tests/protocol/harness.py)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "protocol"))

from harness import Net, stopped_at_first_commit  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402
from p2pnimmt.net import waiting  # noqa: E402
from p2pnimmt.protocol.envelope import open_envelope  # noqa: E402

DROP_AFTER = 10.0


class TestClock:
    """The loop's time as watch_waiting reads it, moved only by its own pauses; `at(t, what)` runs `what` once
    the clock reaches t (before watch_waiting's look at that moment)."""

    __test__ = False

    def __init__(self) -> None:
        self.now = 0.0
        self.plans: list[tuple[float, object]] = []

    def time(self) -> float:
        return self.now

    def at(self, t: float, what) -> None:
        self.plans.append((t, what))

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        for t, what in [p for p in self.plans if p[0] <= self.now]:
            self.plans.remove((t, what))
            what()
        await asyncio.sleep(0)


async def test_two_seats_gone_at_different_moments_are_not_voted_out_one_by_one(monkeypatch) -> None:
    """Seats 2 and 3 of four have no link to seat 0; seat 3's commit reaches seat 0 late (relayed), three seconds
    after seat 2's last message. Seat 2 reaches the drop time first: seat 0 must not vote it out while seat 3,
    silent for less, is gone too (two of four cannot be voted out together). Once seat 3 links again, seat 2 is
    voted out. Failed before the rule counted every seat with no link: seat 0 voted against seat 2 at 10 s."""
    net = stopped_at_first_commit(4, {2, 3}, seed=26)
    me, p1, p2, p3 = (i.peer for i in net.identities)
    session = net.sessions[me]
    held_from_3 = [d for d in net.held if d[1] == p3 and d[0] == me]
    assert session.phase == "turn" and sorted(session.waiting_for()) == [2, 3], session.phase
    assert held_from_3, "seat 3's commit waits for seat 0"

    clock = TestClock()
    votes: list[tuple[float, int]] = []
    drop = session.drop

    def voting(seat: int) -> list:
        outputs = drop(seat)  # LocalError when there is no vote to cast (one was cast already): not counted
        votes.append((clock.now, seat))
        return outputs

    monkeypatch.setattr(session, "drop", voting)
    monkeypatch.setattr(waiting, "asyncio", SimpleNamespace(get_running_loop=lambda: clock, sleep=clock.sleep))
    node = SimpleNamespace(session=session, done=asyncio.Event(), leaving=False, links={}, linked=frozenset({p1}),
                           byes=set(), drop_after=DROP_AFTER, act=lambda outputs: None)

    def seat_3_heard_late() -> None:  # relayed to seat 0 by a seat that had it: seat 3 is still not linked
        for _to, _frm, wire in held_from_3:
            session.receive(wire, via=p1)

    clock.at(3.0, seat_3_heard_late)
    clock.at(20.0, lambda: setattr(node, "linked", frozenset({p1, p3})))  # seat 3 links again
    clock.at(22.0, node.done.set)
    await waiting.watch_waiting(node)

    assert list(session.waiting_for()) == [2]  # seat 3's commit counted: the game waits on seat 2 alone
    assert not [v for v in votes if v[0] < 20.0], f"voted while two seats were gone: {votes}"
    assert [seat for t, seat in votes] == [2], votes  # seat 2 only, once seat 3 is back
    assert 20.0 <= votes[0][0] <= 21.0, votes


def test_few_enough_counts_the_active_seats_gone_against_the_quorum() -> None:
    """few_enough itself: one seat gone can always be voted out; two of four cannot; two of five can (two of
    five is within most_named); three of five cannot."""
    for players, gone, expected in [(4, {2}, True), (4, {2, 3}, False), (5, {3, 4}, True), (5, {2, 3, 4}, False)]:
        net = stopped_at_first_commit(players, gone, seed=players)
        session = net.sessions[net.identities[0].peer]
        assert session.phase == "turn", session.phase
        assert waiting.few_enough(session, gone) is expected, (players, gone)


async def test_a_node_whose_person_left_votes_no_seat_out(monkeypatch) -> None:
    """Node.leave (protocol.md 14, `bye`): seat 0's person left (a host stopped by Ctrl-C leaves its node and its
    bots at once) while the game waits on seat 2, gone, whose `bye` came: seat 0's own timer votes nobody out from
    then on. Before, a node that left went on voting until it closed (a host's node voted out its own bot, whose
    bye went first): seat 0 voted against seat 2 at once."""
    net = stopped_at_first_commit(3, {2}, seed=26)
    me, p1, p2 = (i.peer for i in net.identities)
    session = net.sessions[me]
    assert session.phase == "turn" and list(session.waiting_for()) == [2], session.phase
    clock = TestClock()
    votes: list[int] = []
    drop = session.drop

    def voting(seat: int) -> list:
        outputs = drop(seat)  # LocalError when there is no vote to cast (one was cast already): not counted
        votes.append(seat)
        return outputs

    monkeypatch.setattr(session, "drop", voting)
    monkeypatch.setattr(waiting, "asyncio", SimpleNamespace(get_running_loop=lambda: clock, sleep=clock.sleep))
    node = SimpleNamespace(session=session, done=asyncio.Event(), leaving=True, links={}, linked=frozenset({p1}),
                           byes={p2}, drop_after=DROP_AFTER, act=lambda outputs: None)
    clock.at(2 * DROP_AFTER, node.done.set)  # (the node closes; a loop that did not stop for leaving ends here)
    await waiting.watch_waiting(node)
    assert votes == [], votes
    node.leaving = False  # the same node whose person stayed votes seat 2 out at once (it said bye: it left)
    node.done.clear()
    clock.at(clock.now + 2 * DROP_AFTER, node.done.set)
    await waiting.watch_waiting(node)
    assert votes == [2], votes


def test_too_few_counts_the_seats_an_open_vote_names() -> None:
    """Players leave one by one, each saying bye: seat 0 votes out the first that left (at once: it said bye), then
    the message the game waited for comes in late (relayed) and is held back while seat 0's vote is open, so the
    game waits on nobody (waiting_for() is empty, as the sealed deal's step is while such a vote is open); then the
    others leave too. Seat 0 alone of four: too few remain, at once (net.waiting.too_few), whichever seat the open
    vote names: the one whose commit came late (1) or one gone while the game waited on another (2, the flake of
    tests/net/test_leaving.py's slow bob, commit 38f2d2d). Before, too_few counted only the seats waiting_for()
    names and said the game moves: the node waited its whole drop time."""
    for target in (1, 2):
        net = stopped_at_first_commit(4, {1}, seed=40 + target)
        me, p1, p2, p3 = (i.peer for i in net.identities)
        session = net.sessions[me]
        assert session.phase == "turn" and list(session.waiting_for()) == [1], session.phase
        net.handle(me, session.drop(target))  # (not delivered: the others are gone)
        commit = next(w for to, frm, w in net.held if to == me and frm == p1 and open_envelope(w).kind == "PLAY_COMMIT")
        session.receive(commit, via=p2)  # seat 1's commit (not its reveal: it left), relayed late: held back
        assert session.waiting_for() == () and waiting.voted_on(session) == {target}, target
        assert waiting.too_few(session, frozenset({p1, p2, p3}) - {net.identities[target].peer}) is None
        found = waiting.too_few(session, frozenset(), byes={p1, p2, p3})
        assert found is not None, target
        assert found[1] == [1, 2, 3] and "p1, p2, p3 left (1 of 4 remain" in found[0], found


async def test_a_linked_seat_that_ignores_its_clock_is_voted_out_a_drop_time_after_it_ran_out(monkeypatch) -> None:
    """Protocol.md 11.2 and net.waiting (session 33's red team, a seated cheat on time): with a clock of c seconds a
    seat's own node owes its move within c; one whose modified node ignores its clock, linked and answering the
    whole time, is stalled from c on, and seat 0 votes it out a --drop-after later: at c + drop, not before (a
    thinking player within its clock is never voted out). So a cheat just under that line costs the table at most
    c + drop a move, and never stops the evening."""
    net = Net(3, settings=Settings(players=3, deal="open", max_rounds=1, clock=5), seed=33)
    cheat = net.identities[2].peer
    net.withhold = lambda to, frm, wire: frm == cheat and open_envelope(wire).kind == "PLAY_COMMIT"
    net.start()
    net.run()
    me, p1, _p2 = (i.peer for i in net.identities)
    session = net.sessions[me]
    assert session.phase == "turn" and list(session.waiting_for()) == [2], session.phase
    clock = TestClock()
    votes: list[tuple[float, int]] = []
    drop = session.drop

    def voting(seat: int) -> list:
        outputs = drop(seat)
        votes.append((clock.now, seat))
        return outputs

    monkeypatch.setattr(session, "drop", voting)
    monkeypatch.setattr(waiting, "asyncio", SimpleNamespace(get_running_loop=lambda: clock, sleep=clock.sleep))
    node = SimpleNamespace(session=session, done=asyncio.Event(), leaving=False, links={},
                           linked=frozenset({p1, cheat}), byes=set(), drop_after=DROP_AFTER, act=lambda outputs: None)
    clock.at(30.0, node.done.set)
    await waiting.watch_waiting(node)
    assert [seat for _t, seat in votes] == [2], votes
    assert 5.0 + DROP_AFTER <= votes[0][0] <= 5.0 + DROP_AFTER + 1.0, votes
