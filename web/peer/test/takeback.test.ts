/** Section 11.3: taking a dropped seat back at a round end, by more than half of the signers (protocol.md's take-back
 * vector; tests/protocol/test_take_back_majority.py checks the same block on the reference's listed_by_most). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { listedByMost } from "../src/session.js";
import { vector } from "./spec.js";

test("take-back: more than half of the signers list the seat with one and the same seq (11.3)", () => {
  const cases = vector("take-back").cases as { seat: number; listings: (number[][] | null)[]; back: number | null }[];
  assert.ok(cases.length >= 10);
  for (const c of cases) {
    assert.equal(listedByMost(c.seat, c.listings.map((l) => l ?? undefined)), c.back, JSON.stringify(c));
  }
});
