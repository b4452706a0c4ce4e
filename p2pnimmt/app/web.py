"""`--web`: the table in a browser, served by this node (web/), for `play`, `host`, `join` and `watch`.

The node that serves a page is the node whose seat (or spectator view) the page shows: the
page only draws the node's TableModel and sends intents to the node's seat; the node still
does all of the protocol. The server binds 127.0.0.1 unless --web-interface names an address.
"""

from __future__ import annotations

import asyncio
import sys
import webbrowser
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..engine import Settings
from ..i18n import _, language
from ..net.discovery import game_code
from ..net.node import Node
from ..net.spectator import host_gone_how
from ..ui.local import LocalSeat
from ..ui.model import TableModel
from ..web.qr import qr_uri
from .evening import Evening
from .front import lobby_link, typed_code
from .options import Options, WebOptions
from .output import reporter, say
from .rematch import PAGE, AfterGame

if TYPE_CHECKING:  # the browser front's modules (aiohttp, prompt_toolkit's screens) load when a web front starts
    from ..web.relay import Relay
    from ..web.server import WebServer
    from ..web.table import Command, Page


def show(url: str, options: WebOptions) -> None:
    """Tell the person where the page is, and open it when a person is at this terminal."""
    say(_("web: {url}").format(url=url))
    if options.open and sys.stdout.isatty() and not opened(url):
        say(_("no browser could be opened here: open {url} in a browser yourself (or pass --no-open)").format(url=url))


def opened(url: str) -> bool:
    """Whether `url` could be opened in this machine's browser."""
    try:
        return webbrowser.open(url)
    except webbrowser.Error:  # e.g. $BROWSER names nothing that runs
        return False


async def run_play_web(settings: Settings, *, bot: str, name: str, seed: bytes | None, options: WebOptions,
                       ready: Callable[[str, str], None] | None = None) -> int:
    """`play --web`: your seat against bots in the browser (and a TV page of the same table); the exit status.

    `ready(seat_url, tv_url)` is called once the pages are served (for tests).
    """
    from ..web.server import WebServer
    from ..web.table import Page, Placer, TvModel, feed
    from .play import Sitting

    model, tv_model = TableModel(), TvModel()
    sitting = Sitting(settings, bot, name, seed)
    table = sitting.deal(model, tv_model, on_event=feed(model, tv_model))
    placers = Placer(model), Placer(tv_model)
    seat = Page(model, seat=LocalSeat(table), title=_("p2pnimmt (vs bots)"))
    tv = Page(tv_model, tv=True, title=_("p2pnimmt (vs bots)"))

    def again() -> str:
        """"Play again" at game over: the next game against the same bots, on the same pages (a Sitting)."""
        sitting.over(model)
        sitting.again()
        model.reset()
        tv_model.reset()
        seat.seat = LocalSeat(sitting.deal(model, tv_model, on_event=feed(model, tv_model)))
        assert sitting.table is not None
        sitting.table.start()
        return ""  # nothing to say: the new game is on the page

    seat.again = again
    server = WebServer(options.interface, options.port)
    seat_token, tv_token = server.add(seat.view), server.add(tv.view)
    await server.start()
    say(_("tv: {url}").format(url=server.url(tv_token)))
    show(server.url(seat_token), options)
    table.start()
    if ready is not None:
        ready(server.url(seat_token), server.url(tv_token))
    try:
        await seat.left.wait()
    finally:
        sitting.over(model)
        for placer in placers:
            placer.stop()
        await server.close()
    for line in sitting.said:
        say(line)
    assert sitting.table is not None
    return 0 if sitting.table.session.phase == "over" else 1


