"""protocol.md 14, "Held before START" (session 45) at a phone page: strangers' links fill the 2 MiB the page holds
before its START, and a seat's message after them is kept, as the reference keeps it (tests/net/test_held_before_start.py
with real nodes; tests/peer/test_held_bounds_agree.py compares the two inboxes). Real processes on 127.0.0.1: ann
hosts (headless, 4 seats, so the lobby stays open), a TV's node serves the phone page, zoe takes a seat in chromium;
ten strangers (tests/attacker.py) join as spectators, link to zoe's port and hold 1.9 MB there, each under its own
256 KiB; mallory joins as a player (one that can be a seat, as the host's lobby frame says), links too, and her 13th
message goes over 2 MiB while she holds the most. The page cuts the stranger holding the most (of equal ones the
lowest peer id), drops what it held, and keeps mallory's message and link. On main the page cut mallory's link."""

from __future__ import annotations

import asyncio
from pathlib import Path

from attacker import Attacker
from deadlines import OUTER
from procs import seat_key_of
from test_web_phone_seat_junk import zoe_seated_in_an_open_lobby

from p2pnimmt.protocol.inbox import MAX_EARLY_TOTAL
from p2pnimmt.protocol.probe import PROBE_NONCE

PAD = 15_800
HELD = 12
STRANGERS = 10


def settled(link: Attacker, nonce: int) -> None:
    """Wait until the page has taken every frame sent on `link` so far (its answer to a probe comes after them)."""
    link.send("probe", bytes([nonce]) * PROBE_NONCE)
    link.until("probed", OUTER)


def flood(link: Attacker, count: int, nonce: int) -> None:
    for seq in range(count):
        link.send("msg", link.padded(seq, PAD))
    settled(link, nonce)


async def test_a_seats_message_after_strangers_filled_2_mib_is_kept_at_a_phone(tmp_path: Path, procs, browser) -> None:
    port, code, phone, errors = await zoe_seated_in_an_open_lobby(tmp_path, procs, browser)
    mallory = Attacker.dial(port)
    mallory.join("player", name="mallory", seat_key=seat_key_of(code))
    at_host = []
    for n in range(STRANGERS):
        a = Attacker.dial(port)
        a.join("spectator", name=f"flood{n}", seat_key=seat_key_of(code))
        at_host.append(a)
    zoe = None
    while zoe is None:
        lobby = await asyncio.to_thread(mallory.lobby, OUTER)
        if len(lobby.get("members", [])) >= 4 + STRANGERS:  # ann, the TV, zoe, mallory and the strangers
            zoe = next((m for m in lobby["members"] if m.get("name") == "zoe" and m.get("port")), None)
    await phone.wait_for_function(f"() => window.p2pnimmt.node.members.length >= {4 + STRANGERS}")

    link = await asyncio.to_thread(Attacker.dial, int(zoe["port"]), mallory.identity)
    size = len(link.padded(0, PAD))
    await asyncio.to_thread(flood, link, HELD, 1)
    strangers = [await asyncio.to_thread(Attacker.dial, int(zoe["port"]), a.identity) for a in at_host]
    last = (MAX_EARLY_TOTAL - STRANGERS * HELD * size) // size  # the tenth stranger's: 2 MiB then nearly full
    assert 0 < last < HELD
    for n, s in enumerate(strangers):
        await asyncio.to_thread(flood, s, HELD if n < STRANGERS - 1 else last, 2)
    held = await phone.evaluate("window.p2pnimmt.node.seat.inbox.held()[0]")
    assert held == STRANGERS * HELD + last, held

    link.send("msg", link.padded(HELD, PAD))  # over 2 MiB: mallory would hold the most, but can be a seat
    try:
        await asyncio.to_thread(settled, link, 3)  # her link stays: its probe is answered
    except EOFError:
        raise AssertionError("the page cut mallory, a seat of the lobby, whose message went over") from None
    first = min(strangers[:-1], key=lambda s: s.identity.peer)  # holding the most (12), the lowest peer id
    assert await asyncio.to_thread(first.closed_by_peer, OUTER), "the stranger holding the most was not cut"
    held = await phone.evaluate("window.p2pnimmt.node.seat.inbox.held()[0]")
    assert held == (STRANGERS - 1) * HELD + last + 1, held  # its 12 dropped at once, mallory's 13th held
    assert not errors, errors
    for a in [link, mallory, *strangers, *at_host]:
        a.close()
