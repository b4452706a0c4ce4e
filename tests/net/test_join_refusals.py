"""protocol.md 14's `join-refusals`: every refusal a host gives a `join` (and its removal of a member, the same frame),
in the vectors' words, each made to happen at a real host (net/lobby.py Lobby.join, net/seatdoor.py) in this process
over TCP on 127.0.0.1 by a raw joiner (tests/attacker.py), the host's state set as the case needs: seats taken, the
game started, seats held for a rematch, a key cut off, 32 spectators watching. (The page's reading of each, the
vectors' `page`: web/peer/test/network_vectors.test.ts.)"""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

from attacker import Attacker

from p2pnimmt import i18n
from p2pnimmt.engine import Settings
from p2pnimmt.net.lobby import MAX_SPECTATORS
from p2pnimmt.net.members import member_from
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.seatkey import SEAT_KEY_LENGTH, WRONG_ADDRESSES, WRONG_BURST

SPEC = (Path(__file__).parents[2] / "protocol.md").read_text()
CASES = json.loads(re.search(r"```json join-refusals\n(.*?)```", SPEC, re.S).group(1))
REFUSALS = {case["why"]: case["refusal"] for case in CASES}
LO = "127.0.0.1"


def refused(port: int, payload: Any = None, *, seat_key: str | None = None, name: str = "mal", role: str = "player",
            identity: Identity | None = None, source: str = LO, **extra: Any) -> str:
    """The words a new link's join is refused with (`payload` as it is, else an honest join's with `extra`)."""
    link = Attacker.dial(port, identity, source=source)
    try:
        if payload is None and not extra:
            link.join(role, name=name, port=4000, seat_key=seat_key)
        else:
            link.send("join", payload if payload is not None else {"name": name, "role": role, "bot": False,
                                                                     "port": 4000, **extra})
        return link.until("refuse")
    finally:
        link.close()


def wrong_key(key: str) -> str:
    """Another seat key of the same form."""
    return ("B" if key[0] != "B" else "C") + key[1:SEAT_KEY_LENGTH]


async def test_every_refusal_of_a_join_in_the_vectors_words() -> None:
    host = Node(Identity.generate(), name="host", interface=LO, drop_after=0)
    said: dict[str, str] = {}
    try:
        await host.listen()
        await host.host(Settings(players=3, max_rounds=1, point_limit=None, deal="open"))
        port, key = host.port, host.seat_key
        assert key is not None

        async def ask(why: str, **kw: Any) -> None:
            said[why] = await asyncio.to_thread(refused, port, **kw)

        await ask("a join that is no map", payload="x")
        await ask("a join with a field as none of section 14's", payload={"name": "", "role": "player", "bot": False,
                                                                          "port": 4000})
        await ask("no proof of the seat key")
        await ask("a proof of another seat key", seat_key=wrong_key(key))
        tries = 0
        while (words := await asyncio.to_thread(refused, port, seat_key=wrong_key(key))) != REFUSALS[
                "past the wrong keys an address may try"]:
            tries += 1
            assert tries < 100, words
        said["past the wrong keys an address may try"] = words
        await ask("a link proof that does not hold", seat_key=key, source="127.0.3.1", link_proof=bytes(32))
        await ask("a player named like a seat's player (here h0st, beside host)", seat_key=key, name="h0st",
                  source="127.0.3.2")
        cut = Identity.generate()
        host.mesh.trouble.cut_off(cut.peer, "127.0.3.3")
        await ask("a key cut off at this address, told once", seat_key=key, identity=cut, source="127.0.3.3")
        for n in range(MAX_SPECTATORS):  # 32 watching (members as a lobby frame names them)
            watcher = Identity.generate()
            member = member_from({"key": watcher.public_key, "name": f"tv{n}", "role": "spectator", "bot": False,
                                  "host": LO, "port": 4000})
            assert member is not None
            host.members[watcher.peer] = member
        await ask("a spectator past the 32 watching", seat_key=key, role="spectator", source="127.0.3.4")
        held = host.held_seats
        held.held = {Identity.generate().peer: 0, Identity.generate().peer: 1}  # a rematch's two other seats
        await ask("a newcomer where the seats left are held for a rematch's players", seat_key=key, source="127.0.3.5")
        held.held = {}
        held.continues = lambda: set()  # type: ignore[method-assign]  # (a game carrying scores: its seats only)
        await ask("a newcomer at a game that carries the scores of the one before", seat_key=key, source="127.0.3.6")
        del held.continues
        host.seats = 1  # the host's seat is the table's only one
        await ask("a player where every seat is taken (the lobby)", seat_key=key, source="127.0.3.7")
        host.lobby_state = "playing"
        await ask("a player once the game has started", seat_key=key, source="127.0.3.8")
        host.lobby_state, host.seats = "lobby", 3
        bob = await asyncio.to_thread(Attacker.dial, port, None, 10.0, "127.0.3.9")
        try:
            await asyncio.to_thread(bob.join, "player", "bob", 4000, key)
            await asyncio.to_thread(bob.lobby)
            host.lobby.kick(bob.identity.peer)
            said["a member the host removes from the lobby (not a join's answer: the same frame)"] = \
                await asyncio.to_thread(bob.until, "refuse")
        finally:
            bob.close()
        # last: once the addresses past those counted apart spent their count, a key from a new one is refused unchecked
        now = time.monotonic()
        for n in range(WRONG_ADDRESSES):  # a wrong key from each of as many addresses as are counted apart (the LAN's)
            host.lobby.door.tries.charge(f"10.9.{n // 256}.{n % 256}", now)
        for n in range(int(WRONG_BURST) + 1):  # then from addresses past those: they share one count
            words = await asyncio.to_thread(refused, port, seat_key=wrong_key(key), source=f"127.0.2.{n + 1}")
        said["past the addresses whose wrong keys are counted apart"] = words
    finally:
        await host.close()
    assert said == REFUSALS


def test_each_refusal_in_german_as_the_reference_says_it() -> None:
    """The vectors' `de`: the words a joiner of the reference shows in German (i18n.said; the page's refusalSaid gives
    the same: web/peer/test/refusal_words.test.ts)."""
    i18n.use("de")
    try:
        assert {case["why"]: i18n.said(case["refusal"]) for case in CASES if "de" in case} == \
            {case["why"]: case["de"] for case in CASES if "de" in case}
    finally:
        i18n.use("en")
