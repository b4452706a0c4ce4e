"""Section 8's gates where the two implementations once disagreed (issue 25): a TypeScript seat and spectator, and
the Python nodes in their place, fed the same validly signed bytes, write the same transcript and end alike.

- `version` is the integer 1 and nothing equal to it: a message signed with `version` 1.0 (a msgpack float) or
  true is `malformed` (before, the Python node took it into its sender's chain, `version != 1` being false for
  both, and the TypeScript node refused it);
- a START whose `prev` is not 32 zero bytes, signed by the host, is its chain broken: fault `chain-broken`, fatal,
  blamed on the host with the START as the proof (before, the TypeScript node refused it as `malformed` from its
  deliverer and waited for another START);
- a START refused for a field named `signature` is `malformed`, the code of the check that failed (before, the
  Python inbox chose `bad-signature` by its words).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mixed import NodeSeats
from test_mixed_tables import (
    Table,
    child as child,  # noqa: F401 (the node process of test_mixed_tables, a fixture)
    node_by_node,
)

from p2pnimmt.protocol.codec import encode
from p2pnimmt.protocol.envelope import SIGN_TAG, seal
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.transcript import records


def signed_as(identity: Identity, version: Any, game: bytes, seq: int, prev: bytes, kind: str,
              body: dict[str, Any]) -> bytes:
    """A wire message whose signed part holds `version` as given, validly signed by `identity`."""
    signed = encode([version, game, identity.peer, seq, prev, kind, body])
    return encode([signed, identity.sign(SIGN_TAG + signed)])


def faults(transcript: bytes | bytearray) -> list[dict[str, Any]]:
    return [body for what, body in records(bytes(transcript)) if what == "fault"]


def test_a_version_equal_to_1_but_not_the_integer_1_is_malformed(request: pytest.FixtureRequest,
                                                                  tmp_path: Path) -> None:
    process: NodeSeats = request.getfixturevalue("child")
    table = Table(process, "open", 3, [1, 4], seed=82, rounds=1)
    for net in table.nets:
        host = net.identities[0]
        targets = [net.identities[1].peer, net.watchers[1].peer, net.identities[2].peer]
        net.start()
        net.run(limit=30)
        seq, prev = net.sessions[host.peer].inbox.head(host.peer)  # the host's next message: all else is right
        for version in (1.0, True):
            wire = signed_as(host, version, net.game_id, seq, prev, "STANDIN", {"round": 0, "turn": 0, "seat": 1})
            for to in targets:
                net.handle(to, net.sessions[to].receive(wire, host.peer))
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert [o["phase"] for o in outcomes] == ["over"] * 5
    for peer in (table.mixed.identities[1].peer, table.mixed.watchers[1].peer):
        details = [(f["code"], f["detail"]) for f in faults(table.mixed.transcripts[peer])]
        assert details == [("malformed", "bytes from seat 0 (p0): protocol version 1.0, this peer speaks 1"),
                           ("malformed", "bytes from seat 0 (p0): protocol version True, this peer speaks 1")]


@pytest.mark.parametrize("via", ["host", "seat 2", "nobody"])
def test_a_start_whose_prev_is_not_zero_breaks_the_hosts_chain(via: str, request: pytest.FixtureRequest,
                                                               tmp_path: Path) -> None:
    process: NodeSeats = request.getfixturevalue("child")
    table = Table(process, "open", 3, [1, 4], seed=83, rounds=1)
    for net in table.nets:
        host = net.identities[0]
        deliverer = {"host": host.peer, "seat 2": net.identities[2].peer, "nobody": None}[via]
        roster = [{"key": i.public_key, "name": f"p{n}", "bot": True} for n, i in enumerate(net.identities)]
        settings = {"variant": "standard", "point_limit": None, "max_rounds": 1, "deal": "open"}
        start = seal(host, net.game_id, 0, b"\x01" * 32, "START", {"salt": net.salt, "settings": settings,
                                                                   "roster": roster})
        for to in (net.identities[1].peer, net.watchers[1].peer):
            net.handle(to, net.sessions[to].receive(start.wire, deliverer))
        net.start()
        net.run()
    outcomes = node_by_node(table, tmp_path)
    for peer, outcome in zip(table.mixed.peers, outcomes):
        if peer in (table.mixed.identities[1].peer, table.mixed.watchers[1].peer):
            assert outcome["phase"] == "aborted"
            assert outcome["fault"] == {"code": "chain-broken", "detail": "seat 0 (p0)'s first message names a "
                                                                          "previous one"}
            (fault,) = faults(table.mixed.transcripts[peer])
            assert fault["fatal"] and fault["peer"] == table.mixed.identities[0].peer


@pytest.mark.parametrize("where", ["a field", "a settings value"])
def test_a_start_refused_for_a_field_named_signature_is_malformed(where: str, request: pytest.FixtureRequest,
                                                                  tmp_path: Path) -> None:
    """Section 8: a START's fault code follows the check that failed, never its words: a START with an unknown
    field named `signature` (or a settings value 'signature'), validly signed by the host and delivered by seat 2
    before the START, is `malformed` from seat 2 at both implementations (before, the Python inbox searched the
    words for "signature" and recorded `bad-signature`; vector `start-refusals`)."""
    process: NodeSeats = request.getfixturevalue("child")
    table = Table(process, "open", 3, [1, 4], seed=85, rounds=1)
    for net in table.nets:
        host, relay = net.identities[0], net.identities[2]
        roster = [{"key": i.public_key, "name": f"p{n}", "bot": True} for n, i in enumerate(net.identities)]
        settings = {"variant": "signature" if where == "a settings value" else "standard", "point_limit": None,
                    "max_rounds": 1, "deal": "open"}
        body: dict[str, Any] = {"salt": net.salt, "settings": settings, "roster": roster}
        if where == "a field":
            body["signature"] = 1
        start = seal(host, net.game_id, 0, bytes(32), "START", body)
        for to in (net.identities[1].peer, net.watchers[1].peer):
            net.handle(to, net.sessions[to].receive(start.wire, relay.peer))
        net.start()
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert [o["phase"] for o in outcomes] == ["over"] * 5
    for peer in (table.mixed.identities[1].peer, table.mixed.watchers[1].peer):
        (fault,) = faults(table.mixed.transcripts[peer])
        assert (fault["code"], fault["peer"], fault["fatal"]) == ("malformed", table.mixed.identities[2].peer, False)
        assert fault["detail"].startswith("START delivered by ") and "signature" in fault["detail"]


def test_a_message_in_a_form_not_canonical_is_malformed(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Section 7 (since session 39): a message in another form than its canonical one is `malformed` from whoever
    delivered it, at every layer, and the TypeScript seat and spectator write the transcript the Python nodes in
    their place write, word for word: the host's message already taken, its outer array written again by seat 2
    (nobody signs that array: a relay could; before, both took the copy for the message and the nodes that got it
    first held other bytes for it than the rest), and messages the host signed with a head in another form in the
    signed part and the body (before, both took them, as they would any form)."""
    process: NodeSeats = request.getfixturevalue("child")
    table = Table(process, "sealed", 3, [1, 4], seed=84, rounds=1)
    for net in table.nets:
        host, relay = net.identities[0], net.identities[2]
        targets = [net.identities[1].peer, net.watchers[1].peer]
        net.start()
        net.run(limit=30)
        seq, prev = net.sessions[host.peer].inbox.head(host.peer)
        taken = net.sessions[host.peer].inbox.message(host.peer, seq - 1)
        assert taken is not None
        signed, signature = taken.signed, taken.signature
        wider = b"\xc6" + len(signed).to_bytes(4, "big") + signed  # its deal's shuffle: a bin 32 for a bin 16
        assert 256 <= len(signed) < 65536 and taken.kind == "SEALED_SHUFFLE"
        copies = [b"\x92" + wider + encode(signature),
                  b"\xdc\x00\x02" + encode(signed) + encode(signature),  # an array 16 for the outer array
                  b"\x92" + encode(signed) + b"\xc5\x00\x40" + signature]  # a bin 16 for the signature
        body = encode({"round": 0, "turn": 0, "seat": 1})
        plain = encode([1, net.game_id, host.peer, seq, prev, "STANDIN"])[1:]  # the fields, without their array
        forms = [b"\xdc\x00\x07" + plain + body,  # the signed part an array 16
                 b"\x97" + plain + b"\xde\x00\x03" + body[1:],  # the body a map 16
                 b"\x97" + plain + body.replace(b"\xa4turn\x00", b"\xa4turn\xcc\x00")]  # turn 0 as a uint 8
        for form in forms:
            copies.append(encode([form, host.sign(SIGN_TAG + form)]))
        for wire in copies:
            for to in targets:
                net.handle(to, net.sessions[to].receive(wire, relay.peer))
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert [o["phase"] for o in outcomes] == ["over"] * 5
    where = 1 + len(plain)  # the body's head: after the array's and the fields up to the kind
    for peer in (table.mixed.identities[1].peer, table.mixed.watchers[1].peer):
        details = [(f["code"], f["detail"]) for f in faults(table.mixed.transcripts[peer])]
        said = "bytes from seat 2 (p2): not canonical msgpack:"
        assert details == [
            ("malformed", f"{said} bin 32 at byte 1, where bin 16 is canonical"),
            ("malformed", f"{said} array 16 at byte 0, where fixarray is canonical"),
            ("malformed", f"{said} bin 16 at byte {1 + 3 + len(signed)}, where bin 8 is canonical"),
            ("malformed", f"{said} array 16 at byte 0 of the signed part, where fixarray is canonical"),
            ("malformed", f"{said} map 16 at byte {where} of the signed part, where fixmap is canonical"),
            ("malformed", f"{said} uint 8 at byte {where + 13} of the signed part, where positive fixint is canonical"),
        ]
