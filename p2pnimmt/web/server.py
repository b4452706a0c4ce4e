"""The HTTP side of the browser front: an aiohttp server for the page, its static files and one WebSocket per tab.

Who may do what: every page is reached with a random token in its URL (`/?t=TOKEN`), and the token
names a View: a read-only one (the TV page) or one that acts for a seat. Without a known token
nothing is served but the static files (the same for everyone, nothing secret in them). The
WebSocket also checks Host and Origin: only this server's own address, so another web site the
browser has open cannot drive the seat (and a DNS-rebinding name is refused). Static files come
from a list made at start-up of the files in the package's static folder, so no path the client
sends can reach any other file. WebSockets are bounded (MAX_CLIENTS), and so is what a client may
send (MAX_MESSAGE). The server binds 127.0.0.1 unless told another address.

Room for a page is counted by kind: a read-only view (the TV page, whose link is on the TV for
anyone to see) has TV_SOCKETS open WebSockets at most, TV_PER_SOURCE from one address (past TV_SOCKETS a
newcomer cuts the oldest of the address holding the most, when that holds more than the newcomer's would:
a stranger with a few addresses cannot keep the TV out); a page
that acts for a seat has SEAT_TABS of its own, and a tab beyond them closes that page's oldest
(the newest tab of the seat always gets in). So no number of TV sockets keeps a seat out of its page.
Connections themselves (idle, slow, too many from one address or in all) are bounded by web.guard.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
from collections import Counter
from importlib import resources

from aiohttp import WSMsgType, web

from ..i18n import _
from ..protocol.seatkey import write_link_secret
from .guard import IDLE, GatedSite, Page, ServerLog, keep_alive, opened, shared_gate
from .relay import Relay
from .timings import page_timings, with_timings
from .view import Client, View

log = logging.getLogger("p2pnimmt.web")

TV_SOCKETS = 24  # open WebSockets of one read-only view (a TV page), all addresses together
TV_PER_SOURCE = 6  # of them from one address
SEAT_TABS = 4  # open WebSockets of one seat's page: one more closes its oldest
MAX_MESSAGE = 4096  # bytes a page may send in one WebSocket message (an intent is a few dozen)
TYPES = {".html": "text/html", ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml",
         ".png": "image/png"}
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",  # the token is in the URL: never pass it on
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
}

# The phone page may open its tunnel at another relay of its game when its own left (issue 26; web.relay): any ws:
# address (which ones are learnt from the game, after the page loaded). Its script is still this server's only; it may
# compile WebAssembly ('wasm-unsafe-eval': the sealed deal's twin keys, web/peer/src/sealed_field.ts, whose bytes ship
# in peer.js), never evaluate strings as script (no 'unsafe-eval').
PHONE_HEADERS = {**HEADERS, "Content-Security-Policy": HEADERS["Content-Security-Policy"]
                 .replace("connect-src 'self'", "connect-src 'self' ws:")
                 .replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")}


def static_files() -> dict[str, tuple[bytes, str]]:
    """The page's files, read once from the package: name -> (bytes, content type). Nothing else is served."""
    folder = resources.files("p2pnimmt.web") / "static"
    files = {}
    for entry in folder.iterdir():
        suffix = "." + entry.name.rpartition(".")[2]
        if entry.is_file() and suffix in TYPES:
            files[entry.name] = (entry.read_bytes(), TYPES[suffix])
    return files


def static_headers(body: bytes) -> dict[str, str]:
    """A static file's headers: kept by the browser and asked again each time (`no-cache`), the answer a 304 while
    its ETag (a hash of the bytes) still matches, so a phone loads the bundle once per version of the package. The
    pages themselves (their token is in the URL) stay `no-store`."""
    return {**HEADERS, "Cache-Control": "no-cache", "ETag": '"' + hashlib.sha256(body).hexdigest()[:32] + '"'}


