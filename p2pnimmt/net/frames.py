"""Where one frame from a member's link goes: session messages to the session, the lobby's to net.lobby, a
rematch's to net.rematch (the frame kinds: net.node's docstring, protocol.md "Network")."""

from __future__ import annotations

import logging
import time
from typing import Any

from ..neutral import neutral
from ..protocol.events import Fault
from ..protocol.identity import fingerprint
from ..protocol.probe import PROBE_NONCE, probe_answer
from ..quietlog import quiet
from .connection import JOINS_PER_SECOND, Asks, Budgets, Connection

log = logging.getLogger("p2pnimmt.net")

MAX_LINK_FAULTS = 20  # bad messages over a key's link before we hang up (after a cut: none; a seat's: where cut)
# A bad message: bytes nobody can be held to (the faults below, blamed on the peer that delivered them,
# protocol.md 12), a msg frame without bytes, or a message the link has carried from its peer before (an
# honest peer never sends one twice on a link). They are what a link is cut for; the faults are logged at
# INFO, one by one: the cut is the one WARNING line, with the first bad message.
BAD_MESSAGE_CODES = frozenset({"malformed", "wrong-game", "unknown-sender", "bad-signature"})


ASKS = frozenset({"heads", "ping", "seen", "probe", "where"})  # the asks proper: sent at a steady rate
# Every frame kind of this version (protocol.md 14, the table of frames). A frame of another kind (a later version's,
# or junk) is ignored, and counted as an ask as every frame but a msg is (frame_verdict; since session 45: a seat's
# tiny frames of a kind nobody knows, sent as fast as its link took them, cut nothing and held a phone page's main
# thread busy half the time).
KINDS = ASKS | {"msg", "join", "lobby", "refuse", "bye", "again", "rematch", "probed"}


# Frames a host takes from a link's budgets of their own (connection.Budgets.joins and .answers): a join again
# announces the lobby to every member, an answer to a rematch is a line on the host's screen.
HOST_BUDGETED = frozenset({"join", "again"})


def frame_verdict(budgets: Budgets, kind: str, now: float, host: bool = False) -> str:
    """A frame of `kind` at `now` (seconds, monotonic) against its link's budgets (protocol.md 14, "Bounds"): `free` (a
    `msg`: what it carries is judged as a message), `taken`, `excused` (past its budget, within the asks' slack: not
    answered, no bad message) or `bad` (not answered, a bad message: the 21st of a link's closes it). Every frame but a
    `msg` takes from the link's asks (since session 45: before, the asks only, so a seat's frames of an unknown kind, or
    `bye`s, `lobby`s not from the host, `probed`s nobody asked for, ..., sent as fast as its link took them, cost their
    receiver for as long as they came), at a host but a `join` (since session 32) or an `again` (session 33), which
    take from budgets of their own without slack. The TypeScript page's link.ts askVerdict decides alike (it hosts no
    game)."""
    if kind == "msg":
        return "free"
    budget = budgets.asks if not (host and kind in HOST_BUDGETED) else \
        budgets.joins if kind == "join" else budgets.answers
    if budget.take(now):
        return "taken"
    return "excused" if budget.excused else "bad"


def exceeded(kind: str, host: bool = False) -> str:
    """The bad message a frame of `kind` past its link's budget (frame_verdict's) is: at a host a `join` or `again`
    past its own, else an ask past the asks' (since session 46: a seat named a flood of `join`s, asks there, as past
    the host's 1 a second, where the page said they were asks; docs/development.md, 73)."""
    return f"more than {JOINS_PER_SECOND:.0f} {kind} a second" if host and kind in HOST_BUDGETED \
        else asks_exceeded(kind)


def asks_exceeded(kind: str) -> str:
    """The bad message one ask past its link's budget (and slack) is: what asks are, the kind of this one named."""
    said = f"more than {Asks.PER_SECOND:.0f} asks a second (heads, ping, seen, probe, where and other frames but msg"
    return f"{said}: this one of a kind this node does not know, {neutral(kind, 40)!r})" if kind not in KINDS \
        else f"{said}: this one {kind})"


