"""A game against bots in one process: real Sessions linked in memory, nothing written to the network.

Seat 0 is the person; the other seats are bots that answer their own
sessions' events at once. Optionally a spectator session watches too (for
a TV view in the same process, and for tests).
"""

from __future__ import annotations

import hashlib
import os
from collections import deque
from collections.abc import Callable
from itertools import count

from ..bots import bot_move, make_bot
from ..engine import Settings
from ..protocol.delivery import recipients
from ..protocol.events import Event, Outgoing
from ..protocol.identity import Identity, game_id_for
from ..protocol.names import first_unlike
from ..protocol.session import LocalError, Session
from ..protocol.transcript import TranscriptJournal


def derive(seed: bytes, label: str, n: int) -> bytes:
    return hashlib.sha256(seed + label.encode()).digest()[:n]


def seeded_entropy(seed: bytes, label: str) -> Callable[[int], bytes]:
    """Entropy for one session, from the game's seed: the same seed replays the same game."""
    counter = 0

    def entropy(n: int) -> bytes:
        nonlocal counter
        out = b""
        while len(out) < n:
            counter += 1
            out += derive(seed, f"{label}/{counter}", 32)
        return out[:n]

    return entropy


class LocalTable:
    """N seated sessions (seat 0 for the person, bots elsewhere) and optional spectators, joined in memory."""

    def __init__(self, settings: Settings, *, bot: str = "heuristic", name: str = "you",
                 seed: bytes | None = None, spectators: int = 0,
                 on_event: Callable[[Session, Event], None] | None = None,
                 on_watch: Callable[[Session, Event], None] | None = None,
                 keep: Callable[[bytes, Identity], Callable[[bytes], None]] | None = None,
                 keys: bytes | None = None, previous: bytes | None = None) -> None:
        """`keep(game_id, identity)`: where the person's transcript goes, as it is written (app.play keeps it with
        the other games' transcripts); without it, the transcript stays in memory. `keys`: the seed of the seats'
        keys (default: `seed`), so that a game played again keeps its seats' keys; `previous`: the id of the game
        this one is played again after (its START's `previous`)."""
        self.settings = settings
        seed = seed if seed is not None else os.urandom(32)
        secrets = [derive(keys if keys is not None else seed, f"key/{i}", 32)
                   for i in range(settings.players + spectators)]
        self.identities = [Identity(k) for k in secrets[:settings.players]]
        self.watchers = [Identity(k) for k in secrets[settings.players:]]
        self.salt = derive(seed, "salt", 16)
        game_id = game_id_for(self.identities[0].public_key, self.salt)
        # Your session keeps its transcript, checked at game over as `p2pnimmt verify` would.
        sink = keep(game_id, self.identities[0]) if keep is not None else (lambda data: None)
        self.sessions: dict[bytes, Session] = {
            ident.peer: Session(ident, game_id=game_id, entropy=seeded_entropy(seed, f"entropy/{i}"),
                                journal=TranscriptJournal(sink, ident) if i == 0 else None)
            for i, ident in enumerate(self.identities + self.watchers)}
        self.names = bot_names(name, settings.players - 1)
        self.bots = {ident.peer: make_bot(bot, seed + bytes([s])) for s, ident in enumerate(self.identities) if s}
        self.queue: deque[tuple[bytes, bytes, bytes]] = deque()
        self.on_event = on_event
        self.on_watch = on_watch
        self.me = self.identities[0].peer
        self.previous = previous

    @property
    def session(self) -> Session:
        """The person's session (seat 0)."""
        return self.sessions[self.me]

    @property
    def spectator(self) -> Session | None:
        return self.sessions[self.watchers[0].peer] if self.watchers else None

    def start(self) -> None:
        roster = [(ident.public_key, self.names[s], s > 0) for s, ident in enumerate(self.identities)]
        self.act(self.me, self.session.host(self.salt, self.settings, roster, previous=self.previous))

    def act(self, peer: bytes, outputs: list) -> None:
        """Carry out what a session returned, then deliver messages until the table is quiet."""
        self._handle(peer, outputs)
        while self.queue:
            to, frm, wire = self.queue.popleft()
            self._handle(to, self.sessions[to].receive(wire, via=frm))

    def _handle(self, peer: bytes, outputs: list) -> None:
        seated = {i.peer for i in self.identities}
        for item in outputs:
            if isinstance(item, Outgoing):
                self.queue.extend((to, peer, item.wire) for to in recipients(item, peer, self.sessions, seated))
            else:
                self._event(peer, item)

    def _event(self, peer: bytes, event: Event) -> None:
        session = self.sessions[peer]
        if peer == self.me and self.on_event is not None:
            self.on_event(session, event)
        elif self.watchers and peer == self.watchers[0].peer and self.on_watch is not None:
            self.on_watch(session, event)
        bot = self.bots.get(peer)
        if bot is not None:
            self._handle(peer, bot_move(session, bot, event))


class SessionSeat:
    """A person's intents at a session (local or on the network): returns an error text instead of raising.

    `session` gives the session, `act` carries out what it returns, `on_leave` runs when the person leaves,
    `on_present` when the person at an away seat presses a key (a node's clock stops the stand-in).
    """

    def __init__(self, session: Callable[[], Session], act: Callable[[list], None],
                 on_leave: Callable[[], None] = lambda: None, on_present: Callable[[], None] = lambda: None) -> None:
        self.session = session
        self.act = act
        self.on_leave = on_leave
        self.on_present = on_present

    def _do(self, intent: Callable[[Session], list]) -> str | None:
        try:
            self.act(intent(self.session()))
        except LocalError as exc:
            return str(exc)
        return None

    def play(self, card: int) -> str | None:
        return self._do(lambda session: session.play(card))

    def choose_row(self, row: int) -> str | None:
        return self._do(lambda session: session.choose_row(row))

    def pick(self, card: int) -> str | None:
        return self._do(lambda session: session.pick(card))

    def ask_stand_in(self) -> list[int]:
        """Ask the stand-in to play for every other seat the game waits on in this turn; the seats asked.

        A seat we cannot ask for (asked already, or the game is not in a turn) is skipped. All the STANDINs go
        out together after the asking, so a turn the votes complete cannot turn one into a vote of the next.
        """
        session = self.session()
        asked: list[int] = []
        outputs: list = []
        for seat in session.waiting_for():
            if seat == session.seat:
                continue
            try:
                outputs += session.ask_stand_in(seat)
            except LocalError:
                continue
            asked.append(seat)
        self.act(outputs)
        return asked

    def present(self) -> None:
        self.on_present()

    def leave(self) -> None:
        self.on_leave()


def LocalSeat(table: LocalTable) -> SessionSeat:  # noqa: N802 - reads as the seat it makes
    """The person's seat at a LocalTable (nothing to close when leaving: the table lives in memory)."""
    return SessionSeat(lambda: table.session, lambda outputs: table.act(table.me, outputs))


def bot_names(name: str, bots: int) -> list[str]:
    """The person's name and the bots': bot1, bot2, ... skipping any that looks like a name already at the table
    (protocol.md 9: no two seats look alike; a person called "bot1" plays beside bot2 and bot3)."""
    names = [name]
    for seat in range(1, bots + 1):
        names.append(first_unlike((f"bot{n}" for n in count(seat)), names))
    return names
