"""Section 8's gates where the two implementations once disagreed (issue 25): a TypeScript seat and spectator, and
the Python nodes in their place, fed the same validly signed bytes, write the same transcript and end alike.

- `version` is the integer 1 and nothing equal to it: a message signed with `version` 1.0 (a msgpack float) or
  true is `malformed` (before, the Python node took it into its sender's chain, `version != 1` being false for
  both, and the TypeScript node refused it);
- a START whose `prev` is not 32 zero bytes, signed by the host, is its chain broken: fault `chain-broken`, fatal,
  blamed on the host with the START as the proof (before, the TypeScript node refused it as `malformed` from its
  deliverer and waited for another START).
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
