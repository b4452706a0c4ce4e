"""Every answer a look for one code hears for the advertisements named for it, each kept apart (red team, session
29: a stranger answering under the host's instance name, `CODE-HOSTKEY`, with a TXT and an SRV of its own).

mDNS cannot tell whose answer for a name is right: its records are unsigned, and each answer's cache-flush bit
evicts the others' from the cache (RFC 6762 10.2), so the look's resolution of the name gives one TXT and one SRV,
often the stranger's. Heard listens to the records of every response as it comes, before the cache keeps or
flushes them (zeroconf's RecordUpdateListener), and keeps, for each name named for the code, each distinct TXT, each
distinct SRV (port and host name) and each address that answered for those host names: `readings(name)` pairs
every TXT with every SRV (net.discovery.readings makes a GameAd of each). `join` dials every one that holds the
code; the handshake proves which is the game advertised (the salt binds its game id to the key proved:
net.node.Node.join), so the real host wins and a copy pointing elsewhere is refused, as before.

Bounded: MAX_READINGS TXTs and SRVs for a name (those heard most often first: the host answers every question
with the same), MAX_READINGS addresses for a host name, the names as the look bounds them (MAX_GAMES).
"""

from __future__ import annotations

import re
import socket
from collections import Counter
from typing import TYPE_CHECKING, Any

from zeroconf import DNSAddress, DNSService, DNSText, RecordUpdateListener

if TYPE_CHECKING:
    from collections.abc import Callable

    from zeroconf import RecordUpdate, Zeroconf

MAX_READINGS = 8  # distinct TXTs, SRVs (for one name) and addresses (for one host name) kept
MAX_NAMES = 64  # names named for the code whose answers are kept (a look takes MAX_GAMES of them)


def txt_properties(text: bytes) -> dict[bytes, bytes | None]:
    """A TXT record's data as DNS-SD properties (RFC 6763 6: length-prefixed `key=value` strings, the first of a
    key counts; a key without `=` has no value)."""
    properties: dict[bytes, bytes | None] = {}
    at = 0
    while at < len(text):
        item = text[at + 1:at + 1 + text[at]]
        at += 1 + text[at]
        key, sep, value = item.partition(b"=")
        properties.setdefault(key, value if sep else None)
    return properties


class Heard(RecordUpdateListener):
    """The TXTs, SRVs and addresses heard for the advertisements named for `code` under `service` (module doc)."""

    def __init__(self, code: str, service: str, ours: Callable[[str], bool],
                 told: Callable[[str], None] | None = None) -> None:
        self.code = code
        self.ours = ours  # whether a name is named for the code (net.discovery.named_for)
        self.told = told  # told(name) when a TXT not heard before is kept for `name`
        self.suffix = "." + service.lower()
        self.texts: dict[str, Counter[bytes]] = {}  # name (lower case) -> TXT data -> times heard
        self.services: dict[str, Counter[tuple[int, str]]] = {}  # name -> (port, host name) -> times heard
        self.addresses: dict[str, dict[str, None]] = {}  # host name (lower case) -> IPv4 addresses, in order heard
        self.names: dict[str, str] = {}  # name (lower case) -> as written

    def _ours(self, name: str) -> str | None:
        key = name.lower()
        if not key.endswith(self.suffix) or not self.ours(name):
            return None
        if key not in self.names:
            if len(self.names) >= MAX_NAMES:
                return None
            self.names[key] = name
        return key

    def async_update_records(self, zc: Zeroconf, now: float, records: list[RecordUpdate]) -> None:
        hosts = set()
        new_texts = []
        for update in records:
            record: Any = update.new
            if record.ttl == 0:  # a goodbye: nothing to dial
                continue
            if isinstance(record, DNSText | DNSService) and (key := self._ours(record.name)) is not None:
                seen = self.texts if isinstance(record, DNSText) else self.services
                value = record.text if isinstance(record, DNSText) else (record.port, record.server.lower())
                heard: Counter[Any] = seen.setdefault(key, Counter())
                if value in heard or len(heard) < MAX_READINGS:
                    if value not in heard and isinstance(record, DNSText):
                        new_texts.append(key)
                    heard[value] += 1
                if isinstance(record, DNSService):
                    hosts.add(record.server.lower())
        known = hosts | {server for heard in self.services.values() for _port, server in heard}
        for update in records:
            record = update.new
            if isinstance(record, DNSAddress) and record.ttl and len(record.address) == 4 \
                    and record.name.lower() in known:
                addresses = self.addresses.setdefault(record.name.lower(), {})
                if len(addresses) < MAX_READINGS:
                    addresses[socket.inet_ntoa(record.address)] = None
        if self.told is not None:
            for key in dict.fromkeys(new_texts):
                self.told(self.names[key])

    def game_ids(self, name: str) -> list[bytes]:
        """The game ids of the TXTs heard for `name` that claim the code (whether each holds it: a scrypt)."""
        ids = []
        for text in self.texts.get(name.lower(), Counter()):
            properties = txt_properties(text)
            gid = properties.get(b"gid") or b""
            if properties.get(b"code") == self.code.encode() and re.fullmatch(rb"[0-9a-fA-F]{32}", gid):
                ids.append(bytes.fromhex(gid.decode()))
        return list(dict.fromkeys(ids))

    def readings(self, name: str, resolved: tuple[int, tuple[str, ...]] | None = None
                 ) -> list[tuple[dict[bytes, bytes | None], tuple[str, ...], int, str]]:
        """Each TXT heard for `name` that claims the code, with each SRV heard for it (at the addresses heard for its
        host name; else, for the port and addresses the look's resolution gave, `resolved`), the most heard first:
        (properties, addresses, port, name), what net.discovery.parse_ad reads."""
        key = name.lower()
        services = [service for service, _n in self.services.get(key, Counter()).most_common()]
        if resolved is not None and not services:
            services = [(resolved[0], "")]
        found = []
        for text, _n in self.texts.get(key, Counter()).most_common():
            properties = txt_properties(text)
            if properties.get(b"code") != self.code.encode():
                continue
            for port, server in services:
                addresses = tuple(self.addresses.get(server, {}))
                if not addresses and resolved is not None:
                    addresses = resolved[1]
                found.append((properties, addresses, port, self.names.get(key, name)))
        return found
