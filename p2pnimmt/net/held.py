"""The lobby of a rematch (protocol.md 14, "Rematch"): its host holds a seat for each player of the previous
game, for a while, or until each has joined or declined; then the game starts with the players present."""

from __future__ import annotations

import asyncio
import logging

from ..protocol.carry import carry_for, round_ends
from ..protocol.identity import peer_id

log = logging.getLogger("p2pnimmt.net")


class HeldSeats:
    """A host's seats held for the players of the previous game (none outside a rematch's lobby)."""

    def __init__(self, node) -> None:
        self.node = node
        self.previous: bytes | None = None  # the game this one is a rematch of (START's `previous`)
        self.held: dict[bytes, int] = {}  # peer id -> seat held for a player of the previous game
        self.seat_order: dict[bytes, int] = {}  # peer id -> its seat in the previous game (roster order)
        self.holding = False  # a rematch whose held seats are not all answered yet
        self.carry_from = None  # a new start after an equivocation: the abandoned game's table (protocol.md 9, carry)

    def hold(self, previous: bytes | None, seats: list[bytes], wait: float, carry_from=None) -> None:
        """The START names `previous`; the seats are held for these keys (in this seat order) for `wait`
        seconds, or until each has joined or declined. `carry_from`: the table of a game an equivocation ended, whose
        scores the START carries (protocol.md 9, `carry`)."""
        node = self.node
        self.previous = previous
        self.carry_from = carry_from
        self.seat_order = {peer_id(key): i for i, key in enumerate(seats)}
        self.held = {peer_id(key): i for i, key in enumerate(seats) if key != node.identity.public_key}
        self.holding = True

        async def expire() -> None:
            await asyncio.sleep(wait)
            if self.held:
                log.info("the seats held for %d player(s) of the previous game are released (%.0f s)",
                         len(self.held), wait)
            for peer in list(self.held):
                self.release(peer)

        node.spawn(expire())
        self.check()

    def release(self, peer: bytes) -> None:
        """A held seat's player declined (or did not answer in time): its seat is no longer held."""
        if self.held.pop(peer, None) is not None:
            self.check()

    def check(self) -> None:
        """Once no seat is held any more, a rematch starts with the players present (2 or more)."""
        node = self.node
        for peer in [p for p in self.held if p in node.members and node.members[p].role == "player"]:
            del self.held[peer]  # joined
        if self.held or not self.holding or node.lobby_state != "lobby":
            return
        self.holding = False  # from now on an ordinary lobby: it starts when its seats are full
        players = len(node.players())
        if players == node.seats:
            node.lobby.start()
        elif players >= 2:
            node.start_now()
        node.lobby.changed()

    def carry(self, keys: list[bytes]) -> dict | None:
        """The START's carry for a roster of `keys` (protocol.md 9), or None: not a new start after an equivocation, or
        no round of the evening played yet (the new game starts from zero alike)."""
        return carry_for(self.carry_from, keys) if self.carry_from is not None else None

    def continues(self) -> set[bytes] | None:
        """The peer ids a game that carries scores may seat (the seats held for it: a newcomer has no score to carry,
        and the seat left out stays out), or None: any may join."""
        table = self.carry_from
        if table is None or max(round_ends(table), default=0) == 0:
            return None
        return set(self.seat_order)
