"""A phone relay refuses a join from a page address with no wrong seat key left unchecked (protocol.md 14, "Bounds"):
as before session 36's one seat_refusal, it does not even look K up for it (no scrypt, no thread), so a stranger
who spent its address costs the relay nothing more per join than the count. The doors over real links:
tests/web/test_relay_seat_key.py; the order of the refusals: tests/protocol/test_seat_refusal.py."""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass

from p2pnimmt.net.connection import HELLO, frame
from p2pnimmt.protocol.seatkey import WRONG_BURST, WRONG_EVERY, seat_secret
from p2pnimmt.web import relaydoor
from p2pnimmt.web.relaydoor import RelayDoor, Watch

SOURCE = "10.0.0.7"


@dataclass
class Relayed:
    """What the door reads of the relay's node (relaydoor.Game): its seat key; it has no START yet."""

    seat_key: str | None = "QM5Z"

    def seat_of_start(self, peer: bytes) -> bool:
        return False

    def host_decides_links(self) -> bool:
        return False


def joining(game: bytes) -> Watch:
    """A page's link through the relay to a host of `game`, read up to its join (a proof that does not hold)."""
    watch = Watch()
    watch.down(frame([HELLO, 1, game, b"H" * 32, b"N" * 16]))
    watch.up(frame([HELLO, 1, game, b"k" * 32, b"n" * 16]) + frame(["auth", b"s" * 64])
             + frame(["join", {"name": "zoe", "proof": b"p" * 32}]))
    assert watch.waiting
    return watch


def looked_up() -> int:
    info = seat_secret.cache_info()
    return info.hits + info.misses


async def test_a_spent_address_is_refused_without_looking_k_up() -> None:
    door, node = RelayDoor(), Relayed()
    for _ in range(int(WRONG_BURST)):
        door.tries.charge(SOURCE, time.monotonic())  # (one try comes back in 10 s)
    before = looked_up()
    # A game id never drawn in this process: a look-up would be a scrypt of 32 MB.
    assert await door.why_not(node, SOURCE, joining(secrets.token_bytes(16))) == relaydoor.TOO_MANY
    assert looked_up() == before
    # An address with tries left is checked (K looked up) and charged, as always.
    assert await door.why_not(node, "10.0.0.8", joining(secrets.token_bytes(16))) == relaydoor.WRONG
    assert looked_up() == before + 1
    assert door.tries.tries["10.0.0.8"].level == WRONG_BURST - 1


async def test_joins_at_once_from_one_address_are_checked_no_more_than_its_tries() -> None:
    """Each join's count is asked again after the wait for K and charged with no other join between: 12 wrong keys
    sent at once from a fresh address have 8 checked, the rest refused unchecked (before session 36, all 12 were
    checked: each had asked the count before any was charged, and the address went into debt)."""
    door, node, game = RelayDoor(), Relayed(), secrets.token_bytes(16)
    await asyncio.to_thread(seat_secret, game, "QM5Z")  # K drawn once, as the relay's node did for its own join
    began = time.monotonic()
    said = await asyncio.gather(*(door.why_not(node, SOURCE, joining(game)) for _ in range(12)))
    back = int((time.monotonic() - began) / WRONG_EVERY)  # tries that came back meanwhile (none, unless very slow)
    assert said.count(relaydoor.WRONG) == WRONG_BURST + back
    assert said.count(relaydoor.TOO_MANY) == 12 - WRONG_BURST - back
