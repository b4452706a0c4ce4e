"""A lone DROP is a claim, not evidence (protocol.md 11.1, "A seat joins a vote only by its own policy"): the node's
policy (net/waiting.py) joins another seat's vote only against a seat it sees gone itself. Real nodes in one
process over TCP on 127.0.0.1: ann (the host), bob and mal are bots, sam is a person (no bot, no clock); every
honest node's drop time is a minute.

- sam is thinking over its first card, linked to all, when mal signs DROP against it at that step (a cheat: its
  node's timer did not run out, mal votes at once). Nobody joins: sam moves, and the game goes on with it to the
  end. (Until session 27 the session joined any vote on a seat it waited on: ann and bob signed at once, and sam
  was dropped at every node before it could move.)
- sam's node is gone (its links cut, no `bye`, nothing listening) while the game waits on it, and mal votes: ann
  and bob join at once, long before their drop time, so a seat really gone is dropped no later than before."""

from __future__ import annotations

import asyncio
from functools import partial

import screens

from p2pnimmt.bots import make_bot
from p2pnimmt.engine import Settings
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.session import Session

LO = "127.0.0.1"
DROP_AFTER = 60.0  # the honest nodes' drop time: no vote of their own timer within the test
until = partial(screens.until, timeout=20.0)


def node(name: str, bot: bool) -> Node:
    identity = Identity.generate()
    return Node(identity, name=name, bot=make_bot("random", identity.secret) if bot else None, interface=LO,
                drop_after=DROP_AFTER)


async def seated(ann: Node, others: list[Node]) -> None:
    """ann hosts a table of four (open deal, one round, no clock); the others join, and the game starts."""
    await ann.listen()
    await ann.host(Settings(players=4, max_rounds=1, point_limit=None, deal="open"))
    for joiner in others:
        await joiner.listen()
        joiner.seat_key = ann.seat_key  # what ann's screen shows them
        await joiner.join(LO, ann.port, ann.game_id)


def seat_of(session: Session | None, who: Node) -> int:
    assert session is not None
    return session.roster.index(who.identity.peer)


def waits_on_only(n: Node, seat: int) -> bool:
    """`n`'s game waits on `seat` alone at the first commit of the game."""
    s = n.session
    return s is not None and s.phase == "turn" and s.turn == 0 and s.waiting_for() == (seat,)


def voters(n: Node, seat: int) -> set[int]:
    s = n.session
    assert s is not None
    at = s.table.now()
    return set() if at is None else s.table.voters(at, seat)


async def test_a_cheats_lone_vote_against_a_person_thinking_drops_nobody() -> None:
    ann, bob, mal, sam = node("ann", True), node("bob", True), node("mal", True), node("sam", False)
    honest = [ann, bob, sam]
    try:
        await seated(ann, [bob, mal, sam])
        await until(lambda: all(n.session is not None and n.session.phase == "turn" for n in (ann, bob, mal, sam)),
                    "the game under way at every node")
        victim, cheat = seat_of(ann.session, sam), seat_of(ann.session, mal)
        await until(lambda: all(waits_on_only(n, victim) for n in (ann, bob, mal)), "the game waiting on sam")
        assert mal.session is not None
        mal.act(mal.session.drop(victim))  # the cheat's vote, at once: sam is linked and thinking
        await until(lambda: all(cheat in voters(n, victim) or victim in n.session.dropped  # type: ignore[union-attr]
                                for n in honest), "mal's vote at every honest node")
        # The policy looks twice a second (net/waiting.PULL_EVERY): four looks, and nobody joined.
        await asyncio.sleep(2.0)
        for n in honest:
            assert n.session is not None
            assert victim not in n.session.dropped, (n.name, "sam dropped on mal's word alone")
            assert voters(n, victim) == {cheat}, (n.name, voters(n, victim))
            assert n.session.waiting_for() in ((victim,), ()), n.session.waiting_for()
        # sam moves, and plays on (a bot from now on: its person is quick): the game ends with it seated.
        session = sam.session
        assert session is not None
        sam.bot = make_bot("random", sam.identity.secret)
        sam.act(session.play(min(session.view().hand)))
        await asyncio.wait_for(asyncio.gather(*(n.done.wait() for n in (ann, bob, mal, sam))), 60)
        for n in (ann, bob, mal, sam):
            assert n.session is not None and n.session.phase == "over", (n.name, n.session and n.session.phase)
            assert not n.session.dropped, (n.name, n.session.dropped)
            assert n.session.fault is None, (n.name, n.session.fault)
    finally:
        for n in (sam, mal, bob, ann):
            await n.close()


def vanish(n: Node) -> None:
    """`n`'s node is gone at once, as a laptop whose lid is shut: nothing listens, every link is cut with no `bye`,
    and it signs nothing more."""
    n.leaving = True
    assert n.server is not None
    n.server.close()
    for task in list(n.tasks):
        task.cancel()
    for conn in list(n.links.values()):
        conn.writer.transport.abort()


async def test_a_vote_against_a_seat_whose_link_is_gone_is_joined_at_once() -> None:
    ann, bob, mal, sam = node("ann", True), node("bob", True), node("mal", True), node("sam", False)
    try:
        await seated(ann, [bob, mal, sam])
        await until(lambda: all(n.session is not None and n.session.phase == "turn" for n in (ann, bob, mal, sam)),
                    "the game under way at every node")
        victim = seat_of(ann.session, sam)
        await until(lambda: all(waits_on_only(n, victim) for n in (ann, bob, mal)), "the game waiting on sam")
        vanish(sam)
        await until(lambda: all(sam.identity.peer not in n.linked for n in (ann, bob, mal)), "sam's links gone")
        loop = asyncio.get_running_loop()
        voted = loop.time()
        assert mal.session is not None
        mal.act(mal.session.drop(victim))  # mal's vote (its own timer, say, ran out first)
        await until(lambda: all(victim in n.session.dropped for n in (ann, bob, mal)),  # type: ignore[union-attr]
                    "sam dropped at ann's, bob's and mal's")
        took = loop.time() - voted
        assert took < DROP_AFTER / 4, f"joined after {took:.1f} s, not at once"
        await asyncio.wait_for(asyncio.gather(*(n.done.wait() for n in (ann, bob, mal))), 60)
        for n in (ann, bob, mal):
            assert n.session is not None and n.session.phase == "over", (n.name, n.session.phase)
            assert list(n.session.dropped) == [victim], (n.name, n.session.dropped)
    finally:
        for n in (mal, bob, ann):
            await n.close()
        if sam.leaving:  # vanished: what it ran was cancelled
            await asyncio.gather(*sam.tasks, return_exceptions=True)
        else:
            await sam.close()
