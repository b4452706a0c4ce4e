"""A seated peer that misbehaves on purpose: the attacker of test_attacks.py.

`Adversary(net, seat, rule)` takes over what seat `seat` of a harness
`Net` really sends (through `net.tamper`), while its Session and bot keep
playing honestly underneath, so an attack can be aimed at one message of
an otherwise normal game.

Every message the session signs passes through `rule(adv, env, body)`:
`body` is a copy the rule may edit in place; the rule returns the
(to, wire) pairs really sent, or None for "send `body` to everyone, as
the next message of the chain". The adversary keeps its own chain: a
message it alters, inserts or re-signs gets the next sequence number and
the hash of what the others really received just before, so the attack
arrives as a validly signed, well-chained message from this seat, unless
the rule deliberately breaks the chain (`seal_at`). A PLAY_REVEAL's
commit-set digest is recomputed over the commits as the others received
them, so an altered PLAY_COMMIT does not also show up as a digest lie.

Messages of other peers that the session relays go out unchanged.
The session never sees its own messages echoed back by the honest
peers' relays: it would catch its own lies and stop playing.

Use `AttackNet`, not `Net`: see its docstring.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from harness import Net

from p2pnimmt.protocol.codec import DecodeError, encode
from p2pnimmt.protocol.commitments import commit_set_digest
from p2pnimmt.protocol.envelope import NO_PREVIOUS, SIGN_TAG, VERSION, Envelope, open_envelope, seal
from p2pnimmt.protocol.events import Outgoing
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.session import LocalError

Sends = list[tuple[bytes, bytes]]
Rule = Callable[["Adversary", Envelope, dict[str, Any]], "Sends | None"]


def forge(game_id: bytes, sender: bytes, seq: int, prev: bytes, kind: str, body: dict[str, Any],
          signer: Identity | None = None, signature: bytes | None = None) -> bytes:
    """Wire bytes claiming to come from `sender`, signed by someone else (`signer`) or carrying `signature`."""
    signed = encode([VERSION, game_id, sender, seq, prev, kind, body])
    if signature is None:
        signature = signer.sign(SIGN_TAG + signed)
    return encode([signed, signature])


class AttackNet(Net):
    """The harness Net, except that a bot's move refused because the game was just aborted is not an error.

    A session's outputs are a batch: one `receive` can accept a message that starts a turn (PlayNeeded)
    and then drain a buffered message that aborts the game. Net.react acts on each event as it comes, so
    it would call play() on an aborted session, which refuses with LocalError. The real driver
    (p2pnimmt/net/node.py) catches LocalError the same way.
    """

    def react(self, peer: bytes, event) -> None:
        try:
            super().react(peer, event)
        except LocalError:
            if self.sessions[peer].phase != "aborted":
                raise


def then_send(kind: str, when: Callable[[dict[str, Any]], bool],
              extra: Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]) -> Rule:
    """A rule: the adversary's first `kind` message whose body `when` holds goes as it is, and right after it (next
    in its chain) the message `extra(body)`, a kind and a body."""
    def rule(adv: Adversary, env: Envelope, body: dict[str, Any]) -> Sends | None:
        if env.kind == kind and when(body) and not adv.fired:
            adv.fired = True
            return adv.send(env.kind, body, env) + adv.send(*extra(body))
        return None
    return rule


class Adversary:
    """Seat `seat` of `net`, sending what `rule` decides."""

    def __init__(self, net: Net, seat: int, rule: Rule | None = None) -> None:
        self.net = net
        self.seat = seat
        self.identity = net.identities[seat]
        self.peer = self.identity.peer
        self.session = net.sessions[self.peer]
        self.rule = rule
        self.seq = 0  # next sequence number of the chain the others see
        self.prev = NO_PREVIOUS  # hash of the last message of that chain
        self.sent: list[Envelope] = []  # that chain, in order
        self.rehash: dict[bytes, bytes] = {}  # hash of a message the session signed -> hash of what went out instead
        self.played: dict[tuple[int, int], int] = {}  # (round, turn) -> card the session itself revealed
        self.silent = False  # once True, none of this seat's own messages go out any more
        self.fired = False  # set by a rule once its attack has been made
        self.state: dict[str, Any] = {}  # scratch space for rules
        self._handled: set[bytes] = set()
        net.tamper[self.peer] = self._tamper
        inner = self.session.receive

        def receive(wire: bytes, via: bytes | None = None) -> list:
            if self._own(wire):
                return []
            return inner(wire, via)

        self.session.receive = receive  # type: ignore[method-assign]

    # ----------------------------------------------------------------- for rules

    @property
    def others(self) -> list[bytes]:
        """Every other peer: the other seats and the spectators."""
        return [p for p in self.net.peers if p != self.peer]

    def to(self, wire: bytes, peers: list[bytes] | None = None) -> Sends:
        return [(p, wire) for p in (self.others if peers is None else peers)]

    def seal_at(self, seq: int, prev: bytes, kind: str, body: dict[str, Any]) -> Envelope:
        """A message signed by this seat with any seq and prev (the chain is not advanced)."""
        return seal(self.identity, self.net.game_id, seq, prev, kind, body)

    def advance(self, env: Envelope, original: Envelope | None = None) -> Envelope:
        """Record `env` as the next message of the chain the others see."""
        self.seq = env.seq + 1
        self.prev = env.hash
        self.sent.append(env)
        if original is not None:
            self.rehash[original.hash] = env.hash
        return env

    def chain(self, kind: str, body: dict[str, Any], original: Envelope | None = None) -> Envelope:
        """The next message of the chain: the original bytes if nothing changed, else a fresh signature."""
        if (original is not None and original.kind == kind and original.seq == self.seq
                and original.prev == self.prev and encode(original.body) == encode(body)):
            env = original
        else:
            env = self.seal_at(self.seq, self.prev, kind, body)
        return self.advance(env, original)

    def send(self, kind: str, body: dict[str, Any], original: Envelope | None = None,
             peers: list[bytes] | None = None) -> Sends:
        return self.to(self.chain(kind, body, original).wire, peers)

    def default(self, env: Envelope, body: dict[str, Any]) -> Sends:
        return self.send(env.kind, body, env)

    # ----------------------------------------------------------------- machinery

    def _own(self, wire: bytes) -> bool:
        try:
            return open_envelope(wire).sender == self.peer
        except DecodeError:
            return False

    def _tamper(self, peer: bytes, out: Outgoing) -> Sends:
        try:
            env = open_envelope(out.wire)
        except DecodeError:
            env = None
        if env is None or env.sender != self.peer:  # a relay (or evidence) of someone else's message
            return [(p, out.wire) for p in self.net.targets(peer, out)]
        if out.wire in self._handled:  # the session spreading its own message again as evidence
            return []
        self._handled.add(out.wire)
        if env.kind == "PLAY_REVEAL":
            self.played[(env.body["round"], env.body["turn"])] = env.body["card"]
        if self.silent:
            return []
        body = self._fixed(env)
        sends = self.rule(self, env, body) if self.rule is not None else None
        return self.default(env, body) if sends is None else sends

    def _fixed(self, env: Envelope) -> dict[str, Any]:
        body = copy.deepcopy(env.body)
        if env.kind == "PLAY_REVEAL" and self.rehash:
            commits = self.session.slot("PLAY_COMMIT", body["round"], body["turn"])
            if len(commits) == self.session.players:
                body["commits"] = commit_set_digest(
                    [self.rehash.get(commits[s].hash, commits[s].hash) for s in range(self.session.players)])
        return body
