"""Where one frame from a member's link goes: session messages to the session, the lobby's to net.lobby, a
rematch's to net.rematch (the frame kinds: net.node's docstring, protocol.md "Network")."""

from __future__ import annotations

import logging
from typing import Any

from ..protocol.events import Fault
from ..protocol.identity import fingerprint
from .connection import Connection

log = logging.getLogger("p2pnimmt.net")

MAX_LINK_FAULTS = 20  # bad messages over one link before we hang up on it


def on_frame(node, conn: Connection, kind: str, payload: Any) -> None:
    """One frame from a member's link (links are members' only: see net.mesh)."""
    session = node.session
    assert session is not None  # frames come over links, which Mesh.link gave our heads (of the session)
    if kind == "msg":
        if isinstance(payload, bytes):
            conn.sent.add(payload)  # it has this one: never send it back on this link
            outputs = session.receive(payload, via=conn.peer)
            conn.faults += sum(1 for item in outputs if isinstance(item, Fault) and item.peer == conn.peer)
            node.act(outputs)
            for peer, what in session.inbox.overflowed().items():
                node.lobby.cut(peer, what)
        else:
            conn.faults += 1
            log.warning("%s sent a msg frame without bytes", fingerprint(conn.peer))
        if conn.faults > MAX_LINK_FAULTS and not conn.closed:
            log.warning("closing the link to %s: %d bad messages", fingerprint(conn.peer), conn.faults)
            conn.close()
    elif kind == "heads":
        for wire in session.missing_for(payload):
            conn.send_message(wire)
    elif kind == "join" and node.is_host:
        node.lobby.join(conn, payload)
    elif kind in ("lobby", "refuse"):
        if node.is_host or conn.peer != node.host_peer:  # only the host we joined speaks for the lobby
            if kind not in conn.warned:
                conn.warned.add(kind)
                log.warning("ignored a %s frame from %s: only the host's link may send one", kind,
                            fingerprint(conn.peer))
        elif kind == "lobby":
            node.lobby.mirror(payload)
        elif session.start is None or session.seat is None:  # after START the host has no special power
            node.refused = str(payload)[:200]
            node.done.set()
    elif kind == "bye":
        node.byes.add(conn.peer)
    elif kind in ("rematch", "again"):
        node.rematch.frame(conn, kind, payload)
    elif kind != "ping":
        log.warning("%s sent an unknown frame kind %r", fingerprint(conn.peer), kind[:40])
