/** The ids a node met (web/peer/src/ids.ts): one table per node, bounded. Ids are what peers send, so a table shared
 * by every session of a process (as it was before: one for the whole process) let a flood of made-up ids reaching
 * one session cost every other session of the process (a page's rematch, the mixed tables' node process) its shared
 * copies, and kept ids of finished games for as long as the process ran. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode } from "../src/codec.js";
import { NO_PREVIOUS, seal } from "../src/envelope.js";
import { gameIdFor, Identity } from "../src/identity.js";
import { MAX_IDS } from "../src/ids.js";
import { Session } from "../src/session.js";

const host = new Identity(new Uint8Array(32).fill(1));
const other = new Identity(new Uint8Array(32).fill(2));
const salt = new Uint8Array(16).fill(7);
const game = gameIdFor(host.publicKey, salt);

/** A START of two seats, seat 1's START_ACK and SEED_COMMIT: wires a session takes without a fault. */
function threeMessages(): Uint8Array[] {
  const start = seal(host, game, 0, NO_PREVIOUS, "START", {
    salt, settings: { variant: "standard", point_limit: null, max_rounds: 1, deal: "open" },
    roster: [{ key: host.publicKey, name: "a", bot: false }, { key: other.publicKey, name: "b", bot: false }],
  });
  const ack = seal(other, game, 0, NO_PREVIOUS, "START_ACK", { start: start.hash });
  const first = seal(other, game, 1, ack.hash, "SEED_COMMIT", { round: 0, commit: new Uint8Array(32) });
  return [start.wire, ack.wire, first.wire];
}

/** A message of this game from made-up sender number `k` (its signature is never checked: it waits for a START). */
function madeUp(k: number): Uint8Array {
  const sender = new Uint8Array(16);
  new DataView(sender.buffer).setUint32(0, k);
  new DataView(sender.buffer).setUint32(12, k * 7919);
  const signed = encode([1, game, sender, 0, NO_PREVIOUS, "SEED_COMMIT", { round: 0, commit: new Uint8Array(32) }]);
  return encode([signed, new Uint8Array(64)]);
}

test("a flood of made-up sender ids fills its own node's table, bounded, and no other session's", () => {
  const flooded = new Session(game);
  for (let k = 0; k < 3 * MAX_IDS; k++) assert.deepEqual(flooded.receive(madeUp(k)), []);
  assert.equal(flooded.inbox.ids.size, MAX_IDS); // the game's id and the first MAX_IDS - 1 senders: no more

  const fresh = new Session(game);
  assert.equal(fresh.inbox.ids.size, 0);
  for (const wire of threeMessages()) assert.deepEqual(fresh.receive(wire), []);
  const [start, ack, commit] = fresh.accepted;
  assert.ok(start && ack && commit);
  // one copy of seat 1's id and of the game's for all of its messages (before, once the flood had filled the
  // process's one table, every message kept a view of its own)
  assert.equal(ack.sender, commit.sender);
  assert.equal(start.game, commit.game);
  assert.deepEqual(commit.sender, other.peer);
  assert.equal(fresh.inbox.ids.size, 3); // the game, the host and seat 1

  // the flooded session still plays (the START releases the made-up messages it held, each refused): its table is
  // full, its messages keep views of their own ids
  const refused = threeMessages().flatMap((wire) => flooded.receive(wire));
  assert.ok(refused.length > 0 && refused.every((f) => f.code === "unknown-sender" && !f.fatal));
  assert.equal(flooded.accepted.length, 3);
  assert.deepEqual(flooded.accepted[2]?.sender, other.peer);
  assert.equal(flooded.inbox.ids.size, MAX_IDS);
});

test("an id's key is its hex, the same string every time, whether or not the table has room", () => {
  const session = new Session(game);
  for (let k = 0; k < MAX_IDS + 10; k++) session.receive(madeUp(k));
  const ids = session.inbox.ids;
  assert.equal(ids.key(other.peer), Buffer.from(other.peer).toString("hex"));
  assert.equal(ids.key(other.peer), ids.key(other.peer.slice()));
  assert.equal(ids.size, MAX_IDS);
});