async def guest_seat(node: Node, options: Options) -> tuple[Node, Page]:
    """Host, in the lobby: the node of a seat for a player without Python, and the page it is played on.

    This node runs the guest's node (its session and its key); the page (one-browser link: it works for
    the first browser that opens it, and again for that browser) acts for it. The guest trusts this node;
    everyone else's trust is unchanged: the guest's seat is a peer like any other, named "guest of <host>".
    """
    from ..protocol.identity import Identity
    from ..ui.app import NodeSeat
    from ..web.table import Page, Placer
    from .nodes import new_node

    assert node.game_id is not None
    if node.lobby_state != "lobby":
        raise ValueError(_("the game has started"))
    if len(node.players()) >= node.seats:
        raise ValueError(_("all {seats} seats are taken").format(seats=node.seats))
    name = guest_name(node)
    model = TableModel()
    Placer(model)
    helper = new_node(Identity.generate(), options, name=name,
                      on_event=lambda n, event: model.update(n.session, event))
    helper.seat_key = node.seat_key  # a guest seat proves the host's key as any joiner, never turned away unchecked
    node.lobby.door.trusted.add(helper.identity.peer)
    await helper.listen()
    await helper.join(options.interface or "127.0.0.1", node.port, node.game_id)
    page = Page(model, seat=NodeSeat(helper), node=helper, code=game_code(node.game_id), title=f"p2pnimmt: {name}")
    page.view.claim = True
    return helper, page


def guest_name(node: Node) -> str:
    """"guest of ann", then "guest 2 of ann", ...: the first that looks like no player's name in the lobby
    (protocol.md 9: no two seats look alike), at most 40 characters, no space at the end."""
    from itertools import count

    from ..protocol.names import NAME_LENGTH, first_unlike

    wanted = ((f"guest of {node.name}" if n == 1 else f"guest {n} of {node.name}")[:NAME_LENGTH].rstrip()
              for n in count(1))
    return first_unlike(wanted, [m.name for m in node.players()])


async def start_guest(node: Node, options: Options, helpers: list[Node]) -> str:
    """From the host's terminal lobby (`guest`, key g): a guest seat, its page served where `options.pages`
    says (--web-interface: a LAN address, for a phone); the link. The guest's node joins `helpers`."""
    from ..web.server import WebServer

    web = options.pages or WebOptions()
    helper, page = await guest_seat(node, options)
    helpers.append(helper)
    server = WebServer(web.interface, web.port)
    token = server.add(page.view)
    await server.start()

    async def close_when_done() -> None:
        await helper.done.wait()
        await node.done.wait()
        await server.close()

    node.spawn(close_when_done())
    url = server.url(token)
    say(_("guest seat: {url}").format(url=url))
    return url


def offer_relay(node: Node, interface: str, port: int, token: str) -> None:
    """Tell `node`'s game where this node relays phone pages (issue 26: a page whose relay node leaves goes on
    through another that serves them): not when served on every interface (no one address to give)."""
    from ..net.members import is_ip

    if is_ip(interface) and interface not in ("0.0.0.0", "::"):
        node.offer_relay((interface, port, token))


_SERVED: dict[int, tuple[WebServer, str]] = {}  # id(node) -> its terminal lobby's web server and phone page's token


def phone_link(server: WebServer, token: str, node: Node | None) -> str:
    """The phone page's link as a node shows it and its QR codes encode it: in the host's language (`&lang=`, the
    page speaks it: web/peer/src/page_words.ts) and with the game's seat key after `#` where the node holds one
    (protocol.md 14, "The seat key"; a browser never sends the fragment, so no relay learns it from the page)."""
    return server.phone_url(token, language(), node.seat_key if node is not None else None,
                            node.link_secret if node is not None else None)


