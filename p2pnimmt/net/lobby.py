"""The lobby on the wire (before START): a host admits, refuses, removes and cuts off members and starts the
game; everyone else mirrors the host's lobby frame (net.node's docstring; protocol.md 14, "Membership").

A joiner sends ["join", {name, role, bot, port}]; the host answers ["lobby", {...}] to every member on each
change, or ["refuse", reason]. Lobby reads and writes only the node's public state (its members, settings,
seats, lobby_state, links, session) and the seats held for a rematch (net.held).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..engine import MAX_PLAYERS, MIN_PLAYERS, Settings
from ..protocol.identity import fingerprint
from ..protocol.names import look_alike, watcher_name
from ..quietlog import quiet
from .connection import Connection
from .members import MAX_ADDRESSES, Member, member_from, same_address
from .seatdoor import SeatDoor
from .where import where_from

log = logging.getLogger("p2pnimmt.net")  # what strangers can repeat goes through quietlog's `quiet`

MAX_SPECTATORS = 32  # spectators a host admits at once (each key one; they are removed when they leave)
# A host sends a member at most one lobby frame each ANNOUNCE_EVERY seconds, the changes meanwhile in one (the lobby as
# it is when it goes): a member counts them as asks (protocol.md 14, "Bounds": 20 a second). Before the session-45
# review a stranger coming and going as a spectator made the host send 240 in 0.4 s: past the budget a member ignored
# them (its lobby stale), past the slack it counted them as bad messages and cut its host.
ANNOUNCE_EVERY = 0.25

LobbyListener = Callable[[Any], None]


def lobby_members(entries: list[Any]) -> list[tuple[dict[str, Any], Member]]:
    """The entries of a lobby frame's `members` a joiner reads (the first MAX_SPECTATORS + 10) that are members
    (member_from: a malformed one is left out), each with its member (protocol.md 14, vectors: `lobby-members`)."""
    found = ((entry, member_from(entry)) for entry in entries[:MAX_SPECTATORS + 10])
    return [(entry, member) for entry, member in found if member is not None]


def lobby_seats(value: Any, had: int) -> int:
    """A lobby frame's `seats` as a joiner takes it: an integer MIN_PLAYERS..MAX_PLAYERS, else the seats it had
    (protocol.md 14, vectors `lobby-members`, `seats`; before session 46 any integer, shown as "2/70000 seats")."""
    return value if type(value) is int and MIN_PLAYERS <= value <= MAX_PLAYERS else had


class Lobby:
    """One node's lobby: the host's door (join, refuse, kick, cut, start) and a joiner's mirror of it."""

    def __init__(self, node) -> None:
        self.node = node
        self.door = SeatDoor(node)  # a host: the seat key each join proves (protocol.md 14)
        self.shown_as: str | None = None  # a joiner: the name the host shows for us, when not ours (told once)
        self._listeners: list[LobbyListener] = []
        self._announced = float("-inf")  # a host: when its last lobby frame went (the event loop's time)
        self._announce_later: asyncio.TimerHandle | None = None  # the one that goes at the end of ANNOUNCE_EVERY
        self._answered: dict[Connection, dict[str, Any]] = {}  # joiners sent the lobby at once since, and which one

    def watch(self, listener: LobbyListener) -> Callable[[], None]:
        """Call `listener(node)` whenever the lobby changes (members, settings, state); returns what stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def changed(self) -> None:
        """Tell the lobby's listeners."""
        for listener in list(self._listeners):
            try:
                listener(self.node)
            except Exception:  # a display problem must not break the link or the lobby
                log.exception("lobby listener failed")

    def cut(self, peer: bytes, what: str, address: str | None = None) -> None:
        """`peer`'s link (at `address`: by default its link's, else where the host saw it) went over a cap: close its
        link; a spectator is removed (and not admitted again from that address: net.trouble)."""
        node = self.node
        conn = node.links.get(peer)
        member = node.members.get(peer)
        spectator = member is not None and member.role == "spectator"
        source = conn.address if conn is not None and conn.address else member.host if member is not None else None
        address = address or (source[0] if isinstance(source, tuple) else source) or "?"
        if node.mesh.trouble.cut_off(peer, address):  # remembered; a line per address and cap, then a count
            quiet.warning(source, "cut off: " + re.sub(r"\d+", "#", what), "cut off %s%s: it sent %s",
                          fingerprint(peer), " (a spectator, removed)" if spectator else "", what)
        if conn is not None:
            conn.close()
        if spectator and node.is_host:
            del node.members[peer]
            self.announce()

    def remove_spectator(self, peer: bytes) -> None:
        """Host: `peer`, if a spectator, leaves the lobby (its link was cut for bad messages; it may join again)."""
        node = self.node
        member = node.members.get(peer)
        if node.is_host and member is not None and member.role == "spectator":
            del node.members[peer]
            self.announce()

    def join(self, conn: Connection, payload: Any) -> None:
        """Host: a would-be member's join; it is admitted (and linked) or refused."""
        node = self.node
        if not isinstance(payload, dict):
            self.refuse(conn, "a join must be a map")
            return
        host = conn.address[0] if conn.address else ""
        fields = {k: payload.get(k) for k in ("name", "role", "bot", "port")}
        fields["addresses"] = payload.get("addresses", [])  # where it listens besides where we see it (issue 27)
        fields["relay"] = payload.get("relay")  # where its node relays phone pages (issue 26), if it does
        member = member_from({"key": conn.key, "host": host, **fields})
        if member is None:
            self.refuse(conn, "malformed join: name, role (player|spectator), bot, port (1..65535), addresses (at "
                        f"most {MAX_ADDRESSES} IP addresses)")
            return
        if member.relay is not None and not same_address(member.relay[0], host):
            # protocol.md 14, a member's `relay`: only where we see it (its own machine), never another's address,
            # which phone pages would open their tunnels at (session 39): left out, the member kept
            member = replace(member, relay=None)
        session = node.session
        seated = session is not None and session.start is not None and conn.peer in session.keys
        known = node.members.get(conn.peer)
        held = node.held_seats
        if node.mesh.trouble.is_cut_off(conn.peer, host) and not seated:  # a seat keeps its seat (its link was closed)
            self.refuse(conn, "cut off: you went over a limit of this node")
            return
        why = self.door.why_not(conn, payload, seated)  # a seat of the START is a member already
        if why is not None:
            self.refuse(conn, why)
            return
        if member.role == "player" and not seated and (known is None or known.role != "player") and (
                len(node.players()) >= node.seats or node.lobby_state != "lobby"):
            self.refuse(conn, "the table is full" if node.lobby_state == "lobby" else "the game has started")
            return
        continues = held.continues()
        if member.role == "player" and not seated and continues is not None and conn.peer not in continues:
            self.refuse(conn, "this game continues the scores of the one before: only its players sit")
            return
        if member.role == "player" and conn.peer not in held.held and (known is None or known.role != "player") \
                and len(node.players()) + len(held.held) >= node.seats:
            self.refuse(conn, "the seats are held for the players of the previous game")
            return
        if member.role == "spectator" and seated:
            member = replace(member, role="player")  # a seat stays a seat
        twin = next((m for m in node.players() if m.peer != conn.peer and look_alike(m.name, member.name)), None)
        if member.role == "player" and not seated and twin is not None:
            self.refuse(conn, f"the name {member.name} looks like {twin.name}'s, who has a seat here: "
                              "choose another name (--name NAME, or the menu)")
            return
        if member.role == "spectator" and known is None:
            spectators = sum(1 for m in node.members.values() if m.role == "spectator")
            if spectators >= MAX_SPECTATORS:
                quiet.warning(conn.address, "refused a spectator (too many)",
                              "refused %s as a spectator: %d are watching already", fingerprint(conn.peer),
                              MAX_SPECTATORS)
                self.refuse(conn, f"too many spectators ({MAX_SPECTATORS})")
                return
        where = where_from(payload.get("where"), conn.key, node.game_id) if node.game_id is not None else None
        if known is not None and known.where is not None and (where is None or where.serial <= known.where.serial):
            where = known.where  # a join again without it (a relay offered), or with an older one: the newer stands
        member = replace(member, where=where)
        node.members[conn.peer] = self.unlike_others(member, conn)
        if where is not None and node.book.take(where):
            node.book.taken()
        if member.role == "player":  # a seat's name is signed: a spectator who looks like it gives way
            for other in [m for m in node.members.values() if m.role == "spectator"]:
                if look_alike(other.name, member.name):
                    node.members[other.peer] = self.unlike_others(other, node.links.get(other.peer))
        node.mesh.link(conn)
        self.announce(joiner=conn)
        if held.holding:
            held.check()
        elif node.lobby_state == "lobby" and len(node.players()) == node.seats:
            self.start()

    def unlike_others(self, member: Member, conn: Connection | None) -> Member:
        """A spectator shown under a name that looks like no other member's (protocol.md 14: `ann (watching)`
        when ann is here); a player as it is (the checks above refused a look-alike seat)."""
        if member.role != "spectator":
            return member
        name = watcher_name(member.name, [m.name for m in self.node.members.values() if m.peer != member.peer])
        if name == member.name:
            return member
        quiet.info(conn.address if conn is not None else member.host, "spectator renamed",
                   "showing spectator %s as %r: %r looks like a member's name", fingerprint(member.peer), name,
                   member.name)
        return replace(member, name=name)

    def refuse(self, conn: Connection, reason: str) -> None:
        """Tell a would-be member why not, and hang up (it gets nothing of the game). A member's link refused so is
        gone as any other (left: a spectator is removed; before session 35 it stayed, a ghost that counted against
        MAX_SPECTATORS)."""
        links = self.node.links
        conn.send_nowait("refuse", reason)
        conn.close()
        if links.get(conn.peer) is conn:
            del links[conn.peer]
            self.left(conn.peer)

    def kick(self, peer: bytes) -> None:
        """Host: remove someone from the lobby."""
        node = self.node
        if node.is_host and node.lobby_state == "lobby" and peer in node.members and peer != node.identity.peer:
            del node.members[peer]
            conn = node.links.get(peer)
            if conn is not None:
                self.refuse(conn, "removed by the host")
            self.announce()

    def start_now(self) -> None:
        """Host: start with the players in the lobby now (the seats not taken are dropped from the table)."""
        node = self.node
        players = len(node.players())
        if not node.is_host or node.lobby_state != "lobby" or players < 2:
            raise ValueError("only the host can start, in the lobby, with at least 2 players")
        assert node.settings is not None  # a host has them from host() (a resumed host is past the lobby)
        node.settings = replace(node.settings, players=players)
        node.seats = players
        self.start()

    def body(self) -> dict[str, Any]:
        """The host's lobby frame."""
        node = self.node
        s = node.settings
        assert s is not None  # the host's, from host()
        return {"state": node.lobby_state, "seats": node.seats, "members": [m.as_dict() for m in node.members.values()],
                "settings": {"variant": s.variant, "point_limit": s.point_limit, "max_rounds": s.max_rounds,
                             "deal": s.deal, "clock": s.clock}}

    def announce(self, at_once: bool = False, joiner: Connection | None = None) -> None:
        """Host: send every member the lobby as it is now (at once, or ANNOUNCE_EVERY after the last one went); a
        `joiner` just admitted has it at once, its answer (the others within ANNOUNCE_EVERY; the joiner then only if
        the lobby changed meanwhile: since session 46, before it had the same lobby twice)."""
        node = self.node
        if joiner is not None and not at_once and not joiner.closed:
            body = self.body()
            joiner.send_nowait("lobby", body)
            self._answered[joiner] = body
        if at_once:
            if self._announce_later is not None:
                self._announce_later.cancel()
            self._send_lobby()
        elif self._announce_later is None:
            loop = asyncio.get_running_loop()
            wait = self._announced + ANNOUNCE_EVERY - loop.time()
            if wait > 0:
                self._announce_later = loop.call_later(wait, self._send_lobby)
            else:
                self._send_lobby()
        node.mesh.members_updated()
        self.changed()

    def _send_lobby(self) -> None:
        """Host: the lobby as it is now, to every member."""
        node = self.node
        self._announce_later = None
        self._announced = asyncio.get_running_loop().time()
        body = self.body()
        answered, self._answered = self._answered, {}
        for conn in node.links.values():
            if answered.get(conn) != body:  # (a joiner answered with this very lobby has it)
                conn.send_nowait("lobby", body)

    def mirror(self, payload: Any) -> None:
        """A joiner: the host's lobby frame (once the game is playing, players complete the mesh)."""
        node = self.node
        if not isinstance(payload, dict) or not isinstance(payload.get("members"), list):
            return
        read = lobby_members(payload["members"])
        node.members = {m.peer: m for _, m in read}
        news = forwarded = False
        for entry, member in read:  # each player's own signed word on where it listens, kept; our own read once
            ours = member.peer == node.identity.peer
            if (member.role == "player" or ours) and node.game_id is not None:
                where = where_from(entry.get("where"), member.key, node.game_id)
                forwarded = forwarded or (ours and where is not None)
                news = (member.role == "player" and where is not None and node.book.take(where)) or news
        if news:
            node.book.taken()
        # our own record in it: a host that forwards records, so decides link proofs (Node.host_decides_links)
        node.where_forwarded = forwarded
        me = node.members.get(node.identity.peer)
        if me is not None and me.role == "spectator" and me.name != node.name and me.name != self.shown_as:
            self.shown_as = me.name  # a spectator whose name looks like another member's (Lobby.unlike_others)
            quiet.warning(node.host_address, "shown under another name",
                          "the host shows you as %r: %r looks like the name of someone here", me.name, node.name)
        node.mesh.members_updated()
        seats = payload.get("seats")
        taken = lobby_seats(seats, 0)  # (0 is never a lobby's seats: the host's is not one)
        if not taken:
            said = str(seats) if type(seats) is int and abs(seats) < 10**9 else f"a {type(seats).__name__}"
            quiet.warning(node.host_address, "lobby seats ignored", "the host's lobby frame gives seats as %s, not %d "
                          "to %d: kept %d", said, MIN_PLAYERS, MAX_PLAYERS, node.seats)
        node.seats = taken or node.seats
        state = payload.get("state")
        node.lobby_state = state if state in ("lobby", "playing") else node.lobby_state
        settings = payload.get("settings")
        if isinstance(settings, dict):  # shown to people only: the signed START is what counts
            try:
                variant: Any = settings.get("variant")  # as sent: Settings rejects what is not a variant
                node.settings = Settings(players=max(2, min(10, node.seats)), variant=variant,
                                         point_limit=settings.get("point_limit"), max_rounds=settings.get("max_rounds"),
                                         deal=settings.get("deal", "sealed"), clock=settings.get("clock"))
            except (ValueError, TypeError):
                pass
        self.changed()
        if node.lobby_state == "playing":
            node.mesh.dial_mesh()

    def left(self, peer: bytes) -> None:
        """A member's link is gone: a host removes a spectator who left (it may join again); fronts hear of it."""
        node = self.node
        member = node.members.get(peer)
        if node.is_host and member is not None and member.role == "spectator" and not node.done.is_set():
            del node.members[peer]
            self.announce()
        self.changed()  # who is linked changed: the lobby's "connected" and the table's "left"

    def start(self) -> None:
        """Host: sign START with the players present (a rematch: the previous game's seats first, in order)."""
        node = self.node
        node.lobby_state = "playing"
        held = node.held_seats
        order = held.seat_order  # a rematch: the seats of the previous game keep their order, newcomers after
        players = sorted(node.players(), key=lambda m: order.get(m.peer, len(order)))
        roster = [(m.key, m.name, m.bot) for m in players]
        self.announce(at_once=True)  # (once a game: ahead of its START, as the members have always had it)
        assert node.session is not None and node.settings is not None  # both set by host()
        node.act(node.session.host(node.salt, node.settings, roster, previous=held.previous,
                                   carry=held.carry([key for key, _name, _bot in roster])))
