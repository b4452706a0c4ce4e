"""Structural mutations of transcripts for the differential fuzzer (tests/peer/test_difffuzz_agrees.py,
benchmarks/diff_fuzz.py): both verifiers of protocol.md must give the same verdict, record, words and peer on each,
and the same whole report: every fault the replay found on the way (record, code, peer, detail, fatal), in order, and
the scores it reached (`difference`).

Where tests/peer/test_verify_agrees.py's tamper sweep flips bytes and moves records of a file as it is (so nearly
every case fails at its broken link), these decode the records and the messages in them, change them, and write the
file again as a forger holding the keys would: every message re-signed with its seat's real key (the games are
tests/protocol/harness.py's, whose keys are fixed), the sender's later messages chained onto it again, every record
relinked and the file resealed with the recorder's key. So each case reaches the part of the verifier it is about:
field types (int, bin, str, float, nil, bool, negative ints, ints at the 2^32/2^53/2^63/2^64 edges), non-canonical
encodings (ints wider than needed, str 8/16/32 for a short text, bin 16/32, array 16/32 and map 16/32 for small
ones, float 32, a map's keys in another order or twice), nesting at section 7's limit and one past it, lengths at
every limit and one past it, records dropped, repeated, moved, messages signed by a seat that is not there or was
dropped, wrong rounds, turns, steps and seats, fault records of every shape.

The choices come from a `Draws` (a seeded random.Random for the long script, hypothesis's data for the test), so
hypothesis can shrink a disagreement to its fewest changes.
"""

from __future__ import annotations

import hashlib
import random
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.codec import decode
from p2pnimmt.protocol.commitments import commit_set_digest, commitment
from p2pnimmt.protocol.envelope import SIGN_TAG
from p2pnimmt.protocol.identity import Identity, peer_id
from p2pnimmt.protocol.transcript import FORMAT, MAGIC, MAX_RECORD, SEAL_TAG, frame, frames, link

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # (tests/: sweep, for the protocol tests' helpers)
from harness import Net  # noqa: E402


class Draws(Protocol):
    """Where a mutation's choices come from."""

    def choice(self, items: list[Any]) -> Any: ...

    def below(self, n: int) -> int: ...


class Seeded:
    """Draws from a seeded random.Random (benchmarks/diff_fuzz.py)."""

    def __init__(self, seed: int | str) -> None:
        self.rng = random.Random(seed)

    def choice(self, items: list[Any]) -> Any:
        return items[self.rng.randrange(len(items))]

    def below(self, n: int) -> int:
        return self.rng.randrange(n)


# ------------------------------------------------------------------ a msgpack writer that can be non-canonical


@dataclass(frozen=True)
class Raw:
    """Bytes written as they are, in place of a value."""

    data: bytes


@dataclass(frozen=True)
class Pairs:
    """A map written with these (key, value) pairs in this order: keys may repeat."""

    items: tuple[tuple[Any, Any], ...]


@dataclass(frozen=True)
class F32:
    """A float written as msgpack float 32."""

    value: float


@dataclass(frozen=True)
class Style:
    """How wide to write what the shortest form would write narrower: 0 the shortest, else the chance (in 8) that
    each int, str, bin, array and map takes a wider form than it needs."""

    wide: int = 0
    draws: Draws | None = None

    def widen(self) -> bool:
        return self.wide > 0 and self.draws is not None and self.draws.below(8) < self.wide

    def pick(self, forms: list[Any]) -> Any:
        return self.draws.choice(forms) if self.draws is not None else forms[0]


SHORTEST = Style()


def _int(n: int, style: Style) -> bytes:
    forms: list[bytes] = []
    if 0 <= n <= 0x7F:
        forms.append(bytes([n]))
    if -32 <= n < 0:
        forms.append(struct.pack(">b", n))
    for head, fmt, low, high in ((0xCC, ">B", 0, 0xFF), (0xCD, ">H", 0, 0xFFFF), (0xCE, ">I", 0, 2**32 - 1),
                                 (0xCF, ">Q", 0, 2**64 - 1), (0xD0, ">b", -128, 127), (0xD1, ">h", -(2**15), 2**15 - 1),
                                 (0xD2, ">i", -(2**31), 2**31 - 1), (0xD3, ">q", -(2**63), 2**63 - 1)):
        if low <= n <= high and not (n >= 0 and head >= 0xD0 and forms):  # the shortest is an unsigned one for n >= 0
            forms.append(bytes([head]) + struct.pack(fmt, n))
    if not forms:
        raise ValueError(f"{n} does not fit msgpack")
    return style.pick(forms) if style.widen() else forms[0]


def _head(n: int, fix: int | None, fix_max: int, heads: tuple[tuple[int, int], ...], style: Style) -> bytes:
    forms = [bytes([fix + n])] if fix is not None and n <= fix_max else []
    for head, width in heads:
        if n < 256**width:
            forms.append(bytes([head]) + n.to_bytes(width, "big"))
    return style.pick(forms) if style.widen() else forms[0]


def pack(value: Any, style: Style = SHORTEST) -> bytes:
    """msgpack of `value` (None, bool, int, float, str, bytes, list, tuple, dict, Raw, Pairs, F32), in the shortest
    forms, or wider ones as `style` draws."""
    if isinstance(value, Raw):
        return value.data
    if value is None:
        return b"\xc0"
    if value is True:
        return b"\xc3"
    if value is False:
        return b"\xc2"
    if isinstance(value, int):
        return _int(value, style)
    if isinstance(value, F32):
        return b"\xca" + struct.pack(">f", value.value)
    if isinstance(value, float):
        return b"\xcb" + struct.pack(">d", value)
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        return _head(len(data), 0xA0, 31, ((0xD9, 1), (0xDA, 2), (0xDB, 4)), style) + data
    if isinstance(value, (bytes, bytearray)):
        return _head(len(value), None, 0, ((0xC4, 1), (0xC5, 2), (0xC6, 4)), style) + bytes(value)
    if isinstance(value, (list, tuple)):
        return _head(len(value), 0x90, 15, ((0xDC, 2), (0xDD, 4)), style) + b"".join(pack(v, style) for v in value)
    if isinstance(value, dict):
        value = Pairs(tuple(value.items()))
    if isinstance(value, Pairs):
        return _head(len(value.items), 0x80, 15, ((0xDE, 2), (0xDF, 4)), style) + b"".join(
            pack(k, style) + pack(v, style) for k, v in value.items)
    raise TypeError(f"cannot pack {type(value).__name__}")


# ------------------------------------------------------------------ the games


@dataclass
class Message:
    """A msg record's message, taken apart: the fields of its signed part."""

    fields: list[Any]
    signature: bytes
    wire: bytes

    @property
    def sender(self) -> bytes:
        return self.fields[2]

    @property
    def kind(self) -> str:
        return self.fields[5]


@dataclass
class Game:
    """A transcript taken apart: its records (type, payload) before the seal, the messages in its msg records, and
    every key of the table (peer id -> identity: seats and spectators), the recorder's among them."""

    name: str
    data: bytes
    recorder: Identity
    records: list[tuple[str, Any]]
    keys: dict[bytes, Identity]
    outsider: Identity  # a key at no seat of the table
    messages: dict[int, Message] = field(default_factory=dict)  # position in records -> the message

    def senders(self) -> list[bytes]:
        return sorted({m.sender for m in self.messages.values()})


