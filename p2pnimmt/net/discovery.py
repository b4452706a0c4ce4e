"""Finding games on the LAN with mDNS/DNS-SD (python-zeroconf).

Service type `_p2pnimmt._tcp.local.` (P2PNIMMT_SERVICE may name another, such as `_pnt-1a2b._tcp.local.`:
the tests give each run a type of its own so no other game on the machine is seen, and a group of friends
could keep to theirs); instance `<code>-<host fingerprint>`.
TXT (hints only: identity is proven in the TCP handshake; protocol.md
section 14): v (protocol version), code, gid (game id, hex), host (host
fingerprint), seats ("taken/max"), state (lobby|playing), and since
issue 13 name (the host's name), variant, deal. Anyone on the LAN can
advertise anything: what is read is checked and bounded, a bad hint is
left out with a note saying why, and an advertisement without a usable
game id, port or address is not a game (its reason is kept for
`p2pnimmt games`). Tests always pass an interface.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
import socket
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # zeroconf (about 5 MB and 110 modules) loads when a node advertises or looks for games:
    from collections.abc import Callable

    from zeroconf import ServiceStateChange  # a seat that dials an address (--peer, an invite link) never does
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

    from .answers import Heard

from ..engine import DEALS, MAX_PLAYERS, MIN_PLAYERS, VARIANTS
from ..i18n import _
from ..neutral import shown
from ..protocol.gamecode import CODE_ALPHABET, CODE_LENGTH, game_code
from ..protocol.names import is_name, name_problem
from ..protocol.seatkey import SEAT_KEY_LENGTH, plain, split_join_code

SERVICE = "_p2pnimmt._tcp.local."
SERVICE_ENV = "P2PNIMMT_SERVICE"
# RFC 6763 section 7: a service name is 1..15 letters, digits and hyphens, with a letter, no hyphen at either end.
_SERVICE_TYPE = re.compile(r"_(?=[a-z0-9-]*[a-z])[a-z0-9](?:[a-z0-9-]{0,13}[a-z0-9])?\._tcp\.local\.")
VERSION = "1"
MAX_GAMES = 64  # advertisements kept from one look at the LAN; a flood beyond that is counted, not resolved

LIST_CHECKED = 16  # codes a list of games (`games`, the menu, the closest code) draws from game ids, at most
SETTLE = 1.5  # seconds a look for one code goes on after the first game answers it: does a second answer?
ASK_AGAIN = (2.5, 8.0)  # seconds into a look at which it asks for games again (zeroconf asks at 0.1, 1.1, 5.1)
RESOLVE_TRIES = 3  # asks for an advertisement's details (a lost answer is asked for again while the look lasts)
RESOLVE_MS = 3000  # how long one ask for an advertisement's details waits
RESOLVE_PAUSE = 0.5  # seconds between two asks for one advertisement's details


def service_problem(value: str) -> str | None:
    """Why `value` cannot be the service type of $P2PNIMMT_SERVICE, or None when it can."""
    if _SERVICE_TYPE.fullmatch(value):
        return None
    return (f"{SERVICE_ENV}={shown(value, 40)} is not a DNS-SD service type such as {SERVICE} "
            "(an underscore, 1..15 lower-case letters, digits and hyphens, then ._tcp.local.)")


def service_type() -> str:
    """The DNS-SD service type games are advertised and looked for under: $P2PNIMMT_SERVICE, else SERVICE."""
    value = os.environ.get(SERVICE_ENV)
    if not value:
        return SERVICE
    problem = service_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def parse_code(text: str) -> str:
    """The code a person typed, as game_code writes it; ValueError saying what is wrong.

    Case, spaces and hyphens do not matter; I and L are read as 1, O as 0.
    """
    cleaned = plain(text)  # as a seat key is read (protocol.seatkey)
    if len(cleaned) != CODE_LENGTH:
        raise ValueError(_("a game code is {n} letters and digits, got {text}").format(n=CODE_LENGTH,
                                                                                         text=shown(text)))
    wrong = next((ch for ch in cleaned if ch not in CODE_ALPHABET), None)
    if wrong is not None:
        raise ValueError(_("a game code has no {char} (codes use 0-9 and A-Z without I, L, O, U), got {text}").format(
            char=shown(wrong), text=shown(text)))
    return cleaned


def parse_join_code(text: str) -> tuple[str, str | None]:
    """A code as a person typed it to join or watch: the game's code and its seat key (`QM5Z-7Q2K`, any case, with
    or without the hyphen; protocol.md 14, "The seat key"), or the code alone (None for the key: the caller says
    it is missing). ValueError saying what is wrong."""
    cleaned = plain(text)
    if len(cleaned) not in (CODE_LENGTH, CODE_LENGTH + SEAT_KEY_LENGTH):
        raise ValueError(_("a game code with its seat key is 4 + 4 letters and digits as the host's screen shows it "
                           "(CODE-KEY), got {text}").format(text=shown(text)))
    code, key = split_join_code(cleaned)
    wrong = next((ch for ch in cleaned if ch not in CODE_ALPHABET), None)
    if wrong is not None:
        raise ValueError(_("a game code has no {char} (codes use 0-9 and A-Z without I, L, O, U), got {text}").format(
            char=shown(wrong), text=shown(text)))
    return code, key


def listed_codes(ads: list[GameAd]) -> list[str]:
    """The codes a list of games shows: drawn from the game id for the first LIST_CHECKED (each costs a scrypt,
    so a flood of advertisements costs a bounded time), then the advertised code marked `?` (unchecked: `join`
    checks it)."""
    return [ad.code if i < LIST_CHECKED else f"{ad.advertised or '????'}?" for i, ad in enumerate(ads)]


def code_distance(a: str, b: str) -> int:
    """Edit distance between two codes, a swap of neighbours counting as one edit (optimal string alignment)."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def closest_codes(code: str, ads: list[GameAd], within: int = 2) -> list[GameAd]:
    """The games whose codes are nearest to `code`, if at most `within` edits away (nearest first, then by code)."""
    checked = ads[:LIST_CHECKED]  # each code costs a scrypt
    near = sorted((code_distance(code, ad.code), ad.code, ad) for ad in checked)
    if not near or near[0][0] > within:
        return []
    return [ad for distance, _, ad in near if distance == near[0][0]]


