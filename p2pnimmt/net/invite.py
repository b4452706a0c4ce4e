"""Invite links: where a game's host listens, its code and its key, in one line to send a friend elsewhere.

    p2pnimmt://100.101.102.103:4000,192.168.1.20:4000/QM5Z-7Q2K?s=2085146H258S3MGJAA9D64TKJF#ABCD-EFGH-IJKL-MNOP-QRST-UVWX

protocol.md 14, "Invite links": one or more ADDRESS:PORT (an IPv6 address in brackets, or a DNS name)
separated by commas, best first; the game code with its seat key (protocol.md 14, "The seat key"); since session
40 the evening's link secret in the query (`?s=`, "The link secret": proven in each join, never counted); after `#`
the host key's long fingerprint (protocol.md 6: six groups, whose first two are the host key its screen shows;
the short XXXX-XXXX is read too). A joiner dials the addresses in order, no mDNS, and goes on only with a peer
whose key has that fingerprint (net.node.Node.join checks it before sending anything, its name included).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from ..neutral import shown
from ..protocol.identity import fingerprint
from ..protocol.seatkey import read_link_secret, write_link_secret
from .discovery import parse_join_code

SCHEME = "p2pnimmt"
MAX_LINK = 2048  # characters of a link read at all
MAX_ADDRESSES = 16  # addresses one link names
_KEY = re.compile(r"[A-Z2-7]{24}|[A-Z2-7]{8}")  # the long fingerprint, or the short one (without hyphens)
_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
# Interfaces of an overlay network (a link is for friends elsewhere: the tunnel's address reaches them) and of
# containers and VMs on this machine (no friend reaches those); see rank().
TUNNELS = ("tailscale", "wg", "zt", "tun", "utun", "nebula")  # Headscale's clients are Tailscale's: tailscale0
LOCAL_ONLY = ("docker", "br-", "veth", "virbr", "vboxnet", "vmnet", "cni", "lxc", "lxd", "podman")
CGNAT = ipaddress.IPv4Network("100.64.0.0/10")  # Tailscale's and Headscale's addresses


class BadLink(ValueError):
    """A link that is not an invite link; the message names what is wrong."""


@dataclass(frozen=True)
class Invite:
    """A parsed invite link: the addresses to dial in order, the game code, and the host key (XXXX-XXXX or the
    long form, upper case with hyphens) the peer there must have."""

    addresses: tuple[tuple[str, int], ...]
    code: str
    host_key: str
    seat_key: str
    link_secret: bytes | None = None  # its `s` (protocol.md 14, "The link secret"); None in a link without one

    def link(self) -> str:
        where = ",".join(f"[{host}]:{port}" if ":" in host else f"{host}:{port}" for host, port in self.addresses)
        query = "" if self.link_secret is None else f"?s={write_link_secret(self.link_secret)}"
        return f"{SCHEME}://{where}/{self.code}-{self.seat_key}{query}#{self.host_key}"


def invite_link(addresses: list[str], port: int, code: str, peer: bytes, seat_key: str,
                link_secret: bytes | None = None) -> str:
    """The link of a game hosted by the key with peer id `peer`, listening on `port` at `addresses`, with the seat
    key that lets its reader sit (protocol.md 14) and the link secret that no stranger's wrong keys keep out."""
    return Invite(tuple((address, port) for address in addresses), code, fingerprint(peer, long=True),
                  seat_key, link_secret).link()


def looks_like_link(text: str) -> bool:
    """What a person gave is meant as a link, not a code (a code has no `:` or `/`)."""
    return ":" in text or "/" in text or "#" in text


def read_code_or_link(text: str) -> str:
    """What the menu's "type a code" field takes: a code, with its seat key (CODE-KEY) or without (as
    parse_join_code reads it), or an invite link (written
    back whole, as parse_link reads it); ValueError saying what is wrong."""
    if not looks_like_link(text):
        code, seat_key = parse_join_code(text)
        return code if seat_key is None else f"{code}-{seat_key}"
    try:
        return parse_link(text).link()
    except BadLink as exc:
        raise ValueError(f"not a good invite link: {exc}") from None


def parse_link(text: str) -> Invite:
    """An invite link as a person pasted it (white space anywhere, as a terminal or a chat wraps it; any case in
    the scheme, the code and the key); BadLink naming what is wrong."""
    text = "".join(text.split())
    if len(text) > MAX_LINK:
        raise BadLink(f"it is {len(text)} characters long, at most {MAX_LINK}")
    scheme, sep, rest = text.partition("://")
    if not sep:
        raise BadLink(f"an invite link begins with {SCHEME}://, got {shown(text, 40)}")
    if scheme.lower() != SCHEME:
        raise BadLink(f"its scheme is {shown(scheme)}, not {SCHEME} (an invite link begins with {SCHEME}://)")
    rest, sep, key = rest.partition("#")
    if not sep or not key.strip():
        raise BadLink("it has no host key (#XXXX-XXXX-XXXX-XXXX-XXXX-XXXX after the game code)")
    rest, _sep, query = rest.partition("?")
    link_secret = parse_query(query)
    authority, sep, path = rest.partition("/")
    code_text = path.removesuffix("/")  # one `/` after the code is allowed (a chat or a hand may add it)
    if not sep or not code_text:
        raise BadLink("it has no game code (/CODE after the addresses)")
    if "/" in code_text:
        raise BadLink(f"its path is {shown('/' + path)}, not one game code")
    try:
        code, seat_key = parse_join_code(code_text)
    except ValueError as exc:
        raise BadLink(f"bad game code: {exc}") from None
    if seat_key is None:
        raise BadLink("the link has no seat key after its code (/CODE-KEY): ask the host for its link again")
    return Invite(parse_addresses(authority), code, parse_key(key), seat_key, link_secret)


