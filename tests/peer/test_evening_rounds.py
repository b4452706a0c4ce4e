"""Both fronts say a fault's rounds as the evening's (session 33): the reference's i18n.evening_rounds (the terminal,
the TV and seat pages) and the phone page's eveningRounds (web/peer/src/page_words.ts) turn the same protocol texts,
which number the rounds of their own game, into the same words for a game that carries the rounds of the one it
continues; a game that carries nothing, and the evening's own numbers (a forfeit's round), are left as they are."""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path
from string import Formatter

import pytest
from nodepeer import PEER, ROOT, tool, written_by

from p2pnimmt.i18n import evening_rounds, round_patterns
from p2pnimmt.protocol import round_texts
from p2pnimmt.protocol.names import NAME_LENGTH
from p2pnimmt.protocol.round_texts import ROUNDS, SEALED, SHUFFLE, UNLOCK
from p2pnimmt.protocol.sealed import Layout, after_unlock, check_shuffle

AUDIT = "the audit of round 2 found seat 1 (bob) at fault: its key does not open its layer"
TEXTS = [  # the protocol layer's texts that name a round (protocol/slots.py, steps.py, deal.py, sealed_deal.py)
    "seat 1 (bob) sent PLAY_COMMIT for round 2, turn 4, skipping ahead of its message for round 1, turn 1",
    "seat 1 (bob) sent PLAY_COMMIT for round 1, turn 2, after its message for round 2, turn 1",
    "seat 1 (bob) sent PLAY_COMMIT for round 2, turn 4, skipping ahead of its message for round 1, turn 1; it loses "
    "its seat (the stand-in plays it from the next step it owes)",
    "bob chose a row for turn 3 of round 1, which is over",
    "seat 2 (cy) committed on a different game state (round 1, turn 5)",
    "seat 0 (ann)'s seed reveal for round 2 does not match its commitment",
    "seat 3 (dan): its shuffle for round 1: shuffle output: values 3 and 7 are equal",
    AUDIT,
    "seat 2 (cy) sent DROP naming seat 1 at round 1, step 3, place 2, after its own DROP of that seat there",
    "seat 2 (cy) sent KEEP naming seat 0 at round 2, step 4, after it went on from that seat's message there",
    "seat 1 (bob) sent pick 3 of round 2, which is seat 0's",
    "seat 1 (bob): its unlock for round 2: seat 1's unlock: value 2 is a low-order point",
    "seat 2 (cy) stopped before sending its card after it shuffled: its layer cannot be removed nor its key revealed",
    "forfeited in round 3",  # carry.out_for_proof: the evening's number already
    "nothing of a round here; rounds 2",
]


def test_both_fronts_number_a_faults_rounds_as_the_evening_does(compiled: Path) -> None:
    script = (f"import {{ eveningRounds }} from {json.dumps((compiled / 'src' / 'page_words.js').as_uri())};"
              "let data = ''; process.stdin.on('data', (c) => { data += c; });"
              "process.stdin.on('end', () => { const cases = JSON.parse(data);"
              "console.log(JSON.stringify(cases.map(([t, b]) => eveningRounds(t, b)))); });")
    texts = TEXTS + [text for text, _said in NAMED_LIKE]  # a player named like the words keeps its name on both
    cases = [(text, before) for text in texts for before in (0, 2, 7)]
    done = subprocess.run([tool("node"), "--input-type=module", "-e", script], input=json.dumps(cases), cwd=PEER,
                          capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout) == [evening_rounds(text, before) for text, before in cases]
    assert evening_rounds(TEXTS[0], 2) == ("seat 1 (bob) sent PLAY_COMMIT for round 4, turn 4, skipping ahead of its "
                                           "message for round 3, turn 1")
    assert evening_rounds(AUDIT, 7).startswith("the audit of round 9 found")
    assert all(evening_rounds(text, 0) == text for text in TEXTS)
    assert evening_rounds("forfeited in round 3", 2) == "forfeited in round 3"