def local_addresses(interface: str | None) -> list[str]:
    """The IPv4 addresses to advertise: the chosen interface's, or every non-loopback one."""
    if interface:
        return [interface]
    import ifaddr  # with ctypes: loaded by a node that advertises on every interface, not by a joiner

    found = [ip.ip for adapter in ifaddr.get_adapters() for ip in adapter.ips
             if isinstance(ip.ip, str) and not ip.ip.startswith("127.")]
    return found or ["127.0.0.1"]


def open_zeroconf(interface: str | None) -> AsyncZeroconf:
    """An AsyncZeroconf bound to one interface address, or to all interfaces when `interface` is None."""
    from zeroconf import InterfaceChoice, IPVersion
    from zeroconf.asyncio import AsyncZeroconf

    return AsyncZeroconf(interfaces=[interface] if interface else InterfaceChoice.All, ip_version=IPVersion.V4Only)


@dataclass(frozen=True)
class GameAd:
    """A game seen on the LAN. Everything but the code, game id and address is a hint (None: not advertised,
    or left out as `notes` say)."""

    advertised: str | None  # the code its TXT says (a hint: `code` is drawn from the game id)
    game_id: bytes
    host: str  # fingerprint, or "?"
    addresses: tuple[str, ...]
    port: int
    seats_taken: int | None
    seats_max: int | None
    state: str  # lobby, playing or "?"
    name: str  # the DNS-SD instance name
    host_name: str | None = None
    variant: str | None = None
    deal: str | None = None
    notes: tuple[str, ...] = ()  # the hints that were left out, and why
    salt: bytes | None = None  # the host's salt (section 8): with the key the handshake proves, it gives game_id

    @property
    def code(self) -> str:
        """The game's code, drawn from its game id (never the advertised one; costly, so asked only when needed)."""
        return game_code(self.game_id)

    def answers(self, code: str) -> bool:
        """Whether this game has `code`: it is named for it (`CODE-HOSTKEY`), advertises it, and its game id gives it
        (the costly check last: a stranger's advertisement named otherwise costs no scrypt)."""
        return named_for(self.name, code) and self.advertised == code and self.code == code

    @property
    def seats(self) -> str:
        return "?" if self.seats_taken is None else f"{self.seats_taken}/{self.seats_max}"

    @property
    def who(self) -> str:
        """The host's name; its fingerprint when the host advertised no (usable) name."""
        return self.host_name if self.host_name is not None else _("host {key}").format(key=self.host)

    @property
    def address(self) -> str:
        return f"{self.addresses[0] if self.addresses else '?'}:{self.port}"

    def summary(self) -> str:
        """`ann  standard, sealed deal  seats 1/4  lobby` (the start menu's entry, after the code)."""
        game = ", ".join(filter(None, [self.variant and _(self.variant),
                                       self.deal and _("{deal} deal").format(deal=_(self.deal))])) or _("game ?")
        return _("{who}  {game}  seats {seats}  {state}").format(who=self.who, game=game, seats=self.seats,
                                                                 state=_(self.state))

    def line(self) -> str:
        notes = f"  ({'; '.join(self.notes)})" if self.notes else ""
        return f"{self.code}  {self.summary()}  at {self.address}{notes}"

    def told_apart(self) -> str:
        """`ann, host key ABCD-EFGH, at 10.0.0.5:4000, seats 1/4, lobby`: what tells two games of one code apart
        (the host's screen shows its key next to the code)."""
        return _("{who}, host key {key}, at {address}, seats {seats}, {state}").format(
            who=self.who, key=self.host, address=self.address, seats=self.seats, state=_(self.state))


