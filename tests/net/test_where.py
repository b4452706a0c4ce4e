"""Where a member listens, in its own signed word (protocol.md 14, "Where a member listens"; red team, session 40):
the `where` record's bytes and signature (section 16's vectors), what a record that is not one is, and how a node's
book takes the host's lobby frames: a record is kept whatever later frames say, and a player whose record it holds
is dialled at the record's port, never at a port the host's word alone gives. The processes: test_lying_lobby.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from p2pnimmt.net.members import MAX_ADDRESSES
from p2pnimmt.net.node import Node
from p2pnimmt.net.where import MAX_RECORDS, MAX_SERIAL, sign_where, where_bytes, where_from
from p2pnimmt.protocol.identity import Identity

SPEC = (Path(__file__).parents[2] / "protocol.md").read_text()
VECTORS = json.loads(re.search(r"```json where-vectors\n(.*?)```", SPEC, re.S).group(1))
GAME = bytes.fromhex(VECTORS["game_id"])
ANN = Identity(bytes.fromhex(VECTORS["secret"]))


def test_the_vectors_signed_bytes_and_signature() -> None:
    v = VECTORS
    signed = where_bytes(GAME, ANN.public_key, v["serial"], v["port"], v["addresses"])
    assert signed.hex() == v["signed"]
    where = sign_where(ANN, GAME, v["port"], v["addresses"], serial=v["serial"])
    assert where.signature.hex() == v["signature"]  # Ed25519 is deterministic
    record = [v["serial"], v["port"], v["addresses"], bytes.fromhex(v["signature"])]
    assert where.record() == record
    assert where_from(record, ANN.public_key, GAME) == where


BOB = Identity(bytes(range(32, 64)))
GOOD = sign_where(ANN, GAME, 4000, ["192.168.1.20"], serial=7)


@pytest.mark.parametrize("why, record, key, game", [
    ("another key", GOOD.record(), BOB.public_key, GAME),
    ("another game", GOOD.record(), ANN.public_key, bytes(16)),
    ("the port changed", [7, 4001, ["192.168.1.20"], GOOD.signature], ANN.public_key, GAME),
    ("an address added", [7, 4000, ["192.168.1.20", "10.0.0.1"], GOOD.signature], ANN.public_key, GAME),
    ("the serial changed", [8, 4000, ["192.168.1.20"], GOOD.signature], ANN.public_key, GAME),
    ("port 0", sign_where(ANN, GAME, 0, [], serial=7).record(), ANN.public_key, GAME),
    ("a serial past 2^53 - 1", sign_where(ANN, GAME, 4000, [], serial=MAX_SERIAL + 1).record(), ANN.public_key, GAME),
    ("a name, not an address", sign_where(ANN, GAME, 4000, ["ann-laptop"], serial=7).record(), ANN.public_key, GAME),
    ("an address with a zone ID", sign_where(ANN, GAME, 4000, ["fe80::1%eth0"], serial=7).record(), ANN.public_key,
     GAME),  # (the TypeScript peer's isIp refuses it: a record both read alike)
    ("9 addresses", sign_where(ANN, GAME, 4000, ["10.0.0.1"] * (MAX_ADDRESSES + 1), serial=7).record(),
     ANN.public_key, GAME),
    ("a serial that is a bool", [True, 4000, ["192.168.1.20"], GOOD.signature], ANN.public_key, GAME),
    ("a short signature", [7, 4000, ["192.168.1.20"], GOOD.signature[:63]], ANN.public_key, GAME),
    ("three fields", GOOD.record()[:3], ANN.public_key, GAME),
    ("a map", {"port": 4000}, ANN.public_key, GAME),
])
def test_a_record_that_is_not_the_members_own_signed_word_is_none(why: str, record: object, key: bytes,
                                                                  game: bytes) -> None:
    assert where_from(record, key, game) is None, why


def lobby(members: list[dict]) -> dict:
    return {"state": "lobby", "seats": 10, "members": members}


def entry(identity: Identity, name: str, port: int, where: list | None = None) -> dict:
    found = {"key": identity.public_key, "name": name, "role": "player", "bot": False, "host": "10.0.0.7",
             "port": port, "addresses": []}
    if where is not None:
        found["where"] = where
    return found


def test_a_node_dials_a_player_at_its_signed_port_and_keeps_the_record_a_later_lobby_frame_leaves_out() -> None:
    me = Node(Identity.generate(), name="cat")
    me.game_id = GAME
    host = Identity.generate()
    signed = sign_where(BOB, GAME, 4000, ["192.168.1.20"], serial=10).record()
    me.lobby.mirror(lobby([entry(host, "mal", 5000), entry(BOB, "bob", 1, signed)]))  # the host's word: port 1
    assert me.mesh.player_addresses(BOB.peer) == [("10.0.0.7", 4000), ("192.168.1.20", 4000)]
    me.lobby.mirror(lobby([entry(host, "mal", 5000), entry(BOB, "bob", 1)]))  # the record left out: kept
    assert me.mesh.player_addresses(BOB.peer) == [("10.0.0.7", 4000), ("192.168.1.20", 4000)]
    older = sign_where(BOB, GAME, 4444, [], serial=9).record()
    me.lobby.mirror(lobby([entry(host, "mal", 5000), entry(BOB, "bob", 1, older)]))  # an older one: not taken
    assert me.mesh.player_addresses(BOB.peer)[0] == ("10.0.0.7", 4000)
    forged = [11, 1, [], signed[3]]  # the host's try at a later record: its signature does not hold
    me.lobby.mirror(lobby([entry(host, "mal", 5000), entry(BOB, "bob", 1, forged)]))
    assert me.mesh.player_addresses(BOB.peer)[0] == ("10.0.0.7", 4000)
    newer = sign_where(BOB, GAME, 4001, [], serial=11).record()  # bob moved (a new port): its own later word
    me.lobby.mirror(lobby([entry(host, "mal", 5000), entry(BOB, "bob", 1, newer)]))
    assert me.mesh.player_addresses(BOB.peer) == [("10.0.0.7", 4001)]
    dan = Identity.generate()  # a player without a record (a phone page, an older node): the host's word
    me.lobby.mirror(lobby([entry(host, "mal", 5000), entry(BOB, "bob", 1), entry(dan, "dan", 4002)]))
    assert me.mesh.player_addresses(dan.peer) == [("10.0.0.7", 4002)]


def test_a_spectators_record_and_one_for_another_key_are_not_taken_and_the_book_is_bounded() -> None:
    me = Node(Identity.generate(), name="cat")
    me.game_id = GAME
    watcher = Identity.generate()
    spectator = {**entry(watcher, "tv", 4000, sign_where(watcher, GAME, 4000, []).record()), "role": "spectator"}
    me.lobby.mirror(lobby([spectator, entry(BOB, "bob", 1, sign_where(ANN, GAME, 4000, []).record())]))
    assert me.book.records == {}
    players = [Identity.generate() for _ in range(MAX_RECORDS + 5)]
    for many in range(0, len(players), 5):  # players come and go (before a START): the book keeps the present ones
        me.lobby.mirror(lobby([entry(p, f"p{many + i}", 4000 + i, sign_where(p, GAME, 4000 + i, []).record())
                               for i, p in enumerate(players[many:many + 5])]))
        assert len(me.book.records) <= MAX_RECORDS
    assert {p.peer for p in players[-5:]} <= set(me.book.records)


def test_a_record_signed_later_has_a_higher_serial_even_in_the_same_millisecond_or_after_the_clock_stepped_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The serial is the wall clock in milliseconds, but past the last one signed: a second record (a port or the
    addresses changed) replaces the first at every book (Book.take keeps the higher serial)."""
    import p2pnimmt.net.where as where

    monkeypatch.setattr(where, "_last_serial", 0)  # (as in a fresh process; put back after the test)
    monkeypatch.setattr(where.time, "time", lambda: 1_765_065_600.000)
    first = sign_where(ANN, GAME, 4000, [])
    second = sign_where(ANN, GAME, 4001, [])  # the same millisecond
    monkeypatch.setattr(where.time, "time", lambda: 1_765_065_599.000)  # the clock stepped back a second
    third = sign_where(ANN, GAME, 4002, [])
    assert first.serial < second.serial < third.serial


