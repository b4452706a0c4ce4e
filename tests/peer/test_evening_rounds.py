"""Both fronts say a fault's rounds as the evening's (session 33): the reference's i18n.evening_rounds (the terminal,
the TV and seat pages) and the phone page's eveningRounds (web/peer/src/page_words.ts) turn the same protocol texts,
which number the rounds of their own game, into the same words for a game that carries the rounds of the one it
continues; a game that carries nothing, and the evening's own numbers (a forfeit's round), are left as they are."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from nodepeer import PEER, tool

from p2pnimmt.i18n import evening_rounds

TEXTS = [  # the protocol layer's texts that name a round (protocol/slots.py, steps.py, deal.py, sealed_deal.py)
    "seat 1 (bob) sent PLAY_COMMIT for round 2, turn 4, skipping ahead of its message for round 1, turn 1",
    "seat 1 (bob) sent PLAY_COMMIT for round 1, turn 2, after its message for round 2, turn 1",
    "bob chose a row for turn 3 of round 1, which is over",
    "seat 2 (cy) committed on a different game state (round 1, turn 5)",
    "seat 0 (ann)'s seed reveal for round 2 does not match its commitment",
    "seat 3 (dan): its shuffle for round 1: not a permutation",
    "the audit of round 2 found seat 1 (bob) at fault: its key does not open its layer",
    "round 1, step 3, place 2",
    "forfeited in round 3",  # carry.out_for_proof: the evening's number already
    "nothing of a round here; rounds 2",
]


def test_both_fronts_number_a_faults_rounds_as_the_evening_does(compiled: Path) -> None:
    script = (f"import {{ eveningRounds }} from {json.dumps((compiled / 'src' / 'page_words.js').as_uri())};"
              "let data = ''; process.stdin.on('data', (c) => { data += c; });"
              "process.stdin.on('end', () => { const cases = JSON.parse(data);"
              "console.log(JSON.stringify(cases.map(([t, b]) => eveningRounds(t, b)))); });")
    cases = [(text, before) for text in TEXTS for before in (0, 2, 7)]
    done = subprocess.run([tool("node"), "--input-type=module", "-e", script], input=json.dumps(cases), cwd=PEER,
                          capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout) == [evening_rounds(text, before) for text, before in cases]
    assert evening_rounds(TEXTS[0], 2) == ("seat 1 (bob) sent PLAY_COMMIT for round 4, turn 4, skipping ahead of its "
                                           "message for round 3, turn 1")
    assert evening_rounds(TEXTS[6], 7).startswith("the audit of round 9 found")
    assert all(evening_rounds(text, 0) == text for text in TEXTS)
    assert evening_rounds("forfeited in round 3", 2) == "forfeited in round 3"
