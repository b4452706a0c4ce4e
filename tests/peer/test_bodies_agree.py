"""Section 9's body check (check 3, `bad-body`) in both implementations: for every kind, a valid body and every
way of breaking it field by field (missing, extra, a bool, a float, a negative, 2^32, a bin of the wrong size,
nil, a name with a control character or of 41 code points, a bad setting) get the same verdict on both sides, in
the same words (the `bad-body` record's detail; before issue 25's settling the TypeScript peer worded them its own
way: `START field "salt" is invalid` for the reference's `START field 'salt' is invalid: None`).

Issue 22's further rules of **Names** (written plainly, spaces, marks, no two alike) are compared name by name in
tests/peer/test_names_agree.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from nodepeer import PEER, tool

from p2pnimmt.protocol.codec import encode
from p2pnimmt.protocol.messages import FIELDS, OPTIONAL, check_body

H = bytes(32)
SETTINGS = {"variant": "standard", "point_limit": 66, "max_rounds": None, "deal": "sealed", "clock": 30}
ROSTER = [{"key": bytes([1]) * 32, "name": "ann", "bot": False}, {"key": bytes([2]) * 32, "name": "bob 😀", "bot": True}]

WHERE = [2**53 - 1, 65535, ["192.168.1.20", "fd00::7"], bytes(64)]  # a record's form (its signature is not asked here)
VALID: dict[str, dict[str, Any]] = {
    "START": {"salt": bytes(16), "settings": SETTINGS, "roster": ROSTER, "previous": bytes(16), "where": WHERE},
    "START_ACK": {"start": H, "where": WHERE},
    "SEED_COMMIT": {"round": 0, "commit": H},
    "SEED_REVEAL": {"round": 1, "contribution": H, "nonce": H},
    "SEALED_SHUFFLE": {"round": 0, "deck": [H] * 104, "commit": H},
    "SEALED_UNLOCK": {"round": 0, "values": [H] * 3},
    "SEALED_KEYS": {"round": 0, "key": H, "seed": H, "nonce": H, "alarm": False},
    "DRAFT_PICK": {"round": 0, "pick": 3, "card": 17},
    "PLAY_COMMIT": {"round": 0, "turn": 9, "commit": H, "state": H},
    "PLAY_REVEAL": {"round": 0, "turn": 1, "card": 55, "nonce": H, "commits": H, "position": 103, "auto": True},
    "ROW_CHOICE": {"round": 0, "turn": 1, "row": 3, "auto": True},
    "ROUND_END": {"round": 2, "penalties": [1, 2], "scores": [3, 4], "state": H, "back": [[0, 5], [1, 6]]},
    "GAME_END": {"rounds": 3, "scores": [1, 2], "winners": [0], "state": H},
    "DROP": {"round": 0, "step": 32, "seat": 1, "place": 1},
    "KEEP": {"round": 0, "step": 5, "seat": 1},
    "REJOIN": {"round": 4},
    "STANDIN": {"round": 0, "turn": 2, "seat": 1},
}

BAD_VALUES = [None, True, 1.0, -1, 2**32, 2**64 - 1, "x", b"", bytes(31), bytes(33), [], {}, [0] * 11, [H] * 105]


def variants(kind: str) -> list[dict[str, Any]]:
    good = VALID[kind]
    out = [good, {**good, "extra": 1}, {**good, "toString": 1}]
    for name in list(FIELDS[kind]) + list(OPTIONAL.get(kind, {})):
        out.append({k: v for k, v in good.items() if k != name})
        out += [{**good, name: bad} for bad in BAD_VALUES]
    if kind == "START":
        for change in [{"variant": "draft"}, {"variant": "draft", "deal": "open"}, {"variant": "logic"},
                       {"point_limit": None, "max_rounds": None}, {"point_limit": 0}, {"clock": 3600},
                       {"clock": 3601}, {"clock": 0}, {"deal": "closed"}, {"max_rounds": 1, "point_limit": None}]:
            out.append({**good, "settings": {**SETTINGS, **change}})
        out.append({**good, "settings": {k: v for k, v in SETTINGS.items() if k != "clock"}})
        for seat_change in [{"name": ""}, {"name": "a" * 40}, {"name": "a" * 41}, {"name": "a\tb"}, {"name": "\u00a0"},
                            {"name": "\U0001fae7"}, {"name": "\U0001fae8"}, {"key": bytes(31)}, {"bot": 0},
                            {"extra": 1}]:
            out.append({**good, "roster": [{**ROSTER[0], **seat_change}, ROSTER[1]]})
        out.append({**good, "roster": ROSTER[:1]})
        # ten and eleven seats, names unlike each other
        seats = [{"key": bytes([i]) * 32, "name": f"p{i}", "bot": False} for i in range(11)]
        out.append({**good, "roster": seats[:10]})
        out.append({**good, "roster": seats})
    if kind in ("START", "START_ACK"):  # section 9, **Types**: a record (since session 41)
        serial, port, addresses, signature = WHERE
        for where in [[serial + 1, port, addresses, signature], [0, port, addresses, signature],
                      [serial, 0, addresses, signature], [serial, 65536, addresses, signature],
                      [serial, 1, addresses, signature], [serial, True, addresses, signature],
                      [1.0, port, addresses, signature], [serial, port, [], signature],
                      [serial, port, ["10.0.0.1"] * 8, signature], [serial, port, ["10.0.0.1"] * 9, signature],
                      [serial, port, [""], signature], [serial, port, ["x" * 45], signature],
                      [serial, port, ["x" * 46], signature], [serial, port, ["a b"], signature],
                      [serial, port, ["fe80::1%eth0"], signature], [serial, port, ["999.1.1.1"], signature],
                      [serial, port, ["10.0.0.\uff17"], signature], [serial, port, ["\x7f"], signature],
                      [serial, port, [b"10.0.0.1"], signature], [serial, port, "10.0.0.1", signature],
                      [serial, port, addresses, bytes(63)], [serial, port, addresses, "x" * 64],
                      [serial, port, addresses], [serial, port, addresses, signature, 0], {"port": port}]:
            out.append({**good, "where": where})
    if kind == "ROUND_END":
        for b in [[[1, 5], [0, 6]], [[0, 5], [0, 6]], [[0, 5, 1]], [[0]], [[0, 1.0]], [[0, 1]] * 1]:
            out.append({**good, "back": b})
    return out


def test_both_body_checks_agree(compiled: Path) -> None:
    cases = [(kind, body) for kind in VALID for body in variants(kind)]
    done = subprocess.run([tool("node"), str(compiled / "test" / "agree.js")], cwd=PEER, capture_output=True,
                          text=True, timeout=120,
                          input=json.dumps({"bodies": [[kind, encode(body).hex()] for kind, body in cases]}))
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)["bodies"]
    assert len(theirs) == len(cases)
    bad = 0
    differ = []
    for (kind, body), answer in zip(cases, theirs):
        try:
            check_body(kind, body)
            ours = None
        except ValueError as exc:
            ours = str(exc)
        if answer != ours:
            differ.append(f"{kind} {body!r}: Python {ours!r}, TypeScript {answer!r}")
        bad += ours is not None
    assert not differ, "\n".join(differ)
    assert bad > len(cases) // 2
    assert all(check is None for check in theirs[: 1])  # the valid START passes