def taken_apart(name: str, data: bytes, recorder: Identity, keys: dict[bytes, Identity]) -> Game:
    raws = [raw for _offset, raw in frames(data)][1:]
    records = []
    for raw in raws:
        _index, _link, kind, payload = decode(raw, MAX_RECORD)
        if kind != "seal":
            records.append((kind, payload))
    game = Game(name, data, recorder, records, keys, Identity(hashlib.sha256(b"outsider/" + name.encode()).digest()))
    for i, (kind, payload) in enumerate(records):
        if kind == "msg":
            signed, signature = decode(payload)
            game.messages[i] = Message(decode(signed), signature, payload)
    return game


def _net_game(name: str, players: int, deal: str, variant: str, rounds: int, seed: int, who: int,
              silent: tuple[int, int] | None = None) -> Game:
    net = Net(players, settings=Settings(players=players, variant=variant, max_rounds=rounds, point_limit=None,
                                         deal=deal), bots="heuristic", seed=seed)
    if silent is not None:
        from test_drop import silence_after, vote_out  # noqa: PLC0415 (tests/protocol's helpers)

        silence_after(net, silent[0], silent[1])
    net.start()
    net.run()
    if silent is not None:
        for _ in range(3):
            vote_out(net, silent[0])
    everyone = net.identities + net.watchers
    recorder = everyone[who]
    return taken_apart(name, bytes(net.transcripts[recorder.peer]), recorder, {i.peer: i for i in everyone})


def _of_net(name: str, net: Net, who: int) -> Game:
    """Game `name` from the transcript of `net`'s peer `who` (seats, then spectators)."""
    everyone = net.identities + net.watchers
    return taken_apart(name, bytes(net.transcripts[everyone[who].peer]), everyone[who], {i.peer: i for i in everyone})


def _golden(name: str, who: int) -> Game:
    """One of tests/protocol/test_golden.py's pinned games (sealed-5, draft-5, a drop, a resumed seat)."""
    from test_golden import GAMES as GOLDEN  # noqa: PLC0415

    return _of_net(name, GOLDEN[name.removeprefix("golden-")](), who)


def _taken_back(name: str, players: int, deal: str, seat: int, cut_at: int, delivery: int) -> Game:
    """A seat cut off, voted out (DROP), asking back (REJOIN) and back (ROUND_END's `back`): section 11.3."""
    from test_take_back import comes_back  # noqa: PLC0415

    return _of_net(name, comes_back(players, deal, seat, cut_at, delivery, delay=0, rounds=2), players)


def _clocked(name: str, ask: bool) -> Game:
    """A seat nobody plays: its clock runs out (auto reveals and row choices, the seat away) or, with `ask`, the
    others ask the stand-in (STANDIN): section 11.2."""
    from test_presence import ask_for, owes, run_with_clock, slow_net  # noqa: PLC0415

    if not ask:
        net = slow_net(4, "open", 2)
        run_with_clock(net, 2)
        return _of_net(name, net, 0)
    net = slow_net(3, "sealed", 1, delivery=5)
    net.start()
    net.run()
    while owes(net, 1):
        ask_for(net, 1)
    return _of_net(name, net, 3)


def _kept(name: str) -> Game:
    """A sealed 5-seat game with a DROP vote made void by a KEEP (section 11.1)."""
    from test_drop_consensus import partitioned  # noqa: PLC0415

    return _of_net(name, partitioned(5, "sealed", 3, 90, 0), 2)


def game_started(name: str, players: int, deal: str, rounds: int | None, previous: bytes | None = None,
             carry: dict[str, Any] | None = None, point_limit: int | None = None, clock: int | None = None) -> Game:
    """A game whose START names a `previous` game (a rematch), `carry`s another's scores, ends at `point_limit`, or
    sets a `clock`."""
    class Started(Net):
        def start(self) -> None:
            host = self.identities[0]
            roster = [(i.public_key, f"p{n}", n % 2 == 0) for n, i in enumerate(self.identities)]
            self.handle(host.peer, self.sessions[host.peer].host(self.salt, self.settings, roster, previous=previous,
                                                                 carry=carry))

    net = Started(players, settings=Settings(players=players, max_rounds=rounds, point_limit=point_limit, deal=deal,
                                             clock=clock), bots="heuristic", seed=players * 11 + (rounds or 7))
    net.start()
    net.run()
    return _of_net(name, net, players)


GAMES: dict[str, Callable[[], Game]] = {
    "open-3": lambda: _net_game("open-3", 3, "open", "standard", 1, 22, -1),
    "draft-2": lambda: _net_game("draft-2", 2, "open", "draft", 1, 15, 0),
    "sealed-2": lambda: _net_game("sealed-2", 2, "sealed", "standard", 1, 15, 1),
    "tactical-3": lambda: _net_game("tactical-3", 3, "open", "tactical", 1, 22, 0),
    "drop-3": lambda: _net_game("drop-3", 3, "open", "standard", 1, 2, 0, silent=(2, 9)),
    # session 39: the golden games, every scenario of section 11 and the START's options
    "golden-sealed-5": lambda: _golden("golden-sealed-5", 5),
    "golden-draft-5": lambda: _golden("golden-draft-5", 2),
    "golden-tactical-3": lambda: _golden("golden-tactical-3", 1),
    "golden-sealed-drop-4": lambda: _golden("golden-sealed-drop-4", 0),
    "golden-open-resumed-4": lambda: _golden("golden-open-resumed-4", 2),
    "golden-sealed-resumed-4": lambda: _golden("golden-sealed-resumed-4", 4),
    "back-open-3": lambda: _taken_back("back-open-3", 3, "open", 1, 40, 1),
    "back-sealed-4": lambda: _taken_back("back-sealed-4", 4, "sealed", 2, 198, 3),
    "clock-open-4": lambda: _clocked("clock-open-4", ask=False),
    "standin-sealed-3": lambda: _clocked("standin-sealed-3", ask=True),
    "keep-sealed-5": lambda: _kept("keep-sealed-5"),
    "rematch-sealed-3": lambda: game_started("rematch-sealed-3", 3, "sealed", 1, previous=bytes(range(16)), clock=30),
    "carry-open-3": lambda: game_started("carry-open-3", 3, "open", 3,
                                     carry={"game": bytes(range(16, 32)), "rounds": 1, "scores": [5, 0, 12]}),
    "points-open-3": lambda: game_started("points-open-3", 3, "open", None, point_limit=25),
    "open-10": lambda: game_started("open-10", 10, "open", 1),
}


# the games the default test run draws from (the quickest to verify: TypeScript takes 0.05-0.2 s of CPU a case on
# these, up to 0.6 s on the others); P2PNIMMT_SWEEP=1 and benchmarks/diff_fuzz.py draw from every game
QUICK = ["open-3", "draft-2", "sealed-2", "tactical-3", "drop-3", "back-open-3", "rematch-sealed-3", "carry-open-3"]


@cache
def base_game(name: str) -> Game:
    return GAMES[name]()


# ------------------------------------------------------------------ writing a transcript again


@dataclass
class Record:
    """A record to write: its type and payload, and optionally its index, link or whole shape overridden
    (callables of (position, link of the record before) -> value), and the style it is written in."""

    kind: Any
    payload: Any
    index: Callable[[int], Any] | None = None
    link: Callable[[bytes], Any] | None = None
    shape: Callable[[Any, Any, Any, Any], Any] | None = None
    style: Style = SHORTEST


