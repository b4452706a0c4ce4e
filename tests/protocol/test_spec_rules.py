"""The precise rules protocol.md states for an independent implementer (issue 12), checked against the code.

Each test names the section it checks: the nesting depth and str limits
(7), names (9), the body checks and their faults (9), the progression
rule and who it blames (9), the slot keys (11), the state between rounds
(10.4), the transcript's frame limit, its seal and verify's "first
problem" (13).
"""

from __future__ import annotations

import hashlib
from functools import cache

import msgpack
import pytest
from support import build, check_honest, flip, play, records, short

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.codec import MAX_FRAME, DecodeError, decode, encode
from p2pnimmt.protocol.envelope import NO_PREVIOUS, Envelope, open_envelope, seal
from p2pnimmt.protocol.events import Fault, Outgoing
from p2pnimmt.protocol.identity import Identity, verify
from p2pnimmt.protocol.messages import BodyError, check_body
from p2pnimmt.protocol.session import Session
from p2pnimmt.protocol.table import EXPELS
from p2pnimmt.protocol.transcript import LINK_TAG, MAX_RECORD, SEAL_TAG, frame, frames, link
from p2pnimmt.protocol.verify import verify_transcript

# ----------------------------------------------------------------- 7: nesting depth and str length


def nested(levels: int, leaf: object = 1) -> object:
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


def test_depth_counts_containers_from_one_and_six_is_the_most() -> None:
    assert decode(encode(nested(6))) == nested(6)
    with pytest.raises(DecodeError, match="nested deeper"):
        decode(encode(nested(7)))
    decode(encode(nested(5, [])))  # an empty container counts like any other
    with pytest.raises(DecodeError, match="nested deeper"):
        decode(encode(nested(6, {})))
    decode(encode([{"a": [{"b": [{"c": "x" * 1000}]}]}]))  # maps count as arrays do; a str adds no depth


def test_a_bin_holding_msgpack_is_counted_separately() -> None:
    """A message's signed part is a bin inside the wire value: its own depth starts at 1 again."""
    ident = Identity(bytes(32))
    deep = {"x": nested(4)}  # signed array (1) -> body map (2) -> 4 arrays: depth 6
    env = seal(ident, bytes(16), 0, NO_PREVIOUS, "PLAY_COMMIT", deep)
    assert open_envelope(env.wire).body == deep
    with pytest.raises(DecodeError, match="nested deeper"):
        open_envelope(seal(ident, bytes(16), 0, NO_PREVIOUS, "PLAY_COMMIT", {"x": nested(5)}).wire)


def test_str_limit_is_in_bytes_and_str_must_be_utf8() -> None:
    assert decode(encode("é" * 512)) == "é" * 512  # 512 code points, 1,024 bytes
    with pytest.raises(DecodeError):
        decode(encode("é" * 512 + "a"))
    with pytest.raises(DecodeError):
        decode(b"\xa2\xc3\x28")  # a 2-byte str that is not UTF-8


# ----------------------------------------------------------------- 9: names and body checks


def start_body(name: object) -> dict:
    return {"salt": bytes(16),
            "settings": {"variant": "standard", "point_limit": 66, "max_rounds": None, "deal": "open"},
            "roster": [{"key": bytes(32), "name": name, "bot": False}, {"key": b"\1" * 32, "name": "b", "bot": True}]}


GOOD_NAMES = ["a", "Zoë", "Anne Marie", "é" * 40, "😀" * 40, "x" * 40, "李小龍", "a-b_c.d!"]
# issue 22 item 7 (protocol.md 9, names): a space at either end, or a name not in NFKC form, is no name
BAD_NAMES = [" ", "  Zoë  ", "two  spaces", "e\u0301", "\uff21nn", "", "x" * 41, "é" * 41, "tab\there", "new\nline", "nb\u00a0sp", "ideo\u3000space", "zero\u200bwidth",
             "soft\u00adhyphen", "line\u2028sep", "private\ue000", "unassigned\u0378", "\x7f", 7, b"bytes", None]


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_a_name_is_1_to_40_printable_code_points(name: str) -> None:
    check_body("START", start_body(name))


