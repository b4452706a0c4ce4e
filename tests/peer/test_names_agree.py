"""Section 9's **Names** in both implementations (issue 22, item 7): the shipped bundle (p2pnimmt/web/static/peer.js)
and p2pnimmt/protocol/names.py hold the same tables, refuse the same names in the same words, give every name the
same skeleton (so the same pairs look alike), and refuse the same STARTs for names that look alike.

The names: protocol.md's vector name-rules, the attacks of the issue (30 combining marks, fullwidth letters, a
homoglyph of the host's name, bidi and zero-width characters, spaces), case folding's corners (ß, final sigma,
dotted I), and 3,000 strings drawn with a fixed seed from letters, marks, spaces, look-alikes and what a name may
not hold. The bundle is checked as shipped: what runs in the browser is what is compared.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

from nodepeer import BUNDLE, PEER, tool, written_by

from p2pnimmt.protocol.codec import encode
from p2pnimmt.protocol.messages import check_body
from p2pnimmt.protocol.name_ranges import MARKS, RANGES
from p2pnimmt.protocol.name_skeleton import PROTOTYPES
from p2pnimmt.protocol.names import name_problem, skeleton

ROOT = Path(__file__).resolve().parents[2]
with open(ROOT / "protocol.md", encoding="utf-8") as spec:
    VECTOR = json.loads(spec.read().split("```json name-rules\n", 1)[1].split("```", 1)[0])

ISSUE = [
    "a" + "\u0301" * 30,  # a mark flood
    "\uff41\uff4e\uff4e", "\uff21\uff2e\uff2e", "\U0001d41a\U0001d427\U0001d427", "\u24d0nn",  # fullwidth, styled
    "\u0430nn", "\u0251nn", "\u0430\u043f\u043f", "Ann", "ANN", "ann", "anna", "\u00e4nn", "a\u0308nn",  # look-alikes
    "a\u202eb", "a\u2066b", "a\u200bb", "a\u00adb", "a\u00a0b", "a\u3000b", "a\tb", "a\x1bb", "\x7f",  # hidden ones
    " ann", "ann ", "a  b", "a b", " ", "", "x" * 40, "x" * 41, "\U0001f600" * 40, "\U0001f600" * 41,
    "e\u0301", "\u00e9", "q\u0301\u0301\u0301", "q\u0301\u0301\u0301\u0301", "\u0301a", "\u0915\u094d\u0937\u093f",
    "stra\u00dfe", "strasse", "STRASSE", "\u03c3\u03bf\u03c6\u03bf\u03c2", "\u03a3\u039f\u03a6\u039f\u03a3",
    "\u0130stanbul", "istanbul", "\u0131stanbul", "bot1", "botl", "BOTI", "0lga", "Olga", "rn", "m", "\ufb01x", "x\u00b2",
    "\U0001fae7", "\U0001fae8", "guest 2 of ann", "ann (watching)", "\u0430nn (watching 2)", "\ud7a3", "\u1100\u1161",
]
ALPHABET = (
    list("abcdeilmnorsxABIO01| -'.()") + ["\u0301", "\u0308", "\u0327", "\u0489", "\u093f"]  # marks
    + ["\u0430", "\u043e", "\u0456", "\u0251", "\u03bf", "\u0131", "\u00df", "\u03c2", "\u0130", "\u017f"]  # alike
    + ["\u00e9", "\u00c5", "\u212b", "\uff41", "\U0001d41a", "\u00a0", "\u200b", "\u202e", "\t", "\U0001f600"]
    + ["\u674e", "\u1100", "\u1161", "\uac00", "\u0915", "\u094d", "\U000e0100", "\U0001fae8", "\U00010000"]
)


def drawn(count: int, seed: int = 22) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.choice([1, 2, 3, 5, 8, 13, 41]))) for _ in range(count)]


PROBE = """
import { readFileSync } from "node:fs";
const m = await import(process.argv[1]);
const request = JSON.parse(readFileSync(0, "utf8"));
const n = m.names;
const starts = request.starts.map((hex) => {
  try { return m.messages.bodyProblem("START", m.codec.decode(m.bytes.fromHex(hex))); } catch (e) { return String(e); }
});
console.log(JSON.stringify({
  problems: request.names.map((name) => n.nameProblem(name)),
  skeletons: request.names.map((name) => n.isName(name) ? n.skeleton(name) : null),
  alike: request.pairs.map(([a, b]) => n.lookAlike(a, b)),
  starts,
  ranges: n.NAME_RANGES, marks: n.MARK_RANGES,
  prototypes: [...n.NAME_PROTOTYPES], folds: [...n.NAME_FOLDS],
}));
"""


def ask_the_bundle(request: dict) -> dict:
    done = subprocess.run([tool("node"), "--input-type=module", "-e", PROBE, BUNDLE.as_uri()], cwd=PEER,
                          input=json.dumps(request), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def start(a: str, b: str) -> dict:
    return {"salt": bytes(16), "settings": {"variant": "standard", "point_limit": 66, "max_rounds": None,
                                            "deal": "open"},
            "roster": [{"key": bytes([1]) * 32, "name": a, "bot": False}, {"key": bytes([2]) * 32, "name": b,
                                                                             "bot": False}]}


def test_both_implementations_agree_on_names(node_modules: Path) -> None:
    names = [*VECTOR["names"], *VECTOR["not_names"], *ISSUE, *drawn(3000)]
    pairs = [*VECTOR["alike"], *VECTOR["unlike"]]
    pairs += [[a, b] for a in ISSUE for b in ("ann", "ANN", "strasse", "\u03c3\u03bf\u03c6\u03bf\u03c3", "istanbul",
                                               "bot1", "Olga", "m")]
    plain_pairs = [(a, b) for a, b in pairs if name_problem(a) is None and name_problem(b) is None]
    starts = [(a, b) for a, b in plain_pairs if a != b]
    theirs = ask_the_bundle({"names": names, "pairs": plain_pairs,
                             "starts": [encode(start(a, b)).hex() for a, b in starts]})
    # The tables: the reference's own.
    assert [tuple(r) for r in theirs["ranges"]] == list(RANGES)
    assert [tuple(r) for r in theirs["marks"]] == list(MARKS)
    assert dict((int(k), v) for k, v in theirs["prototypes"]) == PROTOTYPES
    folds = dict((int(k), v) for k, v in theirs["folds"])
    assert folds and all(chr(cp).casefold() == folded for cp, folded in folds.items())
    # Every name: the same verdict in the same words, and the same skeleton.
    differ = [f"{name!r}: Python {name_problem(name)!r}, TypeScript {answer!r}"
              for name, answer in zip(names, theirs["problems"]) if answer != name_problem(name)]
    assert not differ, "\n".join(differ[:20])
    differ = [f"{name!r}: Python {skeleton(name)!r}, TypeScript {shape!r}"
              for name, shape in zip(names, theirs["skeletons"]) if shape is not None and shape != skeleton(name)]
    assert not differ, "\n".join(differ[:20])
    accepted = sum(problem is None for problem in theirs["problems"])
    assert 300 < accepted < len(names) - 300, accepted  # the draw has both
    # The pairs: alike on both sides or on neither; a START with two that look alike is refused by both.
    assert theirs["alike"] == [skeleton(a) == skeleton(b) for a, b in plain_pairs]
    assert sum(theirs["alike"]) >= 20 and theirs["alike"].count(False) >= 20
    for (a, b), answer in zip(starts, theirs["starts"]):
        try:
            check_body("START", start(a, b))
            ours = None
        except ValueError as exc:
            ours = str(exc)
        assert (answer is None) == (ours is None), (a, b, ours, answer)
    for pair in [("\u0430nn", "ann"), ("\u0251nn", "ANN"), ("stra\u00dfe", "strasse"), ("\u0131stanbul", "istanbul"),
                 ("botl", "bot1"), ("0lga", "Olga")]:  # the homoglyphs
        assert theirs["starts"][starts.index(pair)] is not None, pair


def test_the_typescript_tables_are_generated_from_the_python_ones(tmp_path: Path) -> None:
    written_by("gen_name_ranges.py", "name_ranges.ts", tmp_path / "name_ranges.ts")
