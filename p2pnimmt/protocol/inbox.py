"""The three gates every message passes before it counts (protocol.md section 8), as a component of the session.

1. shape: it decodes under the caps, for this game, from a known sender;
2. signature: the sender's key signed these exact bytes;
3. chain: it is the sender's next sequence number and names the hash of
   the sender's previous message.
Messages ahead of their chain wait (`ahead`); before START is known,
messages wait per delivering peer (`early`). A second, different message
for a sequence number already taken is a signed proof of equivocation.
A copy of a message already held is recognised before its signature is
checked (the same bytes: before it is even decoded, by one dictionary
lookup; the same signed part under another encoding: by its sender,
sequence number and hash), whoever sends it and however often; its sender
delivering it again is fault `replay`, reported once per sender.

`Inbox.ingest` is a generator: it yields what it found, in order — a
START to take, a message ready to accept (`Ready`), a fault — and the
session handles each before the inbox goes on (an accepted message can
move the game, and the game may then abort: `close()` stops the inbox).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from .codec import DecodeError
from .envelope import NO_PREVIOUS, Envelope, open_envelope
from .identity import game_id_for, peer_id
from .messages import BodyError, check_body

# What a node holds before it can accept it is capped per source and in total (protocol.md section 14,
# "Bounds"). A message over a cap is not held (it comes again, in order, on the next resync); a delivering
# peer that overflows a cap is reported by `overflowed()` so the carrier can cut it off.
MAX_EARLY = 1024  # messages held per delivering peer before START is known (signatures cannot be checked yet);
# the byte caps below are what bound memory: a whole one-round game arriving before its START is held
MAX_EARLY_BYTES = 256 * 1024  # bytes held per delivering peer before START
MAX_EARLY_PEERS = 64  # delivering peers with messages held before START
MAX_EARLY_TOTAL = 2 * 1024 * 1024  # bytes held before START, all peers together
MAX_AHEAD = 512  # messages held per sender ahead of its chain
MAX_AHEAD_BYTES = 1024 * 1024  # bytes held per sender ahead of its chain
MAX_AHEAD_TOTAL = 8 * 1024 * 1024  # bytes held ahead, all senders together
MAX_HELD_WIRE = 16 * 1024  # a message larger than this is never held early or ahead (honest ones are < 4 KB)
# One sender's chain in a game: its next message past either is not accepted (protocol.md 8, "A chain's bound")
MAX_CHAIN = 16384
MAX_CHAIN_BYTES = 4 * 1024 * 1024


# What the gates find: named tuples (one is made for every message accepted), read-only as frozen dataclasses and
# cheaper to make, as Envelope.


class Ready(NamedTuple):
    """`env` is the next message of its sender's chain: accept it."""

    env: Envelope
    via: bytes | None


class StartFound(NamedTuple):
    """A valid START for this game: take it, then accept it."""

    env: Envelope
    via: bytes | None


class Refused(NamedTuple):
    """Bytes nobody can be held to (`fatal` False, blame `peer` = the deliverer), or a signed proof (fatal)."""

    peer: bytes | None
    code: str
    detail: str
    fatal: bool = False
    evidence: tuple[bytes, ...] = ()


Found = Ready | StartFound | Refused
_tuple_new = tuple.__new__
_FIRST = (0, NO_PREVIOUS)  # a sender's head before its first message


