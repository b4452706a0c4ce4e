"""Finding games on the LAN with mDNS/DNS-SD (python-zeroconf).

Service type `_p2pnimmt._tcp.local.`; instance `<code>-<host fingerprint>`.
TXT (a hint only: identity is proven in the TCP handshake): v (protocol
version), code, gid (game id, hex), host (host fingerprint), seats
("taken/max"), state (lobby|playing). Tests always pass an interface.
"""

from __future__ import annotations

import asyncio
import base64
import socket
from dataclasses import dataclass

import ifaddr
from zeroconf import DNSQuestionType, InterfaceChoice, IPVersion, ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

SERVICE = "_p2pnimmt._tcp.local."
VERSION = "1"


def game_code(game_id: bytes) -> str:
    """The 4-letter code people type: base32 of the game id's first 20 bits."""
    return base64.b32encode(game_id[:5]).decode()[:4]


def local_addresses(interface: str | None) -> list[str]:
    """The IPv4 addresses to advertise: the chosen interface's, or every non-loopback one."""
    if interface:
        return [interface]
    found = [ip.ip for adapter in ifaddr.get_adapters() for ip in adapter.ips
             if isinstance(ip.ip, str) and not ip.ip.startswith("127.")]
    return found or ["127.0.0.1"]


def open_zeroconf(interface: str | None) -> AsyncZeroconf:
    """An AsyncZeroconf bound to one interface address, or to all interfaces when `interface` is None."""
    return AsyncZeroconf(interfaces=[interface] if interface else InterfaceChoice.All, ip_version=IPVersion.V4Only)


@dataclass(frozen=True)
class GameAd:
    """A game seen on the LAN."""

    code: str
    game_id: bytes
    host: str  # fingerprint
    addresses: tuple[str, ...]
    port: int
    seats_taken: int
    seats_max: int
    state: str
    name: str

    def line(self) -> str:
        return (f"{self.code}  host {self.host}  seats {self.seats_taken}/{self.seats_max}  {self.state}  "
                f"at {self.addresses[0] if self.addresses else '?'}:{self.port}")


class Advertiser:
    """Keeps one game's service registered while the host runs."""

    def __init__(self, zc: AsyncZeroconf, game_id: bytes, host_fingerprint: str, port: int,
                 addresses: list[str]) -> None:
        self.zc = zc
        self.game_id = game_id
        self.host = host_fingerprint
        self.port = port
        self.addresses = addresses
        self.info: AsyncServiceInfo | None = None

    def _info(self, taken: int, seats: int, state: str) -> AsyncServiceInfo:
        code = game_code(self.game_id)
        return AsyncServiceInfo(
            SERVICE,
            f"{code}-{self.host}.{SERVICE}",
            addresses=[socket.inet_aton(a) for a in self.addresses],
            port=self.port,
            properties={"v": VERSION, "code": code, "gid": self.game_id.hex(), "host": self.host,
                        "seats": f"{taken}/{seats}", "state": state},
            server=f"p2pnimmt-{self.host}.local.",
        )

    async def start(self, taken: int, seats: int, state: str) -> None:
        self.info = self._info(taken, seats, state)
        await (await self.zc.async_register_service(self.info, cooperating_responders=True))

    async def update(self, taken: int, seats: int, state: str) -> None:
        if self.info is None:
            return
        self.info = self._info(taken, seats, state)
        await (await self.zc.async_update_service(self.info))

    async def stop(self) -> None:
        if self.info is not None:
            info, self.info = self.info, None
            await (await self.zc.async_unregister_service(info))


def _parse(info: AsyncServiceInfo) -> GameAd | None:
    props = {k.decode(): (v.decode() if v is not None else "") for k, v in (info.properties or {}).items()}
    try:
        taken, seats = (int(x) for x in props.get("seats", "0/0").split("/"))
        return GameAd(code=props["code"], game_id=bytes.fromhex(props["gid"]), host=props.get("host", "?"),
                      addresses=tuple(info.parsed_addresses(IPVersion.V4Only)), port=info.port or 0,
                      seats_taken=taken, seats_max=seats, state=props.get("state", "?"), name=info.name)
    except (KeyError, ValueError):
        return None  # someone else's or a broken advertisement: not a game we can join


async def browse(zc: AsyncZeroconf, seconds: float, code: str | None = None) -> list[GameAd]:
    """Games seen within `seconds` (returns as soon as `code` is found, if given)."""
    found: dict[str, GameAd] = {}
    tasks: set[asyncio.Task] = set()
    done = asyncio.Event()

    async def resolve(name: str) -> None:
        info = AsyncServiceInfo(SERVICE, name)
        if await info.async_request(zc.zeroconf, 3000):
            ad = _parse(info)
            if ad is not None and ad.port:
                found[name] = ad
                if code is not None and ad.code == code.upper():
                    done.set()

    def on_change(zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change in (ServiceStateChange.Added, ServiceStateChange.Updated):
            task = asyncio.ensure_future(resolve(name))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        elif state_change is ServiceStateChange.Removed:
            found.pop(name, None)

    browser = AsyncServiceBrowser(zc.zeroconf, SERVICE, handlers=[on_change], question_type=DNSQuestionType.QM)
    try:
        try:
            await asyncio.wait_for(done.wait(), seconds)
        except TimeoutError:
            pass
    finally:
        await browser.async_cancel()
        for task in tasks:
            task.cancel()
    return sorted(found.values(), key=lambda ad: ad.code)
