"""Where a member listens, over real links on 127.0.0.1 (protocol.md 14, "Where a member listens"; session-40
review): a `where` frame with one bad entry is ignored whole; a join again with an older record keeps the newer; and
a phone relay lets its pages dial a player only where the host saw it and at its record's addresses but this
machine's, never at an address a seat's unsigned `seen` report named. The records' bytes: test_where.py."""

from __future__ import annotations

import asyncio
from typing import Any

from attacker import Attacker

from p2pnimmt.engine import Settings
from p2pnimmt.net.node import Node
from p2pnimmt.net.where import sign_where
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.seatkey import join_proof, seat_secret
from p2pnimmt.web.relay import Relay


def join(link: Attacker, seat_key: str, name: str, where: list | None) -> None:
    """A seat's join (with the seat key's proof) carrying `where`: its own signed record."""
    secret = seat_secret(link.game_id, seat_key)
    payload: dict[str, Any] = {"name": name, "role": "player", "bot": False, "port": 1,
                               "proof": join_proof(secret, link.game_id, *link.nonces, link.identity.public_key)}
    if where is not None:
        payload["where"] = where
    link.send("join", payload)


async def until(condition, what: str, seconds: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.02)


async def three_seats() -> tuple[Node, Node, Attacker]:
    """A host, bob and mallory (a raw seat: the attacker's socket, which joined with the key and its own record at
    port 4321 naming 127.0.0.5), after the START."""
    host = Node(Identity.generate(), name="ann", interface="127.0.0.1", drop_after=0)
    bob = Node(Identity.generate(), name="bob", interface="127.0.0.1", drop_after=0)
    await host.listen()
    await bob.listen()
    await host.host(Settings(players=3, deal="open"))
    assert host.seat_key is not None and host.game_id is not None
    bob.seat_key = host.seat_key
    await bob.join("127.0.0.1", host.port)
    mallory = await asyncio.to_thread(Attacker.dial, host.port)
    record = sign_where(mallory.identity, host.game_id, 4321, ["127.0.0.5"]).record()
    await asyncio.to_thread(join, mallory, host.seat_key, "mal", record)
    await until(lambda: host.session is not None and host.session.start is not None, "the START")
    return host, bob, mallory


async def test_a_relay_never_allows_a_loopback_address_only_a_seen_report_or_a_record_named() -> None:
    host, bob, mallory = await three_seats()
    try:
        await until(lambda: bob.identity.peer in host.book.records, "bob's own record, from its join")
        await asyncio.to_thread(mallory.send, "seen", [[bob.identity.peer, ["127.0.0.9"]]])
        await until(lambda: host.mesh.seen.addresses_of(bob.identity.peer) == ["127.0.0.9"], "mallory's report")
        allowed = Relay(lambda: host, "127.0.0.1").allowed()
        assert ("127.0.0.9", bob.port) not in allowed  # only mallory's unsigned word: a service on this machine
        assert ("127.0.0.5", 4321) not in allowed  # loopback in mallory's own record
        assert ("127.0.0.1", bob.port) in allowed  # where the host saw bob (all here run on 127.0.0.1)
        assert ("127.0.0.1", 4321) in allowed  # where the host saw mallory, at its record's port
        mallory.close()
    finally:
        await bob.close()
        await host.close()


async def test_a_where_frame_with_one_bad_entry_is_ignored_whole(caplog) -> None:
    host, bob, mallory = await three_seats()
    try:
        game, peer = host.game_id, mallory.identity.peer
        assert game is not None
        await until(lambda: host.book.of(peer) is not None, "mallory's record, from its join")
        newer = sign_where(mallory.identity, game, 4322, []).record()
        junk = [newer[0], 4000, [], bytes(64)]  # bob's, with a signature that does not hold
        await asyncio.to_thread(mallory.send, "where", [[mallory.identity.public_key, newer],
                                                        [bob.identity.public_key, junk]])
        await until(lambda: any("ignored a where frame" in r.getMessage() for r in caplog.records), "the line")
        held = host.book.of(peer)
        assert held is not None and held.port == 4321  # the good entry before the bad one is not taken either
        await asyncio.to_thread(mallory.send, "where", [[mallory.identity.public_key, newer]])
        await until(lambda: (w := host.book.of(peer)) is not None and w.port == 4322, "a frame of good entries")
        mallory.close()
    finally:
        await bob.close()
        await host.close()


async def test_a_join_again_with_an_older_record_keeps_the_newer() -> None:
    host = Node(Identity.generate(), name="ann", interface="127.0.0.1", drop_after=0)
    await host.listen()
    await host.host(Settings(players=3, deal="open"))
    assert host.seat_key is not None and host.game_id is not None
    try:
        mallory = await asyncio.to_thread(Attacker.dial, host.port)
        older = sign_where(mallory.identity, host.game_id, 4999, [], serial=10).record()
        newer = sign_where(mallory.identity, host.game_id, 4321, [], serial=20).record()
        await asyncio.to_thread(join, mallory, host.seat_key, "mal", newer)
        await asyncio.to_thread(join, mallory, host.seat_key, "mel", older)  # (a new name: a frame to wait for)

        def shown() -> dict:
            while True:
                entries = {m["key"]: m for m in mallory.lobby()["members"]}
                if entries.get(mallory.identity.public_key, {}).get("name") == "mel":
                    return entries[mallory.identity.public_key]

        entry = await asyncio.to_thread(shown)
        assert entry["where"][0] == 20 and entry["where"][1] == 4321
        member = host.members[mallory.identity.peer]
        assert member.where is not None and member.where.serial == 20
        mallory.close()
    finally:
        await host.close()


