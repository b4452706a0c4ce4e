"""The seat key at the host's door (protocol.md 14, "The seat key"; net.seatdoor), over real TCP on 127.0.0.1: a
join (a player's or a spectator's) is admitted only with a proof of the key bound to its own link; a seat of the
START comes back without one; wrong keys are bounded per address."""

from __future__ import annotations

import asyncio
from functools import partial

import screens
from attacker import Attacker

from p2pnimmt.bots import make_bot
from p2pnimmt.engine import Settings
from p2pnimmt.net.node import Node
from p2pnimmt.net.seatdoor import WRONG_BURST
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.seatkey import join_proof, seat_secret

LO = "127.0.0.1"
until = partial(screens.until, timeout=20.0)


def node(name: str, role: str = "player", seat_key: str | None = None) -> Node:
    identity = Identity.generate()
    made = Node(identity, name=name, role=role, bot=make_bot("random", identity.secret) if role == "player" else None,
                interface=LO, drop_after=0)
    made.seat_key = seat_key
    return made


async def hosted(seats: int = 3) -> Node:
    host = node("ann")
    await host.listen()
    await host.host(Settings(players=seats, max_rounds=1, point_limit=None, deal="sealed"))
    return host


async def joined(host: Node, joiner: Node) -> str | None:
    """`joiner` joins `host`: None once the host has it as a member, else the host's refusal."""
    await joiner.listen()
    await joiner.join(LO, host.port, host.game_id)
    await until(lambda: joiner.identity.peer in host.members or joiner.refused is not None, "an answer to the join")
    return joiner.refused


async def sits(host: Node, name: str, source: str = LO, identity: Identity | None = None) -> list[str]:
    """`name` joins `host` with its seat key from `source` (a loopback address: another machine) as `identity`: the
    names of the members the host's lobby frame then lists (its refusal, if any, is an EOFError or an assert)."""
    link = await asyncio.to_thread(partial(Attacker.dial, host.port, identity, source=source))
    try:
        link.join("player", name=name, seat_key=host.seat_key)
        lobby = await asyncio.to_thread(link.lobby)
    finally:
        link.close()
    return [m["name"] for m in lobby["members"]]


async def test_the_host_draws_a_key_and_admits_only_joins_that_prove_it() -> None:
    host = await hosted()
    assert host.seat_key is not None and len(host.seat_key) == 4
    wrong = "0000" if host.seat_key != "0000" else "1111"
    nodes = [node("bob"), node("bob", seat_key=wrong), node("tv", role="spectator"),
             node("tv", role="spectator", seat_key=wrong), node("bob", seat_key=host.seat_key),
             node("tv", role="spectator", seat_key=host.seat_key)]
    try:
        said = [await joined(host, each) for each in nodes]
        assert said[0] is not None and said[0].startswith("the seat key is missing"), said
        assert said[1] is not None and said[1].startswith("wrong seat key"), said
        assert said[2] is not None and said[2].startswith("the seat key is missing"), said
        assert said[3] is not None and said[3].startswith("wrong seat key"), said
        assert said[4] is None and said[5] is None, said
        assert [m.name for m in host.players()] == ["ann", "bob"]
        assert {m.peer for m in host.members.values()} == {host.identity.peer, nodes[4].identity.peer,
                                                          nodes[5].identity.peer}
        assert host.lobby.door.refused == 4
    finally:
        for each in [*nodes, host]:
            await each.close()


async def test_a_proof_seen_on_one_link_is_worthless_on_another() -> None:
    """A stranger who overheard a friend's join (its proof) replays it on a link of its own, and even under the
    friend's key on a new link: the nonces differ, the proof does not hold."""
    host = await hosted()
    try:
        seen = await asyncio.to_thread(Attacker.dial, host.port)
        secret = seat_secret(host.game_id, host.seat_key)
        overheard = join_proof(secret, host.game_id, *seen.nonces, seen.identity.public_key)
        replay = await asyncio.to_thread(Attacker.dial, host.port, seen.identity)  # the friend's own key, a new link
        replay.send("join", {"name": "bob", "role": "player", "bot": False, "port": 1, "proof": overheard})
        refused = await asyncio.to_thread(replay.until, "refuse")
        assert refused.startswith("wrong seat key"), refused
        seen.send("join", {"name": "bob", "role": "player", "bot": False, "port": 1, "proof": overheard})
        lobby = await asyncio.to_thread(seen.lobby)  # on its own link the same proof holds
        assert "bob" in [m["name"] for m in lobby["members"]]
        seen.close()
        replay.close()
    finally:
        await host.close()