class Advertiser:
    """Keeps one game's service registered while the host runs."""

    def __init__(self, zc: AsyncZeroconf, game_id: bytes, host_fingerprint: str, port: int,
                 addresses: list[str], host_name: str | None = None, salt: bytes | None = None) -> None:
        self.zc = zc
        self.game_id = game_id
        self.host = host_fingerprint
        self.port = port
        self.addresses = addresses
        self.host_name = host_name if host_name is not None and is_name(host_name) else None
        self.salt = salt
        self.info: AsyncServiceInfo | None = None

    def _info(self, taken: int, seats: int, state: str, variant: str | None, deal: str | None) -> AsyncServiceInfo:
        code = game_code(self.game_id)
        hints = {"name": self.host_name, "variant": variant, "deal": deal,
                 "salt": self.salt.hex() if self.salt is not None else None}
        from zeroconf.asyncio import AsyncServiceInfo

        service = service_type()
        return AsyncServiceInfo(
            service,
            f"{code}-{self.host}.{service}",
            addresses=[socket.inet_aton(a) for a in self.addresses],
            port=self.port,
            properties={"v": VERSION, "code": code, "gid": self.game_id.hex(), "host": self.host,
                        "seats": f"{taken}/{seats}", "state": state,
                        **{k: v for k, v in hints.items() if v is not None}},
            server=f"p2pnimmt-{self.host}.local.",
        )

    async def start(self, taken: int, seats: int, state: str, variant: str | None = None,
                    deal: str | None = None) -> None:
        self.info = self._info(taken, seats, state, variant, deal)
        await (await self.zc.async_register_service(self.info, cooperating_responders=True))

    async def update(self, taken: int, seats: int, state: str, variant: str | None = None,
                     deal: str | None = None) -> None:
        if self.info is None:
            return
        info = self._info(taken, seats, state, variant, deal)
        if info.properties == self.info.properties:
            return  # nothing new to tell the LAN
        self.info = info
        await (await self.zc.async_update_service(self.info))

    async def stop(self) -> None:
        if self.info is not None:
            info, self.info = self.info, None
            await (await self.zc.async_unregister_service(info))


class NotAGame(ValueError):
    """An advertisement that cannot be joined; the message says why."""


_FINGERPRINT = re.compile(r"[A-Z2-7]{4}-[A-Z2-7]{4}")
_SEATS = re.compile(r"(\d{1,2})/(\d{1,2})")


def parse_ad(properties: dict, addresses: tuple[str, ...], port: int, name: str) -> GameAd:
    """A GameAd from an advertisement's TXT properties (bytes -> bytes or None); NotAGame if it has none."""
    props: dict[str, str] = {}
    garbled: set[str] = set()  # keys whose values are not UTF-8
    for key, value in properties.items():
        if isinstance(key, bytes) and isinstance(value, bytes | None):
            name_of = key.decode("ascii", "replace")
            try:
                props.setdefault(name_of, (value or b"").decode("utf-8"))
            except UnicodeDecodeError:
                garbled.add(name_of)
    notes: list[str] = [f"{key} left out (not UTF-8)" for key in sorted(garbled)
                        if key in ("name", "variant", "deal", "seats", "state", "host", "v", "code")]
    gid = props.get("gid")
    if gid is None:
        raise NotAGame("game id (gid) is not UTF-8" if "gid" in garbled else "no game id (gid)")
    if not re.fullmatch(r"[0-9a-fA-F]{32}", gid):
        raise NotAGame(f"game id (gid) {shown(gid)} is not 32 hex digits")
    if not 0 < port < 65536:
        raise NotAGame(f"port {port} is not 1..65535")
    if not addresses:
        raise NotAGame("no IPv4 address")
    game_id = bytes.fromhex(gid)

    def hint(key: str, ok) -> str | None:
        value = props.get(key)
        if value is None:
            return None
        if ok(value):
            return value
        notes.append(f"{key} {shown(value)} left out")
        return None

    version = props.get("v")
    if version is not None and version != VERSION:
        notes.append(f"protocol version {shown(version)}, this p2pnimmt speaks {VERSION}")
    told = hint("code", re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}").fullmatch)
    salt = hint("salt", re.compile(r"[0-9a-f]{32}").fullmatch)
    host = hint("host", _FINGERPRINT.fullmatch) or "?"
    seats = props.get("seats")
    taken = most = None
    if seats is not None:
        match = _SEATS.fullmatch(seats)
        if match and int(match[1]) <= int(match[2]) and MIN_PLAYERS <= int(match[2]) <= MAX_PLAYERS:
            taken, most = int(match[1]), int(match[2])
        else:
            notes.append(f"seats {shown(seats)} left out (not taken/total, total {MIN_PLAYERS}..{MAX_PLAYERS})")
    host_name = props.get("name")
    if host_name is not None and not is_name(host_name):
        notes.append(f"name {shown(host_name)} left out (not a name: {name_problem(host_name)})")
        host_name = None
    return GameAd(advertised=told, salt=bytes.fromhex(salt) if salt else None, game_id=game_id,
                  host=host, addresses=addresses, port=port,
                  seats_taken=taken, seats_max=most, state=hint("state", ("lobby", "playing").__contains__) or "?",
                  name=name, host_name=host_name, variant=hint("variant", VARIANTS.__contains__),
                  deal=hint("deal", DEALS.__contains__), notes=tuple(notes))


