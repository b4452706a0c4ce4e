"""Where the players are, as the other players found them (issue 27: a mesh without multicast; protocol.md 14,
`seen`): each seat tells the seats it is linked to, for every player it has a link with, the address it
reached that player at (it dialled) or saw it come from (it was dialled); a player that reaches another at
none of the addresses the host's lobby gave (where the host saw it, those its join named) dials it at these. A report
goes to each new link, to every linked seat when it changed, and with every ping.

A report counts only from a seat's link, names seats only, and holds at most one address per player; the
latest report of each seat replaces its earlier one. A member can thus make us dial at most one address of
its choosing per player, as dial spacing allows (net.mesh); whoever answers there with another key is
closed at the handshake.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from typing import Any

from ..protocol.identity import fingerprint
from ..quietlog import quiet
from .connection import Connection
from .members import is_ip

log = logging.getLogger("p2pnimmt.net")

KIND = "seen"


def read_report(payload: Any, reporter: bytes, us: bytes, seats: Collection[bytes]) -> dict[bytes, str] | str:
    """A `seen` report from `reporter` at a seat `us` of a game of `seats` (peer ids): each player it names but
    itself and us, with the address it gives; or why it is ignored, whole (protocol.md 14, vectors `seen-reports`)."""
    if reporter not in seats:
        return "only a seat of the game reports where the players are"
    if not isinstance(payload, list) or len(payload) > len(seats):
        return f"a report is a list of at most {len(seats)} players"
    report: dict[bytes, str] = {}
    for entry in payload:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], bytes) and entry[0] in seats
                and isinstance(entry[1], list) and len(entry[1]) == 1 and is_ip(entry[1][0])):
            return "each entry is [a seat's peer id, [one IP address]]"
        if entry[0] not in (reporter, us):
            report[entry[0]] = entry[1][0]
    return report


class Seen:
    """One node's view of where the players are, from the others' reports, and its own report to them."""

    def __init__(self, node) -> None:
        self.node = node
        self._reports: dict[bytes, dict[bytes, str]] = {}  # reporting seat -> {player: address}
        self._told: list[Any] | None = None  # our latest report, as sent to every linked seat

    def _seat(self, peer: bytes) -> bool:
        """A player of the START (a report counts only from one, and names only them)."""
        session = self.node.session
        return session is not None and session.start is not None and peer in session.keys

    def report(self) -> list[Any]:
        """Ours: [player peer id, [address]] for each seat we have a link with, sorted."""
        node = self.node
        found = []
        for peer, conn in node.links.items():
            address = conn.dialed[0] if conn.dialed is not None else conn.address[0] if conn.address else ""
            if peer != node.identity.peer and self._seat(peer) and is_ip(address):
                found.append([peer, [address]])
        return sorted(found)

    def tell(self, conn: Connection | None = None) -> None:
        """Every linked seat gets our report when it changed; `conn` (a new link, or one we ping) gets it anyway.
        Only a seat reports."""
        node = self.node
        if node.role != "player" or not self._seat(node.identity.peer):
            return
        report = self.report()
        changed = report != self._told
        self._told = report
        for peer, link in list(node.links.items()):
            if self._seat(peer) and (changed or link is conn) and not link.closed:
                link.send_nowait(KIND, report)

    def learn(self, conn: Connection, payload: Any) -> None:
        """A seat's report: where it reached or saw the others (anything malformed is ignored in one line). One
        that comes before we have the START is left (we cannot tell a seat yet): it comes again with a ping."""
        session = self.node.session
        if session is None or session.start is None:
            return
        read = read_report(payload, conn.peer, self.node.identity.peer, session.keys)
        if isinstance(read, str):
            return self._ignore(conn, read)
        report = read
        new = {peer: address for peer, address in report.items()
               if address not in self.addresses_of(peer)}
        self._reports[conn.peer] = report
        for peer, address in new.items():
            log.info("%s reached %s at %s", fingerprint(conn.peer), fingerprint(peer), address)
        if new:
            self.node.mesh.members_updated()  # a dialler waiting for somewhere to dial looks again

    def _ignore(self, conn: Connection, why: str) -> None:
        if KIND not in conn.warned:
            conn.warned.add(KIND)
            quiet.warning(conn.address, "seen frame ignored", "ignored a seen frame from %s: %s",
                          fingerprint(conn.peer), why)

    def addresses_of(self, peer: bytes) -> list[str]:
        """Where the others reached `peer` or saw it come from, in the order the seats' reports came."""
        return list(dict.fromkeys(report[peer] for report in self._reports.values() if peer in report))
