"""What the reference implementation does where protocol.md left a stranger guessing (issue 21, item 4).

Each test names its question (Q1..Q16 of item 4) and pins the behaviour protocol.md now states. The tests
of the code changes it asked for (Q1's stray row choices, Q2's picks, Q9's votes, Q10's fault records, Q14's
names) failed on the code before them.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

import pytest
from support import check_honest, play, records, short

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.codec import encode
from p2pnimmt.protocol.commitments import card_value, commit_set_digest, commitment
from p2pnimmt.protocol.envelope import NO_PREVIOUS, open_envelope, seal
from p2pnimmt.protocol.events import Fault, Outgoing
from p2pnimmt.protocol.identity import Identity, peer_id
from p2pnimmt.protocol.inbox import MAX_EARLY
from p2pnimmt.protocol.messages import FIELDS, OPTIONAL, BodyError, check_body
from p2pnimmt.protocol.phase import Step
from p2pnimmt.protocol.sealed import initial_deck
from p2pnimmt.protocol.session import Session
from p2pnimmt.protocol.standin import stand_in_card, stand_in_row
from p2pnimmt.protocol.table import EXPELS
from p2pnimmt.protocol.transcript import SEAL_TAG, TranscriptJournal, frame, link
from p2pnimmt.protocol.verify import DELIVERER_CODES, FAULT_CODES, verify_transcript

# ----------------------------------------------------------------- a table whose every seat a test signs for


class Table:
    """n seats whose messages the test signs; every message also goes to an oracle spectator (whose state gives
    the state hashes and results an honest seat would sign)."""

    def __init__(self, n: int = 3, variant: str = "standard", deal: str = "open", rounds: int = 1) -> None:
        self.n = n
        self.ids = [Identity(hashlib.sha256(f"answers/{i}".encode()).digest()) for i in range(n)]
        host = Session(self.ids[0])
        roster = [(i.public_key, f"p{k}", False) for k, i in enumerate(self.ids)]
        settings = Settings(players=n, variant=variant, deal=deal, max_rounds=rounds, point_limit=None)
        self.start = next(o.wire for o in host.host(b"\x05" * 16, settings, roster) if isinstance(o, Outgoing))
        self.game_id = host.game_id
        self.last = {k: None for k in range(n)}
        self.last[0] = open_envelope(self.start)
        self.wires = [self.start]
        self.oracle = Session(None, relay=False)
        self.oracle_faults = self._feed(self.start)

    def _feed(self, wire: bytes) -> list[Fault]:
        return [e for e in self.oracle.receive(wire) if isinstance(e, Fault)]

    def sign(self, seat: int, kind: str, body: dict) -> bytes:
        last = self.last[seat]
        env = seal(self.ids[seat], self.game_id, last.seq + 1 if last else 0, last.hash if last else NO_PREVIOUS,
                   kind, body)
        self.last[seat] = env
        self.wires.append(env.wire)
        self.oracle_faults += self._feed(env.wire)
        return env.wire

    def acks(self) -> None:
        for seat in range(1, self.n):
            self.sign(seat, "START_ACK", {"start": open_envelope(self.start).hash})

    def seed_commits(self, r: int = 0) -> None:
        for s in range(self.n):
            value = commitment("seed", self.game_id, r, 0, s, bytes([s + 1]) * 32, bytes(32))
            self.sign(s, "SEED_COMMIT", {"round": r, "commit": value})

    def seeds(self, r: int = 0) -> None:
        self.seed_commits(r)
        for s in range(self.n):
            self.sign(s, "SEED_REVEAL", {"round": r, "contribution": bytes([s + 1]) * 32, "nonce": bytes(32)})

    def turn(self, seats, choose=stand_in_card, auto=()) -> None:
        """Every seat in `seats` plays `choose(hand)` (a row choice by the stand-in's rule), marked auto if in
        `auto`; the turn is resolved at the oracle."""
        o = self.oracle
        r, t = o.round, o.turn
        state = o.table.state_now()
        hands = o.game.round.hands
        cards = {s: choose(hands[s]) for s in seats}
        hashes = {}
        for s in seats:
            value = commitment("play", self.game_id, r, t, s, card_value(cards[s]), bytes(32))
            self.sign(s, "PLAY_COMMIT", {"round": r, "turn": t, "commit": value, "state": state})
            hashes[s] = self.last[s].hash
        digest = commit_set_digest([hashes[s] for s in seats])
        for s in seats:
            self.sign(s, "PLAY_REVEAL", {"round": r, "turn": t, "card": cards[s], "nonce": bytes(32),
                                         "commits": digest, **({"auto": True} if s in auto else {})})
        chooser = o.table.record(r, t).chooser
        if (o.round, o.turn) == (r, t) and chooser is not None:
            self.sign(chooser, "ROW_CHOICE", {"round": r, "turn": t, "row": stand_in_row(o.game.round.rows),
                                              **({"auto": True} if chooser in auto else {})})
        assert (o.round, o.turn) != (r, t) or o.phase == "round-end", (o.phase, o.round, o.turn)

    def round_end(self, seats, back: dict | None = None) -> None:
        o = self.oracle
        body = {"round": o.round, "penalties": list(o.game.history[-1]), "scores": list(o.game.scores),
                "state": o.table.state_now()}
        for s in seats:
            self.sign(s, "ROUND_END", {**body, **({"back": back[s]} if back and s in back else {})})

    def spectator(self, wires: list[bytes] | None = None) -> tuple[Session, list[tuple[int, Fault]]]:
        """A fresh spectator fed `wires` (default: every message so far): itself, and (index fed, fault)."""
        session = Session(None, relay=False)
        faults = []
        for i, wire in enumerate(self.wires if wires is None else wires):
            faults += [(i, e) for e in session.receive(wire) if isinstance(e, Fault)]
        return session, faults

    def transcript(self, wires: list[bytes] | None = None) -> bytes:
        data = bytearray()
        session = Session(None, relay=False, journal=TranscriptJournal(data.extend, None))
        for wire in self.wires if wires is None else wires:
            session.receive(wire)
        return bytes(data)


def broken_at(faults: list[tuple[int, Fault]]) -> list[tuple[int, str, bytes | None]]:
    """(index fed, code, peer) of each rule break found: a fatal fault, or one that expels its signer (item 7)."""
    return [(i, f.code, f.peer) for i, f in faults if f.fatal or f.code in EXPELS]


def fault_records(data: bytes) -> list[tuple[int, str, bytes | None]]:
    """(record number, code, peer) of each fault record of a transcript."""
    return [(r.position, r.payload["code"], r.payload["peer"]) for r in records(data) if r.type == "fault"]


# ----------------------------------------------------------------- Q1: when a check of section 11 runs


@pytest.mark.parametrize("order", ["seat-1-first", "seat-2-first"])
def test_q1_commit_states_are_checked_once_every_commit_is_in_in_seat_order(order: str) -> None:
    """A PLAY_COMMIT's `state` is compared once every active seat's commit of the turn is in, in seat order:
    the fault is found at the last commit (whichever seat sent it) and names the lowest seat that differs.
    The recorder's fault record follows that last commit's record, and `verify`'s replay finds it there too
    (protocol.md 13: a signer's fault the replay did not find by then would fail at the record)."""
    t = Table()
    t.acks()
    t.seeds()
    good = t.oracle.table.state_now()
    commit = {"round": 0, "turn": 0, "commit": bytes(32)}
    wires = {seat: t.sign(seat, "PLAY_COMMIT", {**commit, "state": bytes(32)})
             for seat in ((1, 2) if order == "seat-1-first" else (2, 1))}
    first_bad = len(t.wires) - 2
    t.sign(0, "PLAY_COMMIT", {**commit, "state": good})
    session, faults = t.spectator()
    # not at the bad commits themselves
    assert broken_at(faults) == [(len(t.wires) - 1, "state-mismatch", t.ids[1].peer)]
    assert [f.evidence for _, f in faults] == [(wires[1],)]
    data = t.transcript()
    assert fault_records(data) == [(len(t.wires) + 1, "state-mismatch", t.ids[1].peer)]  # message k is record k+1
    assert len(t.wires) + 1 > first_bad + 2
    v = verify_transcript(data)
    assert not v.ok and v.record is None and "ends before the game does" in v.fault, v.report()


@pytest.mark.parametrize("order", ["low-first", "high-first"])
def test_q1_stray_row_choices_name_the_lowest_seat_whatever_came_first(order: str) -> None:
    """Two seats that do not choose sent a ROW_CHOICE for the turn before its cards were known: once they are,
    the lowest of them is named (`wrong-chooser`), in either order of arrival."""
    t = Table(n=4)
    t.acks()
    t.seeds()
    o = t.oracle
    cards = [stand_in_card(hand) for hand in o.game.round.hands]
    strays = [s for s in range(4) if s != o.game.round.chooser(cards)][1:3]
    for s in strays if order == "low-first" else strays[::-1]:
        t.sign(s, "ROW_CHOICE", {"round": 0, "turn": 0, "row": 0})
    state, hashes = o.table.state_now(), []
    for s in range(4):
        value = commitment("play", t.game_id, 0, 0, s, card_value(cards[s]), bytes(32))
        t.sign(s, "PLAY_COMMIT", {"round": 0, "turn": 0, "commit": value, "state": state})
        hashes.append(t.last[s].hash)
    for s in range(4):
        t.sign(s, "PLAY_REVEAL", {"round": 0, "turn": 0, "card": cards[s], "nonce": bytes(32),
                                  "commits": commit_set_digest(hashes)})
    session, faults = t.spectator()
    assert [(code, peer) for _, code, peer in broken_at(faults)] == [("wrong-chooser", t.ids[strays[0]].peer)]


def test_q1_a_check_of_section_9_is_reported_at_the_offending_record() -> None:
    t = Table()
    t.acks()
    t.sign(2, "PLAY_COMMIT", {"round": 0, "turn": 4, "commit": bytes(32), "state": bytes(32)})  # a skip
    t.seeds()
    data = t.transcript()
    assert fault_records(data) == [(5, "unexpected", t.ids[2].peer)]  # right after its own record, 4
    v = verify_transcript(data)
    assert not v.ok and v.record is None and "ends before the game does" in v.fault, v.report()


# ----------------------------------------------------------------- Q2: draft picks


def stray_pick(stray_first: bool) -> tuple[Table, list[bytes]]:
    """Seat 1 signs pick 0 of round 0, which is seat 0's (section 4); seat 0 signs its own."""
    t = Table(variant="draft")
    t.acks()
    stray = t.sign(1, "DRAFT_PICK", {"round": 0, "pick": 0, "card": 5})
    own = t.sign(0, "DRAFT_PICK", {"round": 0, "pick": 0, "card": 1})
    head = t.wires[:-2]
    return t, head + ([stray, own] if stray_first else [own, stray])


def test_q2_an_out_of_turn_pick_accepted_while_the_draft_waits_for_it_is_a_fault() -> None:
    t, wires = stray_pick(stray_first=True)
    session, faults = t.spectator(wires)
    assert broken_at(faults) == [(len(wires) - 2, "out-of-turn", t.ids[1].peer)]


def test_q2_an_out_of_turn_pick_is_a_fault_whenever_it_arrives() -> None:
    t, wires = stray_pick(stray_first=False)
    session, faults = t.spectator(wires)
    assert broken_at(faults) == [(len(wires) - 1, "out-of-turn", t.ids[1].peer)]


def test_q2_a_pick_numbered_for_another_of_the_senders_own_picks_is_that_pick() -> None:
    """n = 3, round 0: seat 2 makes picks 2 and 3 (section 4). Its pick numbered 3, sent first, waits in its
    slot and is pick 3: the number is the position, never a fault of its own."""
    t = Table(variant="draft")
    t.acks()
    t.sign(2, "DRAFT_PICK", {"round": 0, "pick": 3, "card": 9})
    t.sign(0, "DRAFT_PICK", {"round": 0, "pick": 0, "card": 1})
    t.sign(1, "DRAFT_PICK", {"round": 0, "pick": 1, "card": 2})
    t.sign(2, "DRAFT_PICK", {"round": 0, "pick": 2, "card": 3})
    session, faults = t.spectator()
    assert faults == [] and session.game.draft.picks == 4 and session.game.draft.hands == [[1], [2], [3, 9]]


# ----------------------------------------------------------------- Q3: held before START


def test_q3_1024_messages_are_held_per_delivering_peer_before_start() -> None:
    assert MAX_EARLY == 1024
    t = Table(n=2)
    for _ in range(MAX_EARLY + 1):
        t.sign(1, "STANDIN", {"round": 0, "turn": 0, "seat": 0})
    session = Session(None, relay=False, game_id=t.game_id)
    via = b"v" * 16
    for wire in t.wires[1:]:
        session.receive(wire, via=via)
    assert session.inbox.held()[0] == 0  # the 1,025th goes over: the peer is cut, its 1,024 dropped (session 45)
    assert list(session.inbox.overflowed()) == [via]


# ----------------------------------------------------------------- Q4: REJOIN


def test_q4_a_rejoin_is_never_duplicate_and_a_seated_seats_rejoin_is_kept() -> None:
    t = Table()
    t.acks()
    for body in ({"round": 0}, {"round": 0}, {"round": 7}):
        t.sign(2, "REJOIN", body)  # seat 2 is not dropped: kept, never a fault but for its body
    session, faults = t.spectator()
    assert faults == [] and session.fault is None
    assert open_envelope(session.slot("REJOIN", 0)[2].wire).seq == 1  # the first for the round is kept
    assert 2 in session.slot("REJOIN", 7)


def test_q4_a_rejoin_with_a_bad_body_is_bad_body_from_a_seat_still_playing_and_from_a_dropped_one() -> None:
    """protocol.md 9, item 1: a REJOIN's body is checked whether or not its sender is dropped (since issue 21's
    leftover: before, one from a dropped seat was ignored, so whether a seat being voted out lost its seat for it
    depended on whether it came before or after the last DROP; tests/protocol/test_dropped_proof.py)."""
    t = Table()
    t.acks()
    t.sign(2, "REJOIN", {"round": 0, "extra": 1})
    session, faults = t.spectator()
    assert broken_at(faults) == [(len(t.wires) - 1, "bad-body", t.ids[2].peer)]
    t = Table()
    t.acks()
    t.seed_commits()
    t.sign(0, "DROP", {"round": 0, "step": 1, "seat": 2})
    t.sign(1, "DROP", {"round": 0, "step": 1, "seat": 2})
    assert 2 in t.oracle.dropped
    t.sign(2, "REJOIN", {"round": 0, "extra": 1})
    assert [(f.code, f.peer, f.fatal) for f in t.oracle_faults] == [("bad-body", t.ids[2].peer, False)]
    assert t.oracle.fault is None and 2 in t.oracle.table.expelled and 2 in t.oracle.dropped
    session, faults = t.spectator()
    assert broken_at(faults) == [(len(t.wires) - 1, "bad-body", t.ids[2].peer)]


# ----------------------------------------------------------------- Q5, Q7: ROUND_END's back; active at a drop


def test_q5_back_entries_for_seats_not_dropped_or_not_seats_are_ignored() -> None:
    t = Table()
    t.acks()
    t.seeds()
    for _ in range(10):
        t.turn(range(3))
    t.round_end(range(3), back={1: [[0, 3], [2, 7]], 2: [[9, 9]]})
    assert t.oracle_faults == [] and t.oracle.phase == "game-end"


def test_q5_q7_back_needs_the_seats_active_at_place_1_and_a_seat_is_not_active_at_its_own_drop() -> None:
    """Seat 2 is dropped at (0, 2) and asks; seat 3 is dropped at (0, 32, 1) (it sent no ROUND_END). Seats 0 and
    1, the seats active at (0, 32, 1), list seat 2 with the seq of its ask: it is back from round 1."""
    t = Table(n=4, rounds=2)
    t.acks()
    t.seeds()
    for s in (0, 1, 3):
        t.sign(s, "DROP", {"round": 0, "step": 2, "seat": 2})
    o = t.oracle
    assert o.dropped == {2: Step(0, 2)}
    assert o.active_at(0, 1) == (0, 1, 2, 3) and o.active_at(0, 2) == (0, 1, 3)  # Q7: not at its own position
    ask = open_envelope(t.sign(2, "REJOIN", {"round": 0})).seq
    t.sign(2, "REJOIN", {"round": 0})
    for _ in range(10):
        t.turn([0, 1, 3])
    t.round_end([0, 1], back={0: [[2, ask]], 1: [[2, ask]]})
    assert o.waiting_for() == (3,)
    for s in (0, 1):
        t.sign(s, "DROP", {"round": 0, "step": 32, "seat": 3, "place": 1})
    assert t.oracle_faults == []
    assert o.round == 1 and o.dropped == {3: Step(0, 32, 1)} and o.table.absences == {2: [(Step(0, 2), 1)]}
    assert o.table.active_at(0, 32, 0) == (0, 1, 3) and o.table.active_at(0, 32, 1) == (0, 1)


# ----------------------------------------------------------------- Q6: drops count DROPs in their slots


def test_q6_a_drop_counts_only_once_in_its_slot_not_when_accepted() -> None:
    """Seat 0 votes at (0, 1) for seat 2 (open: seat 1 has not voted), then at (0, 2) for seat 1. Its later DROP
    is accepted but parked (a voter's later message, 11.1): seat 1's drop at (0, 2) counts seat 2's vote only."""
    t = Table()
    t.acks()
    t.seed_commits()
    t.sign(0, "DROP", {"round": 0, "step": 1, "seat": 2})
    t.sign(0, "DROP", {"round": 0, "step": 2, "seat": 1})
    t.sign(2, "DROP", {"round": 0, "step": 2, "seat": 1})
    table = t.oracle.table
    assert len(table.parked) == 1 and table.voters(Step(0, 2), 1) == {2}
    assert t.oracle.dropped == {} and t.oracle_faults == []


# ----------------------------------------------------------------- Q8: STANDIN's step


@pytest.mark.parametrize("vote_step, void", [(1, True), (3, False)])
def test_q8_a_standin_is_a_message_of_its_turns_commit_step(vote_step: int, void: bool) -> None:
    """STANDIN(0, 0, .) is at step 2: its signer went on from step 1 (the vote there is void), not from step 3."""
    t = Table()
    t.acks()
    t.seed_commits()
    t.sign(0, "DROP", {"round": 0, "step": vote_step, "seat": 2})
    t.sign(1, "STANDIN", {"round": 0, "turn": 0, "seat": 0})
    assert t.oracle.table.furthest[1] == Step(0, 2)
    assert t.oracle.table.vote_void(Step(0, vote_step), 2) is void


# ----------------------------------------------------------------- Q9: a vote against one's own signed word


def test_q9_a_drop_from_a_seat_that_went_on_is_unexpected() -> None:
    t = Table(n=4)
    t.acks()
    t.seeds()
    o = t.oracle
    state, hands, hashes = o.table.state_now(), o.game.round.hands, {}
    for s in range(4):
        value = commitment("play", t.game_id, 0, 0, s, card_value(stand_in_card(hands[s])), bytes(32))
        t.sign(s, "PLAY_COMMIT", {"round": 0, "turn": 0, "commit": value, "state": state})
        hashes[s] = t.last[s].hash
    for s in (0, 1):
        t.sign(s, "DROP", {"round": 0, "step": 2, "seat": 2})
    t.sign(3, "PLAY_REVEAL", {"round": 0, "turn": 0, "card": stand_in_card(hands[3]), "nonce": bytes(32),
                              "commits": commit_set_digest([hashes[s] for s in range(4)])})
    assert o.table.vote_void(Step(0, 2), 2)  # seat 3 went on from seat 2's commit: the vote is void
    t.sign(3, "DROP", {"round": 0, "step": 2, "seat": 2})  # today: counted, and seat 2 is dropped after all
    assert [(f.code, f.peer) for f in t.oracle_faults] == [("unexpected", t.ids[3].peer)]


def test_q9_a_keep_after_ones_own_drop_is_unexpected() -> None:
    t = Table()
    t.acks()
    t.seeds()
    t.sign(1, "DROP", {"round": 0, "step": 2, "seat": 2})
    t.sign(1, "KEEP", {"round": 0, "step": 2, "seat": 2})
    assert [(f.code, f.peer) for f in t.oracle_faults] == [("unexpected", t.ids[1].peer)]


def test_q9_a_drop_after_ones_own_shuffle_built_on_that_seats_is_unexpected() -> None:
    """A sealed game's shuffles have places (11.1): seat s's SEALED_SHUFFLE is at (r, 0, s), so a seat's own
    shuffle after X's is a later position than X's (it went on from X's message), but not a later one than the
    shuffle of a seat after it."""
    t = Table(n=4, deal="sealed")
    t.acks()
    deck = initial_deck(range(1, 105))
    for s in range(3):
        t.sign(s, "SEALED_SHUFFLE", {"round": 0, "deck": deck, "commit": bytes(32)})
    t.sign(0, "DROP", {"round": 0, "step": 0, "place": 1, "seat": 1})  # seat 0 shuffled before seat 1
    t.sign(2, "DROP", {"round": 0, "step": 0, "place": 3, "seat": 1})  # at seat 3's shuffle: nothing signed after
    assert t.oracle_faults == []
    t.sign(2, "DROP", {"round": 0, "step": 0, "place": 1, "seat": 1})  # its own shuffle, at (0, 0, 2), went on
    assert [(f.code, f.peer) for f in t.oracle_faults] == [("unexpected", t.ids[2].peer)]


@pytest.mark.parametrize("body, why", [
    ({"round": 0, "step": 0, "seat": 1}, "without the place"),
    ({"round": 0, "step": 1, "seat": 1}, "without the place"),
    ({"round": 0, "step": 0, "place": 4, "seat": 1}, "one per seat"),
])
def test_q9_a_drop_at_a_sealed_shuffle_or_unlock_names_a_seat_as_its_place(body: dict, why: str) -> None:
    t = Table(deal="sealed")
    t.acks()
    t.sign(0, "DROP", body)
    assert [(f.code, f.peer) for f in t.oracle_faults] == [("unexpected", t.ids[0].peer)]
    assert why in t.oracle_faults[0].detail


def test_q9_a_drop_after_ones_own_keep_is_unexpected() -> None:
    """A KEEP says its signer went on with X's message (it voids the vote); a DROP of X after it would undo that."""
    t = Table(n=4)
    t.acks()
    t.seed_commits()
    t.sign(0, "DROP", {"round": 0, "step": 1, "seat": 2})
    t.sign(1, "KEEP", {"round": 0, "step": 1, "seat": 2})
    assert t.oracle_faults == [] and t.oracle.table.vote_void(Step(0, 1), 2)
    t.sign(1, "DROP", {"round": 0, "step": 1, "seat": 2})
    assert [(f.code, f.peer) for f in t.oracle_faults] == [("unexpected", t.ids[1].peer)]


# ----------------------------------------------------------------- Q10, Q11: fault records and what comes before START


@cache
def honest() -> tuple[bytes, Identity]:
    net = play(short(3), 11)
    check_honest(net)
    return bytes(net.transcripts[net.peers[1]]), net.identities[1]


def relinked(data: bytes, recorder: Identity, insert_at: int, extra: list[tuple[str, object]]) -> bytes:
    """The transcript with records `extra` inserted before record `insert_at`, re-indexed, re-linked, re-sealed."""
    recs = records(data)
    body = [(r.value[2], r.value[3]) for r in recs[1:] if r.type != "seal"]
    body[insert_at - 1:insert_at - 1] = extra
    out, last = [recs[0].raw], link(recs[0].raw)
    for index, (kind, payload) in enumerate(body, 1):
        raw = encode([index, last, kind, payload])
        out.append(raw)
        last = link(raw)
    out.append(encode([len(body) + 1, last, "seal", recorder.sign(SEAL_TAG + last)]))
    return b"".join(frame(r) for r in out)


def fault_record(peer: bytes | None, code: str, detail: str = "x") -> tuple[str, dict]:
    return "fault", {"peer": peer, "code": code, "detail": detail, "fatal": False, "evidence": []}


def test_q10_a_well_formed_non_fatal_record_of_the_deliverer_never_changes_the_verdict() -> None:
    data, recorder = honest()
    assert verify_transcript(data).ok
    v = verify_transcript(relinked(data, recorder, 5, [fault_record(b"\x07" * 16, "malformed")]))
    assert v.ok, v.report()
    assert v.summary.splitlines()[:-1] == verify_transcript(data).summary.splitlines()[:-1]


@pytest.mark.parametrize("case", ["detail-600", "bogus-absent", "unknown-code", "extra-key"])
def test_q10_verify_checks_the_shape_of_every_fault_record_and_the_replay_backs_a_signers(case: str) -> None:
    data, recorder = honest()
    seat2 = open_envelope(records(data)[1].payload).body["roster"][2]["key"]
    record = {
        "detail-600": fault_record(None, "malformed", "x" * 600),
        "bogus-absent": fault_record(peer_id(seat2), "absent"),
        "unknown-code": fault_record(None, "made-up"),
        "extra-key": ("fault", {**fault_record(None, "malformed")[1], "more": 1}),
    }[case]
    v = verify_transcript(relinked(data, recorder, 5, [record]))
    assert not v.ok and v.record == 5, v.report()


def test_q10_verify_knows_the_fault_codes_of_section_12_and_which_blame_a_deliverer() -> None:
    doc = (Path(__file__).resolve().parents[2] / "protocol.md").read_text(encoding="utf-8")
    table = doc[doc.index("## 12. Faults"):doc.index("## 13. Transcript")]
    rows = [line.split("|")[1:3] for line in table.splitlines() if line.startswith("| `")]
    codes = {code: blamed.strip() for first, blamed in rows for code in re.findall(r"`([a-z-]+)`", first)}
    assert set(codes) == FAULT_CODES
    assert {code for code, blamed in codes.items() if blamed == "deliverer"} == DELIVERER_CODES


def test_q11_fault_records_may_come_before_the_start_a_message_may_not() -> None:
    t = Table()
    t.acks()
    data = bytearray()
    ident = Identity(b"\x09" * 32)
    session = Session(ident, relay=False, journal=TranscriptJournal(data.extend, ident))
    assert [f.code for f in session.receive(b"\x01garbage", via=b"x" * 16)] == ["malformed"]
    for wire in t.wires:
        session.receive(wire)
    assert [r.kind for r in records(bytes(data))] == ["header", "fault", "START", "START_ACK", "START_ACK"]
    v = verify_transcript(bytes(data))
    assert not v.ok and v.record is None and "ends before the game does" in v.fault  # records 1..4 read fine
    # A message record before the START: nothing can be accepted before START, so it is not the next of a chain.
    ack = records(bytes(data))[3].value[3]
    v = verify_transcript(relinked(bytes(data), ident, 1, [("msg", ack)]))
    assert not v.ok and v.record == 1 and "not the next in its sender's chain" in v.fault


# ----------------------------------------------------------------- Q12: verify's exit status


def test_q12_verify_exits_1_for_a_damaged_transcript_and_2_for_a_file_that_is_none_or_cannot_be_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """protocol.md 13, "Exit status": 1 for a transcript that fails (malformed, cut short, empty, a bad record 0),
    2 for a file that is plainly not a transcript (a first frame over the record limit and no magic in its first
    64 bytes), one that cannot be read, or a bad command line. (It said 1 for a foreign file: issue 21 item 4.)"""
    from p2pnimmt.cli import main

    data, _recorder = honest()
    header_flipped = bytearray(data)
    header_flipped[4 + 5] ^= 1  # inside record 0's magic: a damaged transcript, not something else
    cases: dict[str, tuple[bytes | None, int, str]] = {
        "honest": (data, 0, ""),
        "empty": (b"", 1, "FAILED at empty transcript"),
        "cut": (data[:1000], 1, "FAILED at malformed transcript"),
        "bad-header": (bytes(header_flipped), 1, "FAILED at record 0: not a p2pnimmt transcript (bad header)"),
        "huge-frame-magic-near": (b"\xff\xff\xff\xff p2pnimmt-transcript" + bytes(64), 1, "FAILED at"),
        "text": (b"# p2pnimmt\n\n**6 nimmt!** for a local network\n", 2,
                 "is not a p2pnimmt transcript (it does not begin with a transcript header)"),
        "missing": (None, 2, "cannot read"),
    }
    for name, (content, status, words) in cases.items():
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        assert main(["verify", str(path)]) == status, name
        assert words in capsys.readouterr().err, name
    assert main(["verify", str(tmp_path)]) == 2 and "cannot read" in capsys.readouterr().err  # a directory
    with pytest.raises(SystemExit) as usage:
        main(["verify"])
    assert usage.value.code == 2


# ----------------------------------------------------------------- Q13: one DROP per position


def test_q13_duplicate_is_per_position_so_the_two_places_of_step_32_are_two_slots() -> None:
    t = Table(deal="sealed")
    t.acks()
    for turn in range(10):
        t.sign(1, "STANDIN", {"round": 0, "turn": turn, "seat": 2})  # seat 1 moves on to turn 9 (section 9)
    t.sign(1, "DROP", {"round": 0, "step": 32, "seat": 2, "place": 0})
    t.sign(1, "DROP", {"round": 0, "step": 32, "seat": 2, "place": 1})
    session, faults = t.spectator()
    assert faults == [] and session.fault is None


# ----------------------------------------------------------------- Q14: names and the Unicode version


def test_q14_names_are_checked_against_unicode_14_whatever_the_python() -> None:
    def start(name: str) -> dict:
        return {"salt": bytes(16), "settings": {"variant": "standard", "point_limit": 66, "max_rounds": None,
                                                "deal": "open"},
                "roster": [{"key": bytes(32), "name": name, "bot": False},
                           {"key": b"\1" * 32, "name": "b", "bot": False}]}

    check_body("START", start("\U0001fae7"))  # BUBBLES, assigned in Unicode 14.0
    with pytest.raises(BodyError):
        check_body("START", start("\U0001fae8"))  # SHAKING FACE, assigned in Unicode 15.0: Cn in 14.0


# ----------------------------------------------------------------- Q15, Q16: auto and away


def test_q15_q16_auto_is_the_signers_word_and_away_is_derived_from_it() -> None:
    """Seat 1 plays its highest card three turns in a row, marked auto: no fault (the card is not the stand-in's,
    and nobody checks), and every node counts it away. No message carries `away`."""
    t = Table()
    t.acks()
    t.seeds()
    for _ in range(3):
        t.turn(range(3), choose=max, auto=(1,))
    assert t.oracle_faults == [] and t.oracle.away(1) and not t.oracle.away(0)
    session, faults = t.spectator()
    assert faults == [] and session.away(1)
    assert all("away" not in fields for fields in (*FIELDS.values(), *OPTIONAL.values()))