def on_frame(node, conn: Connection, kind: str, payload: Any) -> None:
    """One frame from a member's link (links are members' only: see net.mesh)."""
    session = node.session
    assert session is not None  # frames come over links, which Mesh.link gave our heads (of the session)
    verdict = frame_verdict(conn.budgets, kind, time.monotonic(), node.is_host)
    if verdict == "excused":
        return  # not answered, within what a stalled honest link brings at once (connection.Asks.SLACK)
    if verdict == "bad":
        # Not answered: each one past its budget (an ask's past its slack too) is a bad message, so a flood of them
        # is cut as one of forged bytes is.
        # (A join again, the first came before the link counted, net.mesh, is announced to every member: a stranger
        # watching who sent its own again and again, under two names by turns, slowed every turn 60-fold.)
        bad_message(conn, exceeded(kind, node.is_host))
        if conn.faults > node.mesh.fault_budget(conn) and not conn.closed:
            node.mesh.cut_for_bad_messages(conn)
        return
    if kind == "msg":
        if isinstance(payload, bytes) and payload in conn.received:
            # An honest peer sends a message once on a link (Connection.send_message): a copy again is a replay.
            bad_message(conn, "a message it had sent on this link already (replayed)")
        elif isinstance(payload, bytes) and session.inbox.held_copy(payload, conn.peer):
            conn.sent.add(payload)  # a copy of a message we hold: nothing in it for the session
            conn.received.add(payload)
        elif isinstance(payload, bytes):
            outputs = session.receive(payload, via=conn.peer)
            if session.inbox.holds(payload) or not session.inbox.started:
                conn.sent.add(payload)  # it has this one: never send it back on this link
                conn.received.add(payload)
            for item in outputs:
                if isinstance(item, Fault) and item.peer == conn.peer and item.code in BAD_MESSAGE_CODES \
                        and not item.fatal:
                    bad_message(conn, item.detail)
            node.act(outputs)
            for peer, what in session.inbox.overflowed().items():
                node.lobby.cut(peer, what, conn.address[0] if peer == conn.peer and conn.address else None)
        else:
            bad_message(conn, "a msg frame without bytes")
            if kind not in conn.warned:
                conn.warned.add(kind)
                quiet.warning(conn.address, "msg frame without bytes", "%s sent a msg frame without bytes",
                              fingerprint(conn.peer))
        if conn.faults and conn.faults > node.mesh.fault_budget(conn) and not conn.closed:  # (a budget: >= 0)
            node.mesh.cut_for_bad_messages(conn)
    elif kind == "ping":
        conn.heard_ping(payload)  # the peer's link timeout (protocol.md 14, "The link timeout")
    elif kind == "heads":
        for wire in session.missing_for(payload):
            conn.send_message(wire)
    elif kind == "join" and node.is_host:
        node.lobby.join(conn, payload)
    elif kind in ("lobby", "refuse"):
        if node.is_host or conn.peer != node.host_peer:  # only the host we joined speaks for the lobby
            if kind not in conn.warned:
                conn.warned.add(kind)
                quiet.warning(conn.address, f"{kind} frame not from the host",
                              "ignored a %s frame from %s: only the host's link may send one", kind,
                              fingerprint(conn.peer))
        elif kind == "lobby":
            node.lobby.mirror(payload)
        elif session.start is None or session.seat is None:  # after START the host has no special power
            node.refused = neutral(payload, 200)  # a peer's text: never raw to a terminal or log
            node.done.set()
    elif kind == "bye":
        node.byes.add(conn.peer)
    elif kind in ("rematch", "again"):
        node.rematch.frame(conn, kind, payload)
    elif kind == "seen":
        node.mesh.seen.learn(conn, payload)
    elif kind == "probe":  # a phone page asks what we hold, to judge its relay by: a signed answer (protocol.md 14)
        if isinstance(payload, bytes) and len(payload) == PROBE_NONCE:
            conn.send_nowait("probed", probe_answer(node.identity, conn.game_id, conn.nonces, payload, session.heads()))
    elif kind == "where":
        node.book.learn(conn, payload)
    elif kind not in KINDS:  # (a probed we never asked for, a join at a seat: nothing to them)
        quiet.warning(conn.address, "unknown frame kind",
                      "%s sent an unknown frame kind %r (ignored; counted as an ask)", fingerprint(conn.peer),
                      neutral(kind, 40))


def bad_message(conn: Connection, detail: str) -> None:
    """Count a bad message that came over `conn` (the first one's detail is kept for the line at the cut)."""
    conn.faults += 1
    if not conn.first_fault:
        conn.first_fault = detail[:300]
