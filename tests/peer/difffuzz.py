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
from p2pnimmt.protocol.envelope import SIGN_TAG
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.transcript import FORMAT, MAGIC, MAX_RECORD, SEAL_TAG, frame, frames, link

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
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


GAMES: dict[str, Callable[[], Game]] = {
    "open-3": lambda: _net_game("open-3", 3, "open", "standard", 1, 22, -1),
    "draft-2": lambda: _net_game("draft-2", 2, "open", "draft", 1, 15, 0),
    "sealed-2": lambda: _net_game("sealed-2", 2, "sealed", "standard", 1, 15, 1),
    "tactical-3": lambda: _net_game("tactical-3", 3, "open", "tactical", 1, 22, 0),
    "drop-3": lambda: _net_game("drop-3", 3, "open", "standard", 1, 2, 0, silent=(2, 9)),
}


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


MUTATIONS: dict[str, Callable[[Game, Draws], bytes]] = {
    "twist": plausible_twists,
    "body": a_body_changed, "field": a_field_changed, "wider": the_same_values_written_wider,
    "moved": records_moved, "record": record_fields, "fault": fault_records, "stranger": a_stranger_speaks,
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


def layer_difference(layer: str, data: bytes, typescript: TypeScript) -> str:
    """'' if section 7's decoders (`layer` "c") or section 8's envelope readers ("e") say the same of `data`."""
    ours = (python_codec if layer == "c" else python_envelope)(data)
    theirs = typescript.answer(data, layer)
    return "" if ours == theirs else f"{data[:80].hex()}\n  Python     {ours}\n  TypeScript {theirs}"
