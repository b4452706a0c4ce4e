/** Section 9's check 3: every kind's body, field by field (the cross-check with Python is tests/peer). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { decode, encode, Float, type MsgMap, type Encodable } from "../src/codec.js";
import { bodyProblem, isKind, KINDS } from "../src/messages.js";
import { fromHex } from "../src/bytes.js";
import { vector } from "./spec.js";

const H = new Uint8Array(32);
const body = (entries: Record<string, Encodable>): MsgMap => decode(encode(entries)) as MsgMap;

test("the kinds of section 9's table, and nothing else", () => {
  assert.equal(KINDS.length, 17);
  assert.ok(isKind("PLAY_COMMIT"));
  assert.ok(!isKind("play_commit"));
  assert.ok(!isKind("toString"));
});

test("counts are integers 0..2^32-1, never a boolean or a float", () => {
  const ok = { round: 0, turn: 9, commit: H, state: H };
  assert.equal(bodyProblem("PLAY_COMMIT", body(ok)), null);
  for (const bad of [true, new Float(1), -1, 2 ** 32, null, "1"] as Encodable[]) {
    assert.match(bodyProblem("PLAY_COMMIT", body({ ...ok, turn: bad })) ?? "", /field 'turn' is invalid: /);
  }
  assert.equal(bodyProblem("PLAY_COMMIT", body({ ...ok, turn: 2 ** 32 - 1 })), null); // its range is checked later
});

test("fields missing, unknown (an inherited name too) or optional", () => {
  assert.match(bodyProblem("REJOIN", body({})) ?? "", /^REJOIN lacks field 'round'$/);
  assert.match(bodyProblem("REJOIN", body({ round: 1, toString: 1 })) ?? "", /^REJOIN has unknown fields \['toString'\]$/);
  assert.match(bodyProblem("KEEP", body({ round: 1, step: 2, seat: 3, place: true })) ?? "", /^KEEP field 'place' is invalid: True$/);
  assert.equal(bodyProblem("KEEP", body({ round: 1, step: 2, seat: 3, place: 0 })), null);
  const reveal = { round: 0, turn: 0, card: 300, nonce: H, commits: H };
  assert.equal(bodyProblem("PLAY_REVEAL", body(reveal)), null);
  assert.equal(bodyProblem("PLAY_REVEAL", body({ ...reveal, position: 103, auto: true })), null);
  assert.match(bodyProblem("PLAY_REVEAL", body({ ...reveal, position: 104 })) ?? "", /'position'/);
  assert.match(bodyProblem("PLAY_REVEAL", body({ ...reveal, auto: false })) ?? "", /'auto'/);
});

test("START: settings, roster and names, previous", () => {
  const settings = { variant: "draft", point_limit: 66, max_rounds: null, deal: "open" };
  const roster = [{ key: H, name: "ann", bot: false }, { key: H, name: "bob", bot: true }];
  const start = { salt: new Uint8Array(16), settings, roster };
  assert.equal(bodyProblem("START", body(start)), null);
  assert.match(bodyProblem("START", body({ ...start, settings: { ...settings, deal: "sealed" } })) ?? "", /settings/);
  assert.match(bodyProblem("START", body({ ...start, settings: { ...settings, point_limit: null } })) ?? "", /settings/);
  assert.equal(bodyProblem("START", body({ ...start, settings: { ...settings, clock: 3600 } })), null);
  assert.match(bodyProblem("START", body({ ...start, settings: { ...settings, clock: 3601 } })) ?? "", /settings/);
  assert.match(bodyProblem("START", body({ ...start, roster: [roster[0] as Encodable] })) ?? "", /roster/);
  assert.match(bodyProblem("START", body({ ...start, roster: [{ key: H, name: "a\u200bb", bot: false }, roster[1] as Encodable] })) ?? "", /roster/);
  assert.match(bodyProblem("START", body({ ...start, previous: new Uint8Array(15) })) ?? "", /previous/);
});

test("ROUND_END's back: 1..10 pairs of counts, seats strictly ascending", () => {
  const end = { round: 0, penalties: [0, 1], scores: [0, 1], state: H };
  assert.equal(bodyProblem("ROUND_END", body({ ...end, back: [[0, 4], [2, 9]] })), null);
  for (const back of [[], [[2, 1], [0, 1]], [[0, 1], [0, 2]], [[0, 1, 2]], [[0, new Float(1)]]] as Encodable[]) {
    assert.match(bodyProblem("ROUND_END", body({ ...end, back })) ?? "", /'back'/);
  }
  assert.match(bodyProblem("ROUND_END", body({ ...end, scores: Array(11).fill(0) })) ?? "", /'scores'/);
});

test("body-refusals: each body taken or refused in the reference's words, the first problem in the check's order", () => {
  const v = vector("body-refusals");
  for (const c of v.bodies) {
    assert.ok(isKind(c.kind), c.why);
    assert.equal(bodyProblem(c.kind, decode(fromHex(c.body)) as MsgMap), c.refusal, c.why);
  }
  assert.ok(v.bodies.length >= 30);
});
