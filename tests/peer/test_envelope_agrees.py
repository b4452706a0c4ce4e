"""Section 8's gates where the two implementations once disagreed (issue 25): a TypeScript seat and spectator, and
the Python nodes in their place, fed the same validly signed bytes, write the same transcript and end alike.

- `version` is the integer 1 and nothing equal to it: a message signed with `version` 1.0 (a msgpack float) or
  true is `malformed` (before, the Python node took it into its sender's chain, `version != 1` being false for
  both, and the TypeScript node refused it);
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
from p2pnimmt.protocol.envelope import SIGN_TAG
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