async def lobby_server(node: Node, options: WebOptions | None = None) -> tuple[WebServer, str]:
    """The web server of `node`'s terminal lobby, started once where `options` says (--web-interface: a LAN
    address, for phones) and closed when the node is done: it serves the phone page of `node`'s game (a peer of its
    own: this node only relays its bytes, web.relay) and the lobby's TV pages. The server and the phone link."""
    from ..web.relay import Relay
    from ..web.server import WebServer

    if id(node) in _SERVED:
        served, token = _SERVED[id(node)]
        return served, phone_link(served, token, node)
    web = options or WebOptions()
    server = WebServer(web.interface, web.port)
    relay = Relay(lambda: node, web.interface, host_gone=host_gone_how)
    node.watch_lobby(remember(relay))  # the game's other relays (issue 26)
    token = server.add_relay(relay)
    await server.start()
    offer_relay(node, server.interface, server.port, token)
    _SERVED[id(node)] = server, token

    async def close_when_done() -> None:
        await node.done.wait()
        _SERVED.pop(id(node), None)
        await server.close()

    node.spawn(close_when_done())
    return server, phone_link(server, token, node)


def lobby_server_link(node: Node) -> str:
    """The phone link of `node`'s terminal lobby as it stands now ("" before its server is up): with the seat key
    the node holds now (a host's, drawn as it starts)."""
    served = _SERVED.get(id(node))
    return phone_link(*served, node) if served is not None else ""


async def start_phone(node: Node, options: WebOptions | None = None) -> str:
    """From the host's terminal lobby (`phone`; key g in the full-screen lobby), with or without --web: the link of
    the phone page of `node`'s game (lobby_server), the same one on every ask and the one the lobby's TV page shows
    as its QR code. No seat is filled until a phone takes one, and nothing is printed: the lobby shows the link (a
    line over the full-screen lobby garbled it)."""
    return (await lobby_server(node, options))[1]


async def start_tv(node: Node, options: WebOptions | None = None) -> str:
    """From a terminal lobby: serve a TV page of `node`'s table (read-only, no hand) and open it; its address.

    The page follows the node from now on (the lobby, then every turn) until the node is done. Its QR code is the
    phone link (start_phone: a phone's camera opens it), not the `p2pnimmt join` line printed under it.
    """
    from ..web.table import Page, Placer, TvModel

    options = options or WebOptions()
    assert node.game_id is not None  # a lobby has a game
    code = game_code(node.game_id)
    model = TvModel()
    placer = Placer(model)
    node.watch_events(lambda n, event: model.update(n.session, event))
    server, _phone = await lobby_server(node, options)
    page = Page(model, tv=True, node=node, code=typed_code(node), join_text=lambda: f"p2pnimmt join {typed_code(node)}",
                title="p2pnimmt", phone_url=lambda: lobby_server_link(node) or None,
                invite=lambda: lobby_link(node, code))
    token = server.add(page.view)

    async def stop_when_done() -> None:
        await node.done.wait()
        placer.stop()

    node.spawn(stop_when_done())
    url = server.url(token)
    if options.open and sys.stdout.isatty():
        opened(url)  # the lobby shows the address, for the TV's browser, either way
    return url


def remember(relay: Relay) -> Callable[[Node], None]:
    """A lobby listener that has `relay` remember the game's other relays (web.relay: Relay.remember)."""
    return lambda _node: relay.remember()


def redraw(page: Page) -> Callable[[Node], None]:
    """A lobby listener that redraws `page`."""
    return lambda _node: page.view.changed()