@dataclass
class Scan:
    """What one look at the LAN saw: the games, and the advertisements that are not games (with why)."""

    ads: list[GameAd] = field(default_factory=list)
    not_games: dict[str, str] = field(default_factory=dict)  # instance name -> why it is not a game
    unresolved: int = 0  # advertisements beyond MAX_GAMES, not looked at
    withdrawn: list[GameAd] = field(default_factory=list)  # games seen, then gone before the look ended (a game over)


def named_for(name: str, code: str | None) -> bool:
    """Whether the advertisement's instance name is one a host of game `code` gives (`CODE-HOSTKEY`, protocol.md
    14); False when no code is looked for."""
    return code is not None and name.upper().startswith(code + "-")


async def scan(zc: AsyncZeroconf, seconds: float, code: str | None = None, settle: float = SETTLE,
               seen: Callable[[GameAd], None] | None = None) -> Scan:
    """Games seen within `seconds`; looking for `code` (as game_code writes it), it returns `settle` seconds
    after the first game that answers it (so that a second game answering the same code is seen too). `seen` is
    told of each game as its advertisement is read.

    Looking for a code, the advertisements named for it (`named_for`) and the others are bounded apart, MAX_GAMES
    each: a stranger who names made-up games as fast as it likes hides no game whose code it does not know.

    A question or an answer lost on the way (a busy Wi-Fi) costs one of the look's questions, not the look:
    zeroconf's browser asks at about 0.1, 1.1 and 5.1 s (then 14 s), and the look asks again at ASK_AGAIN; an
    advertisement whose details did not come is asked for again (RESOLVE_TRIES in all) while the look lasts."""
    from zeroconf import DNSQuestionType, IPVersion, NotRunningException, ServiceStateChange, current_time_millis
    from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo

    service = service_type()
    found: dict[str, GameAd] = {}
    broken: dict[str, str] = {}
    withdrawn: dict[str, GameAd] = {}
    pending: dict[str, asyncio.Task] = {}  # one resolution at a time per advertisement
    skipped: set[str] = set()
    done = asyncio.Event()
    closing = False  # the look is over: what the browser still tells is not looked at

    async def resolve(name: str) -> None:
        for attempt in range(RESOLVE_TRIES):
            info = AsyncServiceInfo(service, name)
            try:
                if await info.async_request(zc.zeroconf, RESOLVE_MS):
                    break
            except NotRunningException:
                return  # the look ended as it began
            if attempt + 1 < RESOLVE_TRIES:
                await asyncio.sleep(RESOLVE_PAUSE)
        else:
            return
        try:
            ad = parse_ad(info.properties or {}, tuple(info.parsed_addresses(IPVersion.V4Only)),
                          info.port or 0, name)
        except NotAGame as exc:
            found.pop(name, None)
            broken[name] = str(exc)
            return
        broken.pop(name, None)
        withdrawn.pop(name, None)
        found[name] = ad
        if seen is not None:
            seen(ad)
        if code is not None and named_for(name, code) and ad.advertised == code:
            # The scrypt of its game id in a thread of its own (one at a time): a stranger's many advertisements
            # that claim the code cost it one by one, while the look goes on reading the LAN.
            if await asyncio.get_running_loop().run_in_executor(checker, game_code, ad.game_id) == code:
                done.set()

    def on_change(zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if closing:
            return
        if state_change in (ServiceStateChange.Added, ServiceStateChange.Updated):
            ours = named_for(name, code)  # looking for a code: its games have a bound of their own
            if name not in found and name not in broken and name not in pending and sum(
                    named_for(n, code) == ours for n in found.keys() | broken.keys() | pending.keys()) >= MAX_GAMES:
                skipped.add(name)
                return
            if name in pending:
                pending[name].cancel()  # an update: read it afresh
            task = pending[name] = asyncio.ensure_future(resolve(name))
            task.add_done_callback(lambda t: pending.pop(name) if pending.get(name) is t else None)
        elif state_change is ServiceStateChange.Removed:
            if name in found:
                withdrawn[name] = found.pop(name)
            broken.pop(name, None)
            skipped.discard(name)
            if name in pending:
                pending.pop(name).cancel()

    async def ask_again(browser: AsyncServiceBrowser) -> None:
        loop = asyncio.get_running_loop()
        begun = loop.time()
        for at in ASK_AGAIN:
            await asyncio.sleep(max(0.0, begun + at - loop.time()))
            browser.query_scheduler.async_send_ready_queries(False, current_time_millis(), {service})

    held: dict[bytes, bool] = {}  # game id heard for the code -> whether it holds it (False until checked)
    checking: set[asyncio.Future] = set()

    def heard_text(name: str) -> None:
        """A TXT not heard before for a name named for the code (net.answers): if it is the game's, the look may
        end (the resolution of the name may have kept another answer)."""
        for game_id in heard.game_ids(name) if heard is not None else []:
            if game_id not in held and len(held) < LIST_CHECKED and not closing:
                held[game_id] = False
                task = asyncio.ensure_future(check_held(game_id))
                checking.add(task)
                task.add_done_callback(checking.discard)

    async def check_held(game_id: bytes) -> None:
        held[game_id] = await asyncio.get_running_loop().run_in_executor(checker, game_code, game_id) == code
        if held[game_id]:
            done.set()

    checker = ThreadPoolExecutor(1, thread_name_prefix="p2pnimmt-code")  # game_code: 32 MiB each, so one at once
    with contextlib.suppress(NotRunningException):
        await zc.zeroconf.async_wait_for_start()  # the look's time counts from a zeroconf that can ask
    heard = None
    if code is not None:  # every answer for the names named for the code, each apart (net.answers)
        from .answers import Heard

        heard = Heard(code, service, functools.partial(named_for, code=code), heard_text)
        zc.zeroconf.async_add_listener(heard, None)
    browser = AsyncServiceBrowser(zc.zeroconf, service, handlers=[on_change], question_type=DNSQuestionType.QM)
    asking = asyncio.ensure_future(ask_again(browser))
    try:
        try:
            await asyncio.wait_for(done.wait(), seconds)
            await asyncio.sleep(settle)  # does another game answer the same code?
        except TimeoutError:
            pass
        if checking:  # a reading heard as the look ended: checked still (LIST_CHECKED at most in all)
            await asyncio.wait(set(checking), timeout=max(settle, 1.0))
    finally:
        closing = True
        asking.cancel()
        await browser.async_cancel()
        if heard is not None:
            zc.zeroconf.async_remove_listener(heard)
        for task in list(pending.values()) + list(checking):
            task.cancel()
        checker.shutdown(wait=False, cancel_futures=True)
    ads = sorted(found.values(), key=lambda ad: (ad.advertised or "", ad.name))
    if heard is not None:  # the game's other readings: the TXTs that hold the code, with every SRV heard
        ads += [ad for name in heard.names.values() for ad in readings(heard, name, found.get(name))
                if held.get(ad.game_id) and ad not in ads]
    return Scan(ads, broken, len(skipped), sorted(withdrawn.values(), key=lambda ad: ad.name))


def readings(heard: Heard, name: str, resolved: GameAd | None = None) -> list[GameAd]:
    """The games heard for `name` (net.answers.Heard.readings), each TXT with each SRV; those that are not games
    are left out."""
    ads = []
    for properties, addresses, port, instance in heard.readings(
            name, (resolved.port, resolved.addresses) if resolved is not None else None):
        try:
            ads.append(parse_ad(properties, addresses, port, instance))
        except NotAGame:
            continue
    return ads


async def browse(zc: AsyncZeroconf, seconds: float, code: str | None = None) -> list[GameAd]:
    """The games seen within `seconds` (returns as soon as `code` is found, if given)."""
    return (await scan(zc, seconds, code)).ads
