"""An in-memory network of Sessions: the workhorse of the protocol tests.

Peers are linked by a queue of (to, from, wire) deliveries. Bots drive
seated sessions through their events. Entropy is pinned per peer, so
commitments and signatures are reproducible. A peer may be wrapped to
misbehave: `tamper(peer, outgoing) -> list of (to, wire)` decides what it
really sends to whom.
"""

from __future__ import annotations

import hashlib
import random
from collections import deque
from collections.abc import Callable

from p2pnimmt.bots import bot_move, make_bot
from p2pnimmt.engine import Settings
from p2pnimmt.net.waiting import few_enough, never_passed_on
from p2pnimmt.protocol.delivery import recipients
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.events import Fault, Outgoing
from p2pnimmt.protocol.identity import Identity, game_id_for
from p2pnimmt.protocol.session import LocalError, Session
from p2pnimmt.protocol.transcript import TranscriptJournal
from p2pnimmt.protocol.verify import replay, verify_transcript


def pinned_entropy(label: str) -> Callable[[int], bytes]:
    counter = 0

    def entropy(n: int) -> bytes:
        nonlocal counter
        counter += 1
        return hashlib.sha256(f"{label}/{counter}".encode()).digest()[:n]

    return entropy


class Net:
    """N seated sessions (plus spectators) joined in memory; `run()` delivers until quiet."""

    def __init__(self, players: int, *, settings: Settings | None = None, bots: str | list[str] = "random",
                 seed: int = 0, spectators: int = 1, shuffle_delivery: bool = True, relay: bool = True) -> None:
        self.settings = settings or Settings(players=players, deal="open")
        self.rng = random.Random(seed)
        self.shuffle_delivery = shuffle_delivery
        self.identities = [Identity(hashlib.sha256(f"key/{seed}/{i}".encode()).digest()) for i in range(players)]
        self.watchers = [Identity(hashlib.sha256(f"watch/{seed}/{i}".encode()).digest()) for i in range(spectators)]
        self.salt = hashlib.sha256(f"game/{seed}".encode()).digest()[:16]
        game_id = game_id_for(self.identities[0].public_key, self.salt)
        self.sessions: dict[bytes, Session] = {}
        self.transcripts: dict[bytes, bytearray] = {}
        for i, ident in enumerate(self.identities + self.watchers):
            data = self.transcripts[ident.peer] = bytearray()
            journal = TranscriptJournal(data.extend, ident)
            self.sessions[ident.peer] = Session(ident, game_id=game_id, entropy=pinned_entropy(f"{seed}/{i}"),
                                                relay=relay, journal=journal)
        names = bots if isinstance(bots, list) else [bots] * players
        self.bots = {ident.peer: make_bot(names[i], f"bot/{seed}/{i}") for i, ident in enumerate(self.identities)}
        self.queue: deque[tuple[bytes, bytes, bytes]] = deque()
        self.events: dict[bytes, list] = {p: [] for p in self.sessions}
        self.tamper: dict[bytes, Callable[[bytes, Outgoing], list[tuple[bytes, bytes]]]] = {}
        self.cut: set[bytes] = set()  # peers cut off from the others: what goes to or from them waits in `held`
        self.held: list[tuple[bytes, bytes, bytes]] = []
        # deliveries (to, from, wire) held back like a cut's until `heal` (e.g. one vote kept from one peer)
        self.withhold: Callable[[bytes, bytes, bytes], bool] | None = None
        self.game_id = game_id
        self.delivered = 0
        # seats every node's drop timer has found gone (vote_out): a node waiting on one of them joins another
        # seat's vote against it on sight, as net/waiting.py's policy does for a seat with no link to it (the
        # session itself never joins a vote: protocol.md 11.1, "A seat joins a vote only by its own policy")
        self.gone: set[int] = set()
        self.pulled: set[tuple[bytes, bytes]] = set()  # (peer, wire) a node asked another for (vote_out_keepers)

    @property
    def peers(self) -> list[bytes]:
        return list(self.sessions)

    def start(self) -> None:
        host = self.identities[0]
        roster = [(i.public_key, f"p{n}", True) for n, i in enumerate(self.identities)]
        self.handle(host.peer, self.sessions[host.peer].host(self.salt, self.settings, roster))

    def handle(self, peer: bytes, outputs: list) -> None:
        for item in outputs:
            if isinstance(item, Outgoing):
                self.send(peer, item)
            else:
                self.events[peer].append(item)
                self.react(peer, item)

    def targets(self, peer: bytes, out: Outgoing) -> list[bytes]:
        """The peers an Outgoing from `peer` is meant for."""
        return recipients(out, peer, self.peers, {i.peer for i in self.identities})

    def send(self, peer: bytes, out: Outgoing) -> None:
        if peer in self.tamper:
            for to, wire in self.tamper[peer](peer, out):
                self.queue.append((to, peer, wire))
            return
        for to in self.targets(peer, out):
            self.queue.append((to, peer, out.wire))

    def react(self, peer: bytes, event) -> None:
        bot = self.bots.get(peer)
        if bot is not None:
            self.handle(peer, bot_move(self.sessions[peer], bot, event))

    def run(self, limit: int = 10_000_000) -> None:
        self.deliver(limit)
        while self.gone and not self.queue and self.quiet_votes():  # a node came to wait on a seat gone by its own move
            self.deliver(limit)

    def quiet_votes(self) -> bool:
        """Quiet: each node's policy joins the votes it owes on seats gone (Net.gone); True if one signed any."""
        for peer in self.peers:
            self.join_votes(peer)
            self.vote_out_keepers(peer)
        return bool(self.queue)

    def deliver(self, limit: int) -> None:
        while self.queue and limit:
            limit -= 1
            if self.shuffle_delivery and len(self.queue) > 1:
                i = self.rng.randrange(len(self.queue))
                self.queue.rotate(-i)
                to, frm, wire = self.queue.popleft()
                self.queue.rotate(i)
            else:
                to, frm, wire = self.queue.popleft()
            if to in self.cut or frm in self.cut or self.withhold is not None and self.withhold(to, frm, wire):
                self.held.append((to, frm, wire))
                continue
            self.delivered += 1
            self.handle(to, self.sessions[to].receive(wire, via=frm))
            if self.gone:
                self.join_votes(to)

    def join_votes(self, peer: bytes) -> None:
        """`peer`'s node policy: it joins a vote against a seat in `gone` that the game waits on, once another
        seat's DROP against it is in (net/waiting.py: voted_out_unseen)."""
        session = self.sessions[peer]
        at = session.table.now()
        if at is None or session.seat is None:
            return
        for seat in sorted(self.gone & set(session.waiting_for())):
            if session.table.voters(at, seat) - {session.seat}:
                try:
                    self.handle(peer, session.drop(seat))
                except LocalError:
                    pass

    def vote_out_keepers(self, peer: bytes) -> None:
        """`peer`'s node policy once quiet (its drop time gone by): a seat that went on from the message of a seat in
        `gone` the game waits on, and never passed it on, is voted out together with it, where the two can be
        (net/waiting.py: never_passed_on, few_enough). An honest seat passes it on: only the seat after the sender
        relays a message to the others, but a node that waits asks its peers for what it lacks (net/waiting.py: the
        heads it sends every PULL_EVERY), and gets it from any that holds it; so that seat's copy is delivered here
        in place of a vote."""
        if peer not in {ident.peer for ident in self.identities}:
            return  # a spectator votes not
        for seat in sorted(self.gone & set(self.sessions[peer].waiting_for())):
            for liar in sorted(self.never_passed_on(peer, seat) - self.gone):
                if not self.few_enough(peer, self.gone | {liar}) or self.pull(peer, liar, seat):
                    continue  # (asked only where it would vote: elsewhere the harness models no asks)
                for target in (seat, liar):
                    try:
                        self.handle(peer, self.sessions[peer].drop(target))
                    except LocalError:
                        pass

    def pull(self, peer: bytes, frm: int, seat: int) -> bool:
        """`peer` asks seat `frm` (not cut off from it) for the messages of seat `seat` it lacks: True if `frm` holds
        any (it is sent, once; a `withhold` may still keep it from `peer`: this policy assumes the asks work, and a
        network that never lets the message through is beyond it)."""
        other = self.identities[frm].peer
        if other in self.cut or peer in self.cut:
            return False
        sender = self.identities[seat].peer
        wires = [wire for wire in self.sessions[other].missing_for(self.sessions[peer].heads())
                 if open_envelope(wire).sender == sender]
        fresh = [wire for wire in wires if (peer, wire) not in self.pulled]
        self.pulled.update((peer, wire) for wire in fresh)  # what it took once and did not keep, it asks not again
        self.queue.extend((peer, other, wire) for wire in fresh)
        return bool(wires)

    def never_passed_on(self, peer: bytes, seat: int) -> set[int]:
        """net/waiting.py's never_passed_on at `peer`'s node."""
        return never_passed_on(self.sessions[peer], seat)

    def few_enough(self, peer: bytes, absent: set[int]) -> bool:
        """net/waiting.py's few_enough at `peer`'s node."""
        return few_enough(self.sessions[peer], absent)

    def heal(self) -> None:
        """The cut peers are back: what waited is delivered (in the order it was sent)."""
        self.cut = set()
        self.withhold = None
        self.queue.extend(self.held)
        self.held = []

    def faults(self, peer: bytes) -> list[Fault]:
        return [e for e in self.events[peer] if isinstance(e, Fault)]


