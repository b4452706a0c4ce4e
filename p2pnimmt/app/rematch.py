"""At game over: play again? The person's wish (or a headless node's rule) and the host's offer of a rematch.

The host's `r` (or `again` at the line terminal) offers the rematch to everyone; a player's `r` asks the host
for one, or accepts the host's offer; leaving declines. Spectators follow every offer. A node that
follows a rematch joins the new game like any joiner, with the same key, at the address it reached the
host at, and checks that the host there is the host of the finished game (net.node, protocol.md 14).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..i18n import N_, _
from ..net.node import Node
from ..net.rematch import Answer, Offer
from .options import Options

ASK_SECONDS = 15.0  # the line terminal: how long the game-over question waits for `again` (the person is there)
OFFER_WAIT = 60.0  # a headless node that follows rematches: how long it waits for the host's offer


@dataclass(frozen=True)
class Keys:
    """How a screen asks its person to play again or to leave, in the words of that screen."""

    again: str
    leave: str


FULL_SCREEN = Keys(N_("press r"), "q")  # translated where said (_(keys.again))
LINES = Keys(N_("type again"), "Enter")
PAGE = Keys(N_("click Play again"), N_("Leave"))


class Carry:
    """What one process keeps from game to game of its evening: the finished games' files (until the next takes
    over the identity's lock), the browser front (its pages and addresses stay), the tasks that close old games."""

    def __init__(self) -> None:
        self.files: list = []  # app.nodes.NodeFiles, oldest first
        self.web: Any = None  # app.web.WebFront, with --web
        self.closing: list[asyncio.Task] = []
        self.anew: Any = None  # app.anew.NewStart: the game before was abandoned, and this one starts without its gone
        self.said: dict[str, str] = {}  # the host's lines of its game's door (seat key, host key, address), by kind

    def say_changed(self, kind: str, line: str, say: Callable[[str], None]) -> None:
        """Say the line of this kind once in the evening, and again only when it changes: each rematch has a new
        code and link, but the same seat key and host key (and, with --port, the same address)."""
        if self.said.get(kind) != line:
            self.said[kind] = line
            say(line)


def numbered(path: Path | None, game: int) -> Path | None:
    """The transcript of the evening's `game`-th game when --transcript names the first: PATH, PATH-2, ..."""
    if path is None or game <= 1:
        return path
    return path.with_name(f"{path.stem}-{game}{path.suffix}")


def game_options(options: Options, game: int) -> Options:
    return replace(options, transcript=numbered(options.transcript, game))


