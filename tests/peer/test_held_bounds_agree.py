"""protocol.md 8 and 14 ("Bounds") in both implementations: what a spectator's node holds before the START (1,024
messages and 256 KiB per delivering peer, 64 delivering peers, 2 MiB in all) and ahead of a sender's chain (512
messages and 1 MiB per sender, 8 MiB in all; never a message over 16,384 bytes), and which delivering peer each
implementation reports as over a cap, with the cap's words, for its carrier to cut off (the reference's
Inbox.overflowed; the TypeScript page closes that peer's link). The same signed bytes go to a Python session and a
TypeScript node (web/peer/test/mixed.ts, op `held`) and both must hold the same and name the same peers.

Before session 44 the TypeScript inbox counted 1,024 messages and 256 KiB before the START over all delivering
peers together (so one peer's flood kept every other's messages out), had neither the 64 peers nor the 2 MiB,
nor the 8 MiB ahead, and reported no one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mixed import NODE_IDS, NodeSeats
from test_mixed_tables import child as child  # noqa: F401 (the node process of test_mixed_tables, a fixture)

from p2pnimmt.protocol.envelope import NO_PREVIOUS, seal
from p2pnimmt.protocol.identity import Identity, game_id_for
from p2pnimmt.protocol.session import Session

HOST = Identity(bytes([1]) * 32)
SEATS = [HOST] + [Identity(bytes([n]) * 32) for n in range(2, 11)]
SALT = bytes([7]) * 16
GAME = game_id_for(HOST.public_key, SALT)
ROSTER = [{"key": s.public_key, "name": f"p{n}", "bot": False} for n, s in enumerate(SEATS)]
START = seal(HOST, GAME, 0, NO_PREVIOUS, "START", {"salt": SALT, "settings": {
    "variant": "standard", "point_limit": None, "max_rounds": 1, "deal": "open"}, "roster": ROSTER}).wire


def message(signer: Identity, seq: int, pad: int) -> bytes:
    """A message of `signer`'s at `seq` with `pad` bytes in its body (held before it is checked: never accepted)."""
    return seal(signer, GAME, seq, bytes(32), "REJOIN", {"round": 0, "pad": bytes(pad)}).wire


def peer(n: int) -> bytes:
    return bytes([n]) * 16


class Pair:
    """A Python spectator's session and a TypeScript spectator node fed the same deliveries."""

    def __init__(self, child: NodeSeats, index: int) -> None:
        self.child, self.index = child, index
        self.session = Session(None)
        self.child.call("new", index, secret=(bytes([0xee]) * 32).hex(), label=f"held-{index}", game=None,
                        relay=False, native=True)

    def deliver(self, wire: bytes, via: bytes | None) -> None:
        self.session.receive(wire, via)
        answer = self.child.call("deliver", self.index, wire=wire.hex(), via=None if via is None else via.hex())
        assert "error" not in answer, answer

    def agree(self) -> dict[str, Any]:
        """Both hold the same and report the same peers over a cap since last asked: what they hold and report."""
        ours = {"held": list(self.session.inbox.held()),
                "overflowed": [[p.hex(), what] for p, what in self.session.inbox.overflowed().items()]}
        theirs = self.child.call("held", self.index)
        assert theirs == ours, f"TypeScript {theirs}, Python {ours}"
        return ours


@pytest.fixture
def pair(request: pytest.FixtureRequest) -> Iterator[Pair]:
    process: NodeSeats = request.getfixturevalue("child")
    yield Pair(process, next(NODE_IDS))


def test_one_peers_flood_before_the_start_keeps_no_other_out(pair: Pair) -> None:
    a, b = peer(0xA), peer(0xB)
    for seq in range(1025):
        pair.deliver(message(SEATS[1], seq, 0), a)
    over = pair.agree()
    assert over["overflowed"] == [[a.hex(), "more than 1024 messages or 262144 bytes before START"]]
    pair.deliver(message(SEATS[2], 0, 0), b)
    assert pair.agree()["held"][0] == 1025  # B's message held: the count is per delivering peer
    for seq in range(17):  # 17 of 16,000 bytes: the 17th over 256 KiB
        pair.deliver(message(SEATS[3], seq, 15800), peer(0xC))
    assert pair.agree()["overflowed"] == [[peer(0xC).hex(), "more than 1024 messages or 262144 bytes before START"]]
    pair.deliver(message(SEATS[3], 99, 16400), peer(0xD))
    assert pair.agree()["overflowed"][0][1].endswith("-byte message before START (at most 16384 are held)")


def test_64_peers_and_2_mib_before_the_start(pair: Pair) -> None:
    for n in range(70):
        pair.deliver(message(SEATS[1], 5000 + n, 0), peer(0x40 + n))
    assert pair.agree()["overflowed"] == [[peer(0x40 + n).hex(), "messages before START when 64 peers already have "
                                           "some held"] for n in range(64, 70)]
    for n in range(9):  # 9 of those peers, 16 messages near 16,000 bytes each: past 2 MiB in all at the 9th
        for seq in range(16):
            pair.deliver(message(SEATS[n % 10], seq + 100 * n, 15800), peer(0x40 + n))
    assert pair.agree()["overflowed"] == [[peer(0x48).hex(), "more than 2097152 bytes held before START in total"]]
    pair.deliver(START, peer(0x40))  # then the START: what was held is judged alike (one REJOIN held ahead)
    assert pair.agree()["held"][0] == 1


def test_ahead_of_a_chain_per_sender_and_8_mib(pair: Pair) -> None:
    pair.deliver(START, HOST.peer)
    pair.agree()
    for seat in SEATS[1:10]:  # seq 1 on, ahead of a chain whose seq 0 is missing, every other one through a relay
        # (never blamed: only the sender makes new signed messages): the 66th near 16,000 bytes is past 1 MiB, and
        # 8 MiB in all is reached at the 9th sender, itself delivering
        for seq in range(1, 67):
            pair.deliver(message(seat, seq, 15800), seat.peer if seq % 2 else peer(0xF0))
    over = pair.agree()
    assert over["held"][1] <= 8 * 1024 * 1024
    assert over["overflowed"] == [[SEATS[9].peer.hex(), "more than 8388608 bytes held ahead in total"]]
    pair.deliver(message(SEATS[1], 67, 15800), SEATS[1].peer)  # its sender's own, past its 1 MiB
    assert pair.agree()["overflowed"] == [[SEATS[1].peer.hex(), "more than 512 messages or 1048576 bytes held "
                                                                  "ahead for one sender"]]
    pair.deliver(message(SEATS[9], 200, 16400), peer(0xF0))  # too large, from a relay: not held, nobody blamed
    assert pair.agree()["overflowed"] == []