NAMED_LIKE = [  # (a text whose player is named like the protocol's words, that text in a game carrying 2 rounds)
    ("seat 1 (round 2) sent PLAY_COMMIT for round 2, turn 4, skipping ahead of its message for round 1, turn 1",
     "seat 1 (round 2) sent PLAY_COMMIT for round 4, turn 4, skipping ahead of its message for round 3, turn 1"),
    ("seat 1 (round 1) chose a row for turn 3 of round 1, which is over",
     "seat 1 (round 1) chose a row for turn 3 of round 3, which is over"),
    ("seat 0 (x for round 1, turn 1)'s seed reveal for round 2 does not match its commitment",
     "seat 0 (x for round 1, turn 1)'s seed reveal for round 4 does not match its commitment"),
    ("the audit of round 1 found seat 2 (round 1) at fault: revealed a key that does not match its commitment",
     "the audit of round 3 found seat 2 (round 1) at fault: revealed a key that does not match its commitment"),
    ("seat 3 (a: its shuffle for round 1: b): its shuffle for round 2: shuffle output has 3 values, expected 104",
     "seat 3 (a: its shuffle for round 1: b): its shuffle for round 4: shuffle output has 3 values, expected 104"),
    ("seat 3 (x: its unlock for round 1: seat 0's) sent two DROP messages naming seat 1 for the same step",
     "seat 3 (x: its unlock for round 1: seat 0's) sent two DROP messages naming seat 1 for the same step"),
    ("seat 3 (a: its shuffle for round 1: b) committed on a different game state (round 2, turn 1)",
     "seat 3 (a: its shuffle for round 1: b) committed on a different game state (round 4, turn 1)"),
    ("seat 2 (round 1) sent DROP naming seat 1 at round 1, step 3, after its own DROP of that seat there",
     "seat 2 (round 1) sent DROP naming seat 1 at round 3, step 3, after its own DROP of that seat there"),
    ("seat 2 (round 1) stopped before sending its card after it shuffled: its layer cannot be removed nor its key "
     "revealed", "seat 2 (round 1) stopped before sending its card after it shuffled: its layer cannot be removed nor "
     "its key revealed"),
]


def test_a_player_named_like_a_round_keeps_its_name() -> None:
    """Only the protocol's own words are renumbered: a name is the player's choice, and "round 1" is one (session
    34); the page's eveningRounds says the same of each (the comparison above)."""
    assert [evening_rounds(text, 2) for text, _said in NAMED_LIKE] == [said for _text, said in NAMED_LIKE]


def test_no_name_can_hold_the_words_of_a_text_that_names_a_round() -> None:
    """Why a name never passes for the protocol's words (i18n.round_patterns): at their shortest, the words after the
    seat each text blames are longer than a name may be; the audit's begin the text, where no name stands."""
    shortest = {pattern: re._parser.parse(pattern).getwidth()[0] for pattern in round_patterns()}  # type: ignore[attr-defined]
    assert all(width > NAME_LENGTH for pattern, width in shortest.items() if pattern.startswith(".*")), shortest
    [audit] = [pattern for pattern in round_patterns() if not pattern.startswith(".*")]
    assert audit.startswith(r"the audit of round (\d+) found "), audit


def test_the_page_renumbers_by_the_references_patterns(tmp_path: Path) -> None:
    """The phone page's patterns (web/peer/src/round_texts.ts) are the reference's, written from them: no copy."""
    written_by("gen_round_texts.py", "round_texts.ts", tmp_path / "round_texts.ts")


def sample(text: str, rounds: dict[str, int]) -> str:
    """A text of the template `text` for a seat named like the words ("round 1", a number in every other field)."""
    fields = {name for _literal, name, _spec, _conversion in Formatter().parse(text) if name is not None}
    return text.format(**{name: rounds[name] if name in ROUNDS else "seat 1 (round 1)" if name == "who" else
                          " has 3 values, expected 104 (round 1)" if name == "why" else "PLAY_COMMIT" if name == "kind"
                          else 5 for name in fields})


