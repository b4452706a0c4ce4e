// The phone page's fault lines number rounds as the evening does (session 33): a fault's detail, written by the protocol
// layer with the game's own round numbers, says the evening's round in a game that carries the rounds of the one it
// continues, as the page's status line does (seat.before + seat.round + 1); the reference's i18n.evening_rounds gives the
// same text for the same cases (tests/peer/test_evening_rounds.py runs both).
import { strict as assert } from "node:assert";
import { test } from "node:test";

import { eveningRounds } from "../src/page_words.js";

test("a fault's rounds are the evening's in a game that carries two rounds", () => {
  const detail = "seat 1 (bob) sent PLAY_COMMIT for round 2, turn 4, skipping ahead of its message for round 1, turn 1";
  assert.equal(eveningRounds(detail, 2),
    "seat 1 (bob) sent PLAY_COMMIT for round 4, turn 4, skipping ahead of its message for round 3, turn 1");
  assert.equal(eveningRounds("the audit of round 1 found seat 2 (cy) at fault: its key", 3),
    "the audit of round 4 found seat 2 (cy) at fault: its key");
});

test("a game that carries nothing keeps its numbers, and a forfeit's round (the evening's already) is kept", () => {
  const detail = "bob chose a row for turn 3 of round 1, which is over";
  assert.equal(eveningRounds(detail, 0), detail);
  assert.equal(eveningRounds("forfeited in round 3; rounds 2", 2), "forfeited in round 3; rounds 2");
});
