"""A seat's junk on its link to a phone page is cut as the reference cuts it (red team, session 44; protocol.md 14,
"Bounds": bad messages over one link, 20, then the link is closed). The page closed no link for bad messages: a seat
(a friend with the seat key who misbehaves) that linked to the page's port and sent `msg` frames of bytes that are
no message had each made a fault the page kept (90,000 in 30 s, its heap growing without end) and prepared for its
transcript, its main thread busy all the while (benchmarks/attacks/phone_seat_flood.py). Now the page closes the
link past 20, keeps at most the transcript's count of faults per peer (32), and closes a later link of that key at
its first bad message. Real processes on 127.0.0.1: ann hosts (headless, her seat a bot; 4 seats, so the lobby
stays open), a TV's node serves the phone page, zoe takes a seat in chromium, mallory (tests/attacker.py) joins with
the seat key, links to zoe's port and sends 100 junk `msg` frames (or, the second test, 5,000 frames of a kind nobody
knows: protocol.md 14, counted as asks since session 45)."""

from __future__ import annotations

import asyncio
import secrets
import time
from pathlib import Path
from typing import Any

from attacker import Attacker
from deadlines import OUTER
from phonerelay import relay_node
from procs import seat_key_of
from test_web_phone_presence import LO, PHONE_URL, seated_phone

from p2pnimmt.net.connection import frame


async def zoe_seated_in_an_open_lobby(tmp_path: Path, procs, browser) -> tuple[int, str, Any, list[str]]:
    """ann hosts (headless, her seat a bot; 4 seats, so the lobby stays open), a TV's node serves the phone page, zoe
    takes a seat in chromium: the host's port, its code, zoe's page and the page's errors."""
    env = {"P2PNIMMT_PLACE_DELAY": "0"}
    host = procs(["host", "--headless", "--seats", "4", *LO, "--name", "ann", "--transcript",
                  str(tmp_path / "host.p2pt")], tmp_path / "host.out", env=env)
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    tv = relay_node(procs, tmp_path, "tv", "watch", code, *LO, "--peer", f"127.0.0.1:{port}", env=env)
    phone, _, errors = await seated_phone(browser, tv.wait_for(PHONE_URL).group(1), "zoe")
    return port, code, phone, errors


async def seated_with_mallory(tmp_path: Path, procs, browser) -> tuple[Any, list[str], Attacker, int]:
    """zoe seated in an open lobby, mallory joins with the seat key: the page, its errors, mallory's link to the host,
    and zoe's port at her relay (where mallory links to the page, as any seat does)."""
    port, code, phone, errors = await zoe_seated_in_an_open_lobby(tmp_path, procs, browser)
    mallory = Attacker.dial(port)
    mallory.join("player", name="mallory", seat_key=seat_key_of(code))
    zoe = None
    deadline = time.monotonic() + OUTER
    while zoe is None and time.monotonic() < deadline:
        lobby = await asyncio.to_thread(mallory.lobby, OUTER)
        zoe = next((m for m in lobby.get("members", []) if m.get("name") == "zoe" and m.get("port")), None)
    assert zoe is not None
    await phone.wait_for_function("() => window.p2pnimmt.node.members.some((m) => m.name === 'mallory')")
    return phone, errors, mallory, int(zoe["port"])


async def test_a_seats_junk_on_its_link_to_a_phone_is_cut(tmp_path: Path, procs, browser) -> None:
    phone, errors, mallory, port = await seated_with_mallory(tmp_path, procs, browser)
    link = await asyncio.to_thread(Attacker.dial, port, mallory.identity)
    try:
        link.sock.sendall(b"".join(frame(["msg", secrets.token_bytes(200)]) for _ in range(100)))
    except OSError:
        pass  # (closed while it wrote: the cut)
    assert await asyncio.to_thread(link.closed_by_peer, OUTER)  # (on main: open, read till the deadline)
    kept = await phone.evaluate("window.p2pnimmt.node.seat.faults.length")
    notes = await phone.evaluate("window.p2pnimmt.node.notes")
    assert any("21 bad messages" in note for note in notes), notes
    assert kept <= 32, kept
    # a later link of her key is closed at its first bad message
    again = await asyncio.to_thread(Attacker.dial, port, mallory.identity)
    again.sock.sendall(frame(["msg", secrets.token_bytes(200)]))
    assert await asyncio.to_thread(again.closed_by_peer, OUTER)
    await phone.wait_for_function("() => window.p2pnimmt.node.notes.some((n) => n.includes('1 bad messages'))")
    assert not errors, errors
    link.close()
    again.close()
    mallory.close()


async def test_a_seats_frames_of_an_unknown_kind_to_a_phone_are_cut(tmp_path: Path, procs, browser) -> None:
    """protocol.md 14 (since session 45): a frame of a kind not in the table counts as an ask. Mallory sends the page
    5,000 tiny `["zz", n]` frames at once (benchmarks/attacks/phone_seat_flood.py `small`: 38 M in 30 s held the page's
    main thread 16 s busy and cut nothing): the page closes her link past its asks' budget (64, a slack of 1,280,
    then the 21st over) naming the kind, and keeps its link to the host. On main the link stayed open: the test
    failed waiting for the page's note."""
    phone, errors, mallory, port = await seated_with_mallory(tmp_path, procs, browser)
    link = await asyncio.to_thread(Attacker.dial, port, mallory.identity)
    try:
        link.sock.sendall(b"".join(frame(["zz", n]) for n in range(5000)))
    except OSError:
        pass  # (closed while it wrote: the cut)
    # (on main: no such note; the link stayed open, the page pinging on it)
    await phone.wait_for_function("""() => window.p2pnimmt.node.notes.some((n) => n.includes('mallory')
        && n.includes("more than 20 asks a second") && n.includes("this one of a kind this node does not know, 'zz'"))""",
                                  timeout=OUTER * 1000)
    assert await asyncio.to_thread(link.closed_by_peer, OUTER)
    assert await phone.evaluate("""() => { const n = window.p2pnimmt.node;
        return [...n.links.values()].some((l) => !l.closed && n.hostPeer && l.peer.every((b, i) => b === n.hostPeer[i])); }"""), \
        "the page lost its link to the host too"
    assert not errors, errors
    link.close()
    mallory.close()