def test_a_record_held_is_taken_unchecked_only_as_held_and_for_the_game_it_was_checked_for() -> None:
    """Book._held, what a seat's `where` frame of records held costs no check (session-42 review): the book's one
    store says each record and the game it was checked for (since session 43; before, a second dict beside it), and
    our own record as we last told it. Pinned (it holds on main too)."""
    me = Node(Identity.generate(), name="cat")
    me.game_id, me.port = GAME, 4100
    bob = sign_where(BOB, GAME, 4000, ["192.168.1.20"], serial=10)
    me.lobby.mirror(lobby([entry(BOB, "bob", 1, bob.record())]))
    assert me.book.of(BOB.peer) == bob
    assert me.book._held(BOB.public_key, bob.record()) == bob  # exactly as held: no check
    assert me.book._held(BOB.public_key, [10, 4001, ["192.168.1.20"], bob.signature]) is None  # another port
    assert me.book._held(ANN.public_key, bob.record()) is None  # another key
    assert me.book._held(BOB.public_key, "nonsense") is None
    own = me.own_where()
    assert own is not None and me.book._held(me.identity.public_key, own.record()) is None  # not told yet
    assert [me.identity.public_key, own.record()] in me.book.frame()
    assert me.book._held(me.identity.public_key, own.record()) == own  # told: it comes back from the seats
    assert me.identity.peer not in me.book.records  # (ours is not one of the players' records)
    me.game_id = bytes(16)  # another game: what was checked for the last one is checked again
    assert me.book._held(BOB.public_key, bob.record()) is None
    assert me.book._held(me.identity.public_key, own.record()) is None


def test_a_lobby_frame_checks_our_own_record_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lobby.mirror checks each player's record once (a signature each), ours too, seated or watching: it says
    whether the host forwards records (Node.where_forwarded). Before session 46 our own record was checked twice
    when we sat (once for the book, once for where_forwarded). The real where_from runs; the test counts its calls."""
    import p2pnimmt.net.lobby as lobby_module

    checked: list[bytes] = []

    def counted(record: object, key: bytes, game: bytes):
        checked.append(key)
        return where_from(record, key, game)

    monkeypatch.setattr(lobby_module, "where_from", counted)
    me = Node(ANN, name="ann")
    me.game_id = GAME
    ours, bobs = sign_where(ANN, GAME, 4000, []).record(), sign_where(BOB, GAME, 4001, []).record()
    me.lobby.mirror(lobby([entry(ANN, "ann", 4000, ours), entry(BOB, "bob", 4001, bobs)]))
    assert checked == [ANN.public_key, BOB.public_key] and me.where_forwarded
    checked.clear()
    me.lobby.mirror(lobby([{**entry(ANN, "ann", 4000, ours), "role": "spectator"}, entry(BOB, "bob", 4001, bobs)]))
    assert checked == [ANN.public_key, BOB.public_key] and me.where_forwarded
    checked.clear()
    me.lobby.mirror(lobby([entry(ANN, "ann", 4000, bobs), entry(BOB, "bob", 4001)]))  # not our own word
    assert checked == [ANN.public_key, BOB.public_key] and not me.where_forwarded
