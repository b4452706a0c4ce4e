"""The phone page proves the seat key (protocol.md 14, "The seat key"): the link a node shows carries it after `#`
(which a browser never sends to a server), and the page's `join` on each link to the host carries `proof`, the HMAC
under K = scrypt(G || key) of that link's handshake. A relay the test controls sits between the page and the node's
real relay and reads each tunnel as the node sees it (the handshakes' nonces and keys, the join): the proof is
checked with the reference's seatkey.py, for the first join and for the join after a reload whose address has no
fragment (the page kept the key by its token), each on its own link. A link without the key, where the relay's node
holds one, makes the page say so and dial nobody; a link with another key is refused by the node's relay, which
checks the key before the host sees the join (web/relaydoor.py), and the page says why in its own words. In process: the host Node on 127.0.0.1, its
terminal lobby's phone link (app.web.start_phone), chromium at 390x844 with touch."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from aiohttp import web
from evil_relay import PageRelay, whole_frames

from p2pnimmt.app.web import start_phone
from p2pnimmt.engine import Settings
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.codec import decode
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.seatkey import link_proof_holds, new_seat_key, proof_holds, seat_secret, write_link_secret
from p2pnimmt.web.relay import DATA, DIAL, unbatched

LO = "127.0.0.1"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@dataclass
class Seen:
    """One channel of a tunnel as the relay passed it: the page's frames and its peer's, whole."""

    dialled: tuple[str, int] | None = None
    up: bytes = b""
    down: bytes = b""
    page: list = field(default_factory=list)  # the page's frames (its hello first)
    peer: list = field(default_factory=list)  # its peer's


def frames(buffer: bytes, into: list) -> bytes:
    """Whole frames off the front of `buffer` (4-byte length, msgpack) into `into`, decoded; what is left."""
    whole, left = whole_frames(buffer)
    into.extend(decode(raw[4:], 1 << 20) for raw in whole)
    return left


class WatchingRelay(PageRelay):
    """Serves the phone page and passes each of its tunnels to the real relay both ways (PageRelay's pump),
    unchanged, reading every channel (`tunnels`: one dict of channels a tunnel, by number) and the query each tunnel
    asked with."""

    def __init__(self, real_phone_url: str) -> None:
        super().__init__(real_phone_url)
        self.tunnels: list[dict[int, Seen]] = []
        self.asked: list[str] = []  # each tunnel's path and query, as this server received it

    def opened(self, request: web.Request) -> dict[int, Seen]:
        self.asked.append(request.path_qs)
        channels: dict[int, Seen] = {}
        self.tunnels.append(channels)
        return channels

    def upward(self, channels: dict[int, Seen], data: bytes) -> list[bytes]:
        self.read(channels, data, True)
        return [data]

    def downward(self, channels: dict[int, Seen], data: bytes) -> list[bytes]:
        self.read(channels, data, False)
        return [data]

    def read(self, channels: dict[int, Seen], data: bytes, up: bool) -> None:
        for one in unbatched(data) or ():
            op, number = one[0], int.from_bytes(one[1:5], "big")
            seen = channels.setdefault(number, Seen())
            if op == DIAL:
                address, port = json.loads(one[5:])
                seen.dialled = (address, port)
            elif op == DATA and up:
                seen.up = frames(seen.up + one[5:], seen.page)
            elif op == DATA:
                seen.down = frames(seen.down + one[5:], seen.peer)

    def joins(self) -> list[tuple[list, list, dict]]:
        """Every `join` a page sent, with its link's two hellos: (the page's hello, its peer's, the join)."""
        found = []
        for channels in self.tunnels:
            for seen in channels.values():
                for value in seen.page:
                    if isinstance(value, list) and len(value) == 2 and value[0] == "join":
                        found.append((seen.page[0], seen.peer[0], value[1]))
        return found

    def dials(self) -> list[tuple[str, int]]:
        return [seen.dialled for channels in self.tunnels for seen in channels.values() if seen.dialled is not None]


def link_proven(hellos_and_join: tuple[list, list, dict], game: bytes, secret: bytes) -> bool:
    """Whether the join's `link_proof` holds for the link secret `secret` on its own link (protocol.md 14)."""
    ours, theirs, join = hellos_and_join
    return link_proof_holds(join.get("link_proof"), secret, game, ours[4], theirs[4], ours[3])


def proven(hellos_and_join: tuple[list, list, dict], game: bytes, key: str) -> bool:
    """Whether the join's proof holds for `key` on its own link (the page's nonce and key, the host's nonce)."""
    ours, theirs, join = hellos_and_join
    assert ours[0] == theirs[0] == "p2pnimmt-hello" and ours[2] == game
    return proof_holds(join.get("proof"), seat_secret(game, key), game, ours[4], theirs[4], ours[3])


async def seat_in_lobby(host: Node, name: str) -> bytes:
    """The key of the member `name` once the host admitted it."""
    for _ in range(600):
        member = next((m for m in host.members.values() if m.name == name), None)
        if member is not None:
            return member.key
        await asyncio.sleep(0.05)
    raise AssertionError(f"{name} never took a seat: {[m.name for m in host.members.values()]}")


@dataclass
class Lobby:
    """ann's lobby (a 4-seat open game, her Node on 127.0.0.1), the relay a test puts before it and the browser
    contexts of its phones: all closed as `ann_hosting` ends."""

    host: Node
    relay: WatchingRelay | None = None
    contexts: list = field(default_factory=list)

    async def take_a_seat(self, browser, url: str, name: str):
        """A phone in a context of its own at `url`, that asks for a seat as `name`."""
        context = await browser.new_context(**PHONE)
        self.contexts.append(context)
        phone = await context.new_page()
        await phone.goto(url)
        await phone.fill("#name", name)
        await phone.tap("#join")
        return phone


@asynccontextmanager
async def ann_hosting() -> AsyncIterator[Lobby]:
    """ann hosts; her Lobby, everything in it closed after the test, however it ends."""
    host = Node(Identity.generate(), name="ann", interface=LO, drop_after=0)
    await host.listen()
    await host.host(Settings(players=4, deal="open"))
    lobby = Lobby(host)
    try:
        yield lobby
    finally:
        for context in lobby.contexts:
            await context.close()
        if lobby.relay is not None:
            await lobby.relay.close()
        await host.close()
        host.done.set()


async def test_a_phone_page_proves_its_links_seat_key_on_each_link_and_without_the_key_joins_nobody(browser) -> None:
    async with ann_hosting() as lobby:
        host = lobby.host
        if host.seat_key is None:  # (a host of before the lead's change draws none: the test gives it one)
            host.seat_key = new_seat_key()
        key = host.seat_key
        game = host.game_id
        assert game is not None and host.link_secret is not None
        written = write_link_secret(host.link_secret)  # after the key in the fragment (protocol.md 14, "The link secret")
        link = await start_phone(host)
        assert link.endswith(f"#{key}-{written}") and link.count("#") == 1, link  # the phone link, its QR code
        relay = lobby.relay = WatchingRelay(link)
        await relay.start()
        assert relay.url.endswith(f"#{key}-{written}")

        # The page of the whole link: its join proves the key on its link, and the host seats it.
        zoe = await lobby.take_a_seat(browser, relay.url, "zoe")
        member = await seat_in_lobby(host, "zoe")
        await zoe.wait_for_function("() => /in the lobby/.test(document.getElementById('status').textContent)")
        [first] = relay.joins()
        assert first[0][3] == member  # the page's own key, in its hello and in the lobby
        assert proven(first, game, key)
        assert not proven(first, game, "7Q2M" if key != "7Q2M" else "7Q2N")  # (another key's proof is not that)
        assert isinstance(first[2]["proof"], bytes) and len(first[2]["proof"]) == 32
        assert link_proven(first, game, host.link_secret) and not link_proven(first, game, bytes(16))
        assert key not in "".join(relay.asked)  # the fragment never reached a server: no relay learns the key
        assert written not in "".join(relay.asked)  # nor the link secret

        # A reload at the link without its fragment: the page kept the key for its token, joins again at once (the
        # seat taken in this browser) on a new link with new nonces, and proves it there.
        await zoe.goto(relay.url.split("#")[0])
        for _ in range(600):
            if len(relay.joins()) >= 2:
                break
            await asyncio.sleep(0.05)
        second = relay.joins()[1]
        assert second[0][4] != first[0][4] and second[1][4] != first[1][4]  # another handshake
        assert second[2]["proof"] != first[2]["proof"] and proven(second, game, key)
        assert link_proven(second, game, host.link_secret)  # the link secret kept with the key
        await zoe.wait_for_function("() => /in the lobby/.test(document.getElementById('status').textContent)")

        # A fresh phone with the link but no key, where the node holds one (its relay's hello says so): the page
        # says so, and dials nobody (it does not join only to be refused).
        dials = len(relay.dials())
        bare = await lobby.take_a_seat(browser, relay.url.split("#")[0], "bea")
        await bare.wait_for_function("() => document.body.dataset.seatKey === 'missing'")
        said = await bare.inner_text("#status")
        assert said.startswith("this link has no seat key: a phone link ends with # and the game's 4-character seat key")
        await asyncio.sleep(0.5)
        assert len(relay.dials()) == dials and "bea" not in [m.name for m in host.members.values()]

        # A fragment that is no seat key: said, not dialled either.
        bad = await lobby.take_a_seat(browser, relay.url.split("#")[0] + "#7Q2U", "bo")
        await bad.wait_for_function("() => document.body.dataset.seatKey === 'bad'")
        assert '"U" is not in a seat key' in await bad.inner_text("#status")
        assert len(relay.dials()) == dials

        # Another evening's key: its proof does not hold; the host's relay, whose node holds the key, refuses it before
        # a byte of it reaches the host (web/relaydoor.py: no wrong key comes from the relay's address), and the page
        # says why in its own words (the refusal's speak of scanning again).
        other = next(k for k in ("7Q2M", "7Q2N") if k != key)
        wrong = await lobby.take_a_seat(browser, relay.url.split("#")[0] + f"#{other.lower()}", "max")
        for _ in range(600):
            if len(relay.joins()) >= 3:
                break
            await asyncio.sleep(0.05)
        third = relay.joins()[2]
        assert proven(third, game, other) and not proven(third, game, key)  # read case-blind, and not this game's
        if hasattr(host.lobby, "door"):  # the host checks the seat key (net/seatdoor.py, the lead's change)
            await wrong.wait_for_function("() => document.body.dataset.refused === 'seat-key'")
            assert (await wrong.inner_text("#status")).startswith("the host refused this page's seat key")
            assert "max" not in [m.name for m in host.members.values()]
            assert host.lobby.door.refused == 0  # the host saw no wrong key: the relay refused it

        # The right key with another link secret: the relay passes it on unchecked, the host refuses it for the
        # secret (charging nothing), and the page says so in its own words.
        forged = await lobby.take_a_seat(browser, relay.url.split("#")[0] + f"#{key}-{write_link_secret(bytes(16))}",
                                         "kim")
        await forged.wait_for_function("() => document.body.dataset.refused === 'link-secret'")
        assert (await forged.inner_text("#status")).startswith("the host refused this page's link secret")
        assert "kim" not in [m.name for m in host.members.values()] and host.lobby.door.refused == 1
        assert not host.lobby.door.tries.tries, "a wrong link secret is charged to no address"


async def test_a_phone_page_draws_its_seat_key_secret_once_in_its_worker_and_on_its_main_thread_without_one(browser) -> None:
    """K (a scrypt of N 2^15, half a second of a phone's CPU) is drawn in the page's worker (static/page_worker.js),
    off the main thread, and once for the game though the page asks for it twice (at the relay's hello, and before
    its dial): the worker's own count of the scrypts it ran. A browser where the worker does not load draws K on the
    main thread: the page joins all the same, with a proof that holds."""
    async with ann_hosting() as lobby:
        host = lobby.host
        key = host.seat_key
        game = host.game_id
        assert key is not None and game is not None
        relay = lobby.relay = WatchingRelay(await start_phone(host))
        await relay.start()

        zoe = await lobby.take_a_seat(browser, relay.url, "zoe")
        await seat_in_lobby(host, "zoe")
        await zoe.wait_for_function("() => /in the lobby/.test(document.getElementById('status').textContent)")
        [first] = relay.joins()
        assert proven(first, game, key)
        [worker] = [w for w in zoe.workers if w.url.endswith("/static/page_worker.js")]
        assert await worker.evaluate("drawn()") == 1  # one scrypt, in the worker, for both asks

        # No worker (its file does not load): K on the main thread, the same proof.
        context = await browser.new_context(**PHONE)
        lobby.contexts.append(context)
        await context.route("**/static/page_worker.js", lambda route: route.abort())
        bare = await context.new_page()
        await bare.goto(relay.url)
        await bare.fill("#name", "bea")
        await bare.tap("#join")
        await seat_in_lobby(host, "bea")
        await bare.wait_for_function("() => /in the lobby/.test(document.getElementById('status').textContent)")
        second = relay.joins()[1]
        assert proven(second, game, key) and second[2]["name"] == "bea"
        for worker in bare.workers:  # (a worker that failed to load may be listed: it drew nothing)
            assert not await worker.evaluate("typeof drawn === 'function' ? drawn() : 0")
