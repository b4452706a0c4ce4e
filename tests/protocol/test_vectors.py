"""protocol.md section 16: the identity, commitment, seed, commit-set, state (fresh, mid-game and between rounds)
and signed-message vectors."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from pathlib import Path

import msgpack
import pytest

from p2pnimmt.engine import Game, Settings, shuffle
from p2pnimmt.protocol.codec import encode
from p2pnimmt.protocol.commitments import card_value, commit_set_digest, commitment, round_seed, state_hash
from p2pnimmt.protocol.envelope import NO_PREVIOUS, open_envelope, seal
from p2pnimmt.protocol.identity import Identity, fingerprint, game_id_for, peer_id, verify
from p2pnimmt.protocol.name_ranges import (
    DIGEST,
    INVISIBLE,
    PRINTABLE_BEYOND_NAMES,
    PRINTABLE_DIGEST,
    RANGES,
    UNICODE_VERSION,
)
from p2pnimmt.protocol.names import holds, is_name
from p2pnimmt.protocol.standin import stand_in_card, stand_in_row

DOC = (Path(__file__).resolve().parents[2] / "protocol.md").read_text()
V = json.loads(re.search(r"```json protocol-vectors\n(.*?)```", DOC, re.S).group(1))
h = bytes.fromhex


def test_identity() -> None:
    v = V["identity"]
    ident = Identity(h(v["secret"]))
    assert ident.public_key.hex() == v["public_key"]
    assert peer_id(ident.public_key).hex() == v["peer_id"] == ident.peer.hex()
    assert fingerprint(ident.peer) == v["fingerprint"] == ident.fingerprint


def test_game_id_is_bound_to_the_host() -> None:
    v = V["game_id"]
    assert game_id_for(h(v["host_public_key"]), h(v["salt"])).hex() == v["game_id"]
    assert game_id_for(h(v["host_public_key"]), bytes(16)).hex() != v["game_id"]


def test_play_commitment_and_its_context_bytes() -> None:
    v = V["play_commitment"]
    got = commitment("play", h(v["game_id"]), v["round"], v["turn"], v["seat"], card_value(v["card"]), h(v["nonce"]))
    assert got.hex() == v["commitment"]
    assert "95a4706c6179c410000102030405060708090a0b0c0d0e0f000301" in DOC
    assert encode(["play", h(v["game_id"]), v["round"], v["turn"], v["seat"]]).hex() == (
        "95a4706c6179c410000102030405060708090a0b0c0d0e0f000301")
    # Any other card, seat, turn or nonce gives another commitment.
    assert commitment("play", h(v["game_id"]), 0, 3, 1, card_value(54), h(v["nonce"])).hex() != v["commitment"]
    assert commitment("play", h(v["game_id"]), 0, 3, 2, card_value(55), h(v["nonce"])).hex() != v["commitment"]


def test_seed_commitment_and_round_seed() -> None:
    v = V["seed_commitment"]
    got = commitment("seed", h(v["game_id"]), v["round"], 0, v["seat"], h(v["contribution"]), h(v["nonce"]))
    assert got.hex() == v["commitment"]
    s = V["round_seed"]
    assert round_seed(h(s["game_id"]), s["round"], [h(c) for c in s["contributions"]]).hex() == s["seed"]
    assert round_seed(h(s["game_id"]), s["round"], [h(c) for c in reversed(s["contributions"])]).hex() != s["seed"]


def test_commit_set_digest() -> None:
    v = V["commit_set"]
    assert commit_set_digest([h(x) for x in v["message_hashes"]]).hex() == v["digest"]


def reference_state(v: dict) -> bytes:
    """Section 10.4 from its prose alone: SHA-256(tag || msgpack [round, turn, rows, scores, taken])."""
    encoded = msgpack.packb([v["round"], v["turn"], v["rows"], v["scores"], v["taken"]], use_bin_type=True)
    assert encoded.hex() == v["encoded"]
    return hashlib.sha256(b"p2pnimmt/state/v1" + encoded).digest()


def test_state_hash_of_a_fresh_deal() -> None:
    v = V["state_hash"]
    game = Game(Settings(players=v["players"]))
    game.start_round(shuffle(h(v["deal_seed"]), game.deck))
    assert [list(r) for r in game.round.rows] == v["rows"]
    assert (game.round.turn, game.scores, game.round.taken) == (v["turn"], v["scores"], v["taken"])
    assert state_hash(game, v["round"]).hex() == v["state"] == reference_state(v).hex()


def stand_in_game(seeds: list[str], players: int, last_turns: int) -> tuple[Game, list[bytes]]:
    """Rounds dealt by `seeds`, every move the stand-in's; all but the last round finished, the last one
    `last_turns` turns in. Also returns the state after each finished round (what its ROUND_END carries)."""
    game = Game(Settings(players=players, max_rounds=len(seeds) + 1, point_limit=None, deal="open"))
    between = []
    for r, seed in enumerate(seeds):
        game.start_round(shuffle(h(seed), game.deck))
        last = r == len(seeds) - 1
        rnd = game.round
        for _ in range(last_turns if last else 10):
            rnd.play_turn([stand_in_card(hand) for hand in rnd.hands], lambda _seat: stand_in_row(rnd.rows))
        if not last:
            game.finish_round()
            between.append(state_hash(game, r))
    return game, between


def test_state_hash_mid_game_has_turn_scores_and_sorted_piles() -> None:
    v = V["state_hash_mid_game"]
    game, _ = stand_in_game(v["deal_seeds"], v["players"], v["turn"])
    rnd = game.round
    assert (rnd.turn, [list(r) for r in rnd.rows], game.scores) == (v["turn"], v["rows"], v["scores"])
    assert [sorted(pile) for pile in rnd.taken] == v["taken"]
    assert any(pile != sorted(pile) for pile in rnd.taken)  # the vector shows that piles are hashed sorted
    assert v["turn"] > 0 and any(v["scores"]) and all(v["taken"])
    assert state_hash(game, v["round"]).hex() == v["state"] == reference_state(v).hex()


def test_state_hash_between_rounds() -> None:
    v = V["state_hash_between_rounds"]
    mid = V["state_hash_mid_game"]
    _, between = stand_in_game(mid["deal_seeds"], mid["players"], 0)
    assert (v["turn"], v["rows"], v["taken"]) == (0, [], [])
    assert v["scores"] == mid["scores"]  # the totals after round 0 are what round 1 started from
    assert between[v["round"]].hex() == v["state"] == reference_state(v).hex()


def test_signed_message_bytes_signature_and_hash() -> None:
    v = V["signed_message"]
    ident = Identity(h(v["signer_secret"]))
    body = {k: (h(x) if isinstance(x, str) else x) for k, x in v["body"].items()}
    env = seal(ident, h(v["game_id"]), v["seq"], NO_PREVIOUS, v["kind"], body)
    assert env.signed.hex() == v["signed"]
    assert env.signature.hex() == v["signature"]  # Ed25519 is deterministic
    assert env.wire.hex() == v["wire"]
    assert env.hash.hex() == v["hash"]
    opened = open_envelope(h(v["wire"]))
    assert opened.check_signature(ident.public_key)
    assert opened.kind == "PLAY_COMMIT" and opened.body == body and opened.seq == 0
    assert verify(ident.public_key, h(v["signature"]), b"p2pnimmt/message/v1" + h(v["signed"]))
    assert not verify(ident.public_key, h(v["signature"]), b"p2pnimmt/message/v1" + h(v["signed"])[:-1] + b"\x00")


def test_the_messages_of_drops_keeps_and_taking_a_seat_back() -> None:
    """Section 16's message vectors (KEEP, DROP and KEEP with a `place`: a draft's pick,
    step 32's ROUND_END and keys; REJOIN, ROUND_END with `back`):
    the exact bytes and hash of each, and each body passes the body check."""
    from p2pnimmt.protocol.messages import check_body

    block = json.loads(re.search(r"```json message-vectors\n(.*?)```", DOC, re.S).group(1))
    ident = Identity(h(block["signer_secret"]))
    kinds = []
    for v in block["messages"]:
        body = {k: (h(x) if isinstance(x, str) else x) for k, x in v["body"].items()}
        check_body(v["kind"], body)
        env = seal(ident, h(block["game_id"]), v["seq"], h(v["prev"]), v["kind"], body)
        assert env.wire.hex() == v["wire"] and env.hash.hex() == v["hash"], v["kind"]
        opened = open_envelope(h(v["wire"]))
        assert opened.check_signature(ident.public_key) and opened.kind == v["kind"] and opened.body == body
        kinds.append(v["kind"])
    assert sorted(set(kinds)) == ["DROP", "KEEP", "REJOIN", "ROUND_END"]


def test_the_envelope_refusals() -> None:
    """Section 16's `envelope-refusals` (section 8, check 1): `version` is the integer 1; the float 1.0 and true,
    each validly signed, are refused in the words given (before issue 25's settling the reference took both)."""
    from p2pnimmt.protocol.codec import DecodeError, decode

    block = json.loads(re.search(r"```json envelope-refusals\n(.*?)```", DOC, re.S).group(1))
    ident = Identity(h(block["signer_secret"]))
    assert [v["version"] for v in block["messages"]] == ["1", "1.0", "true"]
    for v in block["messages"]:
        wire = h(v["wire"])
        signed, signature = decode(wire)
        assert verify(ident.public_key, signature, b"p2pnimmt/message/v1" + signed)
        assert decode(signed)[0] == 1 and decode(signed)[1] == h(block["game_id"])
        if v["refusal"] is None:
            assert open_envelope(wire).kind == "STANDIN"
            continue
        with pytest.raises(DecodeError) as refused:
            open_envelope(wire)
        assert str(refused.value) == v["refusal"]


def test_the_decode_refusals() -> None:
    """Section 16's `decode-refusals` (sections 7 and 8): each value is taken or refused by the codec in the words
    given, each message by open_envelope; the block holds a case of each refusal section 7 and check 1's shape name
    (every word below, kept in step with the codec's and the envelope's)."""
    from p2pnimmt.protocol.codec import DecodeError, decode

    block = json.loads(re.search(r"```json decode-refusals\n(.*?)```", DOC, re.S).group(1))
    found = []
    for v in block["values"]:
        data = b"\x91" * v.get("nest", 0) + h(v["hex"])
        if v["refusal"] is None:
            decode(data)
            continue
        with pytest.raises(DecodeError) as refused:
            decode(data)
        assert str(refused.value) == v["refusal"], v["why"]
        found.append(v["refusal"])
    for v in block["envelopes"]:
        if v["refusal"] is None:
            assert open_envelope(h(v["wire"])).kind == "STANDIN", v["why"]
            continue
        with pytest.raises(DecodeError) as refused:
            open_envelope(h(v["wire"]))
        assert str(refused.value) == v["refusal"], v["why"]
        found.append(v["refusal"])
    words = ["no bytes at all", "incomplete input", "trailing bytes", "FormatError", "exceeds max_ext_len",
             "ext type 5 is not allowed",
             "invalid timestamp data (length 0)", "max_array_len", "max_map_len", "max_str_len", "'utf-8' codec",
             "int is not allowed for map key", "map key b'a' is not a string", "duplicate map key",
             "not canonical msgpack", "nested deeper", "StackError", "a message must be", "signature must be",
             "signed part must be", "protocol version", "game id must be", "sender must be", "sequence number",
             "previous hash", "kind must be", "body must be"]
    assert [w for w in words if not any(w in f for f in found)] == []


def test_the_body_refusals() -> None:
    """Section 16's `body-refusals` (section 9, check 3): each body taken or refused by check_body in the words given
    (the R of `bad-body`'s `X: R`), in the check's order; every kind of word the check says is among them."""
    from p2pnimmt.protocol.codec import decode
    from p2pnimmt.protocol.messages import BodyError, check_body

    block = json.loads(re.search(r"```json body-refusals\n(.*?)```", DOC, re.S).group(1))
    found = []
    for v in block["bodies"]:
        body = decode(h(v["body"]))
        if v["refusal"] is None:
            check_body(v["kind"], body)
            continue
        with pytest.raises(BodyError) as refused:
            check_body(v["kind"], body)
        assert str(refused.value) == v["refusal"], v["why"]
        found.append(v["refusal"])
    words = ["is invalid", "has unknown fields", "lacks field", "scores for", "none left to play", "points end"]
    assert [w for w in words if not any(w in f for f in found)] == []


def test_the_progression_vectors() -> None:
    """Section 9's `progression-vectors`: seat 1's messages fed to a spectator's session after the START and the
    START_ACKs; every one taken, or the last refused with the fault given (section 9's progression rule, its words)."""
    from p2pnimmt.protocol.messages import FIELDS
    from p2pnimmt.protocol.session import Session

    block = json.loads(re.search(r"```json progression-vectors\n(.*?)```", DOC, re.S).group(1))
    seats = [Identity(bytes([i]) * 32) for i in (1, 2, 3)]
    salt = bytes([7]) * 16
    game = game_id_for(seats[0].public_key, salt)
    start = seal(seats[0], game, 0, NO_PREVIOUS, "START", {
        "salt": salt, "settings": {"variant": "standard", "point_limit": None, "max_rounds": 3, "deal": "open"},
        "roster": [{"key": seat.public_key, "name": name, "bot": False} for seat, name in zip(seats, "abc")]})
    acks = [seal(seat, game, 0, NO_PREVIOUS, "START_ACK", {"start": start.hash}) for seat in seats[1:]]
    refused = 0
    for case in block["cases"]:
        session = Session(None)
        for env in (start, *acks):
            assert not [o for o in session.receive(env.wire) if type(o).__name__ == "Fault"]
        prev, found = acks[0].hash, None
        for seq, (kind, given) in enumerate(case["messages"], start=1):
            assert found is None, case["why"]  # only the last message may prove a fault
            env = seal(seats[1], game, seq, prev, kind, {name: given.get(name, bytes(32)) for name in FIELDS[kind]}
                       | given)
            prev = env.hash
            faults = [o for o in session.receive(env.wire) if type(o).__name__ == "Fault"]
            found = f"{faults[0].code}: {faults[0].detail}" if faults else None
        assert found == case["refusal"], case["why"]
        refused += found is not None
    assert 0 < refused < len(block["cases"])


def test_the_drop_vectors() -> None:
    """Section 11.1's `drop-vectors`: the DROPs at (0, 0), fed to a spectator's session after the START and the
    START_ACKs, drop exactly the seats given (the one-seat rule; sets of seats by each voter's first m DROPs)."""
    from p2pnimmt.protocol.session import Session

    block = json.loads(re.search(r"```json drop-vectors\n(.*?)```", DOC, re.S).group(1))
    for case in block["cases"]:
        seats = [Identity(bytes([i + 1]) * 32) for i in range(case["seats"])]
        salt = bytes([7]) * 16
        game = game_id_for(seats[0].public_key, salt)
        start = seal(seats[0], game, 0, NO_PREVIOUS, "START", {
            "salt": salt, "settings": {"variant": "standard", "point_limit": None, "max_rounds": 3, "deal": "open"},
            "roster": [{"key": seat.public_key, "name": "abcdefghij"[k], "bot": False} for k, seat in enumerate(seats)]})
        chains = {0: start}
        wires = [start.wire]
        for k, seat in enumerate(seats[1:], start=1):
            chains[k] = seal(seat, game, 0, NO_PREVIOUS, "START_ACK", {"start": start.hash})
            wires.append(chains[k].wire)
        for voter, target in case["drops"]:
            last = chains[voter]
            chains[voter] = seal(seats[voter], game, last.seq + 1, last.hash, "DROP",
                                 {"round": 0, "step": 0, "seat": target})
            wires.append(chains[voter].wire)
        session = Session(None)
        for wire in wires:
            assert not [o for o in session.receive(wire) if type(o).__name__ == "Fault"], case["why"]
        assert sorted(session.table.dropped) == case["dropped"], case["why"]
    assert any(len(c["dropped"]) > 1 for c in block["cases"]) and any(not c["dropped"] for c in block["cases"])


def test_the_transcript_vector() -> None:
    """Section 13's `transcript-vectors`: the recorder's journal writes the file byte for byte (the header, the
    record chain, the fault record's keys in their order, its recorded evidence left out, the seal)."""
    from p2pnimmt.protocol.codec import decode
    from p2pnimmt.protocol.events import Fault
    from p2pnimmt.protocol.transcript import MAX_RECORD, TranscriptJournal, frames

    block = json.loads(re.search(r"```json transcript-vectors\n(.*?)```", DOC, re.S).group(1))
    refusals = json.loads(re.search(r"```json canonical-refusals\n(.*?)```", DOC, re.S).group(1))["messages"]
    fault = block["fault"]
    out = bytearray()
    journal = TranscriptJournal(out.extend, Identity(h(block["recorder_secret"])))
    journal.message(h(refusals[block["msg"]]["wire"]))
    journal.fault(Fault(h(fault["peer"]), fault["code"], fault["detail"], fault["fatal"],
                        tuple(h(refusals[i]["wire"]) for i in fault["evidence"])))
    journal.seal()
    journal.flush()
    assert bytes(out).hex() == block["file"]
    for case in block["room"]:  # evidence that would not fit the record is left out (section 13, "Fault records")
        written = bytearray()
        journal = TranscriptJournal(written.extend, Identity(h(block["recorder_secret"])))
        detail = case.get("prefix", "") + case["detail"] * case["times"]
        journal.fault(Fault(bytes(16), "equivocation", detail, True, tuple(bytes(n) for n in case["evidence"])))
        journal.flush()
        (_header, record) = [r for _at, r in frames(bytes(written))]
        index, _link, what, payload = decode(record, MAX_RECORD)  # a detail over 1,024 bytes is refused here
        assert (index, what, len(payload["evidence"])) == (1, "fault", case["kept"]), case["why"]
        assert len(record) == case["record"] <= MAX_RECORD, case["why"]
        assert payload["detail"] == re.sub("[\ud800-\udfff]", "\ufffd", detail[:case.get("cut", len(detail))]), \
            case["why"]  # code points, a lone surrogate written as U+FFFD


def test_the_start_refusals() -> None:
    """Section 16's `start-refusals` (section 8): each START delivered to a spectator's session with no START yet is
    taken or not as given, with the fault given (its checks' order; bad-signature for the signature alone)."""
    from p2pnimmt.protocol.session import Session

    block = json.loads(re.search(r"```json start-refusals\n(.*?)```", DOC, re.S).group(1))
    for case in block["cases"]:
        session = Session(None)
        faults = [o for o in session.receive(h(case["wire"]), h(block["delivered_by"])) if type(o).__name__ == "Fault"]
        found = {"code": faults[0].code, "fatal": faults[0].fatal, "detail": faults[0].detail} if faults else None
        assert (session.table.start is not None, found) == (case["taken"], case["fault"]), case["why"]
    assert {c["fault"]["code"] for c in block["cases"] if c["fault"]} == {"malformed", "bad-signature", "chain-broken"}


def test_the_chain_vectors() -> None:
    """Section 16's `chain-vectors` (section 8, check 4): each case's deliveries, fed to a fresh spectator's session,
    record exactly the faults given, at the deliveries given."""
    from p2pnimmt.protocol.session import Session

    block = json.loads(re.search(r"```json chain-vectors\n(.*?)```", DOC, re.S).group(1))
    for case in block["cases"]:
        session = Session(None)
        found = []
        for i, (name, by) in enumerate(case["deliveries"]):
            found += [[i, o.code, o.fatal, o.detail] for o in session.receive(h(block["wires"][name]), h(block["peers"][by]))
                      if type(o).__name__ == "Fault"]
        assert found == case["faults"], case["why"]
    assert {f[1] for c in block["cases"] for f in c["faults"]} == {"replay", "equivocation", "chain-broken", "bad-signature", "unexpected"}


def test_the_canonical_refusals() -> None:
    """Section 16's `canonical-refusals` (section 7): the block is what tests/protocol/canonical_vectors.py makes; the
    canonical message and one with its body's keys in another order are taken, every other form of it refused in the
    words given, by the codec and by open_envelope alike, each signed part validly signed; and each (but the float,
    the key twice and the byte after) is the very message in another form, as a lenient msgpack reader finds."""
    from canonical_vectors import block_text

    from p2pnimmt.protocol.codec import DecodeError, NotCanonical, decode

    text = re.search(r"```json canonical-refusals\n(.*?)```", DOC, re.S).group(1)
    assert text == block_text()
    block = json.loads(text)
    ident = Identity(h(block["signer_secret"]))
    canonical = msgpack.unpackb(h(block["messages"][0]["wire"]))
    lenient = msgpack.unpackb(canonical[0])
    kinds = set()
    for v in block["messages"]:
        wire = h(v["wire"])
        if not v["why"].startswith(("a byte after", "turn as a float", "the key seat twice", "its body's keys")):
            outer = msgpack.unpackb(wire)  # any form: the same message
            assert outer[0] == canonical[0] or msgpack.unpackb(outer[0]) == lenient, v["why"]
            assert verify(ident.public_key, outer[1], b"p2pnimmt/message/v1" + outer[0]), v["why"]
        if v["refusal"] is None:
            assert open_envelope(wire).body == {"round": 0, "turn": 3, "seat": 1}
            continue
        with pytest.raises(DecodeError) as refused:
            open_envelope(wire)
        assert str(refused.value) == v["refusal"], v["why"]
        kinds.add(type(refused.value))
        try:  # the codec's words: of the wire, else of its signed part, decoded on its own
            signed, _signature = decode(wire)
        except DecodeError as exc:
            assert str(exc) == v["refusal"], v["why"]
            continue
        with pytest.raises(DecodeError) as part:
            decode(signed)
        assert str(part.value) == v["refusal"].replace(" of the signed part", ""), v["why"]
    assert kinds == {DecodeError, NotCanonical}


def test_the_signature_checks() -> None:
    """Section 16's `signature-checks` (section 8, "The signature check"): the reference's verdict on each edge
    (OpenSSL's: the cofactorless equation, keys of any order, y >= p and x = 0 with the sign bit taken) — made
    in full (not from the memo of good signatures), by libsodium first, and by OpenSSL alone."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from p2pnimmt.protocol.identity import clear_verify_memo, verify_unmemoized

    block = json.loads(re.search(r"```json signature-checks\n(.*?)```", DOC, re.S).group(1))
    data = h(block["data"])
    assert len(block["cases"]) == 13 and {c["valid"] for c in block["cases"]} == {True, False}
    for case in block["cases"]:
        key, signature = h(case["key"]), h(case["signature"])
        try:
            Ed25519PublicKey.from_public_bytes(key).verify(signature, data)
            openssl = True
        except (InvalidSignature, ValueError):
            openssl = False
        assert openssl == case["valid"], case["why"]
        assert verify_unmemoized(key, signature, data) == case["valid"], case["why"]
        clear_verify_memo()
        assert verify(key, signature, data) == case["valid"], case["why"]
        assert verify(key, signature, data) == case["valid"], case["why"]  # the second time: from the memo if good


def test_printable_is_unicode_14s_whatever_python_runs() -> None:
    """Section 13, "The words of the report": the pinned table (printable: a code point a name may hold or one of
    `beyond_names`), its digest, and the words of repr and neutral, from p2pnimmt/protocol/printable.py, never the
    running Python's str.isprintable (on Python 3.11, exactly it: test_difffuzz_agrees checks that)."""
    from p2pnimmt.neutral import neutral
    from p2pnimmt.protocol.printable import is_printable, is_printable_mark, text_repr

    v = json.loads(re.search(r"```json printable\n(.*?)```", DOC, re.S).group(1))
    assert v["unicode"] == UNICODE_VERSION
    assert [(int(a, 16), int(b, 16), mark) for a, b, mark in v["beyond_names"]] == list(PRINTABLE_BEYOND_NAMES)
    table = bytes(is_printable(cp) + 2 * is_printable_mark(cp) for cp in range(0x110000))
    assert hashlib.sha256(table).hexdigest() == v["digest"] == PRINTABLE_DIGEST
    for text, words in v["repr"]:
        assert text_repr(text) == words, text
    for text, words in v["neutral"]:
        assert neutral(text) == words, text


def test_the_names_table_is_unicode_14s() -> None:
    """Section 9's **Names**: the shipped table of the code points a name may hold is the vector's (its number,
    size, ends and digest), whatever the running Python's Unicode version; on Unicode 14.0.0's Python it is
    exactly str.isprintable less the code points that show nothing (INVISIBLE: Default_Ignorable_Code_Point and
    U+2800)."""
    v = json.loads(re.search(r"```json name-ranges\n(.*?)```", DOC, re.S).group(1))
    assert v["unicode"] == UNICODE_VERSION == "14.0.0"
    assert all(a <= b < c - 1 for (a, b), (c, _) in zip(RANGES, RANGES[1:]))  # ascending, disjoint, apart
    assert len(RANGES) == v["ranges"] and sum(b - a + 1 for a, b in RANGES) == v["code_points"]
    assert list(RANGES[0]) == v["first"] and list(RANGES[-1]) == v["last"]
    packed = b"".join(a.to_bytes(4, "big") + b.to_bytes(4, "big") for a, b in RANGES)
    assert hashlib.sha256(packed).hexdigest() == v["digest"] == DIGEST
    assert all(holds(int(x, 16)) and is_name(f"q{chr(int(x, 16))}q") for x in v["allowed"])
    assert not any(holds(int(x, 16)) or is_name(f"q{chr(int(x, 16))}q") for x in v["refused"])
    assert is_name("a" * 40) and not is_name("a" * 41) and not is_name("") and not is_name(b"a")
    table = bytearray(0x110000)
    for a, b in RANGES:
        table[a : b + 1] = b"\x01" * (b - a + 1)
    edges = {cp for a, b in RANGES for cp in (a - 1, a, b, b + 1) if 0 <= cp < 0x110000}
    assert all(holds(cp) == bool(table[cp]) for cp in edges)  # the check reads the table, at every edge
    invisible = bytearray(0x110000)
    for a, b in INVISIBLE:
        invisible[a : b + 1] = b"\x01" * (b - a + 1)
    assert not any(holds(cp) for a, b in INVISIBLE for cp in range(a, b + 1))
    if unicodedata.unidata_version == UNICODE_VERSION:  # printable, and not a code point that shows nothing
        assert all((chr(cp).isprintable() and not invisible[cp]) == bool(table[cp]) for cp in range(0x110000))