class WebFront:
    """The browser front of a network node (host, join, watch): the lobby and the table on this node's pages.

    Progress lines still go to the terminal. A seat's page acts for the seat; a spectator's is the
    read-only TV page; a seated node also serves a TV page of its table (no hand on it).
    """

    full_screen = True  # host.py: this front runs the host's lobby controls (on the page)
    lobby_closed = None

    def __init__(self, options: Options, web: WebOptions, evening: Evening | None = None) -> None:
        from ..web.server import WebServer
        from ..web.table import Placer, TvModel, feed

        self.evening = evening or Evening()
        self.after: AfterGame | None = None
        self.options = options
        self.web = web
        self.node: Node | None = None
        self.guest: dict | None = None  # the guest seat offered by this node: name, url, qr
        self.helpers: list[Node] = []  # the guests' nodes, run by this one
        self.model = TableModel()  # the seat's page's
        self.tv_model = TvModel()  # the TV page's (and a spectator's page): nothing only our seat knows
        self.models = (self.model, self.tv_model)
        self.update = feed(*self.models)
        self.lines = reporter(None, evening=lambda node: self.evening.lines(node.session))
        self.placers = [Placer(model) for model in self.models]
        self.server = WebServer(web.interface, web.port)
        self.page: Page | None = None
        self.tv: Page | None = None
        self.tv_url = ""
        self.phone_url = ""  # the phone page: a peer of its own, this node only relays it (web.relay)
        self.phone_token: str | None = None  # its token (the members learn it: Node.offer_relay)
        self.relay: Relay | None = None  # the phone pages' relay (web.relay)
        self.started = asyncio.get_running_loop().create_future()

    def on_event(self, node: Node, event) -> None:
        for model in self.models:  # who said bye: their going is leaving, not a fault (as on the terminal)
            model.left = node.left_seats()
        self.update(node.session, event)
        self.lines(node, event)

    def follow(self, node: Node) -> None:
        """The pages show `node`'s game from now on (a rematch: the same pages and addresses, a new game on
        them), with the evening's table of the games before it."""
        for model in self.models:
            if self.node is not None:
                model.reset()
            model.evening = lambda: self.evening.table(node.session)

    def _note(self, text: str, public: str = "") -> None:
        """Rematch news: the seat's page as told to its person, the TV page without anything to press."""
        for model, said in zip(self.models, (text, public)):
            model.rematch = said
            model.changed()

    async def after_game(self, node: Node) -> bool:
        """The game is over: True to go on to a rematch. A seat's page has "Play again" (the host's offers the
        rematch, a player's asks for it or accepts it); the TV page follows every rematch by itself."""
        session = node.session
        if session is None or session.phase != "over" or self.page is None:
            return False
        self.evening.add(session)
        page = self.page
        self.after = after = AfterGame(node, self._note, keys=PAGE)
        watcher = None
        if page.seat is not None:
            page.again = lambda: after.want(True)

            async def left() -> None:
                await page.left.wait()
                after.want(False)

            watcher = asyncio.ensure_future(left())
            page.view.changed()  # "Play again" is offered from now on
        try:
            return await after.outcome(None)
        finally:
            page.again = None
            if watcher is not None:
                watcher.cancel()

    def phone_link(self) -> str | None:
        """The phone page's link as it stands now (its QR codes encode it), None before the server is up: in the
        host's language and with the seat key of the node the pages show (protocol.md 14, "The seat key")."""
        if self.phone_token is None or self.server.runner is None:
            return None
        return phone_link(self.server, self.phone_token, self.node)

    def say(self, text: str) -> None:
        say(text)

    def restarted(self, text: str) -> None:
        """The game was abandoned before it started, and a new one follows at once (app.anew): said, and shown on the
        pages until the new game's lobby replaces them."""
        self._note(text, text)
        say(text)

    def show_lobby(self, node: Node, command: Command | None = None) -> None:
        """Serve the pages (lobby, then table) for `node`, and print their addresses."""
        from ..ui.app import NodeSeat
        from ..web.relay import Relay
        from ..web.table import Page

        assert node.game_id is not None  # shown once the node has hosted or joined
        code = typed_code(node)  # the room's screens show the seat key with the code (protocol.md 14)
        join = f"p2pnimmt join {code}"
        spectator = node.role == "spectator"
        if self.node is not None and self.page is not None and self.tv is not None:  # a rematch: the same pages
            self.node = node
            if self.relay is not None:
                node.watch_lobby(remember(self.relay))
            if self.phone_token is not None and self.server.runner is not None:  # the same relay, for the new game
                offer_relay(node, self.server.interface, self.server.port, self.phone_token)
            for page in {id(self.page): self.page, id(self.tv): self.tv}.values():
                page.node, page.code, page.join_text = node, code, (lambda: join)
                page.command = None if page.tv else command
                node.watch_lobby(redraw(page))
            if self.page.seat is not None:
                self.page.seat = NodeSeat(node)
            self.page.view.changed()
            return
        self.node = node
        guest = (lambda: {"guest": self.guest or {"offer": True}}) if node.is_host else None
        self.page = Page(self.tv_model if spectator else self.model, seat=None if spectator else NodeSeat(node),
                         tv=spectator, node=node, code=code, command=command, join_text=lambda: join,
                         title="p2pnimmt", extra=guest, offer_guest=self.offer_guest if node.is_host else None,
                         phone_url=self.phone_link)
        self.tv = self.page if spectator else Page(self.tv_model, tv=True, node=node, code=code,
                                                   extra=self.public_guest if node.is_host else None,
                                                   join_text=lambda: join, title="p2pnimmt",
                                                   phone_url=self.phone_link,
                                                   invite=self.invite_link)
        page_token = self.server.add(self.page.view)
        tv_token = page_token if spectator else self.server.add(self.tv.view)
        relay = self.relay = Relay(lambda: self.node, self.web.interface, host_gone=host_gone_how)
        node.watch_lobby(remember(relay))  # the game's other relays (issue 26)
        phone_token = self.phone_token = self.server.add_relay(relay)

        async def serve() -> None:
            await self.server.start()
            self.tv_url = self.server.url(tv_token)
            if self.node is not None:  # the game learns where this node relays phone pages (before the link is out)
                offer_relay(self.node, self.server.interface, self.server.port, phone_token)
            # the phone page speaks the host's language (its link says it: web/peer/src/page_words.ts)
            self.phone_url = self.phone_link() or ""
            if not spectator:
                say(_("tv: {url}").format(url=self.tv_url))
            say(_("phone: {url}").format(url=self.phone_url))
            for page in (self.page, self.tv):
                if page is not None:
                    page.view.changed()  # the QR code says the phone's link from now on
            show(self.server.url(page_token), self.web)
            self.started.set_result(None)

        node.spawn(serve())

    def resumed(self, node: Node) -> None:
        """A resumed game (app.resume): its pages are served, the table rebuilt from the transcript on them (the
        game has started: no lobby)."""
        self.show_lobby(node)

    def invite_link(self) -> str | None:
        """The host's invite link for the TV page's lobby (a joiner's is None)."""
        node = self.node
        return lobby_link(node, game_code(node.game_id)) if node is not None and node.game_id is not None else None

    def public_guest(self) -> dict:
        """The guest seat as the TV page shows it: its name only. Its link is the seat itself (the first browser
        to open it plays it), so it is on the host's own page and terminal, never on a page the room can open."""
        return {"guest": {"name": self.guest["name"]} if self.guest is not None else None}

    async def offer_guest(self) -> str:
        """Host, in the lobby: a seat for a player without Python, played from a phone's browser (guest_seat)."""
        node = self.node
        assert node is not None and self.page is not None and self.tv is not None
        if self.guest is not None:
            raise ValueError(_("a guest seat is already offered"))
        helper, page = await guest_seat(node, self.options)
        self.helpers.append(helper)
        url = self.server.url(self.server.add(page.view))
        self.guest = {"name": helper.name, "url": url, "qr": qr_uri(url)}
        say(_("guest seat: {url}").format(url=url))
        self.tv.view.changed()
        return _("a guest seat is offered: open {url} on the guest's phone").format(url=url)

    def say_result(self) -> None:
        """Each game's result is on the pages (app.front.Front prints it under a full screen)."""

    async def results(self) -> None:
        """After the game: the page stays up until the person leaves it (a TV page: until Ctrl-C)."""
        try:
            if self.page is not None and self.page.view.act is not None:
                await self.page.left.wait()
            elif self.page is not None:
                await asyncio.Event().wait()
        finally:
            for placer in self.placers:
                placer.stop()
            for helper in self.helpers:
                await helper.close()
            await self.server.close()

