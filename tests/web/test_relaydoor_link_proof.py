"""A phone relay passes a page's join with a `link_proof` on unchecked only where it knows the host decides it
(protocol.md 14, *A phone relay checks its pages' joins*; session-40 review): its node is the host, or the host's
lobby frames carry the relay node's own signed `where` record (a host of session 40 or later forwards the records
joins gave it). Elsewhere (a host of before session 40, which reads only `proof` and would charge each wrong one to
the relay node's address) it ignores the `link_proof` and decides the join on its `proof`, charging the page's
address, as before. The door's decisions here; Node.host_decides_links as a joiner's lobby frames make it below."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from p2pnimmt.net.connection import HELLO, frame
from p2pnimmt.net.node import Node
from p2pnimmt.net.where import sign_where
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.seatkey import WRONG_BURST, join_proof, seat_secret
from p2pnimmt.web import relaydoor
from p2pnimmt.web.relaydoor import RelayDoor, Watch

SOURCE = "10.0.0.7"
KEY = "QM5Z"
GAME = bytes(range(16))
PAGE_KEY, PAGE_NONCE, PEER_NONCE = b"k" * 32, b"n" * 16, b"N" * 16


@dataclass
class Relayed:
    """What the door reads of the relay's node (relaydoor.Game): whether its host decides link proofs."""

    decides: bool
    seat_key: str | None = KEY

    def seat_of_start(self, peer: bytes) -> bool:
        return False

    def host_decides_links(self) -> bool:
        return self.decides


def joining(proof: bytes) -> Watch:
    """A page's link through the relay, read up to its join: a junk `link_proof` beside `proof`."""
    watch = Watch()
    watch.down(frame([HELLO, 1, GAME, b"H" * 32, PEER_NONCE]))
    watch.up(frame([HELLO, 1, GAME, PAGE_KEY, PAGE_NONCE]) + frame(["auth", b"s" * 64])
             + frame(["join", {"name": "zoe", "proof": proof, "link_proof": b"j" * 32}]))
    assert watch.waiting
    return watch


@pytest.fixture(scope="module")
def good() -> bytes:
    """The proof of the seat key on the page's link."""
    return join_proof(seat_secret(GAME, KEY), GAME, PAGE_NONCE, PEER_NONCE, PAGE_KEY)


def left(door: RelayDoor) -> float:
    tries = door.tries.tries.get(SOURCE)
    return WRONG_BURST if tries is None else tries.level


async def test_where_the_host_decides_link_proofs_a_junk_one_goes_on_unchecked_and_uncharged() -> None:
    door = RelayDoor()
    said = await asyncio.gather(*(door.why_not(Relayed(decides=True), SOURCE, joining(b"p" * 32))
                                  for _ in range(int(WRONG_BURST) + 2)))
    assert said == [None] * (int(WRONG_BURST) + 2)  # the host checks it (and charges nothing)
    assert left(door) == WRONG_BURST


async def test_elsewhere_the_link_proof_is_ignored_and_a_wrong_proof_refused_and_charged_to_the_page(good) -> None:
    """Before the fix each of these went on to the host unchecked: a host of before session 40 charged them to the
    relay node's address, whose tries a stranger thus spent for every page behind it."""
    door, node = RelayDoor(), Relayed(decides=False)
    assert await door.why_not(node, SOURCE, joining(b"p" * 32)) == relaydoor.WRONG
    assert left(door) == WRONG_BURST - 1  # charged to the page's address, as any wrong proof
    for _ in range(int(WRONG_BURST) - 1):
        assert await door.why_not(node, SOURCE, joining(b"p" * 32)) == relaydoor.WRONG
    assert await door.why_not(node, SOURCE, joining(b"p" * 32)) == relaydoor.TOO_MANY  # spent: unchecked
    assert await door.why_not(node, "10.0.0.8", joining(good)) is None  # an honest page's proof holds: it goes on


def entry(identity: Identity, role: str = "player", where: list | None = None) -> dict:
    found = {"key": identity.public_key, "name": role[:3] + identity.peer.hex()[:4], "role": role, "bot": False,
             "host": "10.0.0.7", "port": 4000, "addresses": []}
    if where is not None:
        found["where"] = where
    return found


def test_a_joiner_knows_its_host_decides_link_proofs_when_the_lobby_carries_its_own_record() -> None:
    me, host, other = Identity.generate(), Identity.generate(), Identity.generate()
    node = Node(me, name="cat")
    node.game_id = GAME
    assert not node.host_decides_links()
    own = sign_where(me, GAME, 4000, []).record()
    node.lobby.mirror({"state": "lobby", "seats": 4, "members": [entry(host), entry(me, where=own)]})
    assert node.host_decides_links()  # a host of session 40 or later: it forwarded our record
    node.lobby.mirror({"state": "lobby", "seats": 4, "members": [entry(host), entry(me)]})
    assert not node.host_decides_links()  # an older host: no record
    forged = sign_where(other, GAME, 4000, []).record()  # not ours: it proves nothing of the host
    node.lobby.mirror({"state": "lobby", "seats": 4, "members": [entry(host), entry(me, where=forged)]})
    assert not node.host_decides_links()
    hosting = Node(Identity.generate(), name="ann")
    hosting.is_host = True
    assert hosting.host_decides_links()