class WebServer:
    """The page's server on `interface:port` (port 0: any free port); views are added with `add`."""

    def __init__(self, interface: str = "127.0.0.1", port: int = 0, *, tv_sockets: int = TV_SOCKETS,
                 tv_per_source: int = TV_PER_SOURCE, seat_tabs: int = SEAT_TABS) -> None:
        self.interface = interface
        self.port = port
        self.tv_sockets, self.tv_per_source, self.seat_tabs = tv_sockets, tv_per_source, seat_tabs
        self.views: dict[str, View] = {}
        self.relays: dict[str, Relay] = {}  # a phone page's token -> the relay for its tunnel (web.relay)
        self.files = static_files()
        # The phone page, its timers at $P2PNIMMT_PAGE_TIMINGS's scale where a test set it (web/timings.py)
        self.phone_page = with_timings(self.files["phone.html"][0], page_timings())
        self.file_headers = {name: static_headers(body) for name, (body, _kind) in self.files.items()}
        self.gate = shared_gate()  # connections by address and in all, for every page server of the process
        self.runner: web.AppRunner | None = None
        self.tasks: set[asyncio.Task] = set()

    def add(self, view: View, token: str | None = None) -> str:
        """Serve `view` under a fresh random token (or `token`); the token, for `url`."""
        token = token or secrets.token_urlsafe(18)
        self.views[token] = view
        return token

    def add_relay(self, relay: Relay) -> str:
        """Serve the phone page (a peer of its own, web.relay) under a fresh random token, for `phone_url`."""
        token = secrets.token_urlsafe(18)
        self.relays[token] = relay
        return token

    def url(self, token: str, host: str | None = None) -> str:
        return f"http://{host or self.interface}:{self.port}/?t={token}"

    def phone_url(self, token: str, lang: str = "en", seat_key: str | None = None,
                  link_secret: bytes | None = None) -> str:
        """The phone page's link: its relay's token, the page's language where it is not English (`&lang=`), and
        the game's seat key after `#` where the node holds one (protocol.md 14, "The seat key": a browser never
        sends a fragment to a server, so the page proves the key in its own join and no relay learns it), with the
        link secret after it where the node holds that too (`#7Q2K-SECRET`, "The link secret")."""
        fragment = "" if seat_key is None else f"#{seat_key}"
        if seat_key is not None and link_secret is not None:
            fragment += f"-{write_link_secret(link_secret)}"
        return (f"http://{self.interface}:{self.port}/phone?t={token}" + ("" if lang == "en" else f"&lang={lang}")
                + fragment)

    async def start(self) -> None:
        app = web.Application(client_max_size=MAX_MESSAGE)
        app.router.add_get("/", self._index)
        app.router.add_get("/ws", self._socket)
        app.router.add_get("/phone", self._phone)
        app.router.add_get("/relay", self._relay)
        app.router.add_get("/static/{name}", self._static)
        # An idle or slow connection is closed IDLE s after its connect or its last answer (net: web.guard).
        self.runner = web.AppRunner(app, access_log=None, handle_signals=False, keepalive_timeout=IDLE,
                                    logger=ServerLog())
        await self.runner.setup()
        site = GatedSite(self.runner, self.interface, self.port, self.gate)
        await site.start()
        self.port = site.port

    async def close(self) -> None:
        for view in self.views.values():
            for client in list(view.clients):
                with contextlib.suppress(Exception):
                    await client.ws.close()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    # ------------------------------------------------------------------ checks

    def _hosts(self) -> set[str]:
        """The Host values this server answers to: its own address (and localhost's names when it is 127.0.0.1)."""
        names = {self.interface} | ({"localhost", "127.0.0.1"} if self.interface == "127.0.0.1" else set())
        return {f"{name}:{self.port}" for name in names}

    def _view(self, request: web.Request, claiming: bool = False) -> View:
        """The view the request's token names; 403 for a missing or unknown token, or a one-browser link that
        another browser claimed. Only the page itself (`claiming`) may claim a link nobody has opened yet: its
        socket, before that, is refused too (nobody sees or acts for the seat before its browser has it)."""
        if request.host not in self._hosts():
            raise web.HTTPForbidden(text="wrong host", headers=HEADERS)
        view = self.views.get(request.query.get("t", ""))
        if view is None:
            raise web.HTTPForbidden(text=_("this page needs the link with its token"), headers=HEADERS)
        self.gate.know(request.transport)  # it was given the page (web.guard: a known address)
        if view.claim and not (claiming and view.claimed_by is None) and (
                view.claimed_by is None or request.cookies.get(self._cookie(request)) != view.claimed_by):
            raise web.HTTPForbidden(text=_("this guest link is for the one browser that opened it first"),
                                    headers=HEADERS)
        return view

    @staticmethod
    def _cookie(request: web.Request) -> str:
        return "seat-" + request.query.get("t", "")[:8]

    # ------------------------------------------------------------------ handlers

    async def _index(self, request: web.Request) -> web.Response:
        view = self._view(request, claiming=True)
        body, kind = self.files["index.html"]
        response = web.Response(body=body, content_type=kind, charset="utf-8", headers=HEADERS)
        if view.claim and view.claimed_by is None:
            view.claimed_by = secrets.token_urlsafe(18)
            response.set_cookie(self._cookie(request), view.claimed_by, httponly=True, samesite="Strict",
                                max_age=7 * 24 * 3600)
        return response

    def _relay_of(self, request: web.Request) -> Relay:
        if request.host not in self._hosts():
            raise web.HTTPForbidden(text="wrong host", headers=HEADERS)
        relay = self.relays.get(request.query.get("t", ""))
        if relay is None:
            raise web.HTTPForbidden(text=_("this page needs the link with its token"), headers=HEADERS)
        self.gate.know(request.transport)
        return relay

    async def _phone(self, request: web.Request) -> web.Response:
        self._relay_of(request)
        return web.Response(body=self.phone_page, content_type=self.files["phone.html"][1], charset="utf-8",
                            headers=PHONE_HEADERS)

    async def _relay(self, request: web.Request) -> web.StreamResponse:
        relay = self._relay_of(request)
        # Our own page, or one that another relay of this game served (its relay left: issue 26). Nothing else: a
        # web site the phone has open cannot open tunnels from it (the token would not be enough).
        origin = request.headers.get("Origin")
        if origin not in {f"http://{h}" for h in self._hosts()} and origin not in relay.origins():
            raise web.HTTPForbidden(text="unknown origin", headers=HEADERS)
        transport = request.transport  # a seat's page (once it holds one): never shed for a newer connection
        return await relay.serve(request, keep=lambda: self.gate.keep(transport))

    async def _static(self, request: web.Request) -> web.Response:
        found = self.files.get(request.match_info["name"])
        if found is None:
            raise web.HTTPNotFound(headers=HEADERS)
        headers = self.file_headers[request.match_info["name"]]
        if headers["ETag"] in (tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")):
            return web.Response(status=304, headers=headers)
        return web.Response(body=found[0], content_type=found[1], headers=headers)

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        view = self._view(request)
        if request.headers.get("Origin") not in {f"http://{h}" for h in self._hosts()}:
            raise web.HTTPForbidden(text="unknown origin", headers=HEADERS)
        source = request.remote or "?"
        self._room(view, source)
        # Pings and pongs come to the loop below (autoping off): any frame from the page shows it is there.
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, autoping=False)
        await opened(ws, request)
        page = Page(ws, request.transport)
        if view.act is not None:
            self.gate.keep(request.transport)  # a seat's page: never shed for a newer connection
        # A read-only page (the TV: its link is on the TV and in its QR's page) is never sent another page's token.
        client = Client(ws, (lambda: [t for t, v in self.views.items() if v is not view]) if view.act is None
                        else tuple, source=source)
        view.clients.add(client)
        pusher = asyncio.ensure_future(client.push(view))
        # While an intent is being done (a lobby command may take a while) no pong is read: the page counts as heard.
        pinger = asyncio.ensure_future(keep_alive(page))
        for task in (pusher, pinger):
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        try:
            async for message in ws:
                if await page.control(message):
                    continue
                if message.type != WSMsgType.TEXT:
                    break
                with page.handling():
                    await self._intent(view, message.data)
        finally:
            pinger.cancel()
            view.clients.discard(client)
            pusher.cancel()
        return ws

    def _room(self, view: View, source: str) -> None:
        """Make room for one more socket of `view` from `source`, or refuse it (503): by the kind of page."""
        if view.act is None:
            mine = sum(c.source == source for c in view.clients)
            if mine >= self.tv_per_source:
                raise web.HTTPServiceUnavailable(text=f"this page is open {self.tv_per_source} times from "
                                                 f"{source} already", headers=HEADERS)
            if len(view.clients) >= self.tv_sockets:
                # Full: the oldest socket of the address holding the most gives way, when it holds more than this
                # one's would (a TV from an address of its own gets in past a stranger's few addresses).
                held = Counter(c.source for c in view.clients)
                most = max(held, key=lambda s: (held[s], s == source))
                if held[most] <= mine + 1:
                    raise web.HTTPServiceUnavailable(text=f"this page is open {self.tv_sockets} times already",
                                                     headers=HEADERS)
                self._shed(view, min((c for c in view.clients if c.source == most), key=lambda c: c.opened),
                           b"this page is open too many times: the oldest of the address holding the most gives way")
            return
        for client in sorted(view.clients, key=lambda c: c.opened)[: max(0, len(view.clients) - self.seat_tabs + 1)]:
            self._shed(view, client, b"this seat's page was opened in another tab")  # its oldest tab gives way

    def _shed(self, view: View, client: Client, why: bytes) -> None:
        view.clients.discard(client)
        task = asyncio.ensure_future(client.ws.close(message=why))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _intent(self, view: View, data: str) -> None:
        if view.act is None:
            return  # a read-only page: nothing it sends does anything
        try:
            intent = json.loads(data)
        except (ValueError, RecursionError):  # deep nesting is RecursionError, not ValueError
            intent = None
        if not isinstance(intent, dict):
            intent = {}  # refused by the view as ill-formed (a message on the page; the connection stays)
        try:
            await view.act(intent)
        except Exception:  # a bad intent must not end the page, let alone the game
            log.exception("intent %r failed", intent)
        view.changed()