@pytest.mark.parametrize("name", BAD_NAMES, ids=repr)
def test_what_is_not_a_name(name: object) -> None:
    with pytest.raises(BodyError):
        check_body("START", start_body(name))


BAD_FIELDS = [
    ("PLAY_COMMIT", {"round": 2**32, "turn": 0, "commit": bytes(32), "state": bytes(32)}),
    ("PLAY_COMMIT", {"round": 0, "turn": True, "commit": bytes(32), "state": bytes(32)}),
    ("PLAY_REVEAL", {"round": 0, "turn": 0, "card": 5, "nonce": bytes(32), "commits": bytes(32), "position": 104}),
    ("ROUND_END", {"round": 0, "penalties": [0] * 11, "scores": [0] * 2, "state": bytes(32)}),
    ("SEALED_UNLOCK", {"round": 0, "values": []}),
    ("SEALED_UNLOCK", {"round": 0, "values": [bytes(32)] * 105}),
    ("SEALED_KEYS", {"round": 0, "key": bytes(31), "seed": bytes(32), "nonce": bytes(32), "alarm": False}),
    ("DROP", {"round": 0, "step": -1, "seat": 1}),
]


@pytest.mark.parametrize("kind, body", BAD_FIELDS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(BAD_FIELDS)])
def test_range_checks_are_body_checks(kind: str, body: dict) -> None:
    """Section 9 **Types**: a value out of its type's range fails the body check (fault `bad-body`)."""
    with pytest.raises(BodyError):
        check_body(kind, body)


class Table3:
    """A 3-seat open game: the host's START, and seats 1 and 2 signing what a test wants, fed to a spectator."""

    def __init__(self, variant: str = "standard", deal: str = "open") -> None:
        self.ids = [Identity(hashlib.sha256(f"spec/{i}".encode()).digest()) for i in range(3)]
        host = Session(self.ids[0])
        roster = [(i.public_key, f"p{n}", False) for n, i in enumerate(self.ids)]
        settings = Settings(players=3, variant=variant, deal=deal, max_rounds=1, point_limit=None)
        outs = host.host(b"\x05" * 16, settings, roster)
        self.start = next(o.wire for o in outs if isinstance(o, Outgoing))
        self.game_id = host.game_id
        self.start_hash = open_envelope(self.start).hash
        self.last: dict[int, Envelope | None] = {0: open_envelope(self.start), 1: None, 2: None}
        self.wires: list[bytes] = [self.start]

    def sign(self, seat: int, kind: str, body: dict) -> bytes:
        last = self.last[seat]
        env = seal(self.ids[seat], self.game_id, last.seq + 1 if last else 0, last.hash if last else NO_PREVIOUS,
                   kind, body)
        self.last[seat] = env
        self.wires.append(env.wire)
        return env.wire

    def acks(self) -> None:
        for seat in (1, 2):
            self.sign(seat, "START_ACK", {"start": self.start_hash})

    def walk(self, seat: int, turns: int) -> None:
        """`seat` asks the stand-in for the next seat's move in each turn up to `turns`: its messages move on one
        turn at a time (section 12's order), so it may then sign for the round end. No ask completes (seat 0
        asks nothing), and no vote is open (a voter's later messages would wait for it)."""
        for turn in range(turns + 1):
            self.sign(seat, "STANDIN", {"round": 0, "turn": turn, "seat": (seat + 1) % 3})

    def spectator(self) -> tuple[Session, list[Fault]]:
        session = Session(None, relay=False)
        faults = [e for wire in self.wires for e in session.receive(wire) if isinstance(e, Fault)]
        return session, faults


def fatal(session: Session, faults: list[Fault], code: str, seat: int, ids: list[Identity]) -> None:
    """The signer is at fault with `code`: a rule break its own message proves costs it its seat (it is
    expelled: nothing it signs from that message on counts; protocol.md 12); any other aborts the game."""
    if code in EXPELS and faults and not faults[0].fatal:  # (before the game starts every fault aborts it)
        assert [(f.code, f.fatal, f.peer) for f in faults] == [(code, False, ids[seat].peer)], faults
        assert session.fault is None and seat in session.table.expelled
        return
    assert [(f.code, f.fatal) for f in faults] == [(code, True)], faults
    assert session.phase == "aborted" and session.fault.code == code
    assert session.fault.peer == ids[seat].peer


