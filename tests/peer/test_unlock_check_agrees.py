"""Protocol.md 17.5 step 3 in both implementations, on the unlocks a cheat could send: the same SEALED_UNLOCK is
refused on arrival in the same words, or taken into the same list with the deal broken at it (or not) in the same
words, with and without each implementation's memo of the list before (the keys of its values' twin classes), whatever collisions the list
before held (an earlier cheat's) and the unlock makes: a value or a twin of a value of its sender's own hand (the
framed unlock, or the sender's own), of another of its outputs, equal outputs of colliding inputs, bad values, a
wrong count. The games that reach these checks: tests/peer/test_framed_unlock_agrees.py (two of them); the
reference's memo against its own check without it: tests/protocol/test_own_steps.py."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from nodepeer import PEER, tool

from p2pnimmt.protocol import sealed_group as g
from p2pnimmt.protocol.sealed import Layout, take_unlock

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from test_attack_torsion import twins  # noqa: E402

CARDS = list(range(1, 105))
BAD = [(1).to_bytes(32, "little"), (g.P + 3).to_bytes(32, "little"), b"\x09" * 31, bytes(32)]


def a_case(rng: random.Random) -> dict:
    """An unlock at a random seat of 2 to 4, over a list that may hold collisions already, with collisions of each
    kind put into what it publishes."""
    players = rng.randint(2, 4)
    lay = Layout(players, 104)
    seat = rng.randrange(players)
    positions = lay.unlocked_by(seat)
    cards = rng.sample(CARDS, lay.dealt + len(positions))
    current = [g.encoding(k) for k in cards[:lay.dealt]]
    for _ in range(rng.choice((0, 0, 1, 2))):  # an earlier cheat's collision: a copy or a twin of another value
        p, q = rng.sample(range(lay.dealt), 2)
        current[q] = rng.choice([current[p], *twins(current[p])])
    values = [g.encoding(k) for k in cards[lay.dealt:]]  # fresh values at every published position
    hand = lay.hand(seat)
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        i = rng.randrange(len(values))
        kind = rng.randrange(6)
        if kind == 0:  # a value of its own hand, or a twin of it (framed, or its own doing)
            kept = current[rng.choice(hand)]
            values[i] = rng.choice([kept, *twins(kept)]) if g.on_curve(int.from_bytes(kept, "little")) else kept
        elif kind == 1:  # another of its outputs, or a twin of it
            other = values[rng.randrange(len(values))]
            values[i] = rng.choice([other, *twins(other)])
        elif kind == 2:  # the outputs of two positions whose values before collided: one value, as twins map
            pairs = [(a, b) for a in range(len(positions)) for b in range(a + 1, len(positions))
                     if g.eightfolds([current[positions[a]], current[positions[b]]]).count(-1) == 0
                     and len(set(g.eightfolds([current[positions[a]], current[positions[b]]]))) == 1]
            if pairs:
                a, b = rng.choice(pairs)
                values[b] = values[a]
        elif kind == 3:
            values[i] = rng.choice(BAD)
        elif kind == 4 and rng.random() < 0.3:
            values = values[:-1]
        elif kind == 5:  # a value the list keeps elsewhere (another seat's hand, a row), or its twin
            kept = current[rng.randrange(lay.dealt)]
            values[i] = rng.choice([kept, *twins(kept)]) if g.on_curve(int.from_bytes(kept, "little")) else kept
    return {"dealt": current, "seat": seat, "players": players, "values": values}


def reference(case: dict, memo: bool) -> dict:
    lay, before = Layout(case["players"], 104), case["dealt"]
    try:
        taken = take_unlock(lay, case["seat"], before, g.twin_keys(before) if memo else None, case["values"])
    except ValueError as exc:
        return {"problem": str(exc)}
    return {"dealt": [v.hex() for v in taken.values], "broken": taken.broken}


def test_both_implementations_take_or_refuse_an_unlock_alike(compiled: Path) -> None:
    rng = random.Random(175)
    cases = [a_case(rng) for _ in range(300)]
    asked = [{"dealt": [v.hex() for v in case["dealt"]], "seat": case["seat"], "players": case["players"],
              "values": [v.hex() for v in case["values"]], "memo": memo} for case in cases for memo in (False, True)]
    done = subprocess.run([tool("node"), str(compiled / "test" / "agree.js")], cwd=PEER, capture_output=True,
                          text=True, timeout=300, input=json.dumps({"unlocks": asked}))
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)["unlocks"]
    seen = {"refused": 0, "broken": 0, "clean": 0}
    for k, answer in enumerate(theirs):
        case, memo = cases[k // 2], bool(k % 2)
        ours = reference(case, memo)
        assert answer == ours, (k, case["seat"], case["players"], memo)
        seen["refused" if "problem" in ours else "broken" if ours["broken"] else "clean"] += 1
    assert len(theirs) == 600 and min(seen.values()) >= 60, seen  # each verdict tried often