class AfterGame:
    """One node's game over: what its person wants (again or leave) and what the host offers.

    `note(text, public)` is told whenever there is something to show (an offer, who wants a rematch, the host
    left): `text` for the person at this node's screen, with what to press in `keys`' words, `public` the same
    news with no key in it (a TV page the room looks at offers nobody anything to press); `go()` when the screen
    should close for the rematch (a player who asked, once the offer is in).
    """

    def __init__(self, node: Node, note: Callable[[str, str], None], go: Callable[[], None] | None = None,
                 keys: Keys = FULL_SCREEN) -> None:
        self.node = node
        self.host = node.is_host
        self.spectator = node.role == "spectator"
        self.note = note
        self.keys = keys
        self.go = go
        self.wish: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.changed = asyncio.Event()
        self._stop = [node.rematch.watch(self._heard), node.watch_lobby(lambda _n: self.changed.set())]
        if node.rematch.offer is not None:
            self._heard(node, node.rematch.offer)
        for peer, again in node.rematch.answers.items():  # answers that came before this node's own game was over
            self._heard(node, Answer(peer, again))

    def names(self) -> dict[bytes, str]:
        session = self.node.session
        return dict(zip(session.roster, session.names)) if session is not None else {}

    def host_name(self) -> str:
        host = self.node.host_peer
        return self.names().get(host, _("the host")) if host is not None else _("the host")

    def _heard(self, node: Node, what: Offer | Answer) -> None:
        again, leave = _(self.keys.again), _(self.keys.leave)
        if isinstance(what, Offer):
            host = self.host_name()
            if self.spectator:
                follows = _("{host} offers a rematch: this screen follows it").format(host=host)
                self.note(follows, follows)
            elif self.wish.done() and self.wish.result():
                self.note(_("{host} offers a rematch: on to the next game").format(host=host),
                          _("{host} offers a rematch with the same seats").format(host=host))
                if self.go is not None:
                    self.go()
            else:  # short enough for one line of the full-screen box with a name of 16 characters
                self.note(_("{host} offers a rematch ({wait} s): {again} to play, {leave} to leave").format(
                    host=host, wait=what.wait, again=again, leave=leave),
                          _("{host} offers a rematch with the same seats ({wait} s)").format(host=host, wait=what.wait))
        else:
            name = self.names().get(what.peer, _("a player"))
            wants = _("{name} wants a rematch").format(name=name)
            if not what.again:
                leaves = _("{name} leaves").format(name=name)
                self.note(leaves, leaves)
            else:
                self.note((_("{name} wants a rematch: {again} to offer it") if self.host
                           else _("{name} wants a rematch: {again} to ask too")).format(name=name, again=again), wants)
        self.changed.set()

    def want(self, again: bool) -> str | None:
        """The person chose: None when the screen should close (on to the rematch, or leaving), else what to say."""
        if self.wish.done():
            if not again or self.ready():
                return None
            if self.host_gone():  # its host left at game over: nobody can offer one (before, "waiting for the host")
                return _("{host} has left: there is no rematch to wait for ({leave} to leave)").format(
                    host=self.host_name(), leave=_(self.keys.leave))
            return _("waiting for the host to offer the rematch ({leave} to leave)").format(leave=_(self.keys.leave))
        self.wish.set_result(again)
        self.changed.set()
        if self.host or self.spectator or not again:
            if not self.host and not self.spectator:
                self.node.rematch.ask_again(False)
            return None
        self.node.rematch.ask_again(True)
        if self.node.rematch.offer is not None:
            return None
        return _("you asked for a rematch: waiting for {host} to offer it ({leave} to leave)").format(
            host=self.host_name(), leave=_(self.keys.leave))

    def ready(self) -> bool:
        return self.node.rematch.offer is not None

    def host_gone(self) -> bool:
        return not self.host and self.node.rematch.offer is None and self.node.host_peer not in self.node.links

    async def outcome(self, timeout: float | None) -> bool:
        """True: on to the rematch (the host: offer it; others: the offer is in and accepted)."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        extended = False
        try:
            while True:
                wish = self.wish.result() if self.wish.done() else None
                offer = self.node.rematch.offer
                if self.host and wish is not None:
                    return wish
                if wish is False:
                    return False
                if offer is not None and (wish or self.spectator):
                    return True
                if self.host_gone():
                    gone = _("{host} has left: no rematch").format(host=self.host_name())
                    self.note(gone, gone)
                    if not self.wish.done():
                        self.wish.set_result(False)
                    return False
                if deadline is not None and not extended:
                    if offer is not None and wish is None:  # an offer is answered within its wait
                        deadline, extended = max(deadline, loop.time() + offer.wait), True
                    elif wish and offer is None:  # the person said yes: wait for the host's offer
                        deadline, extended = max(deadline, loop.time() + OFFER_WAIT), True
                left = None if deadline is None else deadline - loop.time()
                if left is not None and left <= 0:
                    if not self.host and not self.spectator:
                        self.node.rematch.ask_again(False)
                    return False
                self.changed.clear()
                changed = asyncio.ensure_future(self.changed.wait())
                try:
                    await asyncio.wait([changed], timeout=None if left is None else min(left, 1.0))
                finally:
                    changed.cancel()
        finally:
            for stop in self._stop:
                stop()


def seat_keys(node: Node) -> list[bytes]:
    """The finished game's seats in order, as public keys (the host's rematch holds a seat for each)."""
    session = node.session
    assert session is not None and session.start is not None
    return [seat["key"] for seat in session.start.body["roster"]]


def declined(old: Node, new: Node, bots: set[bytes], note: Callable[[str], None],
             guests: frozenset[bytes] | set[bytes] = frozenset()) -> Callable[[], None]:
    """Host: a player of the finished game who leaves (says so, or its link ends without a yes) frees its seat in
    the rematch's lobby at once; the host's own `bots` (peer ids) stay; the guest seats this node ran for phones
    (`guests`) do not follow a rematch and are freed at once. Returns what stops listening."""
    names = dict(zip(old.session.roster, old.session.names)) if old.session is not None else {}

    def release(peer: bytes, why: str) -> None:
        """`why`: the line to say, with the player's {name}."""
        if peer in new.held:
            new.release_seat(peer)
            note(why.format(name=names.get(peer, _("a player"))))

    def heard(_node: Node, what: Offer | Answer) -> None:
        if isinstance(what, Answer) and not what.again:
            release(what.peer, _("{name} leaves: the seat held for them is free"))

    def links(_node: Node) -> None:
        for peer in list(new.held):
            if peer not in old.links and not old.rematch.answers.get(peer) and peer not in bots:
                release(peer, _("{name} has gone: the seat held for them is free"))

    stops = [old.rematch.watch(heard), old.watch_lobby(links)]
    for peer, again in old.rematch.answers.items():
        if not again:
            release(peer, _("{name} leaves: the seat held for them is free"))
    for peer in guests:
        release(peer, _("{name} (a guest seat) does not follow a rematch: the seat held for them is free"))
    links(old)
    def stop() -> None:
        for each in stops:
            each()

    return stop


async def close_after_answers(old: Node, new: Node, stop: Callable[[], None], abandoned: bool = False) -> None:
    """Host: keep the finished game's links until every held seat of the rematch is answered, then close them. An
    `abandoned` game (a new start) is kept for the rest of the evening (closed as this task is cancelled): the seat
    it left out, whose link comes back there, is told the offer (net.rematch.RematchLinks.linked), so it learns
    that it was left out."""
    while new.held and not new.done.is_set():
        await asyncio.sleep(0.2)
    stop()
    if abandoned:
        try:
            await asyncio.Event().wait()  # until the evening ends (run_host cancels it)
        finally:
            await old.close()
    await asyncio.sleep(1.0)  # the last answers' links close from their side
    await old.close()


def follows(node: Node, offer: Offer) -> bool:
    """A node that follows the offer: a spectator, or a player whose key has a seat held in it."""
    return node.role == "spectator" or node.identity.public_key in offer.seats
