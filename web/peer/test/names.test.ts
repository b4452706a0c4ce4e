/** Section 9, **Names**: issue 22's rules (NFKC, spaces, marks, UTS #39 skeletons), the vector name-rules. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { hex, u32 } from "../src/bytes.js";
import { sha256 } from "../src/hash.js";
import { bodyProblem } from "../src/messages.js";
import { decode, encode, type MsgMap } from "../src/codec.js";
import {
  isName, lookAlike, MARK_RANGES, NAME_PROTOTYPES, nameProblem, skeleton,
} from "../src/names.js";
import { vector } from "./spec.js";

test("name-rules: the marks' ranges and the prototypes, as protocol.md's digests say", () => {
  const v = vector("name-rules");
  assert.equal(MARK_RANGES.length, v.marks.ranges);
  assert.equal(MARK_RANGES.reduce((sum, [a, b]) => sum + b - a + 1, 0), v.marks.code_points);
  assert.equal(hex(sha256(...MARK_RANGES.flatMap(([a, b]) => [u32(a), u32(b)]))), v.marks.digest);
  assert.equal(NAME_PROTOTYPES.size, v.confusables.mappings);
  const parts: Uint8Array[] = [];
  for (const source of [...NAME_PROTOTYPES.keys()].sort((a, b) => a - b)) {
    const points = [...(NAME_PROTOTYPES.get(source) as string)].map((ch) => ch.codePointAt(0) as number);
    parts.push(u32(source), Uint8Array.of(points.length), ...points.map(u32));
  }
  assert.equal(hex(sha256(...parts)), v.confusables.digest);
});

test("name-rules: names and not names, pairs alike and unlike, skeletons", () => {
  const v = vector("name-rules");
  for (const name of v.names) assert.equal(nameProblem(name), null, name);
  for (const name of v.not_names) assert.ok(!isName(name), JSON.stringify(name));
  for (const [a, b] of v.alike) assert.ok(lookAlike(a, b), `${a} ~ ${b}`);
  for (const [a, b] of v.unlike) assert.ok(!lookAlike(a, b), `${a} !~ ${b}`);
  for (const [name, shape] of Object.entries(v.skeletons)) assert.equal(skeleton(name), shape, name);
});

test("the words of a refusal name what is wrong", () => {
  assert.equal(nameProblem(" ann"), "a name neither begins nor ends with a space, nor has two in a row");
  assert.equal(nameProblem("\uff21NN"), "a name is written plainly (in Unicode's NFKC form: no fullwidth, styled or composed-apart letters)");
  assert.equal(nameProblem("a\u202eb"), "a name holds no U+202E (no control, format, private-use, unassigned or invisible character, and no space but the plain one)");
  assert.equal(nameProblem("q\u0301\u0301\u0301\u0301"), "a name has at most 3 combining marks on one letter");
  assert.equal(nameProblem("x".repeat(41)), "a name is 1 to 40 characters, this one has 41");
});

test("a START whose roster has two names that look alike is not a START", () => {
  const H = new Uint8Array(32);
  const settings = { variant: "standard", point_limit: 66, max_rounds: null, deal: "open" };
  const start = (a: string, b: string): MsgMap => decode(encode({ salt: new Uint8Array(16), settings,
    roster: [{ key: H, name: a, bot: false }, { key: Uint8Array.of(...H.slice(1), 1), name: b, bot: false }] })) as MsgMap;
  assert.equal(bodyProblem("START", start("ann", "bob")), null);
  assert.match(bodyProblem("START", start("ann", "\u0430nn")) ?? "", /roster/);
  assert.match(bodyProblem("START", start("bot1", "BOTl")) ?? "", /roster/);
});
