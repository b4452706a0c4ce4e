"""Delivery faults (protocol.md 8, 12, 13) in both implementations: the same bad bytes, delivered by the same peers
to a TypeScript node and to the Python node in its place, make the same fault records, byte for byte.

A table of three seats (seat 1 and the second spectator in TypeScript) is fed, before its START and during the
game, bytes that fail each of section 8's gates: `malformed` (no msgpack value, the value cut short, bytes after
it, a reserved type byte, each of section 7's limits, a map key twice or not a str, an ext type, nesting too deep,
a str that is not UTF-8; and values of the wrong shape: not [signed, signature], a short signature, a signed part
of the wrong length, another version, ids and hashes of the wrong size, a kind that is no str, a body that is no
map), `wrong-game`, `unknown-sender`, `bad-signature`, and STARTs that are not accepted (a signer not in its
roster, a bad signature, a game id not bound to its signer), each delivered by a seat, a spectator, a peer nobody
knows and nobody. Then the game goes on to its end: every node sends the same bytes and writes the same
transcript as the Python node in its place, and both verifiers say the same of each transcript.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from mixed import NodeSeats
from nacl import bindings as sodium
from test_mixed_tables import (
    Table,
    child as child,  # noqa: F401 (the node process of test_mixed_tables, a fixture)
    node_by_node,
    node_child,
)

from p2pnimmt.protocol.envelope import NO_PREVIOUS, seal
from p2pnimmt.protocol.identity import Identity, game_id_for
from p2pnimmt.protocol.transcript import records

STRANGER = Identity(hashlib.sha256(b"a stranger").digest())
OTHER_GAME = hashlib.sha256(b"another game").digest()[:16]


def codec_garbage() -> list[bytes]:
    """Bytes that are no acceptable msgpack value (section 7)."""
    pack = msgpack.packb
    return [b"", b"\xc1", b"\x92\xc4\x05ab", pack([b"a", b"b" * 64]) + b"\x00", b"\xa2\xff\xfe",
            b"\x82\xa1a\x01\xa1a\x02", b"\x81\x01\x02", b"\x81\xc4\x01k\x02", b"\xd4\x01\x00",
            b"\x91" * 7 + b"\x00", pack("x" * 1025), pack(list(range(257))),
            pack({f"k{i}": i for i in range(33)}), b"\x92" + b"\xdd\xff\xff\xff\xff"]


def bad_shapes(game: bytes, sender: bytes) -> list[bytes]:
    """msgpack values that are not a message (section 8's shape)."""
    pack = msgpack.packb
    sig = b"s" * 64

    def signed(*fields: Any) -> bytes:
        return pack([pack(list(fields), use_bin_type=True), sig], use_bin_type=True)

    good = (1, game, sender, 7, NO_PREVIOUS, "START_ACK", {"start": b"h" * 32})
    return [pack([1, 2]), pack([b"a", b"b"], use_bin_type=True), signed(*good[:6]), signed(2, *good[1:]),
            signed("1", *good[1:]), signed(1, game[:8], *good[2:]), signed(*good[:2], sender + b"x", *good[3:]),
            signed(*good[:3], -1, *good[4:]), signed(*good[:3], 2**32, *good[4:]), signed(*good[:4], b"p", *good[5:]),
            signed(*good[:5], 5, good[6]), signed(*good[:6], [1]),
            *(signed(*good[:3], bad, *good[4:]) for bad in (1.5, 1e16, 1e-05, 0.1, -0.0, 123456.789, None, False, b"s'q",
                                                           [1, "x"], {"a": b"\x00"}, "a'b", 'a"b\n'))]


def forged(wire: bytes) -> bytes:
    """The message with its signature's last byte changed: nobody signed it."""
    return wire[:-1] + bytes([wire[-1] ^ 1])


# A point of order 8 (RFC 8032's small-order encodings).
ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


def cofactored_only(signer: Identity, wire: bytes) -> bytes:
    """The message signed by `signer` with R = [r]B + T, T of order 8, S = r + k a: [8][S]B = [8]R + [8][k]A holds,
    [S]B = R + [k]A does not — a signature the cofactored equation takes and section 8's check refuses."""
    signed, _ = msgpack.unpackb(wire)
    clamped = bytearray(hashlib.sha512(signer.secret).digest()[:32])
    clamped[0] &= 248
    clamped[31] = (clamped[31] & 127) | 64
    a = sodium.crypto_core_ed25519_scalar_reduce(bytes(clamped) + bytes(32))
    r = sodium.crypto_core_ed25519_scalar_reduce(hashlib.sha512(b"nonce" + signed).digest())
    R = sodium.crypto_core_ed25519_add(sodium.crypto_scalarmult_ed25519_base_noclamp(r), ORDER_8)
    k = sodium.crypto_core_ed25519_scalar_reduce(
        hashlib.sha512(R + signer.public_key + b"p2pnimmt/message/v1" + signed).digest())
    S = sodium.crypto_core_ed25519_scalar_add(r, sodium.crypto_core_ed25519_scalar_mul(k, a))
    return msgpack.packb([signed, R + S], use_bin_type=True)


@pytest.fixture(scope="module")
def portable_child(node_modules: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[NodeSeats]:
    """A node process whose TypeScript seats sign and check with the portable code a browser runs."""
    seats = node_child(tmp_path_factory)
    yield seats
    seats.close()


def test_a_signature_only_the_cofactored_equation_takes_is_bad_signature_on_both_sides(
        portable_child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 8, "The signature check": the host's START and a later message, each signed with an R that has
    a part of order 8 (only the cofactored equation holds), delivered to a TypeScript seat and spectator on the
    portable check (a phone's) and to the Python nodes in their place: `bad-signature` on both sides, the same
    records, and the game the real START begins plays to the end alike. (Before, the portable check took both: the
    TypeScript nodes held the cheat's START and message where Python blamed their deliverer.)"""
    table = Table(portable_child, "open", 3, [1, 4], seed=82, rounds=1, native=False)
    for net in table.nets:
        seats = net.identities
        host, game = seats[0], net.game_id
        targets = [seats[1].peer, net.watchers[1].peer]
        roster = [{"key": i.public_key, "name": f"p{n}", "bot": True} for n, i in enumerate(seats)]
        settings = {"variant": "standard", "point_limit": None, "max_rounds": 1, "deal": "open"}
        start = cofactored_only(host, seal(host, game, 0, NO_PREVIOUS, "START",
                                           {"salt": net.salt, "settings": settings, "roster": roster}).wire)
        for to in targets:
            net.handle(to, net.sessions[to].receive(start, seats[2].peer))
        net.start()
        net.run(limit=30)
        later = cofactored_only(host, seal(host, game, 300, NO_PREVIOUS, "START_ACK", {"start": b"h" * 32}).wire)
        for to in targets:
            net.handle(to, net.sessions[to].receive(later, seats[2].peer))
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert [o["phase"] for o in outcomes] == ["over"] * 5
    for peer in (table.mixed.identities[1].peer, table.mixed.watchers[1].peer):  # the TypeScript nodes fed
        faults = [body for what, body in records(bytes(table.mixed.transcripts[peer])) if what == "fault"]
        assert [f["code"] for f in faults] == ["bad-signature"] * 2, faults


def test_the_same_bad_bytes_make_the_same_fault_records(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    process: NodeSeats = request.getfixturevalue("child")
    table = Table(process, "open", 3, [1, 4], seed=80, rounds=1)
    for net in table.nets:
        seats, watchers = net.identities, net.watchers
        game = net.game_id
        vias = [seats[0].peer, watchers[0].peer, STRANGER.peer, None]
        targets = [seats[1].peer, watchers[1].peer, seats[2].peer]

        def feed(wires: list[bytes], net: Any = net, vias: list[Any] = vias, targets: list[bytes] = targets) -> None:
            for i, wire in enumerate(wires):
                for to in targets:
                    via = vias[i % len(vias)]
                    net.handle(to, net.sessions[to].receive(wire, via))

        host = seats[0]
        roster = [{"key": i.public_key, "name": f"p{n}", "bot": True} for n, i in enumerate(seats)]
        settings = {"variant": "standard", "point_limit": None, "max_rounds": 1, "deal": "open"}
        start = {"salt": net.salt, "settings": settings, "roster": roster}
        stranger_start = seal(STRANGER, game, 0, NO_PREVIOUS, "START", start).wire
        unbound = dict(start, salt=b"\x00" * 16)  # a game id not bound to the host's key and this salt
        before = [*codec_garbage(), seal(host, OTHER_GAME, 0, NO_PREVIOUS, "START", start).wire, stranger_start,
                  seal(host, game, 0, NO_PREVIOUS, "START", unbound).wire,
                  forged(seal(host, game, 0, NO_PREVIOUS, "START", start).wire)]
        feed(before)
        assert game == game_id_for(host.public_key, net.salt)
        net.start()
        net.run(limit=60)
        after = [*codec_garbage(), *bad_shapes(game, host.peer),
                 seal(host, OTHER_GAME, 40, NO_PREVIOUS, "START_ACK", {"start": b"h" * 32}).wire,
                 seal(STRANGER, game, 0, NO_PREVIOUS, "START_ACK", {"start": b"h" * 32}).wire,
                 forged(seal(host, game, 300, NO_PREVIOUS, "START_ACK", {"start": b"h" * 32}).wire)]
        feed(after)
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert [o["phase"] for o in outcomes] == ["over"] * 5
    for peer in (table.mixed.identities[1].peer, table.mixed.watchers[1].peer):  # the TypeScript nodes fed
        faults = [body for what, body in records(bytes(table.mixed.transcripts[peer])) if what == "fault"]
        assert {f["code"] for f in faults} == {"malformed", "wrong-game", "unknown-sender", "bad-signature"}
        assert len(faults) == 2 * len(codec_garbage()) + len(bad_shapes(b"", b"")) + 7


def test_the_caps_on_fault_records_are_the_same(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """protocol.md 13, "Fault records": at most 32 non-fatal fault records blaming one peer and 256 in all. Bad bytes
    from ten peers nobody knows, 40 each, one peer after the other, to a TypeScript seat and spectator and to the Python nodes in their
    place (and to one of them after its restart, which counts the records it wrote before): the same records, the
    caps kept alike. (Before, a TypeScript node recorded every one.)"""
    process: NodeSeats = request.getfixturevalue("child")
    table = Table(process, "open", 3, [1, 4], seed=81, rounds=1)
    strangers = [hashlib.sha256(f"stranger {i}".encode()).digest()[:16] for i in range(10)]
    for net in table.nets:
        targets = [net.identities[1].peer, net.watchers[1].peer]
        net.start()
        net.run(limit=40)
        for n, via in enumerate(strangers):
            for k in range(40):
                if (n, k) == (0, 20):
                    net.restart(targets[0])
                for to in targets:
                    net.handle(to, net.sessions[to].receive(b"\xc1" + bytes([k]), via))
        net.run()
    node_by_node(table, tmp_path)
    for peer in (table.mixed.identities[1].peer, table.mixed.watchers[1].peer):
        faults = [body for what, body in records(bytes(table.mixed.transcripts[peer])) if what == "fault"]
        assert len(faults) == 256 and [sum(f["peer"] == s for f in faults) for s in strangers][:8] == [32] * 8
