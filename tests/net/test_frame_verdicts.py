"""What net/frames.py's on_frame makes of a host's link's frames past their budgets (protocol.md 14, "Bounds"), pinned
frame by frame: a member's asks and every other frame but a `msg` (a burst of 64, then 20 a second, a slack of 1,280
not answered and not counted), its joins and answers to a rematch (at a host: a burst of 4, then 1 a second each, past
it each a bad message), the 21st bad message closing the link. A real host and a real joiner in one process over TCP
on 127.0.0.1; the frames go through on_frame at times the test gives (the clock on_frame reads, frames.time).

Written before on_frame's two budget mechanisms (ask_verdict, then over_budget for a host's joins and answers) became
one verdict function (session 46), and run on both: the same faults, words and close at every frame."""

from __future__ import annotations

import time
import types
from functools import partial
from typing import Any

import screens
from test_node_api import bot_node, hosted_and_joined

from p2pnimmt.net import frames
from p2pnimmt.net.seatdoor import join_with_proof

until = partial(screens.until, timeout=20.0)


def runs(seen: list[tuple[Any, ...]]) -> list[list[Any]]:
    """Equal neighbours of `seen` as [*entry, how many]."""
    out: list[list[Any]] = []
    for entry in seen:
        if out and tuple(out[-1][:-1]) == entry:
            out[-1][-1] += 1
        else:
            out.append([*entry, 1])
    return out


async def test_a_hosts_link_is_judged_frame_by_frame_as_pinned(monkeypatch) -> None:
    host, guest = bot_node("host"), bot_node("guest")
    try:
        await hosted_and_joined(host, guest, 3)
        await until(lambda: guest.identity.peer in host.linked and host.identity.peer in guest.linked, "the link")
        conn = host.links[guest.identity.peer]
        join = join_with_proof(guest, guest.links[host.identity.peer], guest.mesh.join_frame)
        start = time.monotonic() + 10  # (the budgets were last filled at the real clock's now: later than it)
        clock = [start]
        monkeypatch.setattr(frames, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
        script: list[tuple[float, str, Any, int]] = [
            (0.0, "join", join, 6), (0.0, "again", True, 6), (0.0, "ping", None, 70),
            (0.0, "msg", "not bytes", 1), (1.0, "join", join, 2), (1.0, "again", True, 2),
            (1.0, "ping", None, 21), (1.0, "zz", 1, 1279), (1.0, "zz", 1, 2), (1.0, "bye", None, 1),
            (1.0, "zz", 1, 13), (1.0, "heads", [], 2), (3.0, "join", join, 1)]
        seen: list[tuple[Any, ...]] = []
        for at, kind, payload, times in script:
            clock[0] = start + at
            for _ in range(times):
                frames.on_frame(host, conn, kind, payload)
                seen.append((kind, conn.faults, conn.first_fault, conn.closed))
        pinned = runs(seen)
        assert pinned == PINNED, pinned
        # at the joiner a `join` is an ask as any frame but a msg: past the burst and the slack, bad, and named as an ask
        # (since session 46: before, as past a host's joins, `J`, where the page named it an ask; development.md, 73)
        theirs = guest.links[host.identity.peer]
        for _ in range(64 + 1280 + 1):
            frames.on_frame(guest, theirs, "join", {})
        assert (theirs.faults, theirs.first_fault) == (1, frames.asks_exceeded("join"))
        assert theirs.first_fault.endswith("asks a second (heads, ping, seen, probe, where and other frames but msg: "
                                           "this one join)")
    finally:
        for node in (guest, host):
            await node.close()


J = "more than 1 join a second"  # the first bad message's words, kept for the line at the cut
# The budgets are full at the first frame (the clock is 10 s past the link's last frames). At 0 s: 4 joins taken, 2 bad;
# 4 answers taken (ignored: no game to answer), 2 bad; 64 pings taken and 6 excused; a msg without bytes, bad. At 1 s
# (20 asks and 1 join and 1 answer more): a join taken and one bad, an answer taken and one bad, 20 pings taken and 1
# excused, then the slack's last 1,279 excused; then each frame is bad (a `bye` too), the 21st closes the link. At 3 s
# a join is taken again (on a closed link: nothing comes of it).
PINNED: list[list[Any]] = [
    ["join", 0, "", False, 4], ["join", 1, J, False, 1], ["join", 2, J, False, 1], ["again", 2, J, False, 4],
    ["again", 3, J, False, 1], ["again", 4, J, False, 1], ["ping", 4, J, False, 70], ["msg", 5, J, False, 1],
    ["join", 5, J, False, 1], ["join", 6, J, False, 1], ["again", 6, J, False, 1], ["again", 7, J, False, 1],
    ["ping", 7, J, False, 21], ["zz", 7, J, False, 1279], ["zz", 8, J, False, 1], ["zz", 9, J, False, 1],
    ["bye", 10, J, False, 1], *[["zz", n, J, False, 1] for n in range(11, 21)],
    *[["zz", n, J, True, 1] for n in range(21, 24)], ["heads", 24, J, True, 1], ["heads", 25, J, True, 1],
    ["join", 25, J, True, 1]]
