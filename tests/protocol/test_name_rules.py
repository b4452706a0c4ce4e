"""Names that impersonate are not names, and no two seats look alike (issue 22 item 7, issue 23 item 1):
protocol.md 9, **Names**, its vector `name-rules`, and a START whose roster breaks the rule is not accepted."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from pathlib import Path

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.envelope import NO_PREVIOUS, seal
from p2pnimmt.protocol.events import Fault, Outgoing
from p2pnimmt.protocol.identity import SALT_SIZE, Identity, game_id_for
from p2pnimmt.protocol.messages import BodyError, check_body, settings_body
from p2pnimmt.protocol.name_ranges import MARKS, MARKS_DIGEST
from p2pnimmt.protocol.name_skeleton import DIGEST, PROTOTYPES
from p2pnimmt.protocol.names import is_name, look_alike, name_problem, plain, skeleton
from p2pnimmt.protocol.session import Session

DOC = (Path(__file__).parents[2] / "protocol.md").read_text()
VECTOR = json.loads(re.search(r"```json name-rules\n(.*?)```", DOC, re.S).group(1))


def test_the_shipped_tables_are_the_vectors():
    marks = VECTOR["marks"]
    packed = b"".join(a.to_bytes(4, "big") + b.to_bytes(4, "big") for a, b in MARKS)
    assert len(MARKS) == marks["ranges"] and sum(b - a + 1 for a, b in MARKS) == marks["code_points"]
    assert hashlib.sha256(packed).hexdigest() == marks["digest"] == MARKS_DIGEST
    packed = b"".join(s.to_bytes(4, "big") + bytes([len(t)]) + b"".join(ord(c).to_bytes(4, "big") for c in t)
                      for s, t in sorted(PROTOTYPES.items()))
    assert len(PROTOTYPES) == VECTOR["confusables"]["mappings"]
    assert hashlib.sha256(packed).hexdigest() == VECTOR["confusables"]["digest"] == DIGEST


def test_names_and_not_names():
    assert all(is_name(name) for name in VECTOR["names"])
    refused = {name: name_problem(name) for name in VECTOR["not_names"]}
    assert all(refused.values()), [name for name, why in refused.items() if not why]
    # each says what is wrong, in words
    assert "NFKC" in refused["\uff21\uff2e\uff2e"] and "3 combining marks" in refused["q\u0301\u0301\u0301\u0301"]
    assert "space" in refused[" ann"] and "U+202E" in refused["a\u202eb"]


def test_the_issues_impostors_are_refused_or_look_alike():
    assert not is_name("x" + "\u0301" * 30)  # 30 combining marks on one letter
    assert not is_name("\uff41\uff4e\uff4e")  # fullwidth ann
    assert look_alike("host", "h\u043est")  # a Cyrillic о
    assert plain("\uff41\uff4e\uff4e") == "ann" and plain("  ann \t  lee ") == "ann lee"


def test_what_looks_alike():
    assert all(look_alike(a, b) for a, b in VECTOR["alike"])
    assert not any(look_alike(a, b) for a, b in VECTOR["unlike"])
    assert {name: skeleton(name) for name in VECTOR["skeletons"]} == VECTOR["skeletons"]


def roster(*names: str) -> list[dict]:
    return [{"key": Identity.generate().public_key, "name": name, "bot": False} for name in names]


def test_a_start_whose_names_look_alike_is_not_a_start():
    settings = settings_body(Settings(players=2, deal="open", max_rounds=1, point_limit=None))
    body = {"salt": bytes(16), "settings": settings, "roster": roster("ann", "bob")}
    check_body("START", body)
    for names in (("ann", "Ann"), ("ann", "\u0430nn"), ("bot1", "botl"), ("ann", "x" + "\u0301" * 30)):
        try:
            check_body("START", {**body, "roster": roster(*names)})
        except BodyError as exc:
            assert "roster" in str(exc)
        else:
            raise AssertionError(f"a START with {names} was taken")


def test_a_seat_does_not_accept_a_start_with_two_names_alike():
    host, other = Identity.generate(), Identity.generate()
    salt = secrets.token_bytes(SALT_SIZE)
    game_id = game_id_for(host.public_key, salt)
    settings = settings_body(Settings(players=2, deal="open", max_rounds=1, point_limit=None))
    seats = [{"key": host.public_key, "name": "ann", "bot": False},
             {"key": other.public_key, "name": "ANN", "bot": False}]
    start = seal(host, game_id, 0, NO_PREVIOUS, "START", {"salt": salt, "settings": settings, "roster": seats}).wire
    session = Session(other, game_id=game_id)
    out = session.receive(start, via=host.peer)
    assert session.start is None
    assert not any(isinstance(o, Outgoing) for o in out)  # no START_ACK
    assert any(isinstance(o, Fault) for o in out), out
    seats[1]["name"] = "bob"  # the same START with names apart is taken
    start = seal(host, game_id, 0, NO_PREVIOUS, "START", {"salt": salt, "settings": settings, "roster": seats}).wire
    session = Session(other, game_id=game_id)
    session.receive(start, via=host.peer)
    assert session.start is not None
