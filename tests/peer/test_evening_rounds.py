"""Both fronts say a fault's rounds as the evening's (session 33): the reference's i18n.evening_rounds (the terminal,
the TV and seat pages) and the phone page's eveningRounds (web/peer/src/page_words.ts) turn the same protocol texts,
which number the rounds of their own game, into the same words for a game that carries the rounds of the one it
continues; a game that carries nothing, and the evening's own numbers (a forfeit's round), are left as they are."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from nodepeer import PEER, tool

from p2pnimmt.i18n import _ROUND_TEXTS, evening_rounds
from p2pnimmt.protocol.names import NAME_LENGTH

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
    """Why a name never passes for the protocol's words (i18n._ROUND_TEXTS): at their shortest, the words after the
    seat each text blames are longer than a name may be; the audit's begin the text, where no name stands."""
    shortest = {pattern: re._parser.parse(pattern).getwidth()[0] for pattern in _ROUND_TEXTS}  # type: ignore[attr-defined]
    assert all(width > NAME_LENGTH for pattern, width in shortest.items() if pattern.startswith(".*")), shortest
    assert [pattern for pattern in _ROUND_TEXTS if not pattern.startswith(".*")] == [r"the audit of round (\d+) found .*"]