def stopped_at_first_commit(players: int, gone: set[int], seed: int, spectators: int = 0) -> Net:
    """A table of `players` bots (one round, open deal) whose seats `gone` stop at the first turn: their commits
    (and all they send after) wait in `net.held`; everyone else committed and waits on them."""
    net = Net(players, settings=Settings(players=players, deal="open", max_rounds=1), spectators=spectators,
              seed=seed)
    peers = {net.identities[s].peer for s in gone}
    stopped: dict[bytes, int] = {}  # a gone seat -> the number of its first commit: it and all after wait

    def withhold(to: bytes, frm: bytes, wire: bytes) -> bool:
        if frm not in peers:
            return False
        env = open_envelope(wire)
        if env.kind == "PLAY_COMMIT":
            stopped[frm] = min(env.seq, stopped.get(frm, env.seq))
        return frm in stopped and env.seq >= stopped[frm]

    net.withhold = withhold
    net.start()
    net.run()
    return net


def restart(net: Net, peer: bytes) -> list:
    """Replace `peer`'s session with a fresh one rebuilt from its transcript and secrets; return its first outputs."""
    from p2pnimmt.protocol.transcript import replay_wires

    old = net.sessions[peer]
    data = bytes(net.transcripts[peer])
    wires = replay_wires(data)  # what `resume` replays: the messages, and the split commits' versions held
    journal = TranscriptJournal.continuing(data, net.transcripts[peer].extend, old.identity)
    fresh = Session(old.identity, game_id=old.game_id, entropy=old.entropy, relay=old.relay, journal=journal)
    net.sessions[peer] = fresh
    return fresh.replay(wires, old.journal.secrets)