class Inbox:
    """Signature and chain bookkeeping for one node: what it has accepted from whom, and what waits."""

    def __init__(self, game_id: bytes | None, who: Callable[[bytes | None], str]) -> None:
        self.game_id = game_id
        self.who = who
        self.keys: dict[bytes, bytes] = {}  # peer id -> public key, once START is taken
        self.started = False
        self.closed = False
        self.accepted: list[Envelope] = []  # in the order accepted
        self._heads: dict[bytes, tuple[int, bytes]] = {}  # sender -> (next seq, hash of last accepted)
        self._seen: dict[tuple[bytes, int], Envelope] = {}  # (sender, seq) -> accepted message
        self._ahead: dict[bytes, dict[int, Envelope]] = {}
        self._early: dict[bytes | None, list[bytes]] = {}  # via -> held messages, before START
        # a node that follows a new start checks the new START's carry against its own record of the game it played
        # (protocol.md 14, "A new start"): why not, or None; a START it fails is not taken (`refused_start` says why)
        self.start_check: Callable[[dict[str, Any]], str | None] | None = None
        self.refused_start: str | None = None
        self._early_bytes: dict[bytes | None, int] = {}  # via -> bytes held early
        self._early_total = 0  # bytes held early, all delivering peers together
        # whether a delivering peer can be a seat of the game offered (the host we joined, a player of the lobby): over
        # the 64 peers or 2 MiB held before START, the peers that cannot go first (protocol.md 14, "Held before
        # START"); None: every peer can (a node that knows no lobby)
        self.may_sit: Callable[[bytes], bool] | None = None
        self._ahead_bytes: dict[bytes, int] = {}  # sender -> bytes held ahead
        self._overflowed: dict[bytes, str] = {}  # delivering peer -> which cap it went over, until collected
        self._direct: set[tuple[bytes, int]] = set()  # (sender, seq) received from the sender itself
        self._wires: dict[bytes, Envelope] = {}  # exact wire bytes of every signed message held
        self._taken: dict[bytes, list[int]] = {}  # sender -> where its messages are in `accepted`, by seq
        self._chain_bytes: dict[bytes, int] = {}  # sender -> bytes of its accepted messages (MAX_CHAIN_BYTES)
        self._replayed: set[bytes] = set()  # senders already reported for delivering their own message again

    # ----------------------------------------------------------------- queries

    def head(self, sender: bytes | None) -> tuple[int, bytes]:
        """(the next sequence number, the hash of the last accepted message) of `sender`'s chain."""
        return self._heads.get(sender, (0, NO_PREVIOUS)) if sender is not None else (0, NO_PREVIOUS)

    def message(self, sender: bytes, seq: int) -> Envelope | None:
        """`sender`'s message accepted here at `seq`, if any."""
        return self._seen.get((sender, seq))

    def missing(self, have: dict[bytes, int]) -> list[bytes]:
        """Wire bytes of the accepted messages a peer that holds `have[sender]` of each sender's lacks, in the order
        accepted. It costs a look at each sender's count and the messages lacked, not a pass over every message of
        the game (every linked peer asks every half second while the game waits)."""
        lacked = [at for sender, (count, _last) in self._heads.items() if (held := have.get(sender, 0)) < count
                  for at in self._taken[sender][max(held, 0):]]
        return [self.accepted[at].wire for at in sorted(lacked)]

    def heads(self) -> list[list[bytes | int]]:
        """[[sender, number of its messages accepted], ...]."""
        return [[sender, seq] for sender, (seq, _last) in self._heads.items()]

    def held(self) -> tuple[int, int]:
        """(messages, bytes) held early or ahead now."""
        early = sum(len(q) for q in self._early.values())
        ahead = sum(len(a) for a in self._ahead.values())
        return early + ahead, self._early_total + sum(self._ahead_bytes.values())

    def holds(self, wire: bytes) -> bool:
        """These exact bytes are a message accepted or held ahead (a copy of it costs a lookup, nothing more)."""
        return wire in self._wires

    def held_copy(self, wire: bytes, via: bytes | None) -> bool:
        """These exact bytes are a message we hold that ingest would find nothing in (see _duplicate), taken
        here without the session: delivered by a peer that is not its sender (about half a mesh's frames), or
        by its sender for the first time (noted, as ingest notes it: a second time is a replay, left to ingest)."""
        copy = self._wires.get(wire)
        if copy is None:
            return False
        if via != copy.sender:
            return True
        if self.closed or (copy.sender, copy.seq) in self._direct:
            return False
        self._direct.add((copy.sender, copy.seq))
        return True

    def overflowed(self) -> dict[bytes, str]:
        """The delivering peers that went over a cap since the last call, with the cap: cut them off."""
        found = self._overflowed
        if found:  # (asked after every message a link brings: no new dict made while nobody went over)
            self._overflowed = {}
        return found

    def _over(self, via: bytes | None, what: str) -> None:
        if via is not None:
            self._overflowed.setdefault(via, what)

    # ----------------------------------------------------------------- the gates

    def close(self) -> None:
        """The game is aborted: take nothing more."""
        self.closed = True

    def ingest(self, wire: object, via: bytes | None) -> Iterator[Found]:
        """Pass `wire`, delivered by `via`, through the gates; yield what comes of it, in order."""
        if self.closed:
            return
        if not isinstance(wire, bytes):
            if not isinstance(wire, (bytearray, memoryview)):
                yield Refused(via, "malformed", f"{type(wire).__name__} from {self.who(via)} is not bytes")
                return
            wire = bytes(wire)
        copy = self._wires.get(wire)
        if copy is not None:  # exactly a message we hold already: nothing to decode again
            yield from self._duplicate(copy, via)
            return
        try:
            env = open_envelope(wire)
        except DecodeError as exc:
            yield Refused(via, "malformed", f"bytes from {self.who(via)}: {exc}")
            return
        if self.game_id is not None and env.game_id != self.game_id:
            yield Refused(via, "wrong-game", f"message from {self.who(via)} is for game {env.game_id.hex()}")
            return
        if not self.started:
            yield from self._before_start(env, wire, via)
            return
        key = self.keys.get(env.sender)
        if key is None:
            yield Refused(via, "unknown-sender", f"message from {self.who(via)} signed by {env.sender.hex()}, "
                                                 "who is not at this table")
            return
        ahead = self._ahead.get(env.sender)
        known = self._seen.get((env.sender, env.seq)) or (ahead.get(env.seq) if ahead else None)
        if known is not None and known.hash == env.hash:
            yield from self._duplicate(known, via)
            return
        if not env.check_signature(key):
            yield Refused(via, "bad-signature", f"{env.kind} #{env.seq} claiming to be from {self.who(env.sender)}, "
                                                f"delivered by {self.who(via)}, has a signature that does not verify")
            return
        next_seq = self._heads.get(env.sender, _FIRST)[0]  # (head's, for a sender that is not None)
        if known is not None and env.seq > next_seq and len(wire) > MAX_HELD_WIRE:
            return  # not held (too large to be ahead); it comes again in order, and is judged then
        if known is not None:
            if env.seq > 0 and env.prev != known.prev:
                # A fork below this seq: judged as one, the same at a node that does not hold `known` yet
                # (protocol.md 8, check 4); held back only, its message seq - 1 is not here yet: dropped unjudged.
                if env.seq < next_seq:
                    yield self._fork(self._seen[(env.sender, env.seq - 1)], env)
                return
            yield Refused(env.sender, "equivocation", f"{self.who(env.sender)} signed two different messages "
                          f"#{env.seq} ({known.kind} and {env.kind})", True, (known.wire, env.wire))
            return
        if env.seq > next_seq and not self._hold_ahead(env, via):
            return
        if via == env.sender:
            self._direct.add((env.sender, env.seq))
        if env.seq > next_seq:
            return
        self._wires[env.wire] = env
        yield _tuple_new(Ready, (env, via))  # Ready(env, via), without its __new__'s Python call
        if self._ahead.get(env.sender):
            yield from self._drain(env.sender)

    def _hold_ahead(self, env: Envelope, via: bytes | None) -> bool:
        """Hold `env`, ahead of its sender's chain, if the caps allow; False if it is not held."""
        size = len(env.wire)
        ahead = self._ahead.setdefault(env.sender, {})
        used = self._ahead_bytes.get(env.sender, 0)
        if size > MAX_HELD_WIRE:
            what = f"a {size}-byte message ahead of its chain (at most {MAX_HELD_WIRE} are held)"
        elif len(ahead) >= MAX_AHEAD or used + size > MAX_AHEAD_BYTES:
            what = f"more than {MAX_AHEAD} messages or {MAX_AHEAD_BYTES} bytes held ahead for one sender"
        elif sum(self._ahead_bytes.values()) + size > MAX_AHEAD_TOTAL:
            what = f"more than {MAX_AHEAD_TOTAL} bytes held ahead in total"
        else:
            ahead[env.seq] = env
            self._ahead_bytes[env.sender] = used + size
            self._wires[env.wire] = env
            return True
        if via == env.sender:  # only the sender can make new signed messages: a relay is not blamed
            self._over(via, what)
        return False

    def _before_start(self, env: Envelope, wire: bytes, via: bytes | None) -> Iterator[Found]:
        if env.kind == "START" and env.seq == 0:
            problem = start_problem(env)
            if problem is not None:
                code, words = problem
                yield Refused(via, code, f"START delivered by {self.who(via)}: {words}")
                return
            refused = self.start_check(env.body) if self.start_check is not None else None
            if refused is not None:  # not taken, as a wrong START is: this node does not play that game
                self.refused_start = refused
                yield Refused(via, "malformed", f"START delivered by {self.who(via)} refused: {refused} (protocol.md "
                              "14, \"A new start\": its carry must be this node's own record of the game it played)")
                return
            yield StartFound(env, via)
            yield from self._drain(env.sender)
            early, self._early = self._early, {}
            self._early_bytes, self._early_total = {}, 0
            for held_via, held in early.items():
                for held_wire in held:
                    yield from self.ingest(held_wire, held_via)
            return
        # A quota per delivering peer and in total (protocol.md 14, "Held before START"): over the peer's own, it is
        # cut; over the 64 peers or 2 MiB, the peer first in line to go (strangers first, then the one holding the
        # most), so a flood from some cannot crowd out, or cut, a seat that delivers after it.
        size = len(wire)
        queue = self._early.get(via)
        used = self._early_bytes.get(via, 0)
        if size > MAX_HELD_WIRE:
            self._cut_early(via, f"a {size}-byte message before START (at most {MAX_HELD_WIRE} are held)")
            return
        if (queue is not None and len(queue) >= MAX_EARLY) or used + size > MAX_EARLY_BYTES:
            self._cut_early(via, f"more than {MAX_EARLY} messages or {MAX_EARLY_BYTES} bytes before START")
            return
        while True:
            if via not in self._early and len(self._early) >= MAX_EARLY_PEERS:
                what = f"messages before START when {MAX_EARLY_PEERS} peers already have some held"
            elif self._early_total + size > MAX_EARLY_TOTAL:
                what = f"more than {MAX_EARLY_TOTAL} bytes held before START in total"
            else:
                break
            first = self._first_to_go(via, used + size)
            self._cut_early(first, what)
            if first == via:
                return
        self._early.setdefault(via, []).append(wire)
        self._early_bytes[via] = used + size
        self._early_total += size

    def _first_to_go(self, via: bytes | None, would_hold: int) -> bytes | None:
        """Of the peers holding messages before START and `via` (counted as holding `would_hold` bytes), the first to
        be cut: one that cannot be a seat before one that can, then the most bytes, then the lowest peer id."""
        may_sit = self.may_sit
        held = {**self._early_bytes, via: would_hold}
        return min(held, key=lambda peer: (peer is None or may_sit is None or may_sit(peer), -held[peer], peer or b""))

    def _cut_early(self, via: bytes | None, what: str) -> None:
        """`via` is over a cap before START: what it holds is dropped at once, and it is reported to be cut off."""
        if via in self._early:
            del self._early[via]
            self._early_total -= self._early_bytes.pop(via)
        self._over(via, what)

    def _duplicate(self, env: Envelope, via: bytes | None) -> Iterator[Found]:
        """A copy of a message we hold. Copies relayed by others are normal; the sender sending it twice is a
        replay, reported once per sender (a sender replaying its messages all game costs a lookup each, and
        leaves one fault record, not one per copy)."""
        if via != env.sender:
            return
        if (env.sender, env.seq) in self._direct and env.sender not in self._replayed:
            self._replayed.add(env.sender)
            yield Refused(via, "replay", f"{self.who(via)} sent its message #{env.seq} ({env.kind}) again "
                                         "(reported once: its further copies are dropped unrecorded)")
        self._direct.add((env.sender, env.seq))

    def _drain(self, sender: bytes) -> Iterator[Found]:
        ahead = self._ahead.get(sender)
        while ahead and not self.closed:
            next_seq, _ = self.head(sender)
            env = ahead.pop(next_seq, None)
            if env is None:
                return
            self._ahead_bytes[sender] -= len(env.wire)
            yield Ready(env, None)

    # ----------------------------------------------------------------- accepting

    def broken_chain(self, env: Envelope) -> Refused | None:
        """The proof that `env` does not follow its sender's chain, or None if it does."""
        _next_seq, last = self._heads.get(env.sender, _FIRST)  # (head's, for a sender that is not None)
        if env.prev == last:
            return None
        if env.seq == 0:
            return Refused(env.sender, "chain-broken", f"{self.who(env.sender)}'s first message names a previous one",
                           True, (env.wire,))
        return self._fork(self._seen[(env.sender, env.seq - 1)], env)

    def _fork(self, held: Envelope, env: Envelope) -> Refused:
        """`env` names a message #k other than `held`, the sender's #k we hold: a fork, provable with both."""
        return Refused(env.sender, "equivocation",
                       f"{self.who(env.sender)} signed message #{env.seq} ({env.kind}) following a message "
                       f"#{env.seq - 1} other than its {held.kind} #{env.seq - 1}", True, (held.wire, env.wire))

    def over_chain(self, env: Envelope, via: bytes | None) -> bool:
        """`env`, its sender's next message, would take that chain past MAX_CHAIN messages or MAX_CHAIN_BYTES bytes
        (protocol.md 8, "A chain's bound"): it is not accepted, as a message that never came, and its sender, where it
        delivered it itself, went over a cap (red team, session 46: a seat's REJOINs without end, each recorded)."""
        used = self._chain_bytes.get(env.sender, 0)
        if env.seq < MAX_CHAIN and used + len(env.wire) <= MAX_CHAIN_BYTES:
            return False
        self._wires.pop(env.wire, None)  # (a copy is judged again, the same way)
        if via == env.sender:
            self._over(via, f"its message #{env.seq} ({env.kind}) past the {MAX_CHAIN} messages or {MAX_CHAIN_BYTES} "
                            f"bytes {self.who(env.sender)} may sign in a game")
        return True

    def take(self, env: Envelope) -> None:
        """`env` follows its chain: it is accepted."""
        next_seq, _ = self._heads.get(env.sender, _FIRST)  # (head's, for a sender that is not None)
        self._chain_bytes[env.sender] = self._chain_bytes.get(env.sender, 0) + len(env.wire)
        self._wires[env.wire] = env
        self._taken.setdefault(env.sender, []).append(len(self.accepted))
        self.accepted.append(env)
        self._heads[env.sender] = (next_seq + 1, env.hash)
        self._seen[(env.sender, env.seq)] = env

    def start_with(self, game_id: bytes, keys: dict[bytes, bytes]) -> None:
        """START is taken: from now on only these keys may sign, for this game."""
        self.game_id = game_id
        self.keys = keys
        self.started = True


def start_problem(env: Envelope) -> tuple[str, str] | None:
    """What is wrong with a START (its signer must sit in its own roster and have signed it), as (the fault's code,
    the words): `bad-signature` for the signature's check alone, `malformed` for every other (protocol.md 8: the code
    follows the check that failed, never the words); None if nothing."""
    try:
        check_body("START", env.body)
    except BodyError as exc:
        return "malformed", str(exc)
    keys = [s["key"] for s in env.body["roster"]]
    signer = next((k for k in keys if peer_id(k) == env.sender), None)
    if signer is None:
        return "malformed", "its sender is not in its roster"
    if len(set(keys)) != len(keys):
        return "malformed", "its roster names a key twice"
    if not env.check_signature(signer):
        return "bad-signature", "its signature does not verify"
    if env.game_id != game_id_for(signer, env.body["salt"]):
        return "malformed", "its game id is not bound to its signer's key (only the host can start this game)"
    return None