def test_one_drop_per_voter_position_and_seat_named() -> None:
    """Section 11: DROP slots are keyed by the voter's seat and the seat named: a voter may vote out two
    seats gone at once at one step (11.1), but names each at most once there."""
    t = Table3()
    t.acks()
    t.sign(1, "DROP", {"round": 0, "step": 0, "seat": 2})
    t.sign(1, "DROP", {"round": 0, "step": 0, "seat": 0})
    session, faults = t.spectator()
    assert faults == [] and session.fault is None
    t.sign(1, "DROP", {"round": 0, "step": 0, "seat": 2})
    fatal(*t.spectator(), "duplicate", 1, t.ids)


@pytest.mark.parametrize("body", [{"round": 0, "step": 0, "seat": 1}, {"round": 0, "step": 0, "seat": 3},
                                  {"round": 0, "step": 34, "seat": 2}], ids=["itself", "no-seat", "step-34"])
def test_a_drop_for_no_seat_or_no_step_is_unexpected(body: dict) -> None:
    t = Table3()
    t.acks()
    t.sign(1, "DROP", body)
    fatal(*t.spectator(), "unexpected", 1, t.ids)


@pytest.mark.parametrize("kind", ["DROP", "KEEP"])
@pytest.mark.parametrize("variant, deal, body", [
    ("draft", "open", {"round": 0, "step": 0, "seat": 2}),  # step 0 of a draft: the pick it waits on is required
    ("standard", "open", {"round": 0, "step": 0, "seat": 2, "place": 0}),  # a place at a step without places
    ("draft", "open", {"round": 0, "step": 2, "seat": 2, "place": 0}),
    ("draft", "open", {"round": 0, "step": 0, "seat": 2, "place": 30}),  # 3 players: picks 0..29
    ("standard", "open", {"round": 0, "step": 32, "seat": 2}),  # step 32: the place is required
    ("standard", "sealed", {"round": 0, "step": 32, "seat": 2}),
    ("standard", "sealed", {"round": 0, "step": 32, "seat": 2, "place": 2}),  # 0 keys, 1 round end
    ("standard", "open", {"round": 0, "step": 32, "seat": 2, "place": 0}),  # no keys in an open deal
    ("standard", "open", {"round": 0, "step": 33, "seat": 2, "place": 0}),
    ("standard", "open", {"round": 0, "step": 0, "seat": 1}),  # itself
], ids=["draft-no-pick", "place-in-standard", "place-at-a-turn", "pick-30", "round-end-no-place-open",
        "round-end-no-place-sealed", "round-end-place-2", "keys-place-in-open", "place-at-game-end", "itself"])
def test_a_vote_or_keep_names_a_place_exactly_where_a_step_has_places(kind: str, variant: str, deal: str,
                                                                       body: dict) -> None:
    """Sections 7 and 11.1: DROP and KEEP carry `place` at step 0 of a draft (the pick) and at step 32 (0 for
    a sealed deal's SEALED_KEYS, 1 for ROUND_END), and only there."""
    t = Table3(variant, deal)
    t.acks()
    if body["step"] >= 32:
        t.walk(1, 9)  # seat 1 reaches the last turn: only the place can be wrong
    t.sign(1, kind, body)
    session, faults = t.spectator()
    fatal(session, faults, "unexpected", 1, t.ids)
    assert "place" in faults[0].detail or "pick" in faults[0].detail or "itself" in faults[0].detail, faults[0]


@pytest.mark.parametrize("deal, place", [("open", 1), ("sealed", 0), ("sealed", 1)])
def test_a_vote_at_step_32_names_a_place_it_has(deal: str, place: int) -> None:
    t = Table3("standard", deal)
    t.acks()
    t.walk(1, 9)
    t.sign(1, "DROP", {"round": 0, "step": 32, "seat": 2, "place": place})
    session, faults = t.spectator()
    assert faults == [] and session.fault is None