def catch_up(net: Net, peer: bytes) -> None:
    """`peer` and every other peer tell each other what the other lacks (the heads exchange on reconnect)."""
    for other in net.peers:
        if other != peer:
            for wire in net.sessions[other].missing_for(net.sessions[peer].heads()):
                net.queue.append((peer, other, wire))
            for wire in net.sessions[peer].missing_for(net.sessions[other].heads()):
                net.queue.append((other, peer, wire))


def outcomes(net: Net, also: Callable[[Session], tuple] = lambda s: (), but: bytes | None = None,
             faultless: bool = False) -> set[tuple]:
    """(phase, result, drops, *also(session)) of every node (but the peer `but`) and of its transcript replayed:
    each such transcript verifies (and, `faultless`, no such node recorded a fatal fault)."""
    found = set()
    for peer, session in net.sessions.items():
        if peer == but:
            continue
        if faultless:
            assert not [f for f in net.faults(peer) if f.fatal], (peer.hex()[:8], net.faults(peer))
        verdict = verify_transcript(bytes(net.transcripts[peer]))
        assert verdict.ok, verdict.report()
        for s in (session, replay(bytes(net.transcripts[peer])).session):
            found.add((str(s.phase), s.result, tuple(sorted(s.dropped.items())), *also(s)))
    return found


def absences_of(session: Session) -> tuple:
    """outcomes' `also` for the seats each node held away and back: seat -> its stretches away, sorted."""
    return (tuple(sorted((k, tuple(v)) for k, v in session.table.absences.items())),)


def expelled_of(session: Session) -> tuple:
    """outcomes' `also` for the seats each node expelled, sorted."""
    return (tuple(sorted(session.table.expelled)),)