async def test_a_where_frame_naming_a_seat_twice_is_ignored_whole(caplog) -> None:
    """A seat's frame of newer records of its own key, each re-signed, had a receiver check every one (ten a frame
    at ten seats, twenty frames a second within a link's asks: a phone page checks one in 1.7 ms on a loaded
    machine); a frame holds a key's latest record only (red team, session 42; protocol.md 14). Before, the host took
    the last of them."""
    host, bob, mallory = await three_seats()
    try:
        game, peer = host.game_id, mallory.identity.peer
        assert game is not None
        await until(lambda: host.book.of(peer) is not None, "mallory's record, from its join")
        records = [sign_where(mallory.identity, game, port, []).record() for port in (4322, 4323)]
        await asyncio.to_thread(mallory.send, "where", [[mallory.identity.public_key, r] for r in records])
        await until(lambda: any("names a seat twice" in r.getMessage() for r in caplog.records), "the line")
        held = host.book.of(peer)
        assert held is not None and held.port == 4321, held  # before: 4323
        mallory.close()
    finally:
        await bob.close()
        await host.close()


async def test_a_where_frame_of_records_held_is_not_checked_again(caplog, monkeypatch) -> None:
    """A seat passes on the records it holds at each change and ping: a frame of records the receiver holds, each
    exactly (key, serial, port, addresses, signature), is not checked again (session-42 review: a seat re-sending
    them had a node check up to a seat's every record a frame, 20 frames a second; the TypeScript page skipped them
    already). The verdicts stay: a held record's serial and signature with another port is checked, and the frame
    ignored whole. The checks are counted at the verify function net.where calls, on mallory's link only. On main the
    held frame cost 3 checks (one a seat, the host's own record among them)."""
    import p2pnimmt.net.where as where

    host, bob, mallory = await three_seats()
    try:
        game, peer = host.game_id, mallory.identity.peer
        assert game is not None
        await until(lambda: host.book.of(peer) is not None and host.book.of(bob.identity.peer) is not None,
                    "mallory's record, from its join, and bob's")
        checks: list[bytes] = []
        on_mallorys = [False]
        real_verify, real_learn = where.verify, host.book.learn

        def verify(key: bytes, signature: bytes, message: bytes) -> bool:
            if on_mallorys[0]:
                checks.append(key)
            return real_verify(key, signature, message)

        def learn(conn, payload) -> None:
            on_mallorys[0] = conn.peer == peer
            try:
                real_learn(conn, payload)
            finally:
                on_mallorys[0] = False

        monkeypatch.setattr(where, "verify", verify)
        monkeypatch.setattr(host.book, "learn", learn)
        mine, bobs = host.book.of(peer), host.book.of(bob.identity.peer)
        assert mine is not None and bobs is not None
        held = host.book.frame()  # what the host tells the seats: its own record too, and mallory's and bob's
        assert sorted(key for key, _record in held) == sorted([mine.key, bobs.key, host.identity.public_key])
        await asyncio.to_thread(mallory.send, "where", held)  # what mallory holds, passed back as a seat does
        moved = [bobs.serial, 4000, list(bobs.addresses), bobs.signature]  # bob's serial and signature, another port
        await asyncio.to_thread(mallory.send, "where", [[mine.key, mine.record()], [bobs.key, moved]])
        await until(lambda: any("ignored a where frame" in r.getMessage() for r in caplog.records), "the line")
        assert checks == [bobs.key], checks  # the moved record only (on main: both held ones, then it)
        newer = sign_where(mallory.identity, game, 4322, []).record()
        await asyncio.to_thread(mallory.send, "where", [[mallory.identity.public_key, newer]])
        await until(lambda: (w := host.book.of(peer)) is not None and w.port == 4322, "a newer record")
        assert checks == [bobs.key, mallory.identity.public_key], checks
        mallory.close()
    finally:
        await bob.close()
        await host.close()


async def test_a_record_of_ours_from_before_the_clock_stepped_back_is_signed_past() -> None:
    # Red team, session 43: bob signed a record at port 4999 before his laptop's clock stepped back an hour; resumed,
    # he listens elsewhere and signs serials an hour lower, so every seat kept the one of before as the newer and
    # dialled him at 4999. Here the host holds such a record of bob's (his own signed word, the serial an hour past
    # his own now); bob, told of it in the host's `where` frame, signs his own again past it, and the host takes it.
    host, bob, mallory = await three_seats()
    try:
        await until(lambda: bob.identity.peer in host.book.records, "bob's own record, from his join")
        own = bob.own_where()
        assert own is not None and host.game_id is not None
        before = sign_where(bob.identity, host.game_id, 4999, [], serial=own.serial + 3_600_000)
        assert host.book.take(before)
        host.book.taken()  # the host tells its linked seats, bob among them, what it holds
        await until(lambda: host.book.records[bob.identity.peer].port == bob.port,
                    "bob's record at his port of now, past the one of before")
        now = host.book.records[bob.identity.peer]
        assert now.serial > before.serial and now.key == bob.identity.public_key
        mallory.close()
    finally:
        await bob.close()
        await host.close()