def test_a_drafts_votes_are_one_per_voter_pick_and_seat_named() -> None:
    """Section 11's slots: in a draft's step 0 a voter has one DROP per pick and seat named."""
    t = Table3("draft")
    t.acks()
    t.sign(1, "DROP", {"round": 0, "step": 0, "seat": 0, "place": 0})
    t.sign(1, "DROP", {"round": 0, "step": 0, "seat": 2, "place": 0})
    session, faults = t.spectator()
    assert faults == [] and session.fault is None
    t.sign(1, "DROP", {"round": 0, "step": 0, "seat": 2, "place": 0})
    fatal(*t.spectator(), "duplicate", 1, t.ids)


@pytest.mark.parametrize("kind, body", [
    ("PLAY_COMMIT", {"round": 0, "turn": 10, "commit": bytes(32), "state": bytes(32)}),
    ("DRAFT_PICK", {"round": 0, "pick": 0, "card": 1}),
    ("SEALED_UNLOCK", {"round": 0, "values": [bytes(32)]}),
], ids=["turn-10", "draft-pick-in-standard", "sealed-in-open"])
def test_messages_the_game_does_not_have_are_unexpected(kind: str, body: dict) -> None:
    t = Table3()
    t.acks()
    t.sign(2, kind, body)
    fatal(*t.spectator(), "unexpected", 2, t.ids)


def test_progression_is_the_senders_own_and_blames_the_signer() -> None:
    """Section 9 **Progression**: a message for a later round than the receiver's own is fine within the rule
    (it waits in its slot); a skip is `unexpected` against its signer, whoever receives it, whenever."""
    t = Table3()
    t.acks()
    t.sign(1, "SEED_COMMIT", {"round": 0, "commit": bytes(32)})
    t.sign(1, "ROUND_END", {"round": 0, "penalties": [0, 0, 0], "scores": [0, 0, 0], "state": bytes(32)})
    t.sign(1, "SEED_COMMIT", {"round": 1, "commit": bytes(32)})  # round 1, turn 0: the next round
    session, faults = t.spectator()
    assert faults == [] and session.fault is None and session.round == 0
    t.sign(1, "SEED_COMMIT", {"round": 3, "commit": bytes(32)})
    fatal(*t.spectator(), "unexpected", 1, t.ids)

    # The same rule on each sender's chain: a skip from turn 0 to turn 2 within one round.
    t = Table3()
    t.acks()
    t.sign(2, "PLAY_COMMIT", {"round": 0, "turn": 1, "commit": bytes(32), "state": bytes(32)})
    session, faults = t.spectator()
    assert faults == []  # one turn ahead of its previous position (0, 0): allowed
    t.sign(2, "PLAY_COMMIT", {"round": 0, "turn": 3, "commit": bytes(32), "state": bytes(32)})
    fatal(*t.spectator(), "unexpected", 2, t.ids)


def test_progression_is_checked_on_acceptance_in_chain_order() -> None:
    """A skipping message delivered before the message it follows waits for its chain, then is judged:
    the verdict is the one an in-order receiver (or a replay) reaches."""
    t = Table3()
    t.acks()
    t.sign(1, "SEED_COMMIT", {"round": 0, "commit": bytes(32)})
    bad = t.sign(1, "PLAY_COMMIT", {"round": 0, "turn": 4, "commit": bytes(32), "state": bytes(32)})
    in_order, in_order_faults = t.spectator()
    late = Session(None, relay=False)
    wires = [w for w in t.wires if w != bad]
    faults = [e for w in [*wires[:-1], bad, wires[-1]] for e in late.receive(w) if isinstance(e, Fault)]
    fatal(in_order, in_order_faults, "unexpected", 1, t.ids)
    fatal(late, faults, "unexpected", 1, t.ids)
    assert [f.evidence for f in faults] == [f.evidence for f in in_order_faults] == [(bad,)]


# ----------------------------------------------------------------- 10.4: the state between rounds


@cache
def finished() -> bytes:
    net = play(short(3, rounds=2), 7)
    check_honest(net)
    return bytes(net.transcripts[net.peers[1]])


