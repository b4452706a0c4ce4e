"""The node a phone relay reads (web.relay.Node), for the relay's own tests: a host on 127.0.0.1 at a port, its
members added by the test."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Member:
    role: str
    port: int
    relay: tuple[str, int, str] | None = None
    host: str = "127.0.0.1"  # where the host saw it

    def dial_at(self) -> list[str]:
        return ["127.0.0.1"]


class Game:
    """A host on 127.0.0.1 at `port`; players are added by the test (`members`)."""

    def __init__(self, port: int) -> None:
        self.game_id = bytes(16)
        self.is_host = True
        self.interface = "127.0.0.1"
        self.port = port
        self.host_address = None
        self.drop_after = 60.0
        self.seat_key: str | None = None
        self.members: dict[bytes, Member] = {}

    def seat_of_start(self, peer: bytes) -> bool:
        return False

    def host_decides_links(self) -> bool:
        return self.is_host  # the host decides its link proofs itself (protocol.md 14, "The link secret")

    def signed_addresses(self) -> list[tuple[str, int]]:
        return []  # no member here signed where it listens (protocol.md 14, "Where a member listens")
