"""The `where` record a START and a START_ACK may carry (protocol.md 9, `where` and **Types**; 14, "In the START and
the START_ACKs"; section 16's start-where-vectors; session 41): the messages byte for byte; a record not of its form
is `bad-body` (a START not taken, a START_ACK refused); one of its form that is no signed record of its signer for
this game passes the body check and is only never taken into a node's book. The same vectors are checked by
web/peer/test/start_where.test.ts: both implementations give the same verdict on the same bytes. The game it buys:
tests/net/test_lying_lobby.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from p2pnimmt.net.where import where_from
from p2pnimmt.protocol.envelope import NO_PREVIOUS, open_envelope, seal
from p2pnimmt.protocol.identity import Identity, game_id_for
from p2pnimmt.protocol.messages import BodyError, check_body
from p2pnimmt.protocol.session import Session

DOC = (Path(__file__).resolve().parents[2] / "protocol.md").read_text()
V = json.loads(re.search(r"```json start-where-vectors\n(.*?)```", DOC, re.S).group(1))
CARRY = json.loads(re.search(r"```json carry-vectors\n(.*?)```", DOC, re.S).group(1))
ANN = Identity(bytes.fromhex(CARRY["secret"]))
BOB = Identity(bytes.fromhex(CARRY["other_secret"]))
SALT = bytes.fromhex(CARRY["salt"])
GAME = game_id_for(ANN.public_key, SALT)


def record(value: Any) -> Any:
    """A vector's record: a str in the signature's place is its bytes in hex."""
    if isinstance(value, list) and len(value) >= 4 and isinstance(value[3], str):
        return [*value[:3], bytes.fromhex(value[3]), *value[4:]]
    return value


def start_body(where: Any) -> dict[str, Any]:
    return {"salt": SALT, "settings": {"variant": "standard", "point_limit": 66, "max_rounds": None, "deal": "open"},
            "roster": [{"key": ANN.public_key, "name": "ann", "bot": False},
                       {"key": BOB.public_key, "name": "bob", "bot": False}],
            "where": where}


START = seal(ANN, GAME, 0, NO_PREVIOUS, "START", start_body(record(V["host_where"])))


def ack(where: Any):
    return seal(BOB, GAME, 0, NO_PREVIOUS, "START_ACK", {"start": START.hash, "where": where})


def test_the_vectors_start_and_start_ack_byte_for_byte_each_record_its_signers() -> None:
    assert START.wire.hex() == V["start"]
    assert ack(record(V["seat_where"])).wire.hex() == V["start_ack"]
    assert open_envelope(bytes.fromhex(V["start"])).body["where"] == record(V["host_where"])
    assert where_from(record(V["host_where"]), ANN.public_key, GAME) is not None
    assert where_from(record(V["seat_where"]), BOB.public_key, GAME) is not None
    host = Session(ANN, game_id=GAME)  # the host takes bob's START_ACK: the game starts
    host.receive(START.wire)
    faults = host.receive(bytes.fromhex(V["start_ack"]))
    assert host.phase == "deal", faults


@pytest.mark.parametrize("case", V["not_bodies"], ids=lambda c: c["why"])
def test_a_record_not_of_its_form_is_bad_body_and_refuses_the_start_ack(case: dict) -> None:
    with pytest.raises(BodyError, match="START_ACK field 'where' is invalid"):
        check_body("START_ACK", {"start": START.hash, "where": record(case["where"])})
    host = Session(ANN, game_id=GAME)
    host.receive(START.wire)
    faults = [e for e in host.receive(ack(record(case["where"])).wire) if getattr(e, "code", None)]
    assert [f.code for f in faults] == ["bad-body"], case["why"]
    assert host.phase == "starting" and host.table.refused == {1: "bad-body"}, case["why"]


@pytest.mark.parametrize("case", V["not_bodies"][:4], ids=lambda c: c["why"])
def test_a_start_whose_record_is_not_of_its_form_is_not_taken(case: dict) -> None:
    bob = Session(BOB, game_id=GAME)
    faults = bob.receive(seal(ANN, GAME, 0, NO_PREVIOUS, "START", start_body(record(case["where"]))).wire)
    assert bob.start is None and [f.code for f in faults if hasattr(f, "code")] == ["malformed"], case["why"]


@pytest.mark.parametrize("case", V["not_taken"], ids=lambda c: c["why"])
def test_a_record_of_its_form_that_is_not_bobs_signed_word_is_taken_with_its_start_ack_not_into_a_book(
        case: dict) -> None:
    check_body("START_ACK", {"start": START.hash, "where": record(case["where"])})
    host = Session(ANN, game_id=GAME)
    host.receive(START.wire)
    host.receive(ack(record(case["where"])).wire)
    assert host.phase == "deal", case["why"]  # the START_ACK stands: the game starts
    assert where_from(record(case["where"]), BOB.public_key, GAME) is None, case["why"]


def test_a_session_without_a_network_signs_no_record_and_a_seat_that_listens_always_adds_its_own() -> None:
    """The golden transcripts stay as they were: no own record, no field. A seat that listens puts its record in its
    START_ACK whether or not the START carries the host's: a host that left its own out must not keep every seat's
    out of the START_ACKs (the withholding of protocol.md 14 would work again)."""
    bare = seal(ANN, GAME, 0, NO_PREVIOUS, "START", {k: v for k, v in start_body(None).items() if k != "where"})
    for start in (bare, START):
        bob = Session(BOB, game_id=GAME)
        bob.table.own_where = lambda: record(V["seat_where"])
        signed = [open_envelope(o.wire) for o in bob.receive(start.wire) if hasattr(o, "wire")]
        acks = [env for env in signed if env.kind == "START_ACK"]
        assert len(acks) == 1 and set(acks[0].body) == {"start", "where"}
        assert acks[0].body["where"] == record(V["seat_where"])
        if start is START:
            assert acks[0].wire.hex() == V["start_ack"]
    quiet = Session(BOB, game_id=GAME)  # no own record (no network): none in its START_ACK either
    signed = [open_envelope(o.wire) for o in quiet.receive(START.wire) if hasattr(o, "wire")]
    assert [set(env.body) for env in signed if env.kind == "START_ACK"] == [{"start"}]
