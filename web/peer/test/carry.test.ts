/** Section 9's START `carry` (section 12, "An equivocation after the START"; 16's carry-vectors): the START that
 * continues a game, byte for byte; the STARTs it is not; a session that takes one starts from the carried scores. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex, hex } from "../src/bytes.js";
import type { Encodable, MsgMap } from "../src/codec.js";
import { seal } from "../src/envelope.js";
import { gameIdFor, Identity } from "../src/identity.js";
import { Session } from "../src/session.js";
import { vector } from "./spec.js";

function start(carry: Record<string, unknown> | null): Map<string, Encodable> {
  const v = vector("carry-vectors");
  const ann = new Identity(fromHex(v.secret));
  const bob = new Identity(fromHex(v.other_secret));
  const s = v.settings;
  const body = new Map<string, Encodable>([
    ["salt", fromHex(v.salt)],
    ["settings", new Map<string, Encodable>([["variant", s.variant], ["point_limit", s.point_limit],
      ["max_rounds", s.max_rounds], ["deal", s.deal]])],
    ["roster", [ann, bob].map((who, i) => new Map<string, Encodable>([["key", who.publicKey], ["name", ["ann", "bob"][i] as string], ["bot", false]]))],
    ["previous", fromHex(v.previous)],
  ]);
  if (carry !== null) {
    body.set("carry", new Map<string, Encodable>(Object.entries(carry).map(([k, x]) => [k, k === "game" ? fromHex(x as string) : x as Encodable])));
  }
  return body;
}

test("carry-vectors: the START that carries, byte for byte; a session starts from the carried scores", () => {
  const v = vector("carry-vectors");
  const ann = new Identity(fromHex(v.secret));
  const game = gameIdFor(ann.publicKey, fromHex(v.salt));
  assert.equal(hex(game), v.game_id);
  const env = seal(ann, game, 0, new Uint8Array(32), "START", start(v.carry));
  assert.equal(hex(env.wire), v.wire);
  const watcher = new Session(game);
  watcher.receive(env.wire);
  assert.ok(watcher.start !== null);
  assert.deepEqual(watcher.scores, [17, 9]);
  assert.equal(watcher.before, 2);
  assert.deepEqual([...watcher.roundEnds()], [[2, [17, 9]]]);
});

test("carry-vectors: a carry that does not fit is no START (not taken)", () => {
  const v = vector("carry-vectors");
  const ann = new Identity(fromHex(v.secret));
  const game = gameIdFor(ann.publicKey, fromHex(v.salt));
  for (const bad of v.not_starts) {
    const watcher = new Session(game);
    const faults = watcher.receive(seal(ann, game, 0, new Uint8Array(32), "START", start(bad.carry)).wire);
    assert.equal(watcher.start, null, bad.why);
    assert.ok(faults.some((f) => f.code === "malformed"), bad.why);
  }
});

test("a seat checks a new START's carry against its own record: the game, the round end, each score", () => {
  const v = vector("carry-vectors");
  const ann = new Identity(fromHex(v.secret));
  const game = gameIdFor(ann.publicKey, fromHex(v.salt));
  const seat = new Session(game);
  seat.receive(seal(ann, game, 0, new Uint8Array(32), "START", start(v.carry)).wire);
  // this node's record: the game it played (the vector's) at 2 rounds, ann 17, bob 9
  const next = (carry: Record<string, unknown> | null): MsgMap => start(carry) as unknown as MsgMap;
  const played = { game: v.game_id, rounds: 2, scores: [17, 9] };
  assert.equal(seat.carryProblem(next(played)), null);
  assert.match(seat.carryProblem(next({ ...played, scores: [18, 9] })) ?? "", /this node counted 17/);
  assert.match(seat.carryProblem(next({ ...played, game: v.carry.game })) ?? "", /the one this seat played/);
  assert.match(seat.carryProblem(next({ ...played, rounds: 1 })) ?? "", /not one of its own last two/);
  assert.match(seat.carryProblem(next(null)) ?? "", /not one of its own last two/); // it carried: it must carry on
});
