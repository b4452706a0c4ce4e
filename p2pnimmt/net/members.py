"""Who is in a lobby: a member as the host sends it to everyone, and the check of one that arrived."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from ..protocol.identity import peer_id
from ..protocol.names import is_name

MAX_ADDRESSES = 8  # addresses a member may give besides the one the host saw (protocol.md 14, `join`)
RELAY_TOKEN = re.compile(r"[A-Za-z0-9_-]{8,64}")  # a phone link's token (web.server: token_urlsafe(18))

Relay = tuple[str, int, str]  # where a member's node serves the phone page's relay: address, port, token (issue 26)


@dataclass
class Member:
    """Someone in the lobby: a player (human or bot) or a spectator."""

    key: bytes
    name: str
    role: str
    bot: bool
    host: str
    port: int
    addresses: tuple[str, ...] = ()  # where it says it listens besides `host` (issue 27: beyond one LAN)
    relay: Relay | None = None  # where its node relays phone pages (issue 26: a page whose relay left goes there)
    where: Any = None  # its own signed word on where it listens (net.where.Where; session 40), as the host got it

    @property
    def peer(self) -> bytes:
        return peer_id(self.key)

    def dial_at(self) -> list[str]:
        """The addresses a player dials it at, in turn: where the host saw it, then those it gave, but a loopback
        or unspecified one (protocol.md 14: an honest join leaves loopback out; one named by a member seen
        elsewhere would be the dialler's own machine, where a stranger could make a phone's relay reach a
        service that listens on loopback only)."""
        return list(dict.fromkeys(a for a in (self.host, *(a for a in self.addresses if not this_machine(a))) if a))

    def as_dict(self) -> dict[str, Any]:
        found = {"key": self.key, "name": self.name, "role": self.role, "bot": self.bot, "host": self.host,
                 "port": self.port, "addresses": list(self.addresses)}
        if self.relay is not None:
            found["relay"] = list(self.relay)
        if self.where is not None:
            found["where"] = self.where.record()
        return found


def member_from(value: Any) -> Member | None:
    if not isinstance(value, dict):
        return None
    try:
        member = Member(value["key"], value["name"], value["role"], value["bot"], value["host"], value["port"])
    except KeyError:
        return None
    addresses = value.get("addresses", [])  # since issue 27; a member of an older lobby has none
    ok = (isinstance(member.key, bytes) and len(member.key) == 32 and isinstance(member.name, str)
          and is_name(member.name) and member.role in ("player", "spectator")
          and isinstance(member.bot, bool) and _address(member.host) and type(member.port) is int
          and 1 <= member.port <= 65535  # (any integer before session 45: a dial of 70000 raised OverflowError)
          and isinstance(addresses, list) and len(addresses) <= MAX_ADDRESSES
          and all(a and _address(a) for a in addresses))
    relay = relay_from(value.get("relay"))  # since issue 26; optional, and one that is not as below is left out
    return replace(member, addresses=tuple(addresses), relay=relay) if ok else None


def relay_from(value: Any) -> Relay | None:
    """A member's `relay` (protocol.md 14): [IP address, port, token] of the phone page's relay its node serves;
    None for none or one that is not that."""
    if not (isinstance(value, (list, tuple)) and len(value) == 3):
        return None
    address, port, token = value
    if not (is_ip(address) and type(port) is int and 1 <= port <= 65535 and isinstance(token, str)
            and RELAY_TOKEN.fullmatch(token)):
        return None
    return (address, port, token)


def _address(host: object) -> bool:
    """A member's `host`: an IP address, or empty (not known); never free text a screen could show."""
    return host == "" or is_ip(host)


def same_address(one: str, other: str) -> bool:
    """Two IP addresses as text that name one address (an IPv4-mapped one is its IPv4 address)."""
    if not (is_ip(one) and is_ip(other)):
        return False
    a, b = ipaddress.ip_address(one), ipaddress.ip_address(other)
    a = getattr(a, "ipv4_mapped", None) or a
    b = getattr(b, "ipv4_mapped", None) or b
    return a == b


def this_machine(address: str) -> bool:
    """A loopback or unspecified address (IPv4-mapped ones too): whoever dials it reaches its own machine."""
    ip = ipaddress.ip_address(address)
    mapped = getattr(ip, "ipv4_mapped", None)
    ip = mapped if mapped is not None else ip
    return ip.is_loopback or ip.is_unspecified


def is_ip(host: object) -> bool:
    """An IP address as text (never free text a screen could show)."""
    return isinstance(host, str) and len(host) <= 45 and _is_ip_text(host)


@lru_cache(maxsize=1024)
def _is_ip_text(host: str) -> bool:
    """is_ip of a short text, remembered: the seats' address reports (net.seen, with every ping of every link)
    name the same few addresses again and again (parsing one costs about 10 us)."""
    try:
        return bool(ipaddress.ip_address(host))
    except ValueError:
        return False