def reference_state(round_index: int, turn: int, rows: list, scores: list, taken: list) -> bytes:
    packed = msgpack.packb([round_index, turn, rows, scores, taken], use_bin_type=True)
    return hashlib.sha256(b"p2pnimmt/state/v1" + packed).digest()


def test_round_end_and_game_end_carry_the_state_between_rounds() -> None:
    envs = [r.envelope for r in records(finished()) if r.type == "msg"]
    ends = [e for e in envs if e.kind == "ROUND_END"]
    assert {e.body["round"] for e in ends} == {0, 1}
    for e in ends:
        assert e.body["state"] == reference_state(e.body["round"], 0, [], e.body["scores"], [])
    for e in (e for e in envs if e.kind == "GAME_END"):
        assert e.body["state"] == reference_state(e.body["rounds"] - 1, 0, [], e.body["scores"], [])
        assert e.body["state"] == next(x.body["state"] for x in ends if x.body["round"] == e.body["rounds"] - 1)
    # Turn 0 of a round: the piles are n empty arrays, not one.
    first = next(e for e in envs if e.kind == "PLAY_COMMIT" and e.body["turn"] == 0)
    assert first.body["state"] != reference_state(0, 0, [], [0, 0, 0], [])


# ----------------------------------------------------------------- 13: frames, the seal, the first problem


def test_the_transcript_frame_limit() -> None:
    assert MAX_RECORD == 66_560 == MAX_FRAME + 1024
    fits = b"\x00" * MAX_RECORD
    assert [r for _, r in frames(frame(fits))] == [fits]
    with pytest.raises(DecodeError, match="over the 66560-byte limit"):
        list(frames((MAX_RECORD + 1).to_bytes(4, "big") + b"\x00" * (MAX_RECORD + 1)))
    assert decode(encode([1, bytes(32), "msg", b"x" * (MAX_FRAME + 100)]), MAX_RECORD)  # over 65,536: fine here
    data = finished()
    v = verify_transcript(data + (MAX_RECORD + 1).to_bytes(4, "big"))
    assert not v.ok and v.record is None and "malformed transcript" in v.fault


def test_the_seal_signs_its_own_link_field() -> None:
    recs = records(finished())
    seal_rec, before = recs[-1], recs[-2]
    assert seal_rec.type == "seal"
    own_link = seal_rec.value[1]
    assert own_link == link(before.raw) == hashlib.sha256(LINK_TAG + before.raw).digest()
    recorder = decode(recs[0].raw)[2]
    assert verify(recorder, seal_rec.payload, SEAL_TAG + own_link)
    assert not verify(recorder, seal_rec.payload, SEAL_TAG + before.value[1])  # not the earlier record's field


def test_the_first_problem_is_the_lowest_failing_record() -> None:
    data = finished()
    recs = records(data)
    a, b = recs[4], recs[9]
    both = flip(flip(data, b.signature_at), a.signature_at)
    v = verify_transcript(both)
    assert not v.ok and v.record == 4, v.report()
    assert verify_transcript(flip(data, b.signature_at)).record == 9
    # A frame problem anywhere is found before any record: the file is cut into frames first.
    v = verify_transcript(both[:-1])
    assert not v.ok and v.record is None and "malformed transcript" in v.fault
    # A record moved: blamed where the expected index is missing, not where the moved record lands.
    raws = [r.raw for r in recs]
    raws[5], raws[6] = raws[6], raws[5]
    v = verify_transcript(build(raws))
    assert v.record == 5 and "out of order" in v.fault


@pytest.mark.parametrize("which", ["own-start", "other-hash"])
def test_a_start_ack_from_the_host_is_unexpected(which: str) -> None:
    """Section 9 (a): the START's signer acknowledges nothing; its START_ACK is fatal `unexpected` whatever its
    `start` holds (it would stand in for a missing seat's acknowledgement)."""
    t = Table3()
    t.sign(1, "START_ACK", {"start": t.start_hash})
    t.sign(0, "START_ACK", {"start": t.start_hash if which == "own-start" else bytes(32)})
    fatal(*t.spectator(), "unexpected", 0, t.ids)