def parse_query(query: str) -> bytes | None:
    """The link secret of a link's query (`s=SECRET`, protocol.md 14, "The link secret"), None without one; the
    query's other `NAME=VALUE` parts (`&` between them) are reserved for later versions and ignored."""
    found = None
    for part in query.split("&") if query else ():
        name, _sep, value = part.partition("=")
        if name == "s":
            if found is not None:
                raise BadLink("its query names the link secret (s=) twice")
            try:
                found = read_link_secret(value)
            except ValueError as exc:
                raise BadLink(f"bad link secret after ?s=: {exc} (ask the host for its link again)") from None
    return found


def parse_key(text: str) -> str:
    """The host key after `#`: 24 (or 8) base32 letters and digits, hyphens and case not mattering."""
    cleaned = text.replace("-", "").replace(" ", "").upper()
    if not _KEY.fullmatch(cleaned):
        raise BadLink("the host key after # must be 24 letters and digits 2-7 as XXXX-XXXX-XXXX-XXXX-XXXX-XXXX "
                      f"(or the 8 of XXXX-XXXX), got {shown(text, 40)}")
    return "-".join(cleaned[i:i + 4] for i in range(0, len(cleaned), 4))


def parse_addresses(authority: str) -> tuple[tuple[str, int], ...]:
    """`ADDRESS:PORT[,ADDRESS:PORT...]` of a link."""
    if not authority:
        raise BadLink("it names no address (ADDRESS:PORT after p2pnimmt://)")
    parts = authority.split(",")
    if len(parts) > MAX_ADDRESSES:
        raise BadLink(f"it names {len(parts)} addresses, at most {MAX_ADDRESSES}")
    return tuple(parse_address(part) for part in parts)


def parse_address(text: str) -> tuple[str, int]:
    """One `HOST:PORT`: an IPv4 address, `[IPv6]`, or a DNS name, and a port 1..65535."""
    if text.startswith("["):
        inside, sep, after = text[1:].partition("]")
        if not sep or not after.startswith(":"):
            raise BadLink(f"address {shown(text)} has no port ([IPv6]:PORT)")
        try:
            host = str(ipaddress.IPv6Address(inside))
        except ValueError:
            raise BadLink(f"{shown(inside)} in brackets is not an IPv6 address") from None
        port_text = after[1:]
    else:
        host, sep, port_text = text.rpartition(":")
        if not sep:
            raise BadLink(f"address {shown(text)} has no port (ADDRESS:PORT)")
        if ":" in host:
            raise BadLink(f"address {shown(text)}: an IPv6 address goes in brackets, [IPv6]:PORT")
        check_host(host)
    if not (port_text.isascii() and port_text.isdigit() and 1 <= int(port_text) <= 65535):
        raise BadLink(f"the port of {shown(text)} must be 1..65535, got {shown(port_text)}")
    return host, int(port_text)


def check_host(host: str) -> None:
    """An IPv4 address or a DNS name (letters, digits and hyphens in dot-separated labels; a fully qualified
    name may end with one `.`)."""
    labels = host.removesuffix(".").split(".")
    if labels[-1].isdigit():  # all digits at the end: meant as an IPv4 address
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise BadLink(f"{shown(host)} is not an IPv4 address") from None
    elif len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise BadLink(f"{shown(host)} is neither an IP address nor a host name")


def rank(address: str, interface: str) -> int:
    """Which of a host's addresses a link names first: an overlay's (a tunnel interface, or Tailscale's
    100.64.0.0/10), then the LAN's (private ranges), then any other, then those of containers and VMs and
    link-local ones (reachable from this machine or this link only)."""
    ip = ipaddress.IPv4Address(address)
    name = interface.lower()
    if name.startswith(LOCAL_ONLY) or ip.is_link_local:
        return 3
    if name.startswith(TUNNELS) or ip in CGNAT:
        return 0
    return 1 if ip.is_private else 2


def link_addresses(interface: str | None) -> list[str]:
    """The addresses a host's link names, best first: the --interface one alone, else every IPv4 address of
    this machine but loopback (the host listens on all of them), ranked; loopback only when there is no other."""
    if interface:
        return [interface]
    import ifaddr  # with ctypes: loaded by a host that names every interface, never by a joiner

    found = [(rank(ip.ip, adapter.nice_name), n, ip.ip) for n, (adapter, ip) in
             enumerate((adapter, ip) for adapter in ifaddr.get_adapters() for ip in adapter.ips)
             if isinstance(ip.ip, str) and not ip.ip.startswith("127.")]
    ordered = [address for _, _, address in sorted(found)]
    return list(dict.fromkeys(ordered)) or ["127.0.0.1"]