def written(recorder: Identity, records: list[Record], header: Any = None, seal: str = "good",
            header_style: Style = SHORTEST) -> bytes:
    """The transcript of `records`, every link right (unless a record overrides it) and sealed with the recorder's
    key: `seal` "good", "none", "twice" (a second seal after the first), "bad" (a signature over other bytes)."""
    head = pack(header if header is not None else [MAGIC, FORMAT, recorder.public_key], header_style)
    out, last = [head], link(head)
    seals = {"good": 1, "none": 0, "twice": 2, "bad": 1}[seal]
    tail = [Record("seal", None) for _ in range(seals)]
    for position, record in enumerate([*records, *tail], start=1):
        payload = record.payload
        if record.kind == "seal" and payload is None:
            payload = recorder.sign(SEAL_TAG + (last if seal != "bad" else bytes(32)))
        index = record.index(position) if record.index else position
        chain = record.link(last) if record.link else last
        value = record.shape(index, chain, record.kind, payload) if record.shape else [index, chain, record.kind,
                                                                                         payload]
        raw = pack(value, record.style)
        out.append(raw)
        last = link(raw)
    return b"".join(frame(r) for r in out)


def plain(game: Game) -> list[Record]:
    return [Record(kind, payload) for kind, payload in game.records]


def signed_wire(identity: Identity, fields: Any, style: Style = SHORTEST, wire_style: Style = SHORTEST) -> tuple[
        bytes, bytes]:
    """(wire, signed) of the signed part `fields`, signed with `identity`'s key."""
    signed = pack(fields, style)
    return pack([signed, identity.sign(SIGN_TAG + signed)], wire_style), signed


def resigned(game: Game, records: list[Record], position: int, fields: Any, style: Style = SHORTEST,
             chain: bool = True, signer: Identity | None = None) -> None:
    """Record `position` (a msg record) holds the message of `fields` instead, signed by its sender (or `signer`);
    with `chain`, the sender's later messages name it as their prev again (re-signed)."""
    message = game.messages[position]
    identity = signer or game.keys.get(message.sender) or game.outsider
    wire, signed = signed_wire(identity, fields, style)
    records[position] = Record("msg", wire)
    if not chain:
        return
    prev = hashlib.sha256(signed).digest()
    for later in sorted(p for p in game.messages if p > position):
        other = game.messages[later]
        if other.sender != message.sender or records[later].kind != "msg":
            continue
        again = [*other.fields]
        again[4] = prev
        wire, signed = signed_wire(game.keys[other.sender], again)
        records[later] = Record("msg", wire)
        prev = hashlib.sha256(signed).digest()


# ------------------------------------------------------------------ values


def edges(value: Any) -> list[Any]:
    """Values to put where `value` was: the same meaning in another type, and every type's edges."""
    near: list[Any] = []
    if isinstance(value, bool):
        near += [not value, int(value), float(value), "true" if value else "false"]
    elif isinstance(value, int):
        near += [value + 1, value - 1, -value, float(value), F32(float(value)), str(value), True, value + 2**32,
                 value.to_bytes(8, "big", signed=True) if -(2**63) <= value < 2**63 else b"\x00"]
    elif isinstance(value, bytes):
        near += [value[:-1], value + b"\x00", value.hex(), bytes(len(value)), b"\xff" * len(value), value[::-1],
                 list(value[:4])]
    elif isinstance(value, str):
        near += [value.encode("utf-8", "surrogatepass"), value.upper(), value + "\x00", value[:-1], value + "é", "\ud800"]
    elif isinstance(value, list):
        near += [value[:-1], [*value, value[-1]] if value else [0], value[::-1], Pairs(()), {}]
    elif isinstance(value, dict):
        near += [list(value.values()), {**value, "x": 1}, dict(list(value.items())[:-1]), []]
    # (an int msgpack cannot hold, such as -(2^64 - 1) from an edge already changed once, is no case: left out)
    near = [v for v in near if not isinstance(v, int) or isinstance(v, bool) or -(2**63) <= v < 2**64]
    return near + [None, True, False, 0, 1, -1, -32, -33, 127, 128, 255, 256, 2**16, 2**31 - 1, 2**31, 2**32 - 1,
                   3, 4, 9, 10, 11, 33, 34, 103, 104, 105, 3600, 3601,  # section 9's limits: rows, turns, seats,
                   # steps, positions, cards, the clock
                   2**32, 2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, -(2**31), -(2**63), 0.0, -0.0, 1.0, 1.5,
                   float("nan"), float("inf"), F32(1.0), "", "a", b"", bytes(16), bytes(32), bytes(64), [], {}]


def deep(depth: int, leaf: Any = 1) -> Any:
    """Containers `depth` deep (arrays and maps taking turns) around `leaf`."""
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"d": value}
    return value