async def test_a_seat_of_the_start_comes_back_without_a_key() -> None:
    """Once the START seats a key, that seat's join on a new link is a member's: admitted without a proof (a
    resumed node whose secrets predate the key); a spectator's is not."""
    host = await hosted(seats=2)
    bob = node("bob", seat_key=host.seat_key)
    try:
        assert await joined(host, bob) is None
        await until(lambda: host.session.start is not None, "the START")
        back = await asyncio.to_thread(Attacker.dial, host.port, bob.identity)
        back.join("player", name="bob", port=bob.port)  # no seat key
        lobby = await asyncio.to_thread(back.lobby)
        assert "bob" in [m["name"] for m in lobby["members"]]
        back.close()
        stranger = await asyncio.to_thread(Attacker.dial, host.port)
        stranger.join("spectator", name="tv")
        assert (await asyncio.to_thread(stranger.until, "refuse")).startswith("the seat key is missing")
        stranger.close()
    finally:
        await bob.close()
        await host.close()


async def test_wrong_keys_are_bounded_per_address() -> None:
    """After WRONG_BURST wrong keys from one address, the next join from it is refused unchecked, the right key
    too; another address's join with the right key is admitted."""
    host = await hosted()
    wrong = "0000" if host.seat_key != "0000" else "1111"
    try:
        for _ in range(int(WRONG_BURST)):
            guess = await asyncio.to_thread(Attacker.dial, host.port)
            guess.join("player", name="mal", seat_key=wrong)
            assert (await asyncio.to_thread(guess.until, "refuse")).startswith("wrong seat key")
            guess.close()
        right = await asyncio.to_thread(Attacker.dial, host.port)
        right.join("player", name="mal", seat_key=host.seat_key)
        assert (await asyncio.to_thread(right.until, "refuse")).startswith("too many wrong seat keys")
        right.close()
        assert await sits(host, "bob", source="127.0.0.2") == ["ann", "bob"]  # another machine
        # the host's own seat (a bot, a guest seat: made in its process) dials from the spent address: it sits
        own = Identity.generate()
        host.lobby.door.trusted.add(own.peer)
        assert "bot1" in await sits(host, "bot1", identity=own)
    finally:
        await host.close()


async def test_a_join_without_a_proof_guesses_nothing_and_costs_nothing() -> None:
    """Joins without a proof (an old link, a page whose link lost its key) are refused but not charged: 20 of them
    from one address, and a friend there with the key still sits."""
    host = await hosted()
    try:
        for _ in range(20):
            keyless = await asyncio.to_thread(partial(Attacker.dial, host.port, source="127.0.0.3"))
            keyless.join("player", name="mal")
            assert (await asyncio.to_thread(keyless.until, "refuse")).startswith("the seat key is missing")
            keyless.close()
        assert "bob" in await sits(host, "bob", source="127.0.0.3")
    finally:
        await host.close()


def test_a_refusal_for_the_seat_key_is_said_in_german() -> None:
    """The host's refusals are English on the wire (every node's words); a German joiner reads them in German
    (i18n.said), each of the four, and none of them in English."""
    from p2pnimmt import i18n
    from p2pnimmt.net.seatdoor import MISSING, TOO_MANY, TOO_MANY_ADDRESSES, WRONG

    i18n.use("de")
    try:
        said = [i18n.said(text) for text in (MISSING, WRONG, TOO_MANY, TOO_MANY_ADDRESSES)]
    finally:
        i18n.use("en")
    assert said[0].startswith("der Platzschlüssel fehlt: ") and said[1].startswith("falscher Platzschlüssel: ")
    assert said[2].startswith("zu viele falsche Platzschlüssel von dieser Adresse")
    assert said[3].startswith("zu viele falsche Platzschlüssel von zu vielen Adressen")
    assert not any("seat key" in text for text in said), said


async def test_a_member_is_not_refused_unchecked_where_a_stranger_spent_its_address() -> None:
    """bob sits from 127.0.0.3 (a phone page's relay, say: every page behind it dials from there); a stranger there
    spends the address's WRONG_BURST; bob's next link (a redial, a page reloaded) sends its join again with the key
    and keeps its seat. Before (session 35), the host refused it unchecked ("too many wrong seat keys"): the joiner
    stops at a refusal, and the START then seated a player who had gone. A newcomer from there is still refused
    unchecked."""
    host = await hosted()
    wrong = "0000" if host.seat_key != "0000" else "1111"
    bob = Identity.generate()
    try:
        assert await sits(host, "bob", source="127.0.0.3", identity=bob) == ["ann", "bob"]
        for _ in range(int(WRONG_BURST)):
            guess = await asyncio.to_thread(partial(Attacker.dial, host.port, source="127.0.0.3"))
            guess.join("player", name="mal", seat_key=wrong)
            assert (await asyncio.to_thread(guess.until, "refuse")).startswith("wrong seat key")
            guess.close()
        assert await sits(host, "bob", source="127.0.0.3", identity=bob) == ["ann", "bob"]
        newcomer = await asyncio.to_thread(partial(Attacker.dial, host.port, source="127.0.0.3"))
        newcomer.join("player", name="carl", seat_key=host.seat_key)
        assert (await asyncio.to_thread(newcomer.until, "refuse")).startswith("too many wrong seat keys")
        newcomer.close()
    finally:
        await host.close()
