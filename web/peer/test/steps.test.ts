/** Section 11.1's positions and section 9's rules for DROP and KEEP, and the progression rule (progression-vectors). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { decode, type Encodable, encode, type MsgMap } from "../src/codec.js";
import { type Envelope, NO_PREVIOUS, seal } from "../src/envelope.js";
import { gameIdFor, Identity } from "../src/identity.js";
import { type Fault, Session } from "../src/session.js";
import { mayFollow, positionOf } from "../src/progression.js";
import { cmp, placeProblem, positionOfMessage, voteSlot } from "../src/steps.js";
import { vector } from "./spec.js";

const body = (o: Record<string, number>): MsgMap => decode(encode(o)) as MsgMap;

test("positions: the step of each kind, places at a draft's step 0 and at step 32", () => {
  assert.deepEqual(positionOfMessage("PLAY_REVEAL", body({ round: 1, turn: 2 })), [1, 9, 0]);
  assert.deepEqual(positionOfMessage("DRAFT_PICK", body({ round: 0, pick: 7, card: 3 })), [0, 0, 7]);
  assert.deepEqual(positionOfMessage("ROUND_END", body({ round: 2 })), [2, 32, 1]);
  assert.deepEqual(positionOfMessage("GAME_END", body({ rounds: 3 })), [2, 33, 0]);
  assert.deepEqual(positionOfMessage("STANDIN", body({ round: 0, turn: 9, seat: 1 })), [0, 29, 0]);
  assert.ok(cmp([0, 32, 0], [0, 32, 1]) < 0 && cmp([1, 0, 0], [0, 33, 0]) > 0);
  assert.equal(voteSlot(28, 0, 2), 282); // message-vectors' KEEP
  assert.equal(voteSlot(0, 17, 3), (0 + 34 * 17) * 10 + 3);
  // a sealed game's shuffles and unlocks: at their sender's place (11.1), so a later seat's is a later position
  assert.deepEqual(positionOfMessage("SEALED_SHUFFLE", body({ round: 1 }), 3), [1, 0, 3]);
  assert.deepEqual(positionOfMessage("SEALED_UNLOCK", body({ round: 1 }), 2), [1, 1, 2]);
  assert.ok(cmp([1, 0, 3], [1, 0, 4]) < 0 && cmp([1, 0, 4], [1, 1, 0]) < 0);
  assert.equal(voteSlot(0, 4, 2), 1362); // message-vectors' DROP at seat 4's shuffle
  assert.equal(voteSlot(1, 2, 2), 692); // and KEEP at seat 2's unlock
});

test("a sealed game's DROP at a shuffle or an unlock names the seat as its place", () => {
  assert.match(placeProblem(0, undefined, false, true, 5) ?? "", /without the place it waits on/);
  assert.match(placeProblem(1, undefined, false, true, 5) ?? "", /without the place it waits on/);
  assert.equal(placeProblem(0, 4, false, true, 5), null);
  assert.equal(placeProblem(1, 0, false, true, 5), null);
  assert.match(placeProblem(0, 5, false, true, 5) ?? "", /for place 5 of step 0: a sealed game's shuffles and unlocks have one per seat \(0\.\.4\)/);
  assert.match(placeProblem(1, 0, false, false, 5) ?? "", /with a place, which only step 32/); // the open deal's seed steps have none
});

test("a DROP's place: required where the step has places, refused elsewhere, within range", () => {
  assert.equal(placeProblem(5, undefined, false, false, 4), null);
  assert.match(placeProblem(5, 0, false, false, 4) ?? "", /with a place, which only step 32/);
  assert.match(placeProblem(0, undefined, true, false, 4) ?? "", /without the place it waits on/);
  assert.equal(placeProblem(0, 39, true, false, 4), null);
  assert.match(placeProblem(0, 40, true, false, 4) ?? "", /for pick 41: a draft has 40 picks/);
  assert.equal(placeProblem(32, 1, false, false, 4), null);
  assert.match(placeProblem(32, 0, false, false, 4) ?? "", /for place 0 of step 32 \(SEALED_KEYS\) in a game with the open deal/); // keys only in a sealed game
  assert.equal(placeProblem(32, 0, false, true, 4), null);
  assert.match(placeProblem(32, 2, false, true, 4) ?? "", /for place 2 of step 32: it has 0 \(SEALED_KEYS\) and 1 \(ROUND_END\)/);
});

test("progression: at or after the last position, at most one turn on, or turn 0 of the next round", () => {
  const at = { round: 1, turn: 4 };
  assert.ok(mayFollow(at, { round: 1, turn: 4 }, false));
  assert.ok(mayFollow(at, { round: 1, turn: 5 }, false));
  assert.ok(!mayFollow(at, { round: 1, turn: 6 }, false));
  assert.ok(!mayFollow(at, { round: 1, turn: 3 }, false));
  assert.ok(mayFollow(at, { round: 2, turn: 0 }, false));
  assert.ok(!mayFollow(at, { round: 3, turn: 0 }, false));
  assert.ok(mayFollow(at, { round: 3, turn: 0 }, true)); // after a REJOIN
  // ROUND_END of the round of the last position keeps its turn (a round may end early); of another round, turn 0
  assert.deepEqual(positionOf("ROUND_END", 1, null, null, at), { round: 1, turn: 4 });
  assert.deepEqual(positionOf("DROP", 1, null, 32, at), { round: 1, turn: 4 });
  assert.deepEqual(positionOf("DROP", 2, null, 32, at), { round: 2, turn: 9 });
  assert.deepEqual(positionOf("KEEP", 1, null, 17, at), { round: 1, turn: 5 });
  assert.equal(positionOf("GAME_END", 0, null, null, at), null);
});

test("progression-vectors: seat 1's messages on a spectator's session, each taken or the last refused in the reference's words (9)", () => {
  const v = vector("progression-vectors");
  const hashes: Record<string, string[]> = { PLAY_COMMIT: ["commit", "state"], PLAY_REVEAL: ["nonce", "commits"], SEED_COMMIT: ["commit"],
    SEED_REVEAL: ["contribution", "nonce"], ROUND_END: ["state"], GAME_END: ["state"] }; // section 9's hash fields of these kinds
  const seats = [1, 2, 3].map((i) => new Identity(new Uint8Array(32).fill(i)));
  const salt = new Uint8Array(16).fill(7);
  const game = gameIdFor((seats[0] as Identity).publicKey, salt);
  const start = seal(seats[0] as Identity, game, 0, NO_PREVIOUS, "START", {
    salt, settings: { variant: "standard", point_limit: null, max_rounds: 3, deal: "open" },
    roster: seats.map((seat, i) => ({ key: seat.publicKey, name: "abc"[i] as string, bot: false })),
  });
  const acks = seats.slice(1).map((seat) => seal(seat, game, 0, NO_PREVIOUS, "START_ACK", { start: start.hash }));
  let refused = 0;
  for (const c of v.cases as { why: string; messages: [string, Record<string, Encodable>][]; refusal: string | null }[]) {
    const session = new Session(game);
    for (const env of [start, ...acks]) assert.deepEqual(session.receive(env.wire), []);
    let prev = (acks[0] as Envelope).hash;
    let found: string | null = null;
    c.messages.forEach(([kind, given], i) => {
      assert.equal(found, null, c.why); // only the last message may prove a fault
      const body = new Map<string, Encodable>(Object.entries(given));
      for (const field of hashes[kind] ?? []) if (!body.has(field)) body.set(field, new Uint8Array(32));
      const env = seal(seats[1] as Identity, game, i + 1, prev, kind, body);
      prev = env.hash;
      const faults = session.receive(env.wire);
      found = faults.length ? `${(faults[0] as Fault).code}: ${(faults[0] as Fault).detail}` : null;
    });
    assert.equal(found, c.refusal, c.why);
    if (found !== null) refused += 1;
  }
  assert.ok(refused > 0 && refused < v.cases.length);
});
