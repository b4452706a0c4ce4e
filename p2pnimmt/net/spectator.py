"""A spectator's one link into the game: through the host it joined, and through any seat when the host is gone.

A spectator watches through one link. Every peer relays every message to the spectators linked to it
(protocol.md 8), so any member can carry the game to it. When its link ends, the spectator dials the host
again first (it may be back, resumed), then each seat of the START at the address the host's lobby frame
gave for it, in seat order, one after the other, until one answers as that seat; the `heads` exchange of the
new link brings whatever it missed. Dials to one address keep the mesh's spacing (net.mesh.Mesh.dial), so
the rounds never become a tight loop. A spectator that can reach nobody stops when the game has not moved
for --give-up seconds (app.nodes.finish, one line saying whom it tried), its transcript ending at its last
whole record. One without the START whose host's port refuses (the host left before the game reached it: a
join read as the game ended, after the host had gone) has no seat to dial and nothing to wait for: it stops at
once (host_gone_before_start). A host waits, within its wait for the byes, for a join on its way (Node.linger).
"""

from __future__ import annotations

import logging

from ..neutral import PLAIN
from ..protocol.identity import fingerprint
from .connection import Connection, ConnectionFailed, Refused

log = logging.getLogger("p2pnimmt.net")


def candidates(node, host: tuple[str, int]) -> list[tuple[bytes | None, str, int]]:
    """Whom a spectator may dial, in order: (the peer it must answer as, or None for the host's address before
    we know its key), address. The host first, then the START's seats at the addresses the host's lobby gave."""
    found: list[tuple[bytes | None, str, int]] = [(node.host_peer, host[0], host[1])]
    session = node.session
    roster = list(session.roster) if session is not None and session.start is not None else []
    for peer in roster:
        member = node.members.get(peer)
        if peer == node.host_peer or peer == node.identity.peer or member is None or member.role != "player":
            continue
        if not member.host or not 0 < member.port < 65536:
            continue
        found.append((peer, member.host, member.port))
    return found


def names_of(node) -> dict[bytes, str]:
    """Peer id -> name at the table, from the START (empty before it)."""
    session = node.session
    if session is None or session.start is None:
        return {}
    return dict(zip(session.roster, session.names, strict=True))


def tried(node, host: tuple[str, int]) -> str:
    """Whom a spectator dials, for a person: `ann at 127.0.0.1:4000, bob at 127.0.0.1:4001`."""
    names = names_of(node)
    return ", ".join(f"{names.get(peer, 'the host') if peer is not None else 'the host'} at {addr}:{port}"
                     for peer, addr, port in candidates(node, host))


def host_gone_before_start(node) -> bool:
    """A joiner without the START whose host is gone: there is no seat to dial, and nothing to wait for (a game
    is taken up again only past its START: app.resume). A spectator: its host refused its last dial (nothing
    listens there) and it has no link at all. A player in the lobby: its host, not linked, said `bye` (it left
    on purpose) or refused its last redial (net.mesh); a host merely silent (a cut network may heal) is not
    gone: that is the give-up time's (app.nodes.stalled)."""
    session, host = node.session, node.host_peer
    if node.is_host or host is None or session is None or session.start is not None or host in node.links:
        return False
    if node.role == "spectator":
        return not node.links and host in node.unreachable
    return host in node.byes or host in node.unreachable


def host_gone_how(node) -> str | None:
    """How the host went, when host_gone_before_start: "bye" (it said so), else "refused"; None when it is not
    gone (a node's line, app.nodes; its relay's word to its phone pages, web.relay.Relay.close)."""
    if not host_gone_before_start(node):
        return None
    return "bye" if node.host_peer in node.byes else "refused"


async def reach(node, host: tuple[str, int]) -> Connection | None:
    """Dial the host, then every seat, round after round, until one answers as who it should be, or the game
    is over for us (None)."""
    while not node.done.is_set():
        refused: set[bytes] = set()  # the seats whose address refused this round's dial
        for peer, address, port in candidates(node, host):
            if node.done.is_set():
                return None
            try:
                conn = await node.mesh.dial(address, port, expect=peer)  # (another key there: refused unsigned)
            except Refused as exc:  # nothing listens there: that seat's process is gone (app.nodes: too few)
                log.info("spectator: %s:%d does not answer: %s", address, port, exc)
                if peer is not None:
                    refused.add(peer)
                continue
            except ConnectionFailed as exc:
                log.info("spectator: %s:%d does not answer: %s", address, port, exc)
                continue
            if peer is not None and conn.peer != peer:
                log.warning("%s:%d now answers as %s, not %s", address, port, fingerprint(conn.peer),
                            fingerprint(peer))
                conn.close()
                continue
            if node.done.is_set():
                conn.close()
                return None
            if peer != node.host_peer:
                name = names_of(node).get(conn.peer, fingerprint(conn.peer))
                log.warning("the host does not answer: watching through %s at %s:%d", name, address, port,
                            extra=PLAIN)
            node.unreachable = set()  # someone answers: nobody counts as gone for having refused
            return conn
        node.unreachable = refused  # a whole round dialled and nobody answered: what refused is gone (app.nodes)
    return None


async def watch_through(node, conn: Connection, host: tuple[str, int]) -> None:
    """Serve a spectator's link until the game is over for it; each time the link ends, reach another."""
    while True:
        await node.mesh.serve(conn)  # returns when the link ends
        if node.done.is_set():
            return
        again = await reach(node, host)
        if again is None:
            return
        conn = again