def str_of(n: int) -> str:
    """A str of n UTF-8 bytes (two-byte letters, a one-byte one if n is odd)."""
    return "é" * (n // 2) + "a" * (n % 2)


LIMITS: list[Callable[[], Any]] = [  # lengths at section 7's limits and one past them
    lambda: str_of(1024), lambda: str_of(1025), lambda: "a" * 1024, lambda: "a" * 1025, lambda: [0] * 256,
    lambda: [0] * 257, lambda: {f"k{i}": 0 for i in range(32)}, lambda: {f"k{i}": 0 for i in range(33)},
    lambda: bytes(1024), lambda: bytes(65_536), lambda: bytes(40_000), lambda: "\udcff", lambda: Raw(b"\xa2\xc3\x28"),
    lambda: Raw(b"\xd4\x01\x00"), lambda: Raw(b"\xc1"), lambda: Raw(b"\x81\x01\x02"), lambda: Raw(b"\x81\xc4\x01a\x02"),
]


def mutate_value(value: Any, draws: Draws, depth: int) -> Any:
    """`value` changed in one place: a value swapped for one of `edges`, a container's entry changed, dropped or
    added, a map's keys reordered or repeated, containers nested to the limit or past it (`depth`: that of the place
    `value` sits at, for the nesting cases), a length at its limit."""
    how = draws.choice(["edge", "edge", "inside", "inside", "inside", "limit", "nest"])
    if how == "inside" and isinstance(value, list) and value:
        i = draws.below(len(value))
        out = [*value]
        step = draws.choice(["change", "change", "drop", "add"])
        if step == "change":
            out[i] = mutate_value(value[i], draws, depth + 1)
        elif step == "drop":
            del out[i]
        else:
            out.insert(i, draws.choice([value[i], *edges(value[i])[:4]]))
        return out
    if how == "inside" and isinstance(value, dict) and value:
        keys = list(value)
        key = draws.choice(keys)
        step = draws.choice(["change", "change", "change", "drop", "add", "order", "twice", "rename", "key-type"])
        if step == "change":
            return {**value, key: mutate_value(value[key], draws, depth + 1)}
        if step == "drop":
            return {k: v for k, v in value.items() if k != key}
        if step == "add":
            return {**value, draws.choice(["x", key.upper(), key + "\x00", ""]): draws.choice(edges(value[key]))}
        if step == "order":
            return Pairs(tuple(reversed(value.items())))
        if step == "twice":
            items = list(value.items())
            return Pairs((*items, (key, draws.choice([value[key], *edges(value[key])[:3]]))))
        if step == "rename":
            name = draws.choice([key.upper(), key + " ", key[:-1]])
            return {(k if k != key else name): v for k, v in value.items()}
        other = draws.choice([key.encode(), 1, None])
        return Pairs(tuple(((k if k != key else other), v) for k, v in value.items()))
    if how == "limit":
        return draws.choice(LIMITS)()
    if how == "nest":
        room = 6 - depth  # containers that still fit where `value` sits (the outermost at depth 1)
        return deep(max(1, room + draws.choice([0, 0, 1, 2, -1])))
    return draws.choice(edges(value))


# ------------------------------------------------------------------ the mutations


def _msg_position(game: Game, draws: Draws, kinds: set[str] | None = None) -> int:
    positions = sorted(p for p, m in game.messages.items() if kinds is None or m.kind in kinds)
    return draws.choice(positions or sorted(game.messages))


def _style(draws: Draws) -> Style:
    return Style(draws.choice([0, 0, 2, 8]), draws)


def a_body_changed(game: Game, draws: Draws) -> bytes:
    """One message's body changed in one place (or two), re-signed by its sender, its chain kept."""
    records = plain(game)
    position = _msg_position(game, draws)
    fields = [*game.messages[position].fields]
    for _ in range(draws.choice([1, 1, 2])):
        fields[6] = mutate_value(fields[6], draws, 2)
    resigned(game, records, position, fields, _style(draws), chain=draws.below(4) > 0)
    return written(game.recorder, records)


def a_field_changed(game: Game, draws: Draws) -> bytes:
    """One of a message's signed fields (version, game, sender, seq, prev, kind, body) changed, re-signed."""
    records = plain(game)
    position = _msg_position(game, draws)
    fields: list[Any] = [*game.messages[position].fields]
    which = draws.below(7)
    if which == 5:
        fields[5] = draws.choice(["START", "PLAY_COMMIT", "DROP", "KEEP", "STANDIN", "REJOIN", "GAME_END", "NOPE",
                                  fields[5].lower(), fields[5] + "\x00", *edges(fields[5])])
    elif which == 3:
        fields[3] = draws.choice([fields[3] + 1, fields[3] - 1, fields[3] + 2, 2**32 - 1, 2**32, *edges(fields[3])])
    elif which == 2:
        fields[2] = draws.choice([*game.keys, game.outsider.peer, *edges(fields[2])])
    else:
        fields[which] = mutate_value(fields[which], draws, 1)
    shape = draws.choice(["same", "same", "same", "short", "long", "map"])
    value: Any = {"same": fields, "short": fields[:-1], "long": [*fields, None], "map": dict(zip("vgsqpkb", fields))}[
        shape]
    signer = game.keys.get(fields[2]) if which == 2 and isinstance(fields[2], bytes) and draws.below(2) else None
    resigned(game, records, position, value, _style(draws), chain=draws.below(4) > 0, signer=signer)
    return written(game.recorder, records)


def the_same_values_written_wider(game: Game, draws: Draws) -> bytes:
    """Messages and records whose values are the same, written in wider forms than the shortest (ints, str, bin,
    arrays, maps), a map's keys in another order: re-signed and chained where the signed part changed."""
    records = plain(game)
    positions = sorted(game.messages)
    for position in [draws.choice(positions) for _ in range(draws.choice([1, 2, 5]))]:
        message = game.messages[position]
        where = draws.choice(["signed", "signed", "wire", "record"])
        if where == "signed":
            fields: Any = [*message.fields]
            if draws.below(3) == 0 and fields[6]:
                fields[6] = Pairs(tuple(reversed(list(fields[6].items()))))
            resigned(game, records, position, fields, Style(draws.choice([2, 8]), draws))
        elif where == "wire":
            signed = pack(message.fields)
            records[position] = Record("msg", pack([signed, message.signature], Style(8, draws)))
        else:
            records[position] = Record("msg", records[position].payload, style=Style(8, draws))
    return written(game.recorder, records, header_style=Style(draws.choice([0, 8]), draws))


def records_moved(game: Game, draws: Draws) -> bytes:
    """Records dropped, repeated, swapped or moved, the file relinked and resealed (so only the replay can tell)."""
    records = plain(game)
    for _ in range(draws.choice([1, 1, 2])):
        n = len(records)
        i = draws.below(n)
        how = draws.choice(["drop", "repeat", "swap", "move", "foreign"])
        if how == "drop":
            del records[i]
        elif how == "repeat":
            records.insert(draws.below(n + 1), records[i])
        elif how == "swap" and i + 1 < n:
            records[i], records[i + 1] = records[i + 1], records[i]
        elif how == "move":
            records.insert(draws.below(n), records.pop(i))
        elif how == "foreign":  # a record of another game's transcript
            other = base_game(draws.choice(sorted(g for g in GAMES if g != game.name)))
            records.insert(i, Record(*draws.choice(other.records)))
    return written(game.recorder, records)


def record_fields(game: Game, draws: Draws) -> bytes:
    """One record's index, link, type, payload or shape of another type or value; or the header, or the seal."""
    records = plain(game)
    i = draws.below(len(records) + 1)
    target = draws.choice(["index", "link", "type", "payload", "shape", "header", "seal"])
    record = records[min(i, len(records) - 1)]
    if target == "index":
        index = draws.choice([lambda p: 2**63, lambda p: 2**64 - 1, lambda p: 2**53 + 1, lambda p: -1, lambda p: 0,
                              lambda p: None, lambda p: str(p), lambda p: float(p), lambda p: True,
                              lambda p: p.to_bytes(4, "big"), lambda p: p + 1, lambda p: p - 1,
                              lambda p: Raw(b"\xcf" + p.to_bytes(8, "big")), lambda p: Raw(b"\xd3" + p.to_bytes(8, "big"))])
        record.index = index
    elif target == "link":
        chain = draws.choice([lambda last: bytes(32), lambda last: b"", lambda last: None, lambda last: last.hex(),
                              lambda last: 0, lambda last: last[:31], lambda last: last + b"\x00",
                              lambda last: Raw(b"\xc5\x00\x20" + last)])
        record.link = chain
    elif target == "type":
        record.kind = draws.choice(["MSG", "msg\x00", "fault", "msg", "seal", b"msg", 1, None, "", "é" * 600])
    elif target == "payload":
        record.payload = mutate_value(record.payload, draws, 1)
    elif target == "shape":
        record.shape = draws.choice([
            lambda x, link_, k, p: [x, link_, k], lambda x, link_, k, p: [x, link_, k, p, None],
            lambda x, link_, k, p: {"index": x, "link": link_, "type": k, "payload": p},
            lambda x, link_, k, p: Raw(pack([x, link_, k, p]) + b"\xc0"),
            lambda x, link_, k, p: deep(5, [x, link_, k, p]), lambda x, link_, k, p: [[x, link_, k, p]],
        ])
    elif target == "header":
        header = [MAGIC, FORMAT, game.recorder.public_key]
        header = mutate_value(header, draws, 0) if draws.below(3) else draws.choice(
            [[MAGIC, FORMAT, None], [MAGIC, FORMAT], [MAGIC, 2, game.recorder.public_key],
             [MAGIC.encode(), FORMAT, game.recorder.public_key], [MAGIC, FORMAT, game.outsider.public_key],
             [MAGIC, FORMAT, game.recorder.public_key, None]])
        return written(game.recorder, records, header=header)
    else:
        return written(game.recorder, records, seal=draws.choice(["none", "twice", "bad"]))
    return written(game.recorder, records)


FAULT_CODES = ["malformed", "wrong-game", "unknown-sender", "bad-signature", "replay", "equivocation",
               "chain-broken", "unknown-kind", "bad-body", "unexpected", "duplicate", "start-mismatch",
               "seed-mismatch", "bad-reveal", "not-in-hand", "sealed-shuffle", "absent", "state-mismatch",
               "bad-row", "out-of-turn", "bad-pick", "result-mismatch", "digest-mismatch", "nope"]


def fault_records(game: Game, draws: Draws) -> bytes:
    """Fault records inserted: every code, blamed on a seat, the recorder, nobody or a stranger, fatal or not, with
    a game's messages or a re-signed other version of one as evidence; or many of them (the caps)."""
    records = plain(game)
    peers: list[Any] = [None, *game.senders(), game.recorder.peer, game.outsider.peer, bytes(16), b"", "p"]
    wires = [m.wire for m in game.messages.values()]

    def evidence() -> list[Any]:
        how = draws.choice(["none", "one", "two", "other-version", "junk"])
        if how == "none":
            return []
        if how == "one":
            return [draws.choice(wires)]
        if how == "two":
            return [draws.choice(wires), draws.choice(wires)]
        if how == "other-version":  # a second message of one seq, validly signed: an equivocation's proof
            message = game.messages[_msg_position(game, draws)]
            fields = [*message.fields]
            fields[6] = mutate_value(fields[6], draws, 2)
            return [message.wire, signed_wire(game.keys[message.sender], fields)[0]]
        return [draws.choice([b"", b"\x00", 1, None, "x"])]

    def one() -> dict[str, Any]:
        payload: dict[str, Any] = {"peer": draws.choice(peers), "code": draws.choice(FAULT_CODES),
                                   "detail": draws.choice(["", "x", "a" * 500, "a" * 501, "é" * 500]),
                                   "fatal": draws.choice([False, True]), "evidence": evidence()}
        if draws.below(4) == 0:
            payload = mutate_value(payload, draws, 1)
        return payload

    count = draws.choice([1, 1, 2, 33, 34, 257])
    at = draws.below(len(records) + 1)
    peer = draws.choice(peers)
    code = draws.choice(["malformed", "replay", "bad-signature"])
    batch = [one()] if count <= 2 else [{"peer": peer, "code": code, "detail": "", "fatal": False, "evidence": []}
                                        for _ in range(count)]
    if count == 2:
        batch.append(one())
    records[at:at] = [Record("fault", f) for f in batch]
    return written(game.recorder, records)


def a_stranger_speaks(game: Game, draws: Draws) -> bytes:
    """A message signed by a key at no seat (a spectator, an outsider), by a dropped seat after its drop, or a
    seat's next message of another round, turn or step: re-signed, chained onto the signer's last message before it,
    inserted anywhere."""
    records = plain(game)
    at = draws.below(len(records) + 1)
    base = game.messages[_msg_position(game, draws)]
    who = draws.choice(["seat", "seat", "outsider", "spectator", "recorder"])
    seats = game.senders()
    signer = {"seat": game.keys[draws.choice(seats)], "outsider": game.outsider, "recorder": game.recorder,
              "spectator": next((k for p, k in game.keys.items() if p not in seats), game.outsider)}[who]
    before = [m for p, m in game.messages.items() if p < at and m.sender == signer.peer]
    seq = len(before) + draws.choice([0, 0, 0, 1, -1])
    prev = hashlib.sha256(pack(before[-1].fields)).digest() if before else bytes(32)
    body = dict(base.fields[6])
    for key in ("round", "turn", "step", "seat", "pick"):
        if key in body and draws.below(2):
            body[key] = draws.choice([body[key] + 1, body[key] - 1, body[key] + 10, 2**32, -1, 255])
    fields = [1, base.fields[1], signer.peer, max(seq, 0), prev, base.kind, body]
    records.insert(at, Record("msg", signed_wire(signer, fields)[0]))
    return written(game.recorder, records)


def plausible_twists(game: Game, draws: Draws) -> bytes:
    """Messages whose body fields hold values that are right in type and range but wrong in the game: each a value
    the same field of another message of the same kind holds (another card, row, state, commit, round, turn, step,
    seat), or a message's kind and body swapped for another's; re-signed, chained on. The checks of sections 9 to
    12 and 17, not the shape, decide these."""
    records = plain(game)
    for _ in range(draws.choice([1, 1, 2, 3])):
        position = _msg_position(game, draws)
        message = game.messages[position]
        fields: list[Any] = [*game.messages[position].fields]
        if isinstance(records[position].payload, bytes) and records[position].payload != message.wire:
            fields = decode(decode(records[position].payload)[0])  # changed before: change it again
        if draws.below(5) == 0:  # another message's kind and body, under this one's seq and prev
            other = game.messages[_msg_position(game, draws)]
            fields[5], fields[6] = other.kind, other.fields[6]
        elif fields[6]:
            key = draws.choice(sorted(fields[6]))
            values = [m.fields[6][key] for m in game.messages.values() if m.kind == message.kind and key in m.fields[6]
                      and m.fields[6][key] != fields[6][key]]
            if isinstance(fields[6][key], int) and not isinstance(fields[6][key], bool):
                values += [fields[6][key] + 1, max(fields[6][key] - 1, 0)]
            if values:
                fields[6] = {**fields[6], key: draws.choice(values)}
        resigned(game, records, position, fields, chain=draws.below(5) > 0)
    return written(game.recorder, records)


# ------------------------------------------------------------------ session 39: chains rebuilt, consistent cheats, bytes


@dataclass
class Edit:
    """A message of a transcript being rebuilt: its signed fields and its signer; `original` its fields and `wire`
    its bytes as they were (kept while its fields stay the same); with `chain`, its seq and prev are set to follow
    its signer's messages before it in the new transcript."""

    fields: list[Any]
    signer: Identity
    original: list[Any] | None = None
    wire: bytes | None = None
    chain: bool = True


def edits_of(game: Game) -> list[Edit | Record]:
    """The game's records, each msg record an Edit."""
    out: list[Edit | Record] = []
    for i, (kind, payload) in enumerate(game.records):
        m = game.messages.get(i)
        if m is None:
            out.append(Record(kind, payload))
        else:
            out.append(Edit([*m.fields], game.keys.get(m.sender, game.outsider), [*m.fields], m.wire))
    return out


def seats_of(game: Game) -> list[bytes]:
    start = next(m for m in game.messages.values() if m.kind == "START")
    return [peer_id(entry["key"]) for entry in start.fields[6]["roster"]]


def _signed_of(wire: bytes) -> bytes:
    return bytes(decode(wire)[0])


def settled(game: Game, items: list[Edit | Record], commits: bool = False) -> bytes:
    """The transcript of `items`: every Edit's seq and prev chained on its signer's messages before it (unless it
    says not), re-signed where anything changed; with `commits`, a PLAY_REVEAL's `commits` that named the commit set
    of its turn as it was names it as it is now (section 10.3); relinked and resealed."""
    counts: dict[bytes, int] = {}
    last: dict[bytes, bytes] = {}
    seats = seats_of(game)
    old: dict[tuple[Any, Any, bytes], bytes] = {}  # (round, turn, sender) -> its PLAY_COMMIT's hash, as it was
    for m in game.messages.values():
        if m.kind == "PLAY_COMMIT":
            old[m.fields[6]["round"], m.fields[6]["turn"], m.sender] = hashlib.sha256(_signed_of(m.wire)).digest()
    new: dict[tuple[Any, Any, bytes], bytes] = {}
    records: list[Record] = []
    for item in items:
        if isinstance(item, Record):
            records.append(item)
            continue
        fields = [*item.fields]
        sender = fields[2] if len(fields) > 2 and isinstance(fields[2], bytes) else None
        if item.chain and sender is not None and len(fields) > 4:
            fields[3], fields[4] = counts.get(sender, 0), last.get(sender, bytes(32))
        body = fields[6] if len(fields) > 6 and isinstance(fields[6], dict) else None
        if commits and body is not None and fields[5] == "PLAY_REVEAL":
            turn = (body.get("round"), body.get("turn"))
            were = [old[(*turn, p)] for p in seats if (*turn, p) in old]
            if were and body.get("commits") == commit_set_digest(were):
                fields[6] = {**body, "commits": commit_set_digest(
                    [new.get((*turn, p), old[(*turn, p)]) for p in seats if (*turn, p) in old])}
        if item.wire is not None and fields == item.original:
            wire, signed = item.wire, _signed_of(item.wire)
        else:
            wire, signed = signed_wire(item.signer, fields)
        records.append(Record("msg", wire))
        if sender is not None:
            counts[sender] = counts.get(sender, 0) + 1
            last[sender] = hashlib.sha256(signed).digest()
            if fields[5] == "PLAY_COMMIT" and body is not None:
                new[body.get("round"), body.get("turn"), sender] = last[sender]
    return written(game.recorder, records)


def _near(value: Any, draws: Draws, top: int) -> Any:
    """A plausible value near an int field's: itself, one either side, 0, the top of its range, one past it."""
    if not isinstance(value, int) or isinstance(value, bool):
        return value
    return draws.choice([value, value, value + 1, max(value - 1, 0), 0, top, top + 1])


def _a_body(game: Game, kind: str, draws: Draws) -> dict[str, Any]:
    """A body of `kind` as a seat of this game could sign it: one of the game's own of that kind, its round, turn,
    step, seat, place, pick and row moved a little (or a made-up one where the game has none)."""
    n = len(seats_of(game))
    bodies = [m.fields[6] for m in game.messages.values() if m.kind == kind]
    rounds = [m.fields[6]["round"] for m in game.messages.values() if isinstance(m.fields[6].get("round"), int)]
    top_round = max(rounds, default=0)
    if bodies:
        body = dict(draws.choice(bodies))
    else:
        h = hashlib.sha256(kind.encode()).digest()
        body = {"DROP": {"round": 0, "step": 2, "seat": 1},
                "KEEP": {"round": 0, "step": 2, "seat": 1},
                "STANDIN": {"round": 0, "turn": 0, "seat": 1},
                "REJOIN": {"round": 0},
                "ROW_CHOICE": {"round": 0, "turn": 0, "row": 0},
                "SEALED_KEYS": {"round": 0, "key": h, "seed": h, "nonce": h, "alarm": True},
                "START_ACK": {"start": h}}.get(kind, {"round": 0})
    tops = {"round": top_round + 1, "turn": 9, "step": 33, "seat": n - 1, "place": max(n - 1, 1), "pick": 10 * n - 1,
            "row": 3, "card": 104}
    for key, top in tops.items():
        if key in body and draws.below(2):
            body[key] = _near(body[key], draws, top)
    if kind in ("DROP", "KEEP") and draws.below(3) == 0:
        body = {k: v for k, v in body.items() if k != "place"} if "place" in body else {**body, "place": draws.below(2)}
    if kind in ("PLAY_REVEAL", "ROW_CHOICE") and draws.below(3) == 0:
        body = {**body, "auto": True} if "auto" not in body else {k: v for k, v in body.items() if k != "auto"}
    if kind == "SEALED_KEYS" and draws.below(2):
        body = {**body, "alarm": not body.get("alarm", False)}
    return body


KINDS = ["START_ACK", "SEED_COMMIT", "SEED_REVEAL", "SEALED_SHUFFLE", "SEALED_UNLOCK", "SEALED_KEYS", "DRAFT_PICK",
         "PLAY_COMMIT", "PLAY_REVEAL", "ROW_CHOICE", "ROUND_END", "GAME_END", "DROP", "KEEP", "REJOIN", "STANDIN",
         "START"]


def chains_rebuilt(game: Game, draws: Draws) -> bytes:
    """A seat's chain changed where it is not broken: a message of its own inserted anywhere (a vote, a KEEP, a
    stand-in's ask, a REJOIN, a row choice nobody owes, an alarm, a second commit or reveal, any kind: section
    11's moments), one left out, one repeated, two of its own swapped, or one moved to another place among the
    records, and every later message of that seat chained on again (seq and prev), re-signed."""
    items = edits_of(game)
    seats = [p for p in seats_of(game) if p in game.keys]
    for _ in range(draws.choice([1, 1, 1, 2, 3])):
        positions = [i for i, item in enumerate(items) if isinstance(item, Edit)]
        how = draws.choice(["insert", "insert", "insert", "leave out", "repeat", "swap", "move", "move"])
        at = draws.below(len(items) + 1)
        if how == "insert":
            who = draws.choice(seats)
            kind = draws.choice(KINDS)
            template = next((m.fields for m in game.messages.values()), None)
            assert template is not None
            items.insert(at, Edit([1, template[1], who, 0, bytes(32), kind, _a_body(game, kind, draws)],
                                  game.keys[who]))
        elif how == "leave out":
            del items[draws.choice(positions)]
        elif how == "repeat":
            items.insert(at, _copy(items[draws.choice(positions)]))
        elif how == "swap":
            i = draws.choice(positions)
            sender = items[i].fields[2]  # type: ignore[union-attr]
            later = [j for j in positions if j > i and items[j].fields[2] == sender]  # type: ignore[union-attr]
            if later:
                j = later[0]
                items[i], items[j] = items[j], items[i]
        else:
            item = items.pop(draws.choice(positions))
            items.insert(draws.below(len(items) + 1), item)
    return settled(game, items, commits=draws.below(2) == 0)


def _copy(item: Edit | Record) -> Edit | Record:
    if isinstance(item, Record):
        return item
    return Edit([*item.fields], item.signer)


def _commit_of(items: list[Edit | Record], reveal: Edit) -> Edit | None:
    """The PLAY_COMMIT of `reveal`'s signer for its turn, among `items`."""
    body = reveal.fields[6]
    return next((item for item in items if isinstance(item, Edit) and item.fields[2] == reveal.fields[2]
                 and item.fields[5] == "PLAY_COMMIT" and isinstance(item.fields[6], dict)
                 and (item.fields[6].get("round"), item.fields[6].get("turn")) == (body["round"], body["turn"])), None)


def consistent_cheats(game: Game, draws: Draws) -> bytes:
    """A seat's cheat made whole, as one holding the keys and the nonces makes it: a reveal of another card (a card
    of another hand, one already played, one never dealt, one that is no card; in a sealed game perhaps from
    another deck position), its PLAY_COMMIT's commitment made to match (section 10.1) and every seat's reveals of
    that turn naming the new commit set (10.3); or a seed reveal of another contribution with its SEED_COMMIT made
    to match (so the round's deal is another than the one played); every chain after re-signed. Sections 11 and
    17.6-17.7 (not-in-hand, the audit), not the signatures, decide these."""
    items = edits_of(game)
    seats = seats_of(game)
    reveals = [i for i, item in enumerate(items) if isinstance(item, Edit) and item.fields[5] == "PLAY_REVEAL"]
    seeds = [i for i, item in enumerate(items) if isinstance(item, Edit) and item.fields[5] == "SEED_REVEAL"]
    cards = sorted({m.fields[6]["card"] for m in game.messages.values() if m.kind in ("PLAY_REVEAL", "DRAFT_PICK")})
    sealed = [i for i, item in enumerate(items) if isinstance(item, Edit)
              and item.fields[5] in ("SEALED_SHUFFLE", "SEALED_UNLOCK", "SEALED_KEYS")]
    for _ in range(draws.choice([1, 1, 2])):
        if sealed and draws.below(3) == 0:
            _sealed_cheat(game, items, items[draws.choice(sealed)], draws)  # type: ignore[arg-type]
            continue
        if seeds and (not reveals or draws.below(4) == 0):
            item = items[draws.choice(seeds)]
            assert isinstance(item, Edit)
            body = item.fields[6]
            contribution = draws.choice([bytes(32), hashlib.sha256(body["contribution"]).digest()])
            item.fields[6] = {**body, "contribution": contribution}
            seat = seats.index(item.fields[2])
            commit = next((c for c in items if isinstance(c, Edit) and c.fields[2] == item.fields[2]
                           and c.fields[5] == "SEED_COMMIT" and c.fields[6].get("round") == body["round"]), None)
            if commit is not None:
                commit.fields[6] = {**commit.fields[6], "commit": commitment(
                    "seed", item.fields[1], body["round"], 0, seat, contribution, body["nonce"])}
            continue
        if not reveals:
            break
        item = items[draws.choice(reveals)]
        assert isinstance(item, Edit)
        body = dict(item.fields[6])
        body["card"] = draws.choice([*cards, *cards, 0, 105, 255, draws.below(104) + 1])
        if "position" in body and draws.below(3) == 0:
            body["position"] = draws.choice([draws.below(104), 103, 0, body["position"] + 1])
        item.fields[6] = body
        commit = _commit_of(items, item)
        if commit is not None:
            value = bytes([body["card"]]) + (bytes([body["position"]]) if "position" in body else b"")
            commit.fields[6] = {**commit.fields[6], "commit": commitment(
                "play", item.fields[1], body["round"], body["turn"], seats.index(item.fields[2]), value, body["nonce"])}
    return settled(game, items, commits=True)


def _sealed_cheat(game: Game, items: list[Edit | Record], item: Edit, draws: Draws) -> None:
    """A sealed step whose values are all valid points but wrong: a shuffle or unlock with two of its values swapped,
    one of them another message's value, or the values the seat was given (no shuffle, no layer taken off); a key,
    seed or nonce of another round or seat (sections 17.5, 17.7: the audit decides)."""
    body = dict(item.fields[6])
    others = [m.fields[6] for m in game.messages.values() if m.kind == item.fields[5] and m.fields[6] != body]
    if item.fields[5] == "SEALED_KEYS":
        field = draws.choice(["key", "seed", "nonce"])
        if others:
            body[field] = draws.choice(others)[field]
        body["alarm"] = body["alarm"] if draws.below(3) else not body["alarm"]
    else:
        field = "deck" if item.fields[5] == "SEALED_SHUFFLE" else "values"
        values = list(body[field])
        how = draws.choice(["swap", "swap", "other", "given"])
        i, j = draws.below(len(values)), draws.below(len(values))
        if how == "swap":
            values[i], values[j] = values[j], values[i]
        elif how == "other" and others:
            pool = [v for o in others for v in o[field]]
            values[i] = draws.choice(pool)
        elif how == "given" and others:
            values = list(draws.choice(others)[field])[:len(values)]
        body[field] = values
        if field == "deck" and draws.below(2):  # and its commitment made to match a key and seed it could reveal
            keys = next((e for e in items if isinstance(e, Edit) and e.fields[2] == item.fields[2]
                         and e.fields[5] == "SEALED_KEYS" and e.fields[6].get("round") == body["round"]), None)
            if keys is not None:
                kb = keys.fields[6]
                body["commit"] = commitment("sealed", item.fields[1], body["round"], 0,
                                            seats_of(game).index(item.fields[2]), kb["key"] + kb["seed"], kb["nonce"])
    item.fields[6] = body


def frames_of(data: bytes) -> list[bytes]:
    out, at = [], 0
    while at + 4 <= len(data):
        size = int.from_bytes(data[at:at + 4], "big")
        out.append(data[at:at + 4 + size])
        at += 4 + size
    return out


CORPUS = sorted(p for p in (Path(__file__).resolve().parent / "corpus").glob("*.p2pt") if p.stat().st_size < 100_000)


def bytes_changed(game: Game, draws: Draws) -> bytes:
    """The file itself changed, nothing re-signed: a bit flipped, a byte set, bytes cut, added or taken out, a
    frame dropped, repeated or swapped with the next, a length changed, the file cut at a frame's end. The game's
    transcript, or (one time in four) one of tests/peer/corpus/'s, written by real processes (their keys are not
    known here, so only their bytes are changed)."""
    data = bytearray(game.data if draws.below(4) or not CORPUS else draws.choice(CORPUS).read_bytes())
    for _ in range(draws.choice([1, 1, 2])):
        how = draws.choice(["flip", "flip", "set", "cut", "add", "take", "frame", "frame", "length", "end"])
        at = draws.below(len(data)) if data else 0
        if how == "flip" and data:
            data[at] ^= 1 << draws.below(8)
        elif how == "set" and data:
            data[at] = draws.choice([0x00, 0xFF, 0xC0, 0xC1, 0xC3, 0x90, 0x80, 0xA0, 0xCF, 0xDB])
        elif how == "cut":
            del data[at:]
        elif how == "add":
            data[at:at] = bytes(draws.below(256) for _ in range(draws.choice([1, 2, 4, 9])))
        elif how == "take":
            del data[at:at + draws.choice([1, 2, 4, 32, 64])]
        elif how in ("frame", "end"):
            frames = frames_of(bytes(data))
            if len(frames) < 2:
                continue
            i = 1 + draws.below(len(frames) - 1)
            if how == "end":
                frames = frames[:i]
            else:
                step = draws.choice(["drop", "repeat", "swap"])
                if step == "drop":
                    del frames[i]
                elif step == "repeat":
                    frames.insert(i, frames[i])
                elif i + 1 < len(frames):
                    frames[i], frames[i + 1] = frames[i + 1], frames[i]
            data = bytearray(b"".join(frames))
        elif how == "length":
            frames = frames_of(bytes(data))
            if not frames:
                continue
            i = draws.below(len(frames))
            size = int.from_bytes(frames[i][:4], "big")
            size = draws.choice([size + 1, max(size - 1, 0), 0, 66_560, 66_561, 2**32 - 1])
            frames[i] = size.to_bytes(4, "big") + frames[i][4:]
            data = bytearray(b"".join(frames))
    return bytes(data)


MUTATIONS: dict[str, Callable[[Game, Draws], bytes]] = {
    "twist": plausible_twists,
    "body": a_body_changed, "field": a_field_changed, "wider": the_same_values_written_wider,
    "moved": records_moved, "record": record_fields, "fault": fault_records, "stranger": a_stranger_speaks,
    "chain": chains_rebuilt, "cheat": consistent_cheats, "bytes": bytes_changed,
}


# ------------------------------------------------------------------ both verifiers


def python_answer(data: bytes) -> dict[str, Any]:
    """The reference's verdict, as the TypeScript probe writes its own."""
    from p2pnimmt.protocol.verify import verify_transcript  # noqa: PLC0415

    try:
        verdict = verify_transcript(data)
    except Exception as exc:  # noqa: BLE001 (a bug: verify judges every input; reported as a difference)
        return {"ok": None, "record": None, "text": f"Python raised {type(exc).__name__}: {exc}", "peer": None,
                "found": [], "scores": []}
    return {"ok": verdict.ok, "record": verdict.record, "text": verdict.summary if verdict.ok else verdict.fault,
            "peer": verdict.peer.hex() if verdict.peer else None,
            "found": [[record, code, peer.hex() if peer else None, detail, fatal]
                      for record, code, peer, detail, fatal in verdict.found],
            "scores": verdict.scores}


class TypeScript:
    """One node process of web/peer/test/verify_lines.js (compiled by tsc into `compiled`) that judges a transcript
    a line."""

    def __init__(self, node: str, compiled: Path) -> None:
        import subprocess  # noqa: PLC0415

        self.process = subprocess.Popen([node, str(compiled / "test" / "verify_lines.js")], cwd=compiled.parent.parent,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def answer(self, data: bytes, layer: str = "") -> dict[str, Any]:
        """The verdict on transcript `data`; with `layer` "c" or "e", the decoder's or the envelope reader's answer."""
        import json  # noqa: PLC0415

        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write((f"{layer}:" if layer else "") + data.hex() + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, f"the node probe ended (exit {self.process.wait()})"
        return dict(json.loads(line))

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def difference(data: bytes, theirs: dict[str, Any]) -> str:
    """'' if both verifiers say the same of `data` (verdict, record, words, peer, and the whole of what the replay
    saw: every fault it found, in order, with its record, code, peer, detail and fatality, and the scores it
    reached), else where they part."""
    ours = python_answer(data)
    if theirs.get("crash") or theirs.get("unsupported"):
        return f"TypeScript could not judge it: {theirs}\n  Python {ours}"
    theirs = {k: theirs.get(k) for k in ours}
    if ours == theirs:
        return ""
    parts = [k for k in ours if ours[k] != theirs[k]]
    if parts == ["found"]:  # the first fault they part at, and how many each found
        at = next((i for i, (a, b) in enumerate(zip(ours["found"], theirs["found"])) if a != b),
                  min(len(ours["found"]), len(theirs["found"])))
        return (f"found (fault {at} of {len(ours['found'])} / {len(theirs['found'])}): "
                f"\n  Python     {ours['found'][at:at + 1]}\n  TypeScript {theirs['found'][at:at + 1]}")
    return f"{', '.join(parts)}:\n  Python     {ours}\n  TypeScript {theirs}"


# ------------------------------------------------------------------ the codec and the envelope alone


def a_value(draws: Draws, depth: int = 0) -> Any:
    """A value for section 7's decoder: scalars at every edge, containers near every limit and nesting."""
    kind = draws.choice(["edge", "edge", "limit", "list", "map", "pairs"] if depth < 8 else ["edge"])
    if kind == "edge":
        return draws.choice(edges(draws.choice([0, "ab", b"ab", True, [1], {"a": 1}])))
    if kind == "limit":
        return draws.choice(LIMITS)()
    size = draws.choice([0, 1, 2, 3, 15, 16] if depth == 0 else [0, 1, 2, 3] if depth < 3 else [0, 1])
    if kind == "list":
        return [a_value(draws, depth + 1) for _ in range(size)]
    keys = [draws.choice(["a", "b", "", "é", "a\x00", "k" * 31, "k" * 32]) for _ in range(size)]
    if kind == "map":
        return {k: a_value(draws, depth + 1) for k in keys}
    return Pairs(tuple((draws.choice([k, k, b"a", 1, None, 1.5, [1]]), a_value(draws, depth + 1)) for k in keys))


def damaged(data: bytes, draws: Draws) -> bytes:
    """`data` as it is, or cut, with a byte changed or added."""
    how = draws.choice(["as is", "as is", "as is", "cut", "flip", "tail", "head"])
    if how == "cut" and data:
        return data[: draws.below(len(data))]
    if how == "flip" and data:
        at = draws.below(len(data))
        return data[:at] + bytes([data[at] ^ (1 << draws.below(8))]) + data[at + 1:]
    if how == "tail":
        return data + bytes([draws.below(256)])
    if how == "head":
        return bytes([draws.choice([0x91, 0x81, 0xC1, 0xD4, 0xDC, 0xDE, 0xC7])]) + data
    return data


def codec_case(draws: Draws) -> bytes:
    """Bytes for section 7's decoder: a value written in its shortest forms or wider ones, perhaps damaged."""
    return damaged(pack(a_value(draws), _style(draws)), draws)


def envelope_case(draws: Draws) -> bytes:
    """A wire message for section 8's shape checks: a real one of the games, its fields or its wire changed."""
    game = base_game(draws.choice(sorted(GAMES)))
    message = game.messages[_msg_position(game, draws)]
    fields: Any = [*message.fields]
    how = draws.choice(["field", "field", "field", "body", "signed", "wire"])
    if how == "field":
        fields[draws.below(7)] = mutate_value(fields[draws.below(7)], draws, 1)
    elif how == "body":
        fields[6] = mutate_value(fields[6], draws, 2)
    elif how == "signed":
        fields = mutate_value(fields, draws, 0)
    signature: Any = message.signature if how != "wire" else mutate_value(message.signature, draws, 1)
    signed: Any = pack(fields, _style(draws))
    if how == "wire" and draws.below(2):
        signed = mutate_value(signed, draws, 1)
    outer: Any = [signed, signature] if draws.below(6) else draws.choice([[signed], [signed, signature, None],
                                                                          {"s": signed}, signed])
    return damaged(pack(outer, _style(draws)), draws)


def python_codec(data: bytes) -> dict[str, Any]:
    from p2pnimmt.protocol.codec import DecodeError, encode  # noqa: PLC0415

    try:
        return {"value": encode(decode(data)).hex()}
    except DecodeError as exc:
        return {"refused": str(exc)}
    except Exception as exc:  # noqa: BLE001 (a bug: reported as a difference)
        return {"crash": f"Python raised {type(exc).__name__}: {exc}"}


def python_envelope(data: bytes) -> dict[str, Any]:
    from p2pnimmt.protocol.codec import DecodeError, encode  # noqa: PLC0415
    from p2pnimmt.protocol.envelope import open_envelope  # noqa: PLC0415

    try:
        m = open_envelope(data)
        return {"value": encode([m.version, m.game_id, m.sender, m.seq, m.prev, m.kind, m.body]).hex()}
    except DecodeError as exc:
        return {"refused": str(exc)}
    except Exception as exc:  # noqa: BLE001
        return {"crash": f"Python raised {type(exc).__name__}: {exc}"}


def body_case(draws: Draws) -> bytes:
    """msgpack [kind, body] for section 9's body check: a real body of the games (of every kind they hold), changed
    in one place or a few (a field dropped, added, of another type, at a limit), under its own kind or another."""
    game = base_game(draws.choice(sorted(GAMES)))
    message = game.messages[_msg_position(game, draws)]
    body: Any = dict(message.fields[6])
    for _ in range(draws.choice([0, 1, 1, 1, 2, 3])):
        how = draws.choice(["field", "field", "field", "field", "drop", "add", "whole"])
        key = draws.choice(sorted(body)) if body else "round"
        if how == "field":
            body[key] = mutate_value(body.get(key), draws, 3)
        elif how == "drop":
            body.pop(key, None)
        elif how == "add":
            body[draws.choice(["auto", "position", "place", "back", "alarm", "previous", "carry", "clock", "x"])] = \
                draws.choice([True, 0, 103, 104, [[0, 1]], bytes(16), None, "x"])
        else:
            whole = mutate_value(body, draws, 2)
            body = whole if isinstance(whole, dict) else body
    kind = message.kind if draws.below(5) else draws.choice(KINDS)
    return pack([kind, body])


def python_body(data: bytes) -> dict[str, Any]:
    from p2pnimmt.protocol.codec import DecodeError  # noqa: PLC0415
    from p2pnimmt.protocol.messages import FIELDS, check_body  # noqa: PLC0415

    try:
        kind, body = decode(data)
    except DecodeError as exc:
        return {"refused": str(exc)}
    if kind not in FIELDS:
        return {"unknown": kind}
    try:
        check_body(kind, body)
    except ValueError as exc:
        return {"problem": str(exc)}
    except Exception as exc:  # noqa: BLE001 (a bug: reported as a difference)
        return {"crash": f"Python raised {type(exc).__name__}: {exc}"}
    return {"problem": None}


def layer_difference(layer: str, data: bytes, typescript: TypeScript) -> str:
    """'' if section 7's decoders (`layer` "c"), section 8's envelope readers ("e") or section 9's body checks ("b")
    say the same of `data`."""
    ours = {"c": python_codec, "e": python_envelope, "b": python_body}[layer](data)
    theirs = typescript.answer(data, layer)
    return "" if ours == theirs else f"{data[:80].hex()}\n  Python     {ours}\n  TypeScript {theirs}"