@pytest.mark.parametrize("text", round_texts.TEXTS)
def test_each_text_that_numbers_a_round_is_said_with_the_evenings_rounds(text: str) -> None:
    """Each of protocol/round_texts.py's texts, as the protocol writes it (its rounds 2 and 1), is renumbered by the
    pattern made from it (2 rounds before: 4 and 3), alone and with what the session adds; the name and the other
    numbers are kept."""
    assert set(ROUNDS) & {name for _literal, name, _spec, _conversion in Formatter().parse(text)}, text
    written, said = sample(text, {"round": 2, "last_round": 1}), sample(text, {"round": 4, "last_round": 3})
    assert evening_rounds(written, 2) == said
    lost = "; it loses its seat (the stand-in plays it from the next step it owes)"
    assert evening_rounds(written + lost, 2) == said + lost
    assert evening_rounds(written, 0) == written


def test_the_sealed_checks_say_what_the_shuffle_and_unlock_texts_begin_with() -> None:
    """What sealed.check_shuffle and sealed.after_unlock find is the {why} of SHUFFLE and UNLOCK: their own words
    begin it, so the texts are renumbered (their patterns hold those words, against a name that looks like them)."""
    found = []
    for check in (lambda: check_shuffle([b"x"] * 3, "no list"), lambda: check_shuffle([b"x"] * 3, [b"x"]),
                  lambda: after_unlock(Layout(3, 40), 1, [b"x"] * 33, "no list")):
        with pytest.raises(ValueError) as caught:
            check()
        found.append(str(caught.value))
    texts = [SHUFFLE.format(round=2, why=found[0]), SHUFFLE.format(round=2, why=found[1]),
             UNLOCK.format(round=2, why=found[2])]
    for text in texts:
        written = SEALED.format(who="seat 2 (cy)", detail=text)
        assert evening_rounds(written, 2) == written.replace("round 2", "round 4", 1), written


# The protocol's texts that say a round but are no fault's detail nor a void round's reason, or say the evening's
# round already: never renumbered (the f-string, its values as {}, by the file that writes it).
NOT_RENUMBERED = {
    ("carry.py", "forfeited in round {}"): "carry.out_for_proof: the evening's round already",
    ("verify.py", "the transcript ends before the game does (phase {}, round {}, turn {})"):
        "the verifier's reason: the records' numbers, as the report's",
    ("verify.py", "carried from game {} after round {}: "): "the verifier's report",
    ("verify.py", "round {}: void, nobody scores it: {}"): "the verifier's report",
    ("verify.py", "round {}: "): "the verifier's report",
    ("verify.py", ", the stand-in played it from round {}, step {}"): "the verifier's report",
}
SAYS_A_ROUND = re.compile(r"\brounds? $")


def test_every_text_of_the_protocol_that_numbers_a_round_is_one_the_fronts_renumber() -> None:
    """A text the protocol or the network layer writes with a round's number in it is written from a template of
    protocol/round_texts.py that TEXTS holds (so the fronts renumber it), or is one of NOT_RENUMBERED: an f-string
    (or a template outside round_texts.py) that says `round {...}` anywhere else fails here, so a new text is not
    missed."""
    found = set()
    for path in sorted([*(ROOT / "p2pnimmt" / "protocol").rglob("*.py"), *(ROOT / "p2pnimmt" / "net").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr):
                parts = node.values
                if any(isinstance(a, ast.Constant) and SAYS_A_ROUND.search(str(a.value)) and
                       isinstance(b, ast.FormattedValue) for a, b in zip(parts, parts[1:])):
                    found.add((path.name, "".join(str(p.value) if isinstance(p, ast.Constant) else "{}"
                                                  for p in parts)))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    re.search(r"\brounds? \{", node.value) and path.name != "round_texts.py":
                found.add((path.name, node.value))
    assert found == set(NOT_RENUMBERED), found ^ set(NOT_RENUMBERED)
    # Each template of round_texts.py that holds a round is in a text of TEXTS (its words in order).
    templates = {name: value for name, value in vars(round_texts).items()
                 if isinstance(value, str) and set(ROUNDS) & {field for _l, field, _s, _c in Formatter().parse(value)}}
    assert len(templates) >= 9, templates
    for name, template in templates.items():
        words = ".*".join(re.escape(literal) for literal, _field, _spec, _conversion in Formatter().parse(template))
        assert any(re.search(words, text, re.S) for text in round_texts.TEXTS), (name, template)
